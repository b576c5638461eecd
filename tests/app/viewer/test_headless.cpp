// The headless viewer on an EGL device (Mesa's software device where there is no NVIDIA GPU) with the cpu
// backend: the whole display path (host upload into the PBO -> texture -> full-screen pass) and the overlay.
//
// Tolerance: none. At resolution scale 1 the full-screen pass samples the texture 1:1 with GL_NEAREST, and RGBA8
// goes through the PBO, the texture and the framebuffer unconverted, so the 3D image must equal the renderer's
// frame bit for bit; any difference is a bug in the display path (a flip, an off-by-one texel, a filter, sRGB).
#include "viewer_test_util.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

namespace slabcast::test {
namespace {

using viewer::HeadlessFrame;
using viewer::PixelRect;
using viewer::render_headless;

TEST(ViewerHeadless, SceneEqualsTheCpuRenderersFrame) {
  const ViewOptions options = small_scene_options(Backend::cpu);
  const HeadlessFrame frame = render_headless(options);
  EXPECT_EQ(frame.backend, Backend::cpu);
  EXPECT_EQ(frame.feed, gl::Feed::host_upload);
  const Rgba8Image reference = reference_frame(options, options.frame.deform.time);
  const ImageDiff diff = compare(frame.scene, reference);
  EXPECT_EQ(diff.differing_pixels, 0u) << diff.describe() << "\nGL: " << frame.gl_description;
  if (diff.differing_pixels != 0) {
    write_png(output_path("headless_scene.png"), frame.scene.pixels.data(), frame.scene.width, frame.scene.height,
              static_cast<size_t>(frame.scene.width) * 4);
    write_png(output_path("reference.png"), reference.pixels.data(), reference.width, reference.height,
              static_cast<size_t>(reference.width) * 4);
  }
}

TEST(ViewerHeadless, OverlayIsDrawnAndChangesOnlyItsPanels) {
  const ViewOptions options = small_scene_options(Backend::cpu);
  const HeadlessFrame frame = render_headless(options);
  const int w = frame.composite.width, h = frame.composite.height;
  ASSERT_EQ(frame.overlay.size(), 2u) << "the statistics and the controls panel";
  for (const PixelRect& r : frame.overlay) {
    EXPECT_GT(r.width, 100);
    EXPECT_GT(r.height, 100);
    EXPECT_GE(r.x, 0);
    EXPECT_GE(r.y, 0);
    EXPECT_LE(r.x + r.width, w);
  }
  const std::vector<uint8_t> inside = rect_mask(w, h, frame.overlay);
  std::vector<uint8_t> outside(inside.size());
  for (size_t i = 0; i < inside.size(); ++i) outside[i] = inside[i] ? 0 : 1;

  // Outside the panels the composite is the 3D image, untouched.
  const ImageDiff outside_diff = compare(frame.composite, frame.scene, &outside);
  EXPECT_EQ(outside_diff.differing_pixels, 0u) << outside_diff.describe();
  // Inside them the overlay is really there: most pixels change (panel background, text, widgets).
  size_t panel_pixels = 0;
  for (uint8_t m : inside) panel_pixels += m;
  const ImageDiff inside_diff = compare(frame.composite, frame.scene, &inside);
  EXPECT_GT(inside_diff.differing_pixels, panel_pixels / 2) << "the overlay left its panels mostly unchanged";
  // ...and what the panels leave uncovered shows the shaded model, not only the background.
  std::set<uint32_t> colours;
  for (size_t i = 0; i < outside.size(); ++i) {
    if (outside[i] == 0) continue;
    const uint8_t* p = &frame.composite.pixels[4 * i];
    colours.insert(uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16);
  }
  EXPECT_GT(colours.size(), 16u) << "the model is not visible outside the overlay's panels";
}

TEST(ViewerHeadless, AnimationAdvancesASixtiethOfASecondPerFrame) {
  ViewOptions options = small_scene_options(Backend::cpu);
  options.animate = true;
  options.frames = 3;
  const HeadlessFrame frame = render_headless(options);
  const float final_time = headless_final_time(options);
  ASSERT_NE(final_time, options.frame.deform.time);
  const ImageDiff diff = compare(frame.scene, reference_frame(options, final_time));
  EXPECT_EQ(diff.differing_pixels, 0u) << diff.describe();
  const ImageDiff moved = compare(frame.scene, reference_frame(options, options.frame.deform.time));
  EXPECT_GT(moved.differing_pixels, 0u) << "the twist did not move between frame 1 and frame 3";
}

TEST(ViewerHeadless, HiddenOverlayLeavesTheSceneAlone) {
  ViewOptions options = small_scene_options(Backend::cpu);
  options.show_overlay = false;
  const HeadlessFrame frame = render_headless(options);
  EXPECT_TRUE(frame.overlay.empty());
  const ImageDiff diff = compare(frame.composite, frame.scene);
  EXPECT_EQ(diff.differing_pixels, 0u) << diff.describe();
}

#ifdef SLABCAST_EXE
// The command line end to end: `slabcast view --headless` against `slabcast render` with the same flags.
int run(const std::string& command) {
  const int status = std::system((command + " > /dev/null").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(ViewerHeadlessCli, MatchesSlabcastRenderCpu) {
  const std::string scene = " --procedural sphere:20000 --size 800x600 --deform twist:1 --time 0.5 --backend cpu";
  const std::string rendered = output_path("cli_render.png"), viewed = output_path("cli_view_3d.png"),
                    composite = output_path("cli_view.png");
  ASSERT_EQ(run(std::string(SLABCAST_EXE) + " render" + scene + " --out " + rendered), 0);
  ASSERT_EQ(run(std::string(SLABCAST_EXE) + " view --headless --pause --frames 2" + scene + " --screenshot-3d-only" +
                " --screenshot " + viewed), 0);
  ASSERT_EQ(run(std::string(SLABCAST_EXE) + " view --headless --pause" + scene + " --screenshot " + composite), 0);
  const Rgba8Image a = read_png(rendered), b = read_png(viewed), c = read_png(composite);
  const ImageDiff diff = compare(a, b);
  EXPECT_EQ(diff.differing_pixels, 0u) << diff.describe();
  // The composite carries the overlay: it differs from the 3D image, but not everywhere.
  const ImageDiff overlay = compare(a, c);
  EXPECT_GT(overlay.differing_pixels, 0u);
  EXPECT_LT(overlay.differing_pixels, static_cast<size_t>(a.width) * static_cast<size_t>(a.height));
}

// Anti-aliased frames take the same path: the viewer's surface gets the samples' average, as render's PNG does.
TEST(ViewerHeadlessCli, SamplesMatchSlabcastRenderCpu) {
  const std::string scene = " --procedural torus:5000 --size 160x120 --deform twist:1 --time 0.5 --backend cpu"
                            " --samples 4";
  const std::string rendered = output_path("cli_render_samples.png"), viewed = output_path("cli_view_samples.png");
  ASSERT_EQ(run(std::string(SLABCAST_EXE) + " render" + scene + " --out " + rendered), 0);
  ASSERT_EQ(run(std::string(SLABCAST_EXE) + " view --headless --pause --frames 2" + scene + " --screenshot-3d-only" +
                " --screenshot " + viewed), 0);
  const ImageDiff diff = compare(read_png(rendered), read_png(viewed));
  EXPECT_EQ(diff.differing_pixels, 0u) << diff.describe();
}

// Without --screenshot the frame goes to slabcast-view.png in the working folder, and never over an existing file.
TEST(ViewerHeadlessCli, TheDefaultScreenshotNeverReplacesAFile) {
  const std::filesystem::path folder = std::filesystem::path(output_path("default_screenshot.png")).parent_path() /
                                       "default_screenshot";
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  { std::ofstream(folder / "slabcast-view.png") << "the user's own file"; }
  const std::string command = "cd '" + folder.string() + "' && " + SLABCAST_EXE +
                              " view --headless --backend cpu --procedural sphere:2000 --size 64x48 --frames 1";
  ASSERT_EQ(run(command), 0);
  ASSERT_EQ(run(command), 0);
  std::ifstream kept(folder / "slabcast-view.png");
  std::string text;
  std::getline(kept, text);
  EXPECT_EQ(text, "the user's own file");
  EXPECT_EQ(read_png((folder / "slabcast-view-2.png").string()).width, 64);
  EXPECT_EQ(read_png((folder / "slabcast-view-3.png").string()).width, 64);
}
#endif

}  // namespace
}  // namespace slabcast::test
