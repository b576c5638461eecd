// Scenes and helpers shared by the render tests (cpu vs oracle, cuda vs cpu).
#pragma once
#include <glm/glm.hpp>
#include <gtest/gtest.h>

#include <cmath>
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

// A cone of `sides` triangles around one apex vertex (a fan, like a UV sphere's pole): the apex's normal sums
// `sides` face normals, which the renderers hand to a warp's lanes when there are many (frame_params.h). Seen
// from the side and a little above, so the apex and the fan around it are in view.
inline Scene cone_scene(int sides) {
  Scene s;
  s.label = "cone of " + std::to_string(sides) + " sides";
  s.mesh.name = "cone";
  s.mesh.positions.push_back({0.0f, 1.0f, 0.0f});
  for (int j = 0; j < sides; ++j) {
    const double phi = 2.0 * 3.14159265358979 * j / sides;
    // a slightly uneven rim, so that the face normals are not all of one length
    const double r = 1.0 + 0.1 * std::sin(7.0 * phi);
    s.mesh.positions.push_back({static_cast<float>(r * std::cos(phi)), 0.0f, static_cast<float>(-r * std::sin(phi))});
  }
  for (int j = 0; j < sides; ++j) {
    s.mesh.indices.insert(s.mesh.indices.end(), {0u, 1u + static_cast<uint32_t>(j),
                                                 1u + static_cast<uint32_t>((j + 1) % sides)});
  }
  s.camera = frame_mesh(s.mesh);
  s.camera.eye = s.camera.target + glm::vec3(0.0f, 1.5f, 3.0f);
  return s;
}

// Deep stacks, the cells a slab cannot thin out (render/stages/cast.h: deep cells; render/mesh_duplicates.h), over a
// torus some of whose triangles are in front of the stack, some behind:
//   coincident: one triangle `layers` times over, as copies with their own vertices, every 7th with its vertex
//               order rotated: two distinct triangles, the rest hidden duplicates;
//   coplanar:   `layers` different triangles in one plane facing the camera, their corners jittered: all at one
//               depth, so the order is by ID;
//   layered:    `layers` parallel, slightly tilted triangles 1e-7 apart in depth, the back ones first in ID order, so
//               that only a depth order finds the front one early, and a slanted triangle through the whole stack.
// A stack of more than kDepthSortedCell (constants.h) triangles makes deep cells.
inline Scene stacked_scene(const std::string& kind, int layers) {
  Scene s = procedural_scene("torus", 600);
  s.label = kind + " stack of " + std::to_string(layers);
  s.mesh.name = kind + "_stack";
  const auto add = [&](glm::vec3 a, glm::vec3 b, glm::vec3 c) {
    for (const glm::vec3& p : {a, b, c}) {
      s.mesh.indices.push_back(static_cast<uint32_t>(s.mesh.positions.size()));
      s.mesh.positions.push_back(p);
    }
  };
  // Larger than the view, so that every pixel of a deep cell hits.
  const glm::vec3 a(-9.0f, -7.0f, 0.05f), b(8.0f, -6.0f, 0.050002f), c(1.0f, 9.0f, 0.049998f);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> jitter(-0.5f, 0.5f);
  for (int i = 0; i < layers; ++i) {
    if (kind == "coincident") {
      if (i % 7 == 3) {
        add(b, c, a);
      } else {
        add(a, b, c);
      }
    } else if (kind == "coplanar") {
      const auto in_plane = [&](glm::vec3 p) { return glm::vec3(p.x + jitter(rng), p.y + jitter(rng), 0.3f); };
      add(in_plane(a), in_plane(b), in_plane(c));
    } else {
      const glm::vec3 dz(0.0f, 0.0f, 1e-7f * static_cast<float>(i));  // later IDs nearer the camera on +Z
      add(a + dz, b + dz, c + dz);
    }
  }
  if (kind == "layered") add({-1.0f, 0.0f, -0.5f}, {1.0f, 0.1f, 0.6f}, {0.0f, 0.8f, 0.5f});  // through the stack
  return s;  // the camera frames the torus, so the stack fills the view
}

// Every integer statistic of two frames that must agree (two backends, or two thread counts), the times left out.
inline void expect_same_counts(const FrameStats& a, const FrameStats& b) {
  EXPECT_EQ(a.triangles_in, b.triangles_in);
  EXPECT_EQ(a.triangles_binned, b.triangles_binned);
  EXPECT_EQ(a.references, b.references);
  EXPECT_EQ(a.nonempty_cells, b.nonempty_cells);
  EXPECT_EQ(a.max_refs_per_tile, b.max_refs_per_tile);
  EXPECT_EQ(a.depth_sorted_cells, b.depth_sorted_cells);
  EXPECT_EQ(a.hidden_duplicates, b.hidden_duplicates);
  EXPECT_EQ(a.ray_triangle_tests, b.ray_triangle_tests);
  EXPECT_EQ(a.pixels_hit, b.pixels_hit);
  EXPECT_EQ(a.shadow_samples, b.shadow_samples);
  EXPECT_EQ(a.light_references, b.light_references);
  EXPECT_EQ(a.shadow_tests, b.shadow_tests);
  EXPECT_EQ(a.heat_max, b.heat_max);
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
