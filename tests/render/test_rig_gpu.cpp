// The rig on the cuda backend against the cpu backend, stage by stage, with the pose changing between frames of one
// frame graph; and the posed frame against the brute-force oracle.
#include <gtest/gtest.h>

#include "render/cuda_vs_cpu.h"
#include "render/procedural_rig.h"

namespace slabcast::test {
namespace {

TEST_F(CudaVsCpuFixture, RiggedMeshFrameByFrame) {
  Scene s = procedural_scene("torus_knot", 6000);
  add_procedural_rig(s.mesh, 7);
  set_mesh(s.mesh);
  for (int k = 0; k < 5; ++k) {
    const FramePose pose = procedural_rig_pose(s.mesh, 0.6f * static_cast<float>(k));
    FrameSettings f = settings_for(s, 160, 120, 8, k == 2 ? Shading::normals : Shading::phong);
    f.pose = &pose;
    if (k >= 3) f.deform.kind = Deformer::wave;  // a procedural deformer on top of the pose
    f.deform.time = 0.3f * static_cast<float>(k);
    const Frames r = expect_same(f, "frame " + std::to_string(k));
    if (k == 1) {
      const OracleImage oracle = oracle_cast(r.gpu.deformed, s.mesh.indices, s.camera, f.width, f.height);
      const OracleComparison cmp = compare_with_oracle(oracle, r.gpu.deformed, s.mesh.indices, s.camera, r.gpu.extras);
      EXPECT_TRUE(cmp.ok()) << cmp.unjustified << " unjustified, " << cmp.depth_errors << " depth errors\n" << cmp.log;
    }
  }
  // Without a pose: the rest positions, on both.
  const Frames rest = expect_same(settings_for(s, 160, 120, 8), "rest pose");
  EXPECT_EQ(rest.gpu.deformed, s.mesh.positions);
}

}  // namespace
}  // namespace slabcast::test
