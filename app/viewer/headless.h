// The headless viewer: the window's display path and overlay, in an OpenGL 4.5 core context from EGL's device
// platform (no window, no X server), drawing into an offscreen framebuffer that is read back.
#pragma once
#include "app/gl/display_path.h"
#include "app/image_io.h"
#include "app/viewer/session.h"
#include "app/viewer/viewer.h"

#include <string>
#include <vector>

namespace slabcast::viewer {

struct HeadlessFrame {
  Rgba8Image composite;     // the final frame: 3D image with the overlay on top (what --screenshot writes)
  Rgba8Image scene;         // the same frame read back before the overlay was drawn: the 3D image alone
  std::vector<PixelRect> overlay;  // where the overlay's panels lie (none when the overlay is hidden)
  FrameStats stats;         // of the last frame
  Backend backend = Backend::cpu;
  gl::Feed feed = gl::Feed::host_upload;
  std::string gl_description;
};

// Renders options.frames frames (animation time advancing by 1/60 s per frame when animating, so the last frame is
// at time + (frames - 1) / 60) at options.frame.width x height and returns the last. Throws std::runtime_error,
// also when the scene's motion fails on a frame (a sequence frame that does not load).
HeadlessFrame render_headless(const ViewOptions& options);

// `slabcast view --headless`: render_headless, then writes the PNG (composite, or the 3D image alone when
// options.screenshot_3d_only) and prints where. Returns the process exit code.
int run_headless(const ViewOptions& options);

// The screenshot file name for "now": slabcast-YYYYMMDD-HHMMSS.png (with -2, -3, ... if that file exists).
std::string timestamped_screenshot_name();

}  // namespace slabcast::viewer
