// What the scripted window tests share (window_typing, window_pointer, test_window_abuse): the viewer's window on a
// procedural sphere with the cpu backend (the window's GL may not be on a CUDA device: Xvfb runs Mesa), driven by a
// script a pass, and "no window could be opened" turned into SKIPPED, or into a failure where a window is required.
#pragma once
#include "app/viewer/session.h"
#include "app/viewer/window.h"
#include "tests/app/viewer/window_test_main.h"

#include <cstdio>
#include <exception>
#include <optional>
#include <string>

namespace slabcast::viewer_test {

// A width x height window on a 20,000-triangle sphere, cpu backend, no vsync, its last frame saved to args.out.
inline ViewOptions scripted_window_options(const WindowTestArgs& args, int width, int height) {
  ViewOptions options;
  options.scene.procedural_name = "sphere";
  options.scene.procedural_triangles = 20000;
  options.frame.width = width;
  options.frame.height = height;
  options.backend = Backend::cpu;
  options.vsync = false;
  options.screenshot_path = args.out;
  options.fallback_to_headless = false;
  return options;
}

// Runs the window with `script`. Returns the exit code to end with now (the viewer threw: 1; no window: SKIPPED, or
// 1 under --require-window), or run_window's own result.
inline std::optional<int> run_window_script(const char* program, const WindowTestArgs& args,
                                            const ViewOptions& options, const viewer::WindowScript& script,
                                            int* run_window_result) {
  std::string no_display;
  try {
    *run_window_result = viewer::run_window(options, &no_display, script);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: the viewer threw: %s\n", program, e.what());
    return 1;
  }
  if (no_display.empty()) return std::nullopt;
  if (args.require_window) {
    std::fprintf(stderr, "%s: no window could be opened: %s\n", program, no_display.c_str());
    return 1;
  }
  std::printf("SKIPPED: no window could be opened (%s)\n", no_display.c_str());
  return kSkip;
}

}  // namespace slabcast::viewer_test
