// The interactive viewer in a GLFW window.
#pragma once
#include "app/viewer/viewer.h"

#include <string>

namespace slabcast::viewer {

// Runs the window until it is closed (or after options.frames frames when options.max_frames_given). Returns the
// exit code; if no window could be opened at all, returns without rendering and sets *no_display to the reason.
int run_window(const ViewerOptions& options, std::string* no_display);

}  // namespace slabcast::viewer
