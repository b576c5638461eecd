// What the window tests run under xvfb-run share: `PROGRAM [--require-window] OUT.png`, SKIPPED (exit 77) when no
// display exists unless a window is required, and a fresh place for the screenshot.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>

namespace slabcast::viewer_test {

constexpr int kSkip = 77;  // ctest SKIP_RETURN_CODE

struct WindowTestArgs {
  std::string out;              // the screenshot's path
  bool require_window = false;  // under xvfb-run: a window must open, no SKIPPED
};

// Parses the arguments and prepares OUT.png's folder. Returns the exit code to end with now (usage error, or
// SKIPPED without a display), or nothing to go on with *args filled in.
inline std::optional<int> start_window_test(int argc, char** argv, const char* program, WindowTestArgs* args) {
  std::string* out = &args->out;
  bool& require_window = args->require_window;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--require-window") == 0) {
      require_window = true;
    } else {
      *out = argv[i];
    }
  }
  if (out->empty()) {
    std::fprintf(stderr, "usage: %s [--require-window] OUT.png\n", program);
    return 1;
  }
  const char* display = std::getenv("DISPLAY");
  const char* wayland = std::getenv("WAYLAND_DISPLAY");
  if (!require_window && (display == nullptr || *display == '\0') && (wayland == nullptr || *wayland == '\0')) {
    std::printf("SKIPPED: no display (run under xvfb-run)\n");
    return kSkip;
  }
  std::filesystem::create_directories(std::filesystem::path(*out).parent_path());
  std::filesystem::remove(*out);
  return std::nullopt;
}

}  // namespace slabcast::viewer_test
