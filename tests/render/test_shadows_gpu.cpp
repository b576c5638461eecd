// Shadows on the cuda backend against the cpu backend: the mask, the statistics and the image, scene by scene; long
// light-tile lists; a deforming animation; the light moving between frames of one frame graph; buffers that grow.
#include <gtest/gtest.h>

#include "render/cuda_vs_cpu.h"
#include "render/shadow_scenes.h"

namespace slabcast::test {
namespace {

class CudaShadows : public CudaVsCpuFixture, public ::testing::WithParamInterface<int> {};

TEST_P(CudaShadows, MatchTheCpu) {
  const ShadowScene c = shadow_scenes()[static_cast<size_t>(GetParam())];
  set_mesh(c.scene.mesh);
  for (const auto& [w, h] : {std::pair<int, int>{96, 80}, {331, 197}}) {
    const Frames r = expect_same(shadow_settings(c, w, h), shadow_case_label(c) + " " + std::to_string(w) + "x" +
                                                               std::to_string(h));
    EXPECT_GT(r.gpu.stats.shadow_samples, 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(Scenes, CudaShadows, ::testing::Range(0, static_cast<int>(shadow_scenes().size())));

// Slivers over the knot (shadow_scenes.h): light tiles whose lists take a warp several rounds, first blockers deep in
// them, a warp's samples in many tiles or on several cube faces, and a large-triangle list of hundreds; under a
// steep sun, a low one and a point light.
TEST_F(CudaVsCpuFixture, ShadowsUnderACloudOfSlivers) {
  for (const auto& [slivers, reach] : {std::pair<int, float>{3000, 0.2f}, {1000, 0.4f}}) {
    const Scene s = sliver_cloud_scene(slivers, reach);
    set_mesh(s.mesh);
    for (const Light& light : {sun(0.3f, 2.0f, 0.4f), sun(-3.0f, 0.6f, 1.0f), point_light(0.2f, 2.5f, 0.3f)}) {
      const ShadowScene c{s, light};
      for (const auto& [w, h] : {std::pair<int, int>{96, 80}, {331, 197}}) {
        const Frames r = expect_same(shadow_settings(c, w, h), shadow_case_label(c) + " " + std::to_string(w) + "x" +
                                                                   std::to_string(h));
        EXPECT_GT(r.gpu.stats.shadow_tests, 5 * r.gpu.stats.shadow_samples);  // long lists
      }
    }
  }
}

// An animation: the deformer's time and the sun move every frame (one frame graph), and each frame matches the cpu.
TEST_F(CudaVsCpuFixture, ShadowsOfADeformingMeshFrameByFrame) {
  const ShadowScene c{on_floor("torus_knot", 3000, Deformer::wave), sun(1.0f, 2.0f, 0.5f)};
  set_mesh(c.scene.mesh);
  for (int k = 0; k < 6; ++k) {
    FrameSettings f = shadow_settings(c, 128, 96);
    f.deform.time = 0.25f * k;
    f.light.vector = glm::vec3(1.0f - 0.3f * k, 2.0f, 0.5f + 0.2f * k);
    if (k == 3) f.shading = Shading::shadow;
    expect_same(f, "frame " + std::to_string(k));
  }
}

// A tiny light-reference buffer: the light-space references overflow, the buffers grow, the frame is redone, and the
// result is the cpu's.
TEST_F(CudaVsCpuFixture, LightReferencesGrowAndTheFrameIsRedone) {
  RendererOptions tiny;
  tiny.initial_reference_capacity = 16;
  make_renderers(tiny);
  const ShadowScene c{on_floor("torus_knot", 3000), sun(1.0f, 2.0f, 0.5f)};
  set_mesh(c.scene.mesh);
  const Frames r = expect_same(shadow_settings(c, 640, 480), "640x480");
  EXPECT_GE(r.gpu.stats.frame_redone, 1);
}

// Switching shadows on and off, and between a sun and a point light, on one renderer.
TEST_F(CudaVsCpuFixture, ShadowsOnOffAndLightKinds) {
  const ShadowScene c{on_floor("sphere", 3000), sun(1.0f, 2.0f, 0.5f)};
  set_mesh(c.scene.mesh);
  FrameSettings f = shadow_settings(c, 120, 90);
  expect_same(f, "sun");
  f.shadows = false;
  expect_same(f, "sun, no shadows");
  f.shadows = true;
  f.light = point_light(0.5f, 3.0f, 0.5f);
  expect_same(f, "point");
  f.light = Light{};
  expect_same(f, "headlight");
}

}  // namespace
}  // namespace slabcast::test
