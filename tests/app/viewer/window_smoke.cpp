// The GLFW window for a few frames with a screenshot: `viewer_window_smoke [--require-window] OUT.png`.
// Exits 77 (ctest: SKIPPED) when no window can be opened, unless --require-window (run under xvfb-run, where a
// window must open); 1 on any failure, with the reason on stderr.
#include "app/image_io.h"
#include "app/viewer/viewer.h"
#include "tests/app/viewer/window_test_main.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

namespace {
constexpr int kFrames = 5;
constexpr int kWidth = 800, kHeight = 600;
}  // namespace

int main(int argc, char** argv) {
  slabcast::viewer_test::WindowTestArgs args;
  if (const auto exit_code = slabcast::viewer_test::start_window_test(argc, argv, "viewer_window_smoke", &args)) {
    return *exit_code;
  }
  const std::string& out = args.out;

  slabcast::ViewOptions options;
  options.scene.procedural_name = "sphere";
  options.scene.procedural_triangles = 20000;
  options.frame.width = kWidth;
  options.frame.height = kHeight;
  options.frame.deform = {slabcast::Deformer::twist, 1.0f, 0.0f};
  options.backend = slabcast::Backend::cpu;  // the window's GL may not be on a CUDA device (Xvfb: Mesa)
  options.frames = kFrames;
  options.frames_given = true;
  options.screenshot_path = out;
  options.vsync = false;
  options.fallback_to_headless = false;  // a headless frame would not test the window
  const int code = slabcast::run_viewer(options);
  if (code != 0) {
    std::fprintf(stderr, "viewer_window_smoke: run_viewer returned %d\n", code);
    return 1;
  }
  const slabcast::Rgba8Image image = slabcast::read_png(out);
  if (image.width != kWidth || image.height != kHeight) {
    std::fprintf(stderr, "viewer_window_smoke: screenshot is %dx%d, expected %dx%d\n", image.width, image.height,
                 kWidth, kHeight);
    return 1;
  }
  // The frame shows something: the model and the overlay, so many distinct colours.
  size_t changes = 0;
  for (size_t i = 4; i < image.pixels.size(); i += 4) changes += image.pixels[i] != image.pixels[i - 4];
  if (changes < 1000) {
    std::fprintf(stderr, "viewer_window_smoke: the screenshot is nearly uniform (%zu colour changes)\n", changes);
    return 1;
  }
  std::printf("viewer_window_smoke: %d frames, screenshot %s (%dx%d)\n", kFrames, out.c_str(), image.width,
              image.height);
  return 0;
}
