// Scenes with an appearance (materials, textures, UVs, vertex colours) for the render tests, and the tests' own
// double-precision texture lookups, written apart from the renderer's sampler (render/stages/texture.h).
#pragma once
#include <glm/glm.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "render/renderer.h"
#include "render/scenes.h"

namespace slabcast::test {

// A texture of the given texels (RGB; alpha 255), row 0 = top.
inline Texture make_texture(const std::string& name, int w, int h, const std::vector<Color8>& texels) {
  Texture t;
  t.name = name;
  t.width = w;
  t.height = h;
  for (const Color8& c : texels) t.rgba.insert(t.rgba.end(), {c.r, c.g, c.b, c.a});
  return t;
}

// A w x h checker of one-texel squares, black and white.
inline Texture checker_texture(int w, int h) {
  std::vector<Color8> texels;
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      const uint8_t c = (x + y) % 2 == 0 ? 255 : 0;
      texels.push_back(Color8{c, c, c, 255});
    }
  }
  return make_texture("checker", w, h, texels);
}

inline Texture random_texture(int w, int h, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<Color8> texels;
  for (int i = 0; i < w * h; ++i) {
    const uint32_t r = rng();
    texels.push_back(Color8{static_cast<uint8_t>(r), static_cast<uint8_t>(r >> 8), static_cast<uint8_t>(r >> 16), 255});
  }
  return make_texture("random", w, h, texels);
}

// The camera of the quad scenes: eye on +Z at `distance`, looking at the origin, tan(fovy / 2) = 2/3.
constexpr double kQuadTanHalfFovy = 2.0 / 3.0;
inline Camera quad_camera(float distance) {
  Camera c;
  c.eye = glm::vec3(0.0f, 0.0f, distance);
  c.target = glm::vec3(0.0f);
  c.up = glm::vec3(0.0f, 1.0f, 0.0f);
  c.fovy_degrees = static_cast<float>(2.0 * std::atan(kQuadTanHalfFovy) * 180.0 / 3.14159265358979323846);
  return c;
}

// The square [-1, 1]^2 in the plane z = 0, facing +Z, as two triangles (0, 3, 2) and (0, 2, 1) of the corners
// top-left, top-right, bottom-right, bottom-left. UV = (u0 + uv_scale (x + 1) / 2, v0 + uv_scale (1 - y) / 2): the
// texture upright, v = 0 at its top. One material (factor white, texture 0 when a texture is given).
inline Scene textured_quad(float distance, const std::vector<Texture>& textures, float uv_scale = 1.0f,
                           float u0 = 0.0f, float v0 = 0.0f) {
  Scene s;
  s.label = "textured quad";
  s.mesh.name = "quad";
  s.mesh.positions = {{-1.0f, 1.0f, 0.0f}, {1.0f, 1.0f, 0.0f}, {1.0f, -1.0f, 0.0f}, {-1.0f, -1.0f, 0.0f}};
  s.mesh.indices = {0, 3, 2, 0, 2, 1};
  for (uint32_t i : s.mesh.indices) {
    const glm::vec3 p = s.mesh.positions[i];
    s.mesh.corner_uvs.push_back(glm::vec2(u0 + uv_scale * (p.x + 1.0f) * 0.5f, v0 + uv_scale * (1.0f - p.y) * 0.5f));
  }
  s.mesh.textures = textures;
  Material m;
  m.texture = textures.empty() ? -1 : 0;
  s.mesh.materials = {m};
  s.camera = quad_camera(distance);
  return s;
}

// Where pixel (px, py)'s centre ray meets the plane z = 0 for quad_camera(distance) in a square frame of `size`.
inline glm::dvec2 quad_hit(int px, int py, int size, double distance) {
  const double a = ((px + 0.5) / size * 2.0 - 1.0) * kQuadTanHalfFovy;
  const double b = (1.0 - (py + 0.5) / size * 2.0) * kQuadTanHalfFovy;
  return glm::dvec2(distance * a, distance * b);
}

// Bilinear with repeat, in double: texel (i, j)'s centre at ((i + 0.5) / w, (j + 0.5) / h). Channel c, 0..255.
inline double reference_bilinear(const Texture& t, double u, double v, int c) {
  const double x = (u - std::floor(u)) * t.width - 0.5, y = (v - std::floor(v)) * t.height - 0.5;
  const double x0 = std::floor(x), y0 = std::floor(y);
  const double fx = x - x0, fy = y - y0;
  const auto wrap = [](long i, int n) { return static_cast<int>(((i % n) + n) % n); };
  const int i0 = wrap(static_cast<long>(x0), t.width), i1 = wrap(static_cast<long>(x0) + 1, t.width);
  const int j0 = wrap(static_cast<long>(y0), t.height), j1 = wrap(static_cast<long>(y0) + 1, t.height);
  const auto at = [&](int i, int j) { return static_cast<double>(t.rgba[4 * (static_cast<size_t>(j) * t.width + i) + c]); };
  const double top = at(i0, j0) * (1 - fx) + at(i1, j0) * fx;
  const double bottom = at(i0, j1) * (1 - fx) + at(i1, j1) * fx;
  return top * (1 - fy) + bottom * fy;
}

// A procedural mesh with every part of the appearance: spherical UVs (wrapping several times), vertex colours, three
// materials (one untextured), two textures of odd sizes.
inline Scene appearance_scene(const std::string& name, uint64_t triangles, Deformer deformer, float time) {
  Scene s = procedural_scene(name, triangles, deformer, time);
  s.label += " with appearance";
  Mesh& m = s.mesh;
  const size_t T = m.triangle_count();
  glm::vec3 lo = m.positions[0], hi = m.positions[0];
  for (const glm::vec3& p : m.positions) {
    lo = glm::min(lo, p);
    hi = glm::max(hi, p);
  }
  const glm::vec3 centre = 0.5f * (lo + hi);
  for (uint32_t i : m.indices) {
    const glm::vec3 d = m.positions[i] - centre;
    const float r = std::max(glm::length(d), 1e-6f);
    m.corner_uvs.push_back(glm::vec2(3.0f * std::atan2(d.z, d.x) / 6.2831853f, 2.0f * std::acos(d.y / r) / 3.14159265f));
  }
  std::mt19937 rng(11);
  for (size_t v = 0; v < m.positions.size(); ++v) {
    const uint32_t r = rng();
    m.vertex_colors.push_back(Color8{static_cast<uint8_t>(128 + (r & 127)), static_cast<uint8_t>(128 + ((r >> 8) & 127)),
                                     static_cast<uint8_t>(128 + ((r >> 16) & 127)), 255});
  }
  for (size_t t = 0; t < T; ++t) m.triangle_materials.push_back(static_cast<uint32_t>(t % 3));
  m.textures = {random_texture(37, 23, 5), checker_texture(64, 64)};
  Material a, b, c;
  a.texture = 0;
  b.base_color = glm::vec4(0.9f, 0.6f, 0.3f, 1.0f);
  b.texture = 1;
  c.base_color = glm::vec4(0.2f, 0.7f, 0.95f, 1.0f);
  m.materials = {a, b, c};
  return s;
}

}  // namespace slabcast::test
