// Stage 5's surface colour (docs/architecture.md, "Shade"), shared by both backends: albedo = the material's base
// colour factor x its texture at the hit's UV x the hit's vertex colour, each part 1 where the mesh lacks it.
// Textures are sampled bilinearly with repeat, trilinearly between the two mip levels around the ray cone's level of
// detail (Akenine-Möller et al., "Texture level of detail strategies for real-time ray tracing", Ray Tracing Gems,
// ch. 20, 2019). Only exact float operations and det_log2 (hd_math.h), so both backends get the same bits.
#pragma once
#include <cstdint>

#include "render/frame_params.h"
#include "render/hd_math.h"

namespace slabcast {

// The albedo is a call of its own on the device (not inlined into the casters, which run at a register cap of their
// launch bounds): a mesh without materials never takes the call, so its casters keep their register allocation.
#if defined(__CUDACC__)
#define SC_HD_NOINLINE inline __host__ __device__ __noinline__  // inline: one definition across files
#else
#define SC_HD_NOINLINE inline
#endif

// RGB of an RGBA8 texel (r in the low byte), 0..255.
SC_HD Vec3 unpack_rgb8(uint32_t c) {
  return Vec3{static_cast<float>(c & 0xffu), static_cast<float>((c >> 8) & 0xffu),
              static_cast<float>((c >> 16) & 0xffu)};
}

SC_HD Vec3 lerp(Vec3 a, Vec3 b, float f) { return a + (b - a) * f; }

// One level, bilinear, repeat: texel (i, j) has its centre at ((i + 0.5) / width, (j + 0.5) / height), so a sample at
// a centre returns that texel exactly. 0..255.
SC_HD Vec3 sample_bilinear(const uint32_t* texels, const MipLevel& level, float u, float v) {
  const int w = level.width, h = level.height;
  // The fraction of u is in [0, 1] (1 only by rounding a tiny negative u, which wraps to the same texels as 0).
  const float x = (u - sc_floor(u)) * static_cast<float>(w) - 0.5f;
  const float y = (v - sc_floor(v)) * static_cast<float>(h) - 0.5f;
  const float x0 = sc_floor(x), y0 = sc_floor(y);
  const float fx = x - x0, fy = y - y0;
  const int ix0 = x0 < 0.0f ? w - 1 : static_cast<int>(x0);  // x0 in [-1, w - 1]
  const int iy0 = y0 < 0.0f ? h - 1 : static_cast<int>(y0);
  const int ix1 = ix0 + 1 == w ? 0 : ix0 + 1;
  const int iy1 = iy0 + 1 == h ? 0 : iy0 + 1;
  const uint32_t* row0 = texels + level.offset + static_cast<uint64_t>(iy0) * static_cast<uint64_t>(w);
  const uint32_t* row1 = texels + level.offset + static_cast<uint64_t>(iy1) * static_cast<uint64_t>(w);
  const Vec3 top = lerp(unpack_rgb8(row0[ix0]), unpack_rgb8(row0[ix1]), fx);
  const Vec3 bottom = lerp(unpack_rgb8(row1[ix0]), unpack_rgb8(row1[ix1]), fx);
  return lerp(top, bottom, fy);
}

// The ray cone's level of detail at a hit (the paper's eq. 34 for primary rays): the triangle's
// 0.5 log2(texel area / surface area) plus log2(cone width at the hit / |cos| of the ray and the triangle's normal),
// in one log2: 0.5 log2(texel area x width^2 / (surface area x cos^2)). Areas are twice the triangles' (the factor
// cancels), the surface's and the width in view units (their scale cancels too). A degenerate UV triangle gives level 0,
// a ray along the surface the coarsest.
SC_HD float texture_lod(const MipLevel& level0, UV a, UV b, UV c, const TriangleVerts& tv, Vec3 dir, float t,
                        float cone_spread) {
  const float uv_area = sc_abs((b.u - a.u) * (c.v - a.v) - (c.u - a.u) * (b.v - a.v));
  const float texel_area = uv_area * (static_cast<float>(level0.width) * static_cast<float>(level0.height));
  const Vec3 n = cross(tv.b - tv.a, tv.c - tv.a);
  const float surface_area = sc_sqrt(dot(n, n));
  const float cos_theta = sc_div(dot(dir, n), surface_area);
  const float width = t * cone_spread;
  return 0.5f * det_log2(sc_div(texel_area * (width * width), surface_area * (cos_theta * cos_theta)));
}

// Trilinear: the two levels around `lod` (clamped to the pyramid), each bilinear. 0..255.
SC_HD Vec3 sample_texture(const AppearanceFrame& ap, const TextureRecord& tex, float u, float v, float lod) {
  const float l = sc_clamp(lod, 0.0f, static_cast<float>(tex.levels - 1));
  const float l0 = sc_floor(l);
  const float f = l - l0;
  const uint32_t level = tex.first_level + static_cast<uint32_t>(l0);
  const Vec3 c = sample_bilinear(ap.texels, ap.mip_levels[level], u, v);
  if (!(f > 0.0f)) return c;  // on a level (or clamped to one): the next level would weigh 0
  return lerp(c, sample_bilinear(ap.texels, ap.mip_levels[level + 1], u, v), f);
}

// The albedo of triangle `id` at the hit with barycentrics b0, b1, b2 (of its vertices a, b, c) on the ray `dir` at
// distance t: RGB in [0, 1] for factors in [0, 1]. Precondition: ap.materials != nullptr. Arguments by value: an
// address taken would put the caster's values in local memory on every path.
SC_HD_NOINLINE Vec3 surface_albedo(AppearanceFrame ap, const uint32_t* indices, uint32_t id, TriangleVerts tv, Vec3 dir,
                                   float t, float b0, float b1, float b2) {
  const float bary[3] = {b0, b1, b2};
  const uint32_t m = ap.triangle_materials != nullptr ? ap.triangle_materials[id] : 0u;
  const MaterialRecord mat = ap.materials[m];
  Vec3 albedo{mat.r, mat.g, mat.b};
  const int64_t corner = 3 * static_cast<int64_t>(id);
  if (mat.texture >= 0 && ap.corner_uvs != nullptr) {
    const UV a = ap.corner_uvs[corner], b = ap.corner_uvs[corner + 1], c = ap.corner_uvs[corner + 2];
    const float u = a.u * bary[0] + b.u * bary[1] + c.u * bary[2];
    const float v = a.v * bary[0] + b.v * bary[1] + c.v * bary[2];
    const TextureRecord tex = ap.textures[mat.texture];
    const float lod = texture_lod(ap.mip_levels[tex.first_level], a, b, c, tv, dir, t, ap.cone_spread);
    const Vec3 texel = sample_texture(ap, tex, u, v, lod);
    albedo = Vec3{albedo.x * sc_div(texel.x, 255.0f), albedo.y * sc_div(texel.y, 255.0f),
                  albedo.z * sc_div(texel.z, 255.0f)};
  }
  if (ap.vertex_colors != nullptr) {
    const Vec3 ca = unpack_rgb8(ap.vertex_colors[indices[corner]]);
    const Vec3 cb = unpack_rgb8(ap.vertex_colors[indices[corner + 1]]);
    const Vec3 cc = unpack_rgb8(ap.vertex_colors[indices[corner + 2]]);
    const Vec3 col = ca * bary[0] + cb * bary[1] + cc * bary[2];
    albedo = Vec3{albedo.x * sc_div(col.x, 255.0f), albedo.y * sc_div(col.y, 255.0f), albedo.z * sc_div(col.z, 255.0f)};
  }
  return albedo;
}

}  // namespace slabcast
