// Stage 5, shade (docs/architecture.md, frame step 5), shared by both backends: Blinn-Phong from the frame's light
// (a headlight, a sun or a point light; smooth or flat normals; the shadow mask when shadows are on) with the surface's
// albedo (stages/texture.h) as its colour where the mesh has materials, the albedo view, and the debug views of
// renderer.h's Shading (ShadeMode, frame_params.h), and the wireframe over any of them. shade_ray is the per-pixel body:
// the cuda caster calls it as it casts, the cpu backend through shade_one from the cast's buffers. The heat views and
// the shadow view are shaded after the cast instead (shades_after_cast), on both backends through shade_one: a heat
// view's scale is the whole frame's largest count, known only once every ray is cast. With shadows the cuda caster
// shades as if every pixel were lit, and the shadow test writes the one grey of a shadowed pixel where it blocks a
// pixel's sample (shadowed_pixels_are_grey), or else a shade kernel shades after the mask.
#pragma once
#include <cstdint>

#include "render/camera.h"
#include "render/constants.h"
#include "render/frame_params.h"
#include "render/hd_math.h"
#include "render/intersect.h"
#include "render/stages/bin.h"
#include "render/stages/build.h"
#include "render/stages/texture.h"

namespace slabcast {

// What a shade call knows about its pixel.
struct PixelSample {
  uint32_t id;        // kNoHit for a miss
  float t;            // distance along the ray
  Vec3 dir_view;      // normalized ray direction (view space)
  Vec3 normal_view;   // shading normal (smooth or face, view space; any length, any side)
  Vec3 normal_world;  // smooth normal in world space (normals view)
  Rgba8 background;   // a miss's colour (FrameParams::background)
  uint32_t slab;      // slab of the hit triangle
  uint32_t ray_tests; // ray-triangle tests this pixel's ray made
  uint64_t tile_refs; // references in this pixel's tile (all slabs)
  uint64_t heat_max;  // heat views: the frame's largest count of the view's kind, drawn red
  float z_near, z_far;
  int slabs;
  uint8_t shadow;     // the shadow mask's value (stages/shadow.h): 0 in shadow, 255 lit, 128 no hit
  bool has_albedo;    // the mesh has materials: `albedo` is the diffuse colour (stages/texture.h)
  Vec3 albedo;        // RGB, [0, 1]; white without materials
};

// FrameSettings' default background (renderer.h: kDefaultBackground; frame_setup.cpp checks that they agree).
constexpr Rgba8 kBackground{28, 30, 38, 255};
// The wireframe: a hit within kWireframePixels pixel footprints of an edge of its triangle keeps kWireframeKeep / 256
// of its colour. One footprint on each side of an edge makes a line about two pixels wide between two triangles and
// one pixel wide at a silhouette, where only one side has hits (half a footprint would leave gaps there).
constexpr float kWireframePixels = 1.0f;
constexpr uint32_t kWireframeKeep = 77;  // 30%: dark enough to read over the brightest view, the hue still shows

SC_HD uint8_t unit_to_byte(float x) {
  const float c = sc_clamp(x, 0.0f, 1.0f);
  return static_cast<uint8_t>(c * 255.0f + 0.5f);
}
SC_HD Rgba8 rgb(float r, float g, float b) { return Rgba8{unit_to_byte(r), unit_to_byte(g), unit_to_byte(b), 255}; }

// Blue -> cyan -> green -> yellow -> red for x in [0, 1].
SC_HD Rgba8 heat(float x) {
  const float v = sc_clamp(x, 0.0f, 1.0f) * 4.0f;
  const int seg = v >= 4.0f ? 3 : static_cast<int>(v);
  const float f = v - static_cast<float>(seg);
  switch (seg) {
    case 0: return rgb(0.0f, f, 1.0f);
    case 1: return rgb(0.0f, 1.0f, 1.0f - f);
    case 2: return rgb(f, 1.0f, 0.0f);
    default: return rgb(1.0f, 1.0f - f, 0.0f);
  }
}

// Where a count lies on a heat view's scale: log2(1 + value) / log2(1 + max), in [0, 1]. Counts span orders of magnitude
// (a background tile's 0 refs, a silhouette tile's thousands), which a linear scale shows as all blue or all red. 0 maps
// to 0 and max to exactly 1 (the same float divided by itself); max = 0 puts everything at 0. det_log2, not log2f:
// the same bits on both backends.
SC_HD float heat_position(uint64_t value, uint64_t max) {
  if (max == 0) return 0.0f;
  return sc_div(det_log2(1.0f + static_cast<float>(value)), det_log2(1.0f + static_cast<float>(max)));
}

SC_HD uint32_t hash_u32(uint32_t x) {  // lowbias32 (Chris Wellons)
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

SC_HD Rgba8 shade_pixel(ShadeMode mode, const PixelSample& p) {
  if (mode == ShadeMode::ray_tests) return heat(heat_position(p.ray_tests, p.heat_max));
  if (mode == ShadeMode::tile_triangles) return heat(heat_position(p.tile_refs, p.heat_max));
  if (mode == ShadeMode::shadow) return Rgba8{p.shadow, p.shadow, p.shadow, 255};  // the mask as it is
  if (p.id == kNoHit) return p.background;
  switch (mode) {
    case ShadeMode::depth: {
      const float view_depth = p.t * -p.dir_view.z;
      const float span = p.z_far - p.z_near;
      const float x = span > 0.0f ? sc_div(view_depth - p.z_near, span) : 0.0f;
      const float v = 1.0f - 0.85f * sc_clamp(x, 0.0f, 1.0f);
      return rgb(v, v, v);
    }
    case ShadeMode::normals: {
      const Vec3 n = normalize_or_zero(p.normal_world);
      return rgb(0.5f + 0.5f * n.x, 0.5f + 0.5f * n.y, 0.5f + 0.5f * n.z);
    }
    case ShadeMode::triangle_id: {
      const uint32_t h = hash_u32(p.id);
      return Rgba8{static_cast<uint8_t>(h), static_cast<uint8_t>(h >> 8), static_cast<uint8_t>(h >> 16), 255};
    }
    case ShadeMode::slab: {
      const float x = p.slabs > 1 ? sc_div(static_cast<float>(p.slab), static_cast<float>(p.slabs - 1)) : 0.0f;
      return heat(x);
    }
    case ShadeMode::albedo: return rgb(p.albedo.x, p.albedo.y, p.albedo.z);
    case ShadeMode::phong:
    case ShadeMode::flat:
    default: return Rgba8{0, 0, 0, 255};  // lit by the frame's light: shade_lit
  }
}

// Blinn-Phong from the frame's light plus an ambient term; a shadowed pixel keeps the ambient term only. The
// headlight (light and eye both along -dir, so the half vector is the view vector itself) is the classic one. The
// ambient and diffuse terms take the albedo's colour where the mesh has materials; without, the diffuse term is a
// fixed warm white.
SC_HD Rgba8 shade_lit(const LightFrame& light, const PixelSample& p) {
  Vec3 n = normalize_or_zero(p.normal_view);
  const Vec3 v = -p.dir_view;
  const float lit = p.shadow == 0 ? 0.0f : 1.0f;
  const float ambient = 0.08f;
  float diffuse_cos = 0.0f, half_cos = 0.0f;
  if (light.kind == LightKind::headlight) {
    diffuse_cos = sc_abs(dot(n, v));  // two-sided
    half_cos = diffuse_cos;
  } else {
    if (dot(n, v) < 0.0f) n = -n;  // two-sided: the side facing the eye
    const Vec3 l = light.kind == LightKind::sun ? light.direction
                                                : normalize_or_zero(light.position - p.dir_view * p.t);
    diffuse_cos = sc_max(0.0f, dot(n, l));
    half_cos = diffuse_cos > 0.0f ? sc_max(0.0f, dot(n, normalize_or_zero(l + v))) : 0.0f;
  }
  float spec = half_cos;  // half_cos^64 by repeated squaring (powf differs between host and device)
  for (int i = 0; i < 6; ++i) spec = spec * spec;
  const float diffuse = 0.8f * diffuse_cos * lit, specular = 0.35f * spec * lit;
  if (p.has_albedo) {
    const float lambert = ambient + diffuse;
    return rgb(lambert * p.albedo.x + specular, lambert * p.albedo.y + specular, lambert * p.albedo.z + specular);
  }
  return rgb(ambient + diffuse * 0.90f + specular, ambient + diffuse * 0.78f + specular,
             ambient + diffuse * 0.62f + specular);
}

// Whether a hit lies within kWireframePixels pixels of an edge of its triangle `tv` (view space), from its barycentrics
// (bary[i]: corner i's weight, 0 on the opposite edge) and the pixel's footprint at distance t, t x cone_spread (the
// ray cone of texture.h's level of detail), so lines are about as wide at any distance. The distance to the edge
// opposite corner i is bary[i] x the triangle's height over that edge, |n| / |e_i| (n the edges' cross product); the
// test compares squares: bary[i]^2 |n|^2 < w^2 |e_i|^2, no square root, no division. The footprint is measured across
// the ray, so a surface seen at a grazing angle draws lines narrower than a pixel across the tilt.
// A call of its own on the device (as surface_albedo): the casters, at their launch bounds' register cap, keep their
// allocation for frames without the wireframe.
SC_HD_NOINLINE bool near_triangle_edge(const TriangleVerts& tv, float b0, float b1, float b2, float t,
                                       float cone_spread) {
  const Vec3 n = cross(tv.b - tv.a, tv.c - tv.a);
  const float n2 = dot(n, n);
  const float w = t * cone_spread * kWireframePixels;
  const float w2 = w * w;
  const Vec3 e0 = tv.c - tv.b, e1 = tv.a - tv.c, e2 = tv.b - tv.a;  // opposite corners a, b, c
  return b0 * b0 * n2 < w2 * dot(e0, e0) || b1 * b1 * n2 < w2 * dot(e1, e1) || b2 * b2 * n2 < w2 * dot(e2, e2);
}

// A wireframe pixel: the colour scaled towards black by kWireframeKeep / 256, in integers (exact on both backends).
SC_HD uint8_t wireframe_channel(uint8_t v) { return static_cast<uint8_t>((v * kWireframeKeep + 128u) >> 8); }
SC_HD Rgba8 darken_for_wireframe(Rgba8 c) {
  return Rgba8{wireframe_channel(c.r), wireframe_channel(c.g), wireframe_channel(c.b), c.a};
}

// The views lit by the frame's light (shade_lit): besides the mask's own view, the only ones whose colour the shadow
// mask changes.
SC_HD bool lit_view(ShadeMode shading) { return shading == ShadeMode::phong || shading == ShadeMode::flat; }

// With shadows, whether a lit view's shadowed pixels all have one colour, shadowed_grey: shade_lit keeps the ambient
// term alone there, the same for every pixel of a mesh without materials when no wireframe darkens some of them.
SC_HD bool shadowed_pixels_are_grey(const FrameParams& p) {
  return p.light.shadows && lit_view(p.shading) && p.appearance.materials == nullptr && !p.wireframe;
}

// Their colour: shade_lit of a shadowed pixel without albedo, whose diffuse and specular terms are the mask's 0 times
// finite factors, so that any pixel's normal, ray and distance give the same bits.
SC_HD Rgba8 shadowed_grey(const LightFrame& light) {
  PixelSample s{};
  s.shadow = 0;
  s.dir_view = Vec3{0.0f, 0.0f, -1.0f};
  s.normal_view = Vec3{0.0f, 0.0f, 1.0f};
  s.has_albedo = false;
  return shade_lit(light, s);
}

// Whether the frame is shaded by a pass of its own after the cast (shade_one, from the cast's buffers) rather than by
// the cuda caster (the cpu backend shades every frame so): in the heat views (their scale is the frame's largest
// count, known only once every ray is cast) and, with shadows, in the mask's view and in a lit view whose shadowed
// pixels are not one grey. Otherwise the caster shades every pixel as if lit, and where the shadowed pixels are one
// grey the shadow test writes it into each pixel whose sample it finds blocked.
SC_HD bool shades_after_cast(const FrameParams& p) {
  if (p.shading == ShadeMode::ray_tests || p.shading == ShadeMode::tile_triangles) return true;
  return p.light.shadows &&
         (p.shading == ShadeMode::shadow || (lit_view(p.shading) && !shadowed_pixels_are_grey(p)));
}

// ---- per-pixel bodies ----

// Shade pixel (px, py) from its ray's result: the nearest hit (id, t; kNoHit / +inf for a miss), the ray's tests and
// its tile's references. The cuda caster calls this with the values it holds (it shades as it casts, writing straight
// into the target); the cpu backend through shade_one below, from the cast's buffers.
// heat_max: the heat views' scale (shade_one passes it; the caster never shades those views).
SC_HD Rgba8 shade_ray(const FrameParams& p, int px, int py, uint32_t id, float t, uint32_t ray_tests,
                      uint64_t tile_refs, uint8_t shadow = 255, uint64_t heat_max = 0) {
  PixelSample s;
  s.heat_max = heat_max;
  s.background = p.background;
  s.shadow = shadow;
  s.id = id;
  s.t = t;
  s.dir_view = pixel_ray_view(p.view, px, py);
  s.ray_tests = ray_tests;
  s.tile_refs = tile_refs;
  const SlabRange sr = frame_slab_range(p);
  s.z_near = sr.z_near;
  s.z_far = sr.z_far;
  s.slabs = p.slabs;
  s.slab = 0;
  s.normal_view = Vec3{0, 0, 0};
  s.normal_world = Vec3{0, 0, 0};
  s.has_albedo = false;
  s.albedo = Vec3{1.0f, 1.0f, 1.0f};
  if (s.id != kNoHit) {
    const TriangleVerts tv = p.tri_verts[s.id];
    s.slab = slab_of_depth(sr, p.nearest_depth[s.id]);
    // Only the views that show the albedo read the appearance; a mesh without materials skips it all.
    const bool textured = p.appearance.materials != nullptr &&
                          (p.shading == ShadeMode::phong || p.shading == ShadeMode::flat ||
                           p.shading == ShadeMode::albedo);
    // The barycentrics of the hit, recomputed (same inputs as the cast, so the same result).
    float bary[3] = {1.0f, 0.0f, 0.0f};
    if (p.need_smooth_normals || textured || p.wireframe) {
      float t_again = 0.0f;
      intersect_watertight(make_ray_shear(s.dir_view), tv.a, tv.b, tv.c, t_again, bary);
    }
    if (textured) {
      s.has_albedo = true;
      s.albedo = surface_albedo(p.appearance, p.indices, s.id, tv, s.dir_view, s.t, bary[0], bary[1], bary[2]);
    }
    if (p.need_smooth_normals) {
      const Vec3 na = p.vertex_normals[p.indices[3 * static_cast<int64_t>(s.id)]];
      const Vec3 nb = p.vertex_normals[p.indices[3 * static_cast<int64_t>(s.id) + 1]];
      const Vec3 nc = p.vertex_normals[p.indices[3 * static_cast<int64_t>(s.id) + 2]];
      s.normal_world = na * bary[0] + nb * bary[1] + nc * bary[2];
      s.normal_view = rotate_to_view(p.view, s.normal_world);
    } else {
      s.normal_view = cross(tv.b - tv.a, tv.c - tv.a);
    }
    if (p.wireframe) {
      const Rgba8 c = p.shading == ShadeMode::phong || p.shading == ShadeMode::flat ? shade_lit(p.light, s)
                                                                                    : shade_pixel(p.shading, s);
      return near_triangle_edge(tv, bary[0], bary[1], bary[2], s.t, p.appearance.cone_spread) ? darken_for_wireframe(c)
                                                                                              : c;
    }
  }
  if (s.id != kNoHit && (p.shading == ShadeMode::phong || p.shading == ShadeMode::flat)) return shade_lit(p.light, s);
  return shade_pixel(p.shading, s);
}

// The heat views' scale, from the frame's counters (final once the cast is done: shade_one runs after it).
SC_HD uint64_t heat_scale_max(const FrameParams& p) {
  if (p.shading == ShadeMode::ray_tests) return p.counters->max_ray_tests;
  if (p.shading == ShadeMode::tile_triangles) return p.counters->max_refs_per_tile;
  return 0;
}

// Shade pixel (px, py) from the cast's buffers.
SC_HD Rgba8 shade_one(const FrameParams& p, int px, int py) {
  const int64_t pix = static_cast<int64_t>(py) * p.view.width + px;
  return shade_ray(p, px, py, p.hit_id[pix], p.hit_t[pix], p.ray_tests[pix],
                   tile_reference_count(p, px / kTileSize, py / kTileSize),
                   p.light.shadows ? p.shadow_mask[pix] : static_cast<uint8_t>(255), heat_scale_max(p));
}

}  // namespace slabcast
