// The mesh's appearance packed for the shade stage (frame_params.h: AppearanceFrame), once at set_mesh, by both
// backends alike: materials, per-triangle material indices, corner UVs, vertex colours as RGBA8, and every texture with
// its full mip pyramid in one texel array. The pyramid is built here, on the host, in 8-bit integers with exact
// rounding, so both backends sample the very same texels.
#pragma once
#include <cstdint>
#include <vector>

#include "render/frame_params.h"
#include "render/renderer.h"

namespace slabcast {

struct PackedAppearance {
  std::vector<MaterialRecord> materials;      // empty: the mesh has no materials (and everything else is empty)
  std::vector<uint32_t> triangle_materials;   // [triangles] or empty
  std::vector<UV> corner_uvs;                 // [3 * triangles] or empty
  std::vector<uint32_t> vertex_colors;        // [vertices] or empty
  std::vector<TextureRecord> textures;
  std::vector<MipLevel> mip_levels;
  std::vector<uint32_t> texels;
  bool empty() const { return materials.empty(); }
  uint64_t bytes() const;
};

// Empty for a mesh without materials: its vertex colours, UVs and textures are not used (renderer.h: such a mesh is
// white). Precondition: validate_appearance(mesh) passed.
PackedAppearance pack_appearance(const Mesh& mesh);

// Bytes pack_appearance's arrays take for `mesh`, without building them (for the out-of-memory checks).
uint64_t appearance_bytes(const Mesh& mesh);

// The next mip level of an RGBA8 image: max(1, width / 2) x max(1, height / 2) texels, each the mean of a 2x2 block of
// its source (2x3, 3x2 or 3x3 where the last column or row of an odd size joins the block before it; 1xN or Nx1 where
// the source is one texel wide or high), rounded to nearest with halves up: (sum + n / 2) / n in integers.
std::vector<uint8_t> downsample_rgba8(const std::vector<uint8_t>& rgba, int width, int height, int* out_width,
                                      int* out_height);

// RGBA8 as the texel array holds it: r in the low byte.
inline uint32_t pack_rgba8(uint8_t r, uint8_t g, uint8_t b, uint8_t a) {
  return static_cast<uint32_t>(r) | static_cast<uint32_t>(g) << 8 | static_cast<uint32_t>(b) << 16 |
         static_cast<uint32_t>(a) << 24;
}

// Throws std::invalid_argument naming the problem: an appearance array of the wrong length, a material index or a
// texture index out of range, a non-finite UV or factor, a texture whose size does not match its pixels.
void validate_appearance(const Mesh& mesh);

}  // namespace slabcast
