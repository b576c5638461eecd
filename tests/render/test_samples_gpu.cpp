// Anti-aliasing (FrameSettings::samples) on the cuda backend against the cpu backend: the averaged image bit for bit,
// the centre rays' extras, the last sample's structure and the summed statistics, at two sizes, with and without
// shadows; the sample count changing between frames of one renderer; progressive samples step by step, ending as the
// whole frame.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "render/cuda_vs_cpu.h"
#include "render/shadow_scenes.h"

namespace slabcast::test {
namespace {

// expect_same_frame allows one step a channel for shading in general; the average of identical samples is exact.
void expect_same_image(const Frame& cpu, const Frame& gpu, const std::string& what) {
  ASSERT_EQ(cpu.rgba.size(), gpu.rgba.size()) << what;
  size_t differing = 0;
  for (size_t i = 0; i < cpu.rgba.size(); ++i) differing += cpu.rgba[i] != gpu.rgba[i] ? 1 : 0;
  EXPECT_EQ(differing, 0u) << what << ": colour channels that differ between cpu and cuda";
}

TEST_F(CudaVsCpuFixture, SamplesMatchTheCpuBitForBit) {
  const Scene s = procedural_scene("torus_knot", 6000, Deformer::wave, 0.9f);
  set_mesh(s.mesh);
  for (const auto& [w, h] : {std::pair<int, int>{96, 80}, {331, 197}}) {
    for (const int n : {4, 16}) {
      FrameSettings f = settings_for(s, w, h, 16);
      f.samples = n;
      const std::string what = std::to_string(w) + "x" + std::to_string(h) + ", " + std::to_string(n) + " samples";
      const Frames r = expect_same(f, what);
      expect_same_image(r.cpu, r.gpu, what);
    }
  }
}

TEST_F(CudaVsCpuFixture, SamplesWithShadowsMatchTheCpuBitForBit) {
  for (const ShadowScene& c : {ShadowScene{on_floor("torus_knot", 2000), sun(1.0f, 2.0f, 0.5f)},
                               ShadowScene{on_floor("torus", 1500, Deformer::twist), point_light(0.4f, 1.6f, 0.3f)}}) {
    set_mesh(c.scene.mesh);
    for (const auto& [w, h] : {std::pair<int, int>{96, 80}, {331, 197}}) {
      for (const int n : {4, 16}) {
        FrameSettings f = shadow_settings(c, w, h);
        f.samples = n;
        const std::string what = shadow_case_label(c) + " " + std::to_string(w) + "x" + std::to_string(h) + ", " +
                                 std::to_string(n) + " samples";
        const Frames r = expect_same(f, what);
        expect_same_image(r.cpu, r.gpu, what);
        EXPECT_GT(r.gpu.stats.shadow_samples, 0u) << what;
      }
    }
  }
}

// One renderer through 1, 4, 16 and back, the size changing too (the sums grow, the frame graph is reused across
// the samples' offsets), a heat view and the wireframe among them.
TEST_F(CudaVsCpuFixture, SampleCountsChangingBetweenFrames) {
  const Scene s = procedural_scene("stress", 3000, Deformer::bend, 0.5f);
  set_mesh(s.mesh);
  const int counts[] = {1, 4, 16, 4, 1, 16};
  for (int k = 0; k < 6; ++k) {
    FrameSettings f = settings_for(s, k < 3 ? 64 : 130, k < 3 ? 48 : 70, 8);
    f.samples = counts[k];
    f.deform.time = 0.2f * k;
    if (k == 3) f.shading = Shading::ray_tests;
    f.wireframe = k == 5;
    const std::string what = "frame " + std::to_string(k) + ", " + std::to_string(counts[k]) + " samples";
    const Frames r = expect_same(f, what);
    expect_same_image(r.cpu, r.gpu, what);
  }
}

// FrameSettings::progressive_sample: every step's average so far equals the cpu's bit for bit (a fresh, poisoned
// surface each call: the sums live in the renderer), and the last step is the N-sample frame of one call. A restart
// at 0 after the camera moved midway forgets the device's sums.
TEST_F(CudaVsCpuFixture, ProgressiveSamplesMatchTheCpuAndEndAsTheWholeFrame) {
  const Scene s = procedural_scene("torus_knot", 6000, Deformer::wave, 0.9f);
  set_mesh(s.mesh);
  for (const auto& [w, h] : {std::pair<int, int>{96, 80}, {331, 197}}) {
    for (const int n : {4, 16}) {
      FrameSettings f = settings_for(s, w, h, 16);
      f.samples = n;
      const std::string what = std::to_string(w) + "x" + std::to_string(h) + ", " + std::to_string(n) + " samples";
      // Half the samples at the first view, then the camera moves and the progression starts again.
      for (int k = 0; k < n / 2; ++k) {
        f.progressive_sample = k;
        const std::string step = what + ", before the move, progressive sample " + std::to_string(k);
        const Frames r = expect_same(f, step);
        expect_same_image(r.cpu, r.gpu, step);
      }
      f.camera.eye += glm::vec3(0.3f, -0.2f, 0.1f);
      Frames last;
      for (int k = 0; k < n; ++k) {
        f.progressive_sample = k;
        const std::string step = what + ", progressive sample " + std::to_string(k);
        last = expect_same(f, step);
        expect_same_image(last.cpu, last.gpu, step);
      }
      f.progressive_sample = -1;
      const Frames whole = expect_same(f, what + ", whole");
      EXPECT_EQ(last.gpu.rgba, whole.gpu.rgba) << what << ": the last progressive step is not the whole frame";
    }
  }
}

}  // namespace
}  // namespace slabcast::test
