// The debug views' test scenes and helpers, shared by the cpu tests (test_views_cpu.cpp) and the cuda-vs-cpu tests
// (test_views_gpu.cpp): a large quad seen head on for the wireframe, and the frame on the cpu backend.
#pragma once
#include <cstdint>
#include <cstring>
#include <vector>

#include "render/renderer.h"
#include "render/scenes.h"

namespace slabcast::test {

// A 2 x 2 quad in the z = 0 plane, centred on the origin, as two triangles that share the diagonal from (-1, -1) to
// (1, 1); the camera on +z at `distance`, looking at the origin (fovy 45: at distance 2 the quad fills the view).
inline Scene head_on_quad(float distance) {
  Scene s;
  s.label = "quad";
  s.mesh.name = "quad";
  s.mesh.positions = {glm::vec3(-1, -1, 0), glm::vec3(1, -1, 0), glm::vec3(1, 1, 0), glm::vec3(-1, 1, 0)};
  s.mesh.indices = {0, 1, 2, 0, 2, 3};
  s.camera.eye = glm::vec3(0.0f, 0.0f, distance);
  s.camera.target = glm::vec3(0.0f, 0.0f, 0.0f);
  s.camera.up = glm::vec3(0.0f, 1.0f, 0.0f);
  s.camera.fovy_degrees = 45.0f;
  return s;
}

// One frame on a renderer into host memory, rows packed (W * H * 4), with its extras.
struct HostFrame {
  FrameStats stats;
  FrameExtras extras;
  std::vector<uint8_t> rgba;
  const uint8_t* pixel(int w, int x, int y) const { return &rgba[4 * (static_cast<size_t>(y) * w + x)]; }
};
inline HostFrame render_on_host(Renderer& r, const FrameSettings& f) {
  HostFrame out;
  std::vector<uint8_t> pixels;
  const Surface s = host_surface(pixels, f.width, f.height);
  out.stats = r.render(f, s, &out.extras);
  out.rgba.resize(4 * static_cast<size_t>(f.width) * f.height);
  for (int y = 0; y < f.height; ++y) {
    std::memcpy(&out.rgba[4 * static_cast<size_t>(f.width) * y], &pixels[s.pitch_bytes * y],
                4 * static_cast<size_t>(f.width));
  }
  return out;
}

}  // namespace slabcast::test
