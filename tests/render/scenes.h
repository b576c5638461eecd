// Scenes and helpers shared by the render tests (cpu vs oracle, cuda vs cpu).
#pragma once
#include <glm/glm.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "render/renderer.h"

namespace slabcast::test {

struct Scene {
  std::string label;
  Mesh mesh;
  Camera camera;
  DeformParams deform;
};

inline Scene procedural_scene(const std::string& name, uint64_t triangles, Deformer deformer = Deformer::none,
                              float time = 0.0f) {
  Scene s;
  s.mesh = make_procedural_mesh(name, triangles);
  s.camera = frame_mesh(s.mesh);
  s.deform.kind = deformer;
  s.deform.amount = 1.0f;
  s.deform.time = time;
  s.label = s.mesh.name + (deformer == Deformer::none ? "" : " deformed");
  return s;
}

// One triangle far larger than the view, in front of the default camera: every pixel sees it.
inline Scene full_screen_triangle_scene() {
  Scene s;
  s.label = "full-screen triangle";
  s.mesh.name = "full_screen";
  s.mesh.positions = {{-100.0f, -100.0f, -1.0f}, {100.0f, -100.0f, -1.0f}, {0.0f, 150.0f, -1.0f}};
  s.mesh.indices = {0, 1, 2};
  s.camera = Camera{};  // eye (0,0,3) looking at the origin
  return s;
}

// `count` random triangles, each far larger than the view, at random depths in front of the camera.
inline Scene huge_triangles_scene(int count, uint32_t seed) {
  Scene s;
  s.label = std::to_string(count) + " huge triangles";
  s.mesh.name = "huge";
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> depth(-20.0f, 1.5f), spread(-60.0f, 60.0f);
  for (int i = 0; i < count; ++i) {
    const float z = depth(rng);
    for (int k = 0; k < 3; ++k) {
      s.mesh.indices.push_back(static_cast<uint32_t>(s.mesh.positions.size()));
      s.mesh.positions.push_back({spread(rng), spread(rng), z + 0.05f * spread(rng)});
    }
  }
  s.camera = Camera{};
  return s;
}

inline Surface host_surface(std::vector<uint8_t>& pixels, int w, int h, size_t pad_bytes = 12) {
  const size_t pitch = 4 * static_cast<size_t>(w) + pad_bytes;  // a pitch that is not 4 * width
  pixels.assign(pitch * h, 0xAB);
  return Surface{pixels.data(), w, h, pitch};
}

inline FrameSettings settings_for(const Scene& s, int w, int h, int slabs, Shading shading = Shading::phong) {
  FrameSettings f;
  f.width = w;
  f.height = h;
  f.camera = s.camera;
  f.deform = s.deform;
  f.slabs = slabs;
  f.shading = shading;
  return f;
}

}  // namespace slabcast::test
