// Shared by the viewer's out-of-memory tests, test_session_oom.cpp (host memory: an address-space cap) and
// test_session_oom_gpu.cpp (GPU memory: a device ballast): the still, headless session they start from and one
// frame of it read back, so that "the same image as before" means the same thing in both.
#pragma once
#include "app/gl/gl_util.h"
#include "app/viewer/session.h"

#include <cstdint>
#include <vector>

namespace slabcast::viewer::session_test {

// A procedural torus of `triangles`, not animated and without the overlay, so two frames of it are equal.
inline ViewOptions still_torus_options(uint64_t triangles, Backend backend) {
  ViewOptions options;
  options.scene.procedural_name = "torus";
  options.scene.procedural_triangles = triangles;
  options.backend = backend;
  options.animate = false;
  options.show_overlay = false;
  options.headless = true;
  return options;
}

// One frame of the session into `target`, read back top row first.
inline std::vector<uint8_t> frame(Session& session, const gl::OffscreenTarget& target, int w, int h) {
  target.bind();
  session.render_and_present(w, h);
  return gl::read_pixels_top_down(w, h);
}

}  // namespace slabcast::viewer::session_test
