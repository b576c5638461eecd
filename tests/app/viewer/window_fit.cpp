// The default window fits a small screen: `viewer_window_fit [--require-window] OUT.png`, run under xvfb-run with a
// 1024x768 screen. The viewer's default 1024x1024 window must open shrunk into the screen's work area, keeping its
// shape: the screenshot (the window's framebuffer) is at most 90% of the screen each way, and square. A size given
// with --size is kept (the second run). Exits 77 (SKIPPED) without a display unless --require-window.
#include "app/image_io.h"
#include "app/viewer/viewer.h"
#include "tests/app/viewer/window_test_main.h"

#include <cstdio>
#include <string>

namespace {
constexpr int kScreenWidth = 1024, kScreenHeight = 768;  // the -screen of this test's xvfb-run (CMakeLists.txt)

slabcast::ViewOptions options_for(const std::string& out) {
  slabcast::ViewOptions options;
  options.scene.procedural_name = "sphere";
  options.scene.procedural_triangles = 2000;
  options.backend = slabcast::Backend::cpu;
  options.frames = 2;
  options.frames_given = true;
  options.screenshot_path = out;
  options.screenshot_3d_only = true;
  options.vsync = false;
  options.fallback_to_headless = false;
  return options;
}
}  // namespace

int main(int argc, char** argv) {
  slabcast::viewer_test::WindowTestArgs args;
  if (const auto exit_code = slabcast::viewer_test::start_window_test(argc, argv, "viewer_window_fit", &args)) {
    return *exit_code;
  }
  slabcast::ViewOptions fitted = options_for(args.out);  // the default size, 1024x1024: taller than the screen
  if (slabcast::run_viewer(fitted) != 0) {
    std::fprintf(stderr, "viewer_window_fit: run_viewer failed\n");
    return 1;
  }
  const slabcast::Rgba8Image image = slabcast::read_png(args.out);
  if (image.width > kScreenWidth * 9 / 10 || image.height > kScreenHeight * 9 / 10 || image.width != image.height) {
    std::fprintf(stderr, "viewer_window_fit: the default window is %dx%d on a %dx%d screen\n", image.width,
                 image.height, kScreenWidth, kScreenHeight);
    return 1;
  }
  slabcast::ViewOptions given = options_for(args.out);
  given.frame.width = 500;
  given.frame.height = 300;
  given.size_given = true;
  if (slabcast::run_viewer(given) != 0) {
    std::fprintf(stderr, "viewer_window_fit: run_viewer failed with --size\n");
    return 1;
  }
  const slabcast::Rgba8Image sized = slabcast::read_png(args.out);
  if (sized.width != 500 || sized.height != 300) {
    std::fprintf(stderr, "viewer_window_fit: --size 500x300 opened %dx%d\n", sized.width, sized.height);
    return 1;
  }
  std::printf("viewer_window_fit: default window %dx%d on a %dx%d screen; --size kept\n", image.width, image.height,
              kScreenWidth, kScreenHeight);
  return 0;
}
