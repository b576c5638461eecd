// The user displacement and the vertex selection on the cuda backend against the cpu backend: displaced frames stage
// by stage while the offset changes under one key (one frame graph) and the arrays change with a new key, and the
// selection of the same frame record for record.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "render/cuda_vs_cpu.h"

namespace slabcast::test {
namespace {

void expect_same_selection(const std::vector<SelectedVertex>& cpu, const std::vector<SelectedVertex>& gpu,
                           const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_EQ(cpu.size(), gpu.size());
  for (size_t i = 0; i < cpu.size(); ++i) {
    ASSERT_EQ(std::memcmp(&cpu[i], &gpu[i], sizeof(SelectedVertex)), 0)
        << "record " << i << ": cpu vertex " << cpu[i].vertex << " (" << cpu[i].x << ", " << cpu[i].y << ", "
        << cpu[i].depth << "), cuda vertex " << gpu[i].vertex << " (" << gpu[i].x << ", " << gpu[i].y << ", "
        << gpu[i].depth << ")";
  }
}

TEST_F(CudaVsCpuFixture, DisplacedFramesAndTheirSelections) {
  const Scene s = procedural_scene("torus_knot", 6000, Deformer::twist, 0.5f);
  set_mesh(s.mesh);
  const size_t V = s.mesh.positions.size();
  std::vector<glm::vec3> offsets(V, glm::vec3(0.0f));
  std::vector<float> weights(V, 0.0f);
  for (size_t v = 0; v < V; ++v) {
    if (v % 7 == 0) offsets[v] = glm::vec3(0.02f, -0.01f, 0.03f);
    weights[v] = v % 3 == 0 ? 1.0f : (v % 3 == 1 ? 0.25f : 0.0f);
  }
  Displacement d;
  d.key = 1;
  d.offsets = offsets.data();
  d.weights = weights.data();
  const std::vector<ImageRect> rects = {{40.0f, 30.0f, 120.0f, 90.0f}, {0.0f, 0.0f, 160.0f, 120.0f},
                                        {80.0f, 0.0f, 81.0f, 120.0f}, {90.0f, 10.0f, 20.0f, 50.0f}};
  for (int k = 0; k < 4; ++k) {
    FrameSettings f = settings_for(s, 160, 120, 8);
    f.deform.time = 0.25f * static_cast<float>(k);
    d.offset = glm::vec3(0.05f * static_cast<float>(k), 0.1f, -0.02f * static_cast<float>(k));
    if (k == 2) {  // new arrays under a new key
      for (float& w : weights) w = 1.0f - w;
      d.key = 2;
    }
    if (k == 3) f.samples = 4;  // the selection projects with the last sample frame's camera
    f.displacement = &d;
    const std::string what = "frame " + std::to_string(k);
    expect_same(f, what);
    for (size_t i = 0; i < rects.size(); ++i) {
      expect_same_selection(cpu->select_vertices(rects[i]), gpu->select_vertices(rects[i]),
                            what + ", rect " + std::to_string(i));
    }
  }
  EXPECT_FALSE(gpu->select_vertices(rects[0]).empty());
  // Without the displacement again: the plain frame on both.
  expect_same(settings_for(s, 160, 120, 8), "no displacement");
}

// A mesh whose vertices lie on both sides of the camera plane: both backends leave the same ones out.
TEST_F(CudaVsCpuFixture, SelectionFromInsideTheMesh) {
  const Scene s = procedural_scene("sphere", 5000);
  set_mesh(s.mesh);
  FrameSettings f = settings_for(s, 128, 96, 8);
  f.camera.eye = glm::vec3(0.0f, 0.0f, 0.01f);
  f.camera.target = glm::vec3(0.0f, 0.0f, -1.0f);
  f.camera.fovy_degrees = 120.0f;
  expect_same(f, "inside");
  const ImageRect everywhere{-INFINITY, -INFINITY, INFINITY, INFINITY};
  expect_same_selection(cpu->select_vertices(everywhere), gpu->select_vertices(everywhere), "everywhere");
  expect_same_selection(cpu->select_vertices({10.0f, 10.0f, 100.0f, 60.0f}),
                        gpu->select_vertices({10.0f, 10.0f, 100.0f, 60.0f}), "a box");
}

}  // namespace
}  // namespace slabcast::test
