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

// Mesh-sequence keyframes: stepping through a sequence (each step uploads one new keyframe into the slot the
// previous frame's first keyframe held), frame by frame equal to the cpu.
TEST_F(CudaVsCpuFixture, KeyframesStepThroughASequence) {
  const Scene s = procedural_scene("torus_knot", 5000);
  set_mesh(s.mesh);
  std::vector<std::vector<glm::vec3>> frames;
  for (int k = 0; k < 4; ++k) {
    frames.push_back(s.mesh.positions);
    for (glm::vec3& p : frames.back()) p = glm::vec3(p.x * (1.0f + 0.1f * k), p.y + 0.05f * k, p.z);
  }
  for (int k = 0; k + 1 < 4; ++k) {
    for (float mix : {0.0f, 0.5f}) {
      const Keyframes kf{static_cast<uint64_t>(k), static_cast<uint64_t>(k + 1), k == 0 ? frames[0].data() : nullptr,
                         frames[static_cast<size_t>(k) + 1].data(), mix};
      FrameSettings f = settings_for(s, 128, 96, 8);
      f.keyframes = &kf;
      expect_same(f, "step " + std::to_string(k) + " mix " + std::to_string(mix));
    }
  }
}

}  // namespace
}  // namespace slabcast::test
