// Shadows on the cuda backend against the cpu backend: the mask, the statistics and the image, scene by scene; long
// light-tile lists; a deforming animation; the light moving between frames of one frame graph; buffers that grow; the
// images of frames drawn without the hit buffers, in every view.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "render/appearance_scenes.h"
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

// Frames without the hit buffers, as the benchmark and the viewer draw them: the caster shading as if lit and the test
// writing the shadowed pixels' grey (a lit view of a mesh without materials or wireframe), the caster alone (the views
// the mask leaves alone), or a shade kernel after the mask (the mask's view, the heat views, a lit view with the
// wireframe or of a mesh with materials). Each image must equal the cpu's bit for bit (the surface starts poisoned, so
// a pixel left unwritten differs), under a sun and a point light.
TEST_F(CudaVsCpuFixture, ShadowFramesWithoutHitBuffersMatchTheCpu) {
  const ShadowScene cases[] = {{on_floor("torus_knot", 3000, Deformer::twist), sun(1.0f, 2.0f, 0.5f)},
                               {on_floor("sphere", 2000), point_light(0.4f, 1.5f, 0.3f)},
                               {appearance_scene("torus", 4000, Deformer::twist, 0.7f), sun(1.0f, 2.0f, 0.5f)}};
  const Shading views[] = {Shading::phong,       Shading::flat,      Shading::albedo, Shading::depth,
                           Shading::triangle_id, Shading::ray_tests, Shading::shadow};
  for (const ShadowScene& c : cases) {
    make_renderers();
    set_mesh(c.scene.mesh);
    for (Shading view : views) {
      for (bool wireframe : {false, true}) {
        FrameSettings f = shadow_settings(c, 131, 97);
        f.shading = view;
        f.wireframe = wireframe;
        const std::string what = shadow_case_label(c) + ", view " + std::to_string(static_cast<int>(view)) +
                                 (wireframe ? ", wireframe" : "");
        const Frame expected = render_frame(*cpu, f);
        DeviceSurface surface(f.width, f.height);
        const FrameStats stats = gpu->render(f, surface.surface(), nullptr);
        std::vector<uint8_t> rgba;
        EXPECT_TRUE(surface.download(rgba)) << what << ": the cuda backend wrote into the row padding";
        ASSERT_EQ(rgba.size(), expected.rgba.size()) << what;
        uint64_t differing = 0;
        for (size_t i = 0; i < rgba.size(); i += 4) differing += std::memcmp(&rgba[i], &expected.rgba[i], 4) != 0;
        EXPECT_EQ(differing, 0u) << what << ": pixels that differ from the cpu's";
        EXPECT_EQ(stats.shadow_samples, expected.stats.shadow_samples) << what;
        const auto& mask = expected.extras.shadow_mask;
        EXPECT_GT(std::count(mask.begin(), mask.end(), uint8_t{0}), 0) << what << ": no pixel in shadow";
      }
    }
  }
}

}  // namespace
}  // namespace slabcast::test
