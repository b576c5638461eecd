#include "app/viewer/viewer.h"

#include "app/viewer/headless.h"
#include "app/viewer/window.h"

#include <cstdio>
#include <exception>
#include <string>

namespace slabcast {

int run_viewer(const ViewOptions& options) {
  try {
    if (options.headless) return viewer::run_headless(options);
    std::string no_display;
    const int code = viewer::run_window(options, &no_display);
    if (no_display.empty()) return code;
    if (!options.fallback_to_headless) {
      std::fprintf(stderr, "slabcast: error: no window could be opened: %s\n", no_display.c_str());
      return 1;
    }
    std::fprintf(stderr,
                 "slabcast: no window could be opened (%s).\n"
                 "slabcast: rendering the scene headless to a PNG instead (slabcast view --headless does this "
                 "directly).\n",
                 no_display.c_str());
    ViewOptions headless = options;
    headless.headless = true;
    if (!options.frames_given) headless.frames = 1;
    return viewer::run_headless(headless);
  } catch (const std::exception& e) {
    // One "slabcast: error: ..." line, as for every other failure of the command line (messages from render/ may
    // carry their own "slabcast: " prefix already).
    std::string message = e.what();
    const std::string prefix = "slabcast: ";
    if (message.compare(0, prefix.size(), prefix) == 0) message.erase(0, prefix.size());
    std::fprintf(stderr, "slabcast: error: %s\n", message.c_str());
    return 1;
  }
}

}  // namespace slabcast
