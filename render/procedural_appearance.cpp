#include "render/procedural_appearance.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace slabcast {

void add_checker_texture(Mesh& mesh, int texture_size, int checks) {
  if (texture_size < 2 || texture_size > 8192) {
    throw std::invalid_argument("slabcast: checker texture size must be 2..8192, got " + std::to_string(texture_size));
  }
  if (checks < 1 || checks > texture_size) {
    throw std::invalid_argument("slabcast: checker squares must be 1.." + std::to_string(texture_size) + ", got " +
                                std::to_string(checks));
  }
  if (mesh.positions.empty()) return;
  glm::vec3 lo = mesh.positions[0], hi = mesh.positions[0];
  for (const glm::vec3& p : mesh.positions) {
    lo = glm::min(lo, p);
    hi = glm::max(hi, p);
  }
  const glm::vec3 centre = (lo + hi) * 0.5f;
  constexpr float kPi = 3.14159265358979f;
  const auto spherical = [&](const glm::vec3& p) {
    const glm::vec3 d = p - centre;
    const float u = std::atan2(d.z, d.x) / (2.0f * kPi) + 0.5f;
    const float r = std::sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
    const float v = r > 0.0f ? std::acos(std::clamp(d.y / r, -1.0f, 1.0f)) / kPi : 0.5f;
    return glm::vec2(u, v);
  };
  const size_t T = mesh.triangle_count();
  mesh.corner_uvs.resize(3 * T);
  for (size_t t = 0; t < T; ++t) {
    const glm::vec2 first = spherical(mesh.positions[mesh.indices[3 * t]]);
    for (int k = 0; k < 3; ++k) {
      glm::vec2 uv = spherical(mesh.positions[mesh.indices[3 * t + k]]);
      if (uv.x - first.x > 0.5f) uv.x -= 1.0f;  // the seam: stay within half a turn (the texture repeats)
      if (first.x - uv.x > 0.5f) uv.x += 1.0f;
      mesh.corner_uvs[3 * t + k] = uv;
    }
  }
  Texture tex;
  tex.name = "checker " + std::to_string(texture_size) + "x" + std::to_string(texture_size);
  tex.width = tex.height = texture_size;
  tex.rgba.resize(4 * static_cast<size_t>(texture_size) * texture_size);
  const uint8_t colours[4][3] = {{230, 200, 150}, {70, 110, 160}, {200, 90, 70}, {90, 160, 100}};
  for (int y = 0; y < texture_size; ++y) {
    for (int x = 0; x < texture_size; ++x) {
      const int cx = x * checks / texture_size, cy = y * checks / texture_size;
      const uint8_t* c = colours[((cx + cy) & 1) + 2 * ((cy / 2) & 1)];
      uint8_t* texel = &tex.rgba[4 * (static_cast<size_t>(y) * texture_size + x)];
      texel[0] = c[0];
      texel[1] = c[1];
      texel[2] = c[2];
      texel[3] = 255;
    }
  }
  mesh.textures.assign(1, std::move(tex));
  Material material;
  material.texture = 0;
  mesh.materials.assign(1, material);
  mesh.triangle_materials.clear();
  mesh.vertex_colors.clear();
}

}  // namespace slabcast
