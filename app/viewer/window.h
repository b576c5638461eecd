// The interactive viewer in a GLFW window.
#pragma once
#include "app/viewer/viewer.h"

#include <functional>
#include <string>

struct GLFWwindow;

namespace slabcast::viewer {

class Session;

// Runs the window until it is closed (or after options.frames frames when options.frames_given). Returns the
// exit code; if no window could be opened at all, returns without rendering and sets *no_display to the reason.
int run_window(const ViewOptions& options, std::string* no_display);

// For tests that drive the real window (tests/app/viewer/test_window_abuse.cpp): called once per pass of the event
// loop, after the events are polled, with the loop's pass number (0, 1, ...). It may resize, iconify or hide the
// window and start loads through the session. Returning false ends the run: the next rendered frame is the last
// (saved to options.screenshot_path when given), as after options.frames frames.
using WindowScript = std::function<bool(GLFWwindow* window, Session& session, int pass)>;
int run_window(const ViewOptions& options, std::string* no_display, const WindowScript& script);

}  // namespace slabcast::viewer
