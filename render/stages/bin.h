// Stage 2, project and bin (docs/architecture.md, frame step 2): per triangle, its conservative pixel box (and the
// tile range made from it) and its nearest depth; the frame's depth range; the slab of a nearest depth within that
// range. Shared by both backends: bin_one is the per-triangle body.
#pragma once
#include <cstdint>

#include "render/camera.h"
#include "render/constants.h"
#include "render/frame_params.h"
#include "render/hd_math.h"

namespace slabcast {

// Inclusive tile range of a triangle; culled triangles have x0 > x1.
struct alignas(8) TileRange {
  int16_t x0, y0, x1, y1;
};
static_assert(kMaxTilesPerAxis <= 32768, "tile indices fit int16_t");
SC_HD TileRange make_tile_range(int x0, int y0, int x1, int y1) {
  return TileRange{static_cast<int16_t>(x0), static_cast<int16_t>(y0), static_cast<int16_t>(x1),
                   static_cast<int16_t>(y1)};
}
SC_HD TileRange culled_range() { return make_tile_range(1, 1, 0, 0); }
SC_HD bool is_culled(const TileRange& r) { return r.x0 > r.x1; }

// PixelBox (frame_params.h): the inclusive range of the pixels whose ray (through the frame's pixel offset, camera.h:
// the centre unless the frame is one sample of several) can hit a triangle, clamped to the frame: the box from which
// the tile range is made. The caster tests a ray against a triangle only when its pixel
// lies in this box: a ray outside it misses (the same guarantee that puts the triangle in the pixel's tile), so the
// skip changes no result. Most triangles of a tile cover a few of its 64 pixels (the dragon's are about a pixel at
// 1024x1024). The bin stage stores this box, not the tile range (the tile range is the box divided by the tile
// size): the caster and L1 read it. 16 bits a bound, since a frame is at most kMaxTilesPerAxis * kTileSize = 16384
// pixels a side: the bin stage writes, and L1 reads twice, 8 bytes a triangle.
static_assert(kMaxTilesPerAxis * kTileSize <= 32768, "pixel indices fit int16_t");
SC_HD PixelBox make_pixel_box(int x0, int y0, int x1, int y1) {
  return PixelBox{static_cast<int16_t>(x0), static_cast<int16_t>(y0), static_cast<int16_t>(x1),
                  static_cast<int16_t>(y1)};
}
SC_HD PixelBox empty_pixel_box() { return make_pixel_box(1, 1, 0, 0); }
SC_HD bool box_holds(const PixelBox& b, int px, int py) {
  return px >= b.x0 && px <= b.x1 && py >= b.y0 && py <= b.y1;
}
SC_HD TileRange tile_range_of(const PixelBox& b) {
  if (b.x0 > b.x1) return culled_range();
  return make_tile_range(b.x0 / kTileSize, b.y0 / kTileSize, b.x1 / kTileSize, b.y1 / kTileSize);
}

// A large triangle (constants.h: kLargeTriangleTiles): L1 takes it a column at a time, as pieces (stages/build.h).
SC_HD bool is_large(const TileRange& r) {
  const uint64_t columns = static_cast<uint64_t>(r.x1 - r.x0 + 1), rows = static_cast<uint64_t>(r.y1 - r.y0 + 1);
  return r.x0 <= r.x1 && columns > 1 && columns * rows > kLargeTriangleTiles;
}
SC_HD uint64_t pack_piece(int64_t triangle, int column) {
  return (static_cast<uint64_t>(triangle) << 32) | static_cast<uint32_t>(column);
}

// Nearest depth of a triangle that crosses the camera plane (a vertex at view depth <= 0): it goes to slab 0
// and stays out of the per-frame depth-range fit, so one such triangle does not stretch the slabs to depth 0.
constexpr float kStraddleDepth = -1.0f;
// Nearest depth of a culled triangle: ignored by the depth-range fit.
constexpr float kCulledDepth = INFINITY;

struct BinResult {
  TileRange range;
  PixelBox pixels;      // the pixel box that range is made from (empty when culled)
  float nearest_depth;  // view depth (-z) of the nearest vertex; kStraddleDepth / kCulledDepth as above
};

// One continuous screen coordinate -> pixel index range bound, clamped first so that huge projections (a vertex
// just in front of the eye) stay finite before the conversion to int.
SC_HD int pixel_floor(float s, int limit) {
  const float clamped = sc_clamp(s, -2.0f, static_cast<float>(limit) + 2.0f);
  return static_cast<int>(sc_floor(clamped));
}
SC_HD int pixel_ceil(float s, int limit) {
  const float clamped = sc_clamp(s, -2.0f, static_cast<float>(limit) + 2.0f);
  return static_cast<int>(-sc_floor(-clamped));
}

// Triangle (a, b, c) in view space. Culled: any non-finite coordinate, zero area, all vertices at or behind
// the camera plane (no ray with t > 0 can hit it), or a projected box that misses the screen or every pixel centre.
// Triangles with a vertex at view depth <= 0 but not all: conservatively the whole screen, slab 0.
SC_HD BinResult bin_triangle(const ViewParams& view, int tiles_x, int tiles_y, Vec3 a, Vec3 b, Vec3 c) {
  BinResult out{culled_range(), empty_pixel_box(), kCulledDepth};
  const bool finite = sc_isfinite(a.x) && sc_isfinite(a.y) && sc_isfinite(a.z) && sc_isfinite(b.x) &&
                      sc_isfinite(b.y) && sc_isfinite(b.z) && sc_isfinite(c.x) && sc_isfinite(c.y) &&
                      sc_isfinite(c.z);
  if (!finite) return out;
  const Vec3 n = cross(b - a, c - a);
  if (n.x == 0.0f && n.y == 0.0f && n.z == 0.0f) return out;  // degenerate: no ray hits it
  const float da = -a.z, db = -b.z, dc = -c.z;                 // view depth, positive in front
  const float dmin = sc_min(da, sc_min(db, dc));
  const float dmax = sc_max(da, sc_max(db, dc));
  if (!(dmax > 0.0f)) return out;  // entirely at or behind the camera plane
  if (!(dmin > 0.0f)) {            // crosses the camera plane
    out.range = make_tile_range(0, 0, tiles_x - 1, tiles_y - 1);
    out.pixels = make_pixel_box(0, 0, view.width - 1, view.height - 1);
    out.nearest_depth = kStraddleDepth;
    return out;
  }
  // In front: the perspective image of the triangle is the triangle of the projected vertices, so their box
  // bounds every pixel whose ray can hit it. Continuous screen coordinates: pixel px's ray passes through
  // px + pixel_offset_x, its centre px + 0.5 unless the frame is one of several samples (inverse of pixel_ray_view).
  const float W = static_cast<float>(view.width), H = static_cast<float>(view.height);
  const float kx = view.tan_half_fovy * view.aspect, ky = view.tan_half_fovy;
  const float sxa = (sc_div(sc_div(a.x, da), kx) + 1.0f) * 0.5f * W;
  const float sxb = (sc_div(sc_div(b.x, db), kx) + 1.0f) * 0.5f * W;
  const float sxc = (sc_div(sc_div(c.x, dc), kx) + 1.0f) * 0.5f * W;
  const float sya = (1.0f - sc_div(sc_div(a.y, da), ky)) * 0.5f * H;
  const float syb = (1.0f - sc_div(sc_div(b.y, db), ky)) * 0.5f * H;
  const float syc = (1.0f - sc_div(sc_div(c.y, dc), ky)) * 0.5f * H;
  // Pixel p can be hit only when its ray's point p + o (o = 0.5 for the centre) lies in [smin, smax]: p from
  // ceil(smin - o) to floor(smax - o), each side widened by the margin (constants.h) against rounding. A triangle
  // between those points gets an empty range and is culled: no ray of the frame can hit it.
  const float extent = sc_max(sc_max(sc_max(W, H), sc_max(sc_abs(sxa), sc_abs(sxb))),
                              sc_max(sc_max(sc_abs(sxc), sc_abs(sya)), sc_max(sc_abs(syb), sc_abs(syc))));
  const float margin = kBinMarginPixels + kBinMarginRelative * extent;
  const float ox = view.pixel_offset_x, oy = view.pixel_offset_y;
  const int px0 = pixel_ceil(sc_min(sxa, sc_min(sxb, sxc)) - ox - margin, view.width);
  const int px1 = pixel_floor(sc_max(sxa, sc_max(sxb, sxc)) - ox + margin, view.width);
  const int py0 = pixel_ceil(sc_min(sya, sc_min(syb, syc)) - oy - margin, view.height);
  const int py1 = pixel_floor(sc_max(sya, sc_max(syb, syc)) - oy + margin, view.height);
  if (px1 < 0 || py1 < 0 || px0 > view.width - 1 || py0 > view.height - 1) return out;  // off screen
  if (px0 > px1 || py0 > py1) return out;  // between pixel centres
  const int cx0 = px0 < 0 ? 0 : px0, cy0 = py0 < 0 ? 0 : py0;
  const int cx1 = px1 > view.width - 1 ? view.width - 1 : px1;
  const int cy1 = py1 > view.height - 1 ? view.height - 1 : py1;
  out.pixels = make_pixel_box(cx0, cy0, cx1, cy1);
  out.range = tile_range_of(out.pixels);
  out.nearest_depth = dmin;
  return out;
}

// ---- Slabs ----
// The frame's slab range [z_near, z_far] is fitted to the nearest depths of the binned, in-front triangles.
// Slab s holds the triangles whose nearest depth d satisfies boundary(s) <= d < boundary(s+1), where the
// boundaries below are the only definition used anywhere: binning asks slab_of_depth, and the caster's
// "finished" test compares a hit against boundary(s+1). Because both read the same float values, every
// triangle of slab > s really has nearest depth >= boundary(s+1), so a hit nearer than that is final.
struct SlabRange {
  float z_near, z_far;
  int slabs;
};

// The raw range (nearest_of / farthest_of below) -> the slab range (no in-front triangle at all: an arbitrary
// non-empty range).
SC_HD SlabRange make_slab_range(float min_depth, float max_depth, int slabs) {
  if (!(min_depth <= max_depth)) return SlabRange{0.0f, 1.0f, slabs};
  return SlabRange{min_depth, max_depth, slabs};
}

SC_HD float slab_boundary(const SlabRange& r, int s) {
  if (s <= 0) return -INFINITY;
  if (s >= r.slabs) return INFINITY;
  return r.z_near + (r.z_far - r.z_near) * sc_div(static_cast<float>(s), static_cast<float>(r.slabs));
}

SC_HD uint32_t slab_of_depth(const SlabRange& r, float d) {
  if (!(d > r.z_near)) return 0;  // also kStraddleDepth
  const float width = r.z_far - r.z_near;
  int s = 0;
  if (width > 0.0f) {
    const float x = sc_div(d - r.z_near, width) * static_cast<float>(r.slabs);
    s = x >= static_cast<float>(r.slabs) ? r.slabs - 1 : static_cast<int>(sc_floor(x));
  }
  // The estimate above may be off by one through rounding; settle it against the boundaries themselves.
  while (s + 1 < r.slabs && slab_boundary(r, s + 1) <= d) ++s;
  while (s > 0 && slab_boundary(r, s) > d) --s;
  return static_cast<uint32_t>(s);
}

// ---- The frame's depth range ----
// The slab range is fitted to the nearest depths of the in-front triangles (finite and > 0: straddling and culled
// triangles stay out). It is accumulated as two integer keys, each by maximum, so that the cuda backend folds it
// into the bin kernel with integer atomics instead of two reductions after it: a maximum of integers is exact in
// any order, so both backends get the same bits. A positive float's bits order as the float does; a key of 0 means
// "no in-front triangle" (no positive float has bits 0 or ~0). The keys are DepthRangeKeys (frame_params.h).
SC_HD bool in_front_depth(float d) { return d > 0.0f && sc_isfinite(d); }
SC_HD uint32_t nearest_depth_key(float d) { return in_front_depth(d) ? ~sc_bit_cast<uint32_t>(d) : 0u; }
SC_HD uint32_t farthest_depth_key(float d) { return in_front_depth(d) ? sc_bit_cast<uint32_t>(d) : 0u; }
SC_HD void accumulate_depth(DepthRangeKeys& k, float d) {
  const uint32_t n = nearest_depth_key(d), f = farthest_depth_key(d);
  k.nearest = n > k.nearest ? n : k.nearest;
  k.farthest = f > k.farthest ? f : k.farthest;
}
// The raw range (+inf / -inf where no triangle is in front, which make_slab_range turns into a default).
SC_HD float nearest_of(const DepthRangeKeys& k) { return k.nearest == 0 ? INFINITY : sc_bit_cast<float>(~k.nearest); }
SC_HD float farthest_of(const DepthRangeKeys& k) { return k.farthest == 0 ? -INFINITY : sc_bit_cast<float>(k.farthest); }
SC_HD SlabRange make_slab_range(const DepthRangeKeys& k, int slabs) {
  return make_slab_range(nearest_of(k), farthest_of(k), slabs);
}

// ---- per-item body ----

// Bins triangle t; returns whether it was binned (for the caller's count). The cuda kernel folds the depth range in
// with integer atomics (render/cuda/bin_block.cuh), the cpu backend with accumulate_depth in a second loop.
SC_HD bool bin_one(const FrameParams& p, int64_t t) {
  if (p.hidden_duplicate != nullptr && p.hidden_duplicate[t] != 0) {  // a copy no ray can see (mesh_duplicates.h)
    p.pixel_box[t] = empty_pixel_box();
    p.nearest_depth[t] = kCulledDepth;
    return false;
  }
  const Vec3 a = p.view_positions[p.indices[3 * t]].p;
  const Vec3 b = p.view_positions[p.indices[3 * t + 1]].p;
  const Vec3 c = p.view_positions[p.indices[3 * t + 2]].p;
  const BinResult r = bin_triangle(p.view, p.tiles_x, p.tiles_y, a, b, c);
  p.pixel_box[t] = r.pixels;
  p.nearest_depth[t] = r.nearest_depth;
  // Every triangle can cast a shadow, also one the camera does not see: with shadows on, all are written.
  if (is_culled(r.range)) {
    if (p.light.shadows) p.tri_verts[t] = TriangleVerts{a, b, c};
    return false;
  }
  p.tri_verts[t] = TriangleVerts{a, b, c};
  return true;
}

// The frame's slab range, from the depth range the bin stage accumulated.
SC_HD SlabRange frame_slab_range(const FrameParams& p) {
  return make_slab_range(*p.depth_range, p.slabs);
}

}  // namespace slabcast
