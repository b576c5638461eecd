// The real GLFW window, abused: `viewer_window_abuse [--require-window] OUT.png`. Under xvfb-run (CI) it
// drives the window through GLFW calls while the viewer renders between them (cpu backend):
//   40 rapid resizes, one per frame, between 1x1-ish and large sizes; the window at 1x1 for a few frames;
//   minimise / restore and hide / show; loading a broken OBJ through the session (the error must show and the
//   previous model stay); back to 640x480, where the final screenshot (overlay hidden for the last frames) must
//   be a sane frame: the right size, the model lit in the middle, the dark background in the corners.
// Under a window manager (ctest runs it through with_window_manager.sh, which sets SLABCAST_TEST_WINDOW_MANAGER)
// minimise must take effect and the animation clock must stand still while minimised; under a bare X server
// minimise is ignored, and the summary says so.
// Exits 77 (ctest: SKIPPED) when no window can be opened, unless --require-window; 1 on any failure, each one
// named on stderr; 0 with a summary otherwise.
#include "app/image_io.h"
#include "app/viewer/session.h"
#include "app/viewer/window.h"
#include "tests/app/viewer/window_script.h"

#include <GLFW/glfw3.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#ifndef SLABCAST_SOURCE_DIR
#error "SLABCAST_SOURCE_DIR must be defined (tests/app/viewer/CMakeLists.txt)"
#endif

namespace {

constexpr int kWidth = 640, kHeight = 480;
constexpr const char* kBrokenObj = SLABCAST_SOURCE_DIR "/tests/app/broken/truncated_face.obj";

struct Size {
  int width, height;
};
// Sizes for the rapid resizes: tiny, odd, wide, tall, larger than the start, back again.
const Size kResizes[] = {{1000, 700}, {33, 17},  {2, 2},    {800, 600}, {17, 900}, {1200, 90}, {640, 480}, {5, 5},
                         {999, 333}, {321, 123}, {1, 700},  {700, 1},   {64, 64},  {1100, 800}, {8, 9},   {640, 481}};
constexpr int kRapidResizes = 40;

// The steps, by pass of the event loop. Each step's pass leaves a few passes (rendered frames) before the next.
enum Step : int {
  kFirstResize = 5,
  kOneByOne = kFirstResize + kRapidResizes,
  kIconify = kOneByOne + 6,
  kRestore = kIconify + 10,
  kHide = kRestore + 4,
  kShow = kHide + 4,
  kBackToStart = kShow + 4,
  kLoadBroken = kBackToStart + 4,
  kLoadBrokenTimeoutPasses = 600,
};
// Under a window manager, minimising takes as long as it takes the manager to act (longer on a busy machine): the
// script stays at the pass before the restore until the window has been seen minimised for this many passes, or for
// at most this long.
constexpr int kMinimisedPassesWanted = 3;
constexpr double kMinimiseWaitSeconds = 10.0;

struct Abuse {
  std::vector<std::string> failures;
  int resizes = 0;
  int frames_at_one_by_one = 0;
  bool iconified_seen = false;
  int iconified_passes = 0;             // passes that began with the window minimised
  float clock_when_iconified = -1.0f;   // the animation clock at the first of them
  bool clock_moved_while_iconified = false;
  bool window_manager = false;          // minimise must take effect (with_window_manager.sh)
  double iconify_requested_at = 0.0;    // glfwGetTime()
  int held_passes = 0;                  // loop passes spent waiting for the window manager to minimise
  bool load_started = false, load_checked = false;
  int load_started_pass = -1;
  const slabcast::Mesh* model_before_load = nullptr;
  std::string error_shown;
  int finish_pass = -1;

  void fail(const std::string& what) {
    std::fprintf(stderr, "viewer_window_abuse: %s\n", what.c_str());
    failures.push_back(what);
  }

  bool step(GLFWwindow* window, slabcast::viewer::Session& session, int loop_pass) {
    int pass = loop_pass - held_passes;
    if (pass == kRestore && window_manager && iconified_passes < kMinimisedPassesWanted &&
        glfwGetTime() - iconify_requested_at < kMinimiseWaitSeconds) {
      ++held_passes;
      pass = kRestore - 1;
    }
    int w = 0, h = 0;
    glfwGetFramebufferSize(window, &w, &h);
    if (pass >= kFirstResize && pass < kOneByOne) {
      const Size s = kResizes[(pass - kFirstResize) % (sizeof kResizes / sizeof kResizes[0])];
      glfwSetWindowSize(window, s.width, s.height);
      ++resizes;
    } else if (pass == kOneByOne) {
      glfwSetWindowSize(window, 1, 1);
    } else if (pass > kOneByOne && pass < kIconify) {
      if (w == 1 && h == 1) ++frames_at_one_by_one;
    } else if (pass == kIconify) {
      glfwIconifyWindow(window);
      iconify_requested_at = glfwGetTime();
    } else if (pass > kIconify && pass < kRestore) {
      // Minimised, the loop renders nothing and its animation clock stands still (window.cpp).
      if (glfwGetWindowAttrib(window, GLFW_ICONIFIED) == GLFW_TRUE) {
        const float clock = session.settings.deform.time;
        if (!iconified_seen) clock_when_iconified = clock;
        clock_moved_while_iconified = clock_moved_while_iconified || clock != clock_when_iconified;
        iconified_seen = true;
        ++iconified_passes;
      }
    } else if (pass == kRestore) {
      glfwRestoreWindow(window);
    } else if (pass == kHide) {
      glfwHideWindow(window);
    } else if (pass == kShow) {
      glfwShowWindow(window);
    } else if (pass == kBackToStart) {
      glfwSetWindowSize(window, kWidth, kHeight);
    } else if (pass == kLoadBroken) {
      model_before_load = session.mesh();
      if (model_before_load == nullptr) fail("no model was installed before the broken load");
      session.start_loading({"truncated_face.obj", kBrokenObj, "", 0});
      load_started = true;
      load_started_pass = pass;
    } else if (load_started && !load_checked && !session.loading()) {
      // The loop's poll_loading has installed the result (it runs after this script in the same pass when the
      // load finished in between; one more pass makes sure).
      load_checked = true;
      error_shown = session.last_error;
      if (error_shown.empty()) fail("loading " + std::string(kBrokenObj) + " showed no error");
      if (error_shown.find("truncated_face.obj") == std::string::npos) {
        fail("the error does not name the file: '" + error_shown + "'");
      }
      if (session.mesh() != model_before_load) fail("the broken load replaced the model");
      // The last frames without the overlay (at 640x480 its panels cover most of the window), so the final
      // screenshot shows whether the model is still drawn.
      session.show_overlay = false;
      finish_pass = pass + 5;
    } else if (load_started && !load_checked && pass - load_started_pass > kLoadBrokenTimeoutPasses) {
      fail("loading the broken file did not finish");
      return false;
    }
    return finish_pass < 0 || pass < finish_pass;
  }
};

}  // namespace

int main(int argc, char** argv) {
  slabcast::viewer_test::WindowTestArgs args;
  if (const auto exit_code = slabcast::viewer_test::start_window_test(argc, argv, "viewer_window_abuse", &args)) {
    return *exit_code;
  }
  const std::string& out = args.out;

  slabcast::ViewOptions options = slabcast::viewer_test::scripted_window_options(args, kWidth, kHeight);
  options.animate = true;

  Abuse abuse;
  const char* window_manager = std::getenv("SLABCAST_TEST_WINDOW_MANAGER");
  abuse.window_manager = window_manager != nullptr && *window_manager != '\0';
  int code = 0;
  if (const auto exit_code = slabcast::viewer_test::run_window_script(
          "viewer_window_abuse", args, options,
          [&](GLFWwindow* w, slabcast::viewer::Session& s, int pass) { return abuse.step(w, s, pass); }, &code)) {
    return *exit_code;
  }
  if (code != 0) abuse.fail("run_window returned " + std::to_string(code));
  if (abuse.resizes != kRapidResizes) abuse.fail("only " + std::to_string(abuse.resizes) + " resizes were made");
  if (!abuse.load_checked) abuse.fail("the broken load was never checked");
  // Under a window manager (with_window_manager.sh) minimise must take effect, and hold the clock still.
  if (abuse.window_manager) {
    if (!abuse.iconified_seen) abuse.fail(std::string("glfwIconifyWindow had no effect under ") + window_manager);
    if (abuse.clock_moved_while_iconified) abuse.fail("the animation clock moved while the window was minimised");
  }

  // The final frame: the window's size at the end, the model in the middle, and not one flat colour.
  if (!std::filesystem::exists(out)) {
    abuse.fail("no final screenshot " + out);
  } else {
    const slabcast::Rgba8Image image = slabcast::read_png(out);
    if (image.width != kWidth || image.height != kHeight) {
      abuse.fail("final screenshot is " + std::to_string(image.width) + "x" + std::to_string(image.height) +
                 ", the window was set to " + std::to_string(kWidth) + "x" + std::to_string(kHeight));
    } else {
      size_t changes = 0;
      for (size_t i = 4; i < image.pixels.size(); i += 4) changes += image.pixels[i] != image.pixels[i - 4];
      // The model: the framed sphere covers the centre, lit (the background is dark grey-blue, under 0x40).
      const size_t centre = (static_cast<size_t>(kHeight / 2) * kWidth + kWidth / 2) * 4;
      const int brightest = std::max({image.pixels[centre], image.pixels[centre + 1], image.pixels[centre + 2]});
      const int corner = std::max({image.pixels[0], image.pixels[1], image.pixels[2]});
      if (changes < 1000) abuse.fail("final screenshot is nearly uniform (" + std::to_string(changes) + " changes)");
      if (brightest < 0x40) abuse.fail("the model is not in the middle of the final screenshot");
      if (corner >= 0x40) abuse.fail("the corner of the final screenshot is not the background");
    }
  }
  const std::string iconify =
      abuse.iconified_seen ? "took effect (" + std::to_string(abuse.iconified_passes) + " passes minimised, clock " +
                                 (abuse.clock_moved_while_iconified ? "moved" : "held") + ")"
                           : std::string("had no effect (no window manager)");
  std::printf("viewer_window_abuse: %d rapid resizes, %d frames at 1x1, iconify %s, broken load -> \"%s\", "
              "screenshot %s: %s\n",
              abuse.resizes, abuse.frames_at_one_by_one, iconify.c_str(), abuse.error_shown.c_str(), out.c_str(),
              abuse.failures.empty() ? "PASS" : "FAIL");
  return abuse.failures.empty() ? 0 : 1;
}
