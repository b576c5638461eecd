#include "render/appearance.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace slabcast {
namespace {

// Levels of a full pyramid down to 1x1.
int mip_level_count(int width, int height) {
  int levels = 1;
  while (width > 1 || height > 1) {
    width = width > 1 ? width / 2 : 1;
    height = height > 1 ? height / 2 : 1;
    ++levels;
  }
  return levels;
}

uint64_t pyramid_texels(int width, int height) {
  uint64_t texels = 0;
  for (;;) {
    texels += static_cast<uint64_t>(width) * static_cast<uint64_t>(height);
    if (width == 1 && height == 1) return texels;
    width = width > 1 ? width / 2 : 1;
    height = height > 1 ? height / 2 : 1;
  }
}

// Source columns (or rows) [first, last] that destination index d of a level `dst` wide covers in one `src` wide.
void source_span(int d, int src, int dst, int* first, int* last) {
  *first = 2 * d;
  *last = d == dst - 1 ? src - 1 : 2 * d + 1;  // an odd size's last texel joins the last block
  if (src == 1) *first = *last = 0;
}

}  // namespace

uint64_t PackedAppearance::bytes() const {
  return materials.size() * sizeof(MaterialRecord) + triangle_materials.size() * sizeof(uint32_t) +
         corner_uvs.size() * sizeof(UV) + vertex_colors.size() * sizeof(uint32_t) +
         textures.size() * sizeof(TextureRecord) + mip_levels.size() * sizeof(MipLevel) +
         texels.size() * sizeof(uint32_t);
}

uint64_t appearance_bytes(const Mesh& mesh) {
  if (mesh.materials.empty()) {  // vertex colours alone: one white material (pack_appearance)
    return mesh.vertex_colors.empty() ? 0 : sizeof(MaterialRecord) + mesh.vertex_colors.size() * sizeof(uint32_t);
  }
  uint64_t bytes = mesh.materials.size() * sizeof(MaterialRecord) +
                   mesh.triangle_materials.size() * sizeof(uint32_t) + mesh.corner_uvs.size() * sizeof(UV) +
                   mesh.vertex_colors.size() * sizeof(uint32_t) + mesh.textures.size() * sizeof(TextureRecord);
  for (const Texture& t : mesh.textures) {
    bytes += mip_level_count(t.width, t.height) * sizeof(MipLevel) + pyramid_texels(t.width, t.height) * 4;
  }
  return bytes;
}

std::vector<uint8_t> downsample_rgba8(const std::vector<uint8_t>& rgba, int width, int height, int* out_width,
                                      int* out_height) {
  const int w = width > 1 ? width / 2 : 1, h = height > 1 ? height / 2 : 1;
  std::vector<uint8_t> out(4 * static_cast<size_t>(w) * h);
  for (int y = 0; y < h; ++y) {
    int y0 = 0, y1 = 0;
    source_span(y, height, h, &y0, &y1);
    for (int x = 0; x < w; ++x) {
      int x0 = 0, x1 = 0;
      source_span(x, width, w, &x0, &x1);
      const uint32_t n = static_cast<uint32_t>((x1 - x0 + 1) * (y1 - y0 + 1));
      for (int c = 0; c < 4; ++c) {
        uint32_t sum = 0;
        for (int sy = y0; sy <= y1; ++sy) {
          for (int sx = x0; sx <= x1; ++sx) sum += rgba[4 * (static_cast<size_t>(sy) * width + sx) + c];
        }
        out[4 * (static_cast<size_t>(y) * w + x) + c] = static_cast<uint8_t>((sum + n / 2) / n);
      }
    }
  }
  *out_width = w;
  *out_height = h;
  return out;
}

PackedAppearance pack_appearance(const Mesh& mesh) {
  PackedAppearance a;
  if (mesh.materials.empty()) {
    // Vertex colours without materials (a coloured PLY): one white material, so that the colours show; UVs and
    // textures go unused without a material that names them.
    if (mesh.vertex_colors.empty()) return a;
    a.materials.push_back(MaterialRecord{1.0f, 1.0f, 1.0f, 1.0f, -1});
    for (const Color8& c : mesh.vertex_colors) a.vertex_colors.push_back(pack_rgba8(c.r, c.g, c.b, c.a));
    return a;
  }
  a.materials.reserve(mesh.materials.size());
  for (const Material& m : mesh.materials) {
    a.materials.push_back(MaterialRecord{m.base_color.r, m.base_color.g, m.base_color.b, m.base_color.a, m.texture});
  }
  a.triangle_materials = mesh.triangle_materials;
  a.corner_uvs.reserve(mesh.corner_uvs.size());
  for (const glm::vec2& uv : mesh.corner_uvs) a.corner_uvs.push_back(UV{uv.x, uv.y});
  a.vertex_colors.reserve(mesh.vertex_colors.size());
  for (const Color8& c : mesh.vertex_colors) a.vertex_colors.push_back(pack_rgba8(c.r, c.g, c.b, c.a));
  a.texels.reserve(appearance_bytes(mesh) / 4);
  for (const Texture& t : mesh.textures) {
    a.textures.push_back(TextureRecord{static_cast<uint32_t>(a.mip_levels.size()),
                                       static_cast<uint32_t>(mip_level_count(t.width, t.height))});
    std::vector<uint8_t> level = t.rgba;
    int w = t.width, h = t.height;
    for (;;) {
      a.mip_levels.push_back(MipLevel{a.texels.size(), w, h});
      for (size_t i = 0; i < static_cast<size_t>(w) * h; ++i) {
        a.texels.push_back(pack_rgba8(level[4 * i], level[4 * i + 1], level[4 * i + 2], level[4 * i + 3]));
      }
      if (w == 1 && h == 1) break;
      level = downsample_rgba8(level, w, h, &w, &h);
    }
  }
  return a;
}

void validate_appearance(const Mesh& mesh) {
  const std::string who = "mesh '" + mesh.name + "': ";
  const size_t T = mesh.triangle_count(), V = mesh.positions.size();
  // An appearance array is absent (empty) or has exactly one entry per item.
  const auto check_length = [&](size_t have, size_t want, const std::string& what, const std::string& per) {
    if (have != 0 && have != want) {
      throw std::invalid_argument(who + std::to_string(have) + " " + what + ", want 0 or " + std::to_string(want) +
                                  " (" + per + ")");
    }
  };
  check_length(mesh.corner_uvs.size(), 3 * T, "corner UVs", "3 a triangle");
  check_length(mesh.vertex_colors.size(), V, "vertex colours", "1 a vertex");
  check_length(mesh.triangle_materials.size(), T, "triangle materials", "1 a triangle");
  for (size_t i = 0; i < mesh.triangle_materials.size(); ++i) {
    if (mesh.triangle_materials[i] >= mesh.materials.size()) {
      throw std::invalid_argument(who + "material " + std::to_string(mesh.triangle_materials[i]) + " of triangle " +
                                  std::to_string(i) + " out of range (" + std::to_string(mesh.materials.size()) +
                                  " materials)");
    }
  }
  for (size_t m = 0; m < mesh.materials.size(); ++m) {
    const Material& mat = mesh.materials[m];
    if (mat.texture < -1 || mat.texture >= static_cast<int32_t>(mesh.textures.size())) {
      throw std::invalid_argument(who + "texture " + std::to_string(mat.texture) + " of material " +
                                  std::to_string(m) + " out of range (" + std::to_string(mesh.textures.size()) +
                                  " textures)");
    }
    for (int c = 0; c < 4; ++c) {
      if (!std::isfinite(mat.base_color[c])) {
        throw std::invalid_argument(who + "non-finite base colour factor of material " + std::to_string(m));
      }
    }
  }
  for (size_t i = 0; i < mesh.corner_uvs.size(); ++i) {
    if (!std::isfinite(mesh.corner_uvs[i].x) || !std::isfinite(mesh.corner_uvs[i].y)) {
      throw std::invalid_argument(who + "non-finite UV at corner " + std::to_string(i % 3) + " of triangle " +
                                  std::to_string(i / 3));
    }
  }
  for (const Texture& t : mesh.textures) {
    if (t.width <= 0 || t.height <= 0 || t.width > 65536 || t.height > 65536 ||
        t.rgba.size() != 4 * static_cast<size_t>(t.width) * static_cast<size_t>(t.height)) {
      throw std::invalid_argument(who + "texture '" + t.name + "' is " + std::to_string(t.width) + "x" +
                                  std::to_string(t.height) + " with " + std::to_string(t.rgba.size()) +
                                  " bytes (want 1..65536 a side, 4 bytes a texel)");
    }
  }
}

}  // namespace slabcast
