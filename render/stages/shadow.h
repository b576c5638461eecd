// Stage 4b, shadows (docs/architecture.md, "Shadows"): an irregular z-buffer built by the library's primitives, as
// the primary structure is. The pixels' primary hits become the light's samples; samples and triangles are binned into
// the same light-space tiles (a key per sample and per tile a triangle reaches, light tile above and its pixel or
// triangle below: on the cpu backend a stable sort by the tile packs both; on the cuda backend a count, a scan and a
// scatter, which leaves each tile's samples and triangles in no set order within it); every sample then tests
// the triangles of its light tile, stopping at the first that blocks it. A triangle goes only to the tiles that hold a
// sample it can block: one no nearer the light than the triangle's nearest point (light depth, below). Shared by both
// backends: the per-item bodies, the keys and the walk over a triangle's tiles are here.
//
// The rule. The pixel whose primary ray hits triangle T at p is in shadow when a triangle other than T crosses the
// open segment from p to a point light, or the ray from p towards a sun. p is computed from the hit's barycentrics
// and moved off T's plane, towards the light's side, by the bound of its own rounding error (shadow_origin), so
// T's neighbours on a smooth surface cannot shadow it by rounding (no acne) and every real blocker further than
// that bound, a few ulps of p's coordinates, is found: the segment test is the watertight one (intersect.h).
// Answers can differ from an exact test only where a blocker lies within that bound of either end of the segment
// or the segment grazes a blocker's edge.
//
// Light space. A sun projects orthographically onto the plane across its direction (one face); a point light
// centrally onto the six faces of a cube around it, a sample going to the face of its direction's largest
// component. Each face's grid (LightFrame::grid tiles a side) is fitted to the bounds of its samples. A triangle
// goes to every tile its projection, widened by a margin for rounding, overlaps: on a cube face, the triangle
// clipped to the face's pyramid first (a triangle can reach behind the light).
//
// Light depth. A point's depth is its distance from the light along the light's axis: for a sun, along the sun's
// direction, away from the sun; on a cube face, along the face's axis. Every point of a shadow ray between its
// origin and the light is shallower than the origin (for a sun, -dot(p + t dir, dir) = -dot(p, dir) - t; towards a
// point light, the axis distance shrinks in proportion), so a triangle whose every point lies deeper than a sample
// cannot block it. Each triangle's box carries its nearest depth on the face (its smallest vertex depth, the depth
// being linear over the triangle), lowered by a margin far above the rounding of either depth; each tile keeps its
// deepest sample's depth. A triangle skips the tiles all of whose samples lie above it, and a sample the triangles
// of its tile that lie below it: both only leave out triangles that cannot block, so the mask is unchanged.
#pragma once
#include <cstdint>

#include "render/camera.h"
#include "render/constants.h"
#include "render/frame_params.h"
#include "render/hd_math.h"
#include "render/intersect.h"
#include "render/stages/build.h"

namespace slabcast {

// ---- light-space coordinates ----

// A float's bits as an unsigned key that orders as the float does (finite values).
SC_HD uint32_t ordered_key(float x) {
  const uint32_t bits = sc_bit_cast<uint32_t>(x);
  return (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
}
SC_HD float from_ordered_key(uint32_t key) {
  return sc_bit_cast<float>((key & 0x80000000u) ? (key & 0x7FFFFFFFu) : ~key);
}

struct LightCoord {
  int face;
  float u, v;
  float depth;  // light depth (the banner), view units
};

// A sun's light depth of q: its distance along the sun's direction (a unit vector), away from the sun.
SC_HD float sun_depth(const LightFrame& L, Vec3 q) { return -dot(q, L.direction); }

// Where a point q (view units) lies in light space; false when it has no direction from the light (q is the point
// light itself) or is not finite.
SC_HD bool light_coord(const LightFrame& L, Vec3 q, LightCoord& c) {
  if (L.kind == LightKind::sun) {
    c.face = 0;
    c.u = dot(q, L.axis_u);
    c.v = dot(q, L.axis_v);
    c.depth = sun_depth(L, q);
    return sc_isfinite(c.u) && sc_isfinite(c.v) && sc_isfinite(c.depth);
  }
  const Vec3 d = q - L.position;
  const float ax = sc_abs(d.x), ay = sc_abs(d.y), az = sc_abs(d.z);
  const int axis = ax >= ay ? (ax >= az ? 0 : 2) : (ay >= az ? 1 : 2);
  const float w = component(d, axis);
  const float aw = sc_abs(w);
  if (!(aw > 0.0f) || !sc_isfinite(aw)) return false;
  c.face = 2 * axis + (w < 0.0f ? 1 : 0);
  c.u = sc_div(component(d, axis == 2 ? 0 : axis + 1), aw);
  c.v = sc_div(component(d, axis == 0 ? 2 : axis - 1), aw);
  c.depth = aw;
  return true;
}

// A face's sample bounds from its keys (no sample: an empty box, lo > hi).
SC_HD LightBox face_bounds(const LightFaceKeys& k) {
  if (k.u_max == 0) return LightBox{1.0f, 0.0f, 1.0f, 0.0f, 0.0f};
  return LightBox{from_ordered_key(~k.u_min), from_ordered_key(k.u_max), from_ordered_key(~k.v_min),
                  from_ordered_key(k.v_max), 0.0f};
}
SC_HD void accumulate_face(LightFaceKeys& k, float u, float v) {
  const uint32_t u_lo = ~ordered_key(u), u_hi = ordered_key(u), v_lo = ~ordered_key(v), v_hi = ordered_key(v);
  k.u_min = u_lo > k.u_min ? u_lo : k.u_min;
  k.u_max = u_hi > k.u_max ? u_hi : k.u_max;
  k.v_min = v_lo > k.v_min ? v_lo : k.v_min;
  k.v_max = v_hi > k.v_max ? v_hi : k.v_max;
}

// A face's grid (LightFaceGrid): its samples' bounds (face_bounds) and the cells a unit along u and along v (0 where
// the samples span nothing), so that a coordinate's cell costs a subtraction and a product (light_cell). Each
// sample's key makes its face's; the triangles' walks read the frame's, made once (FrameCounters::light_grids).
SC_HD float cells_per_unit(float lo, float hi, int grid) {
  const float span = hi - lo;
  return span > 0.0f ? sc_div(static_cast<float>(grid), span) : 0.0f;
}
SC_HD LightFaceGrid face_grid(const LightFaceKeys& k, int grid) {
  const LightBox b = face_bounds(k);
  return LightFaceGrid{b, cells_per_unit(b.u0, b.u1, grid), cells_per_unit(b.v0, b.v1, grid)};
}

// The tile along one axis of a coordinate x of a face whose samples start at lo, `cells` cells a unit
// (cells_per_unit): monotone in x (every step is a correctly rounded operation monotone in its input, the product's
// factor fixed and not negative), so a triangle's box [x0, x1] holding x gives tiles that hold x's tile.
SC_HD int light_cell(float x, float lo, float cells, int grid) {
  const float s = (x - lo) * cells;
  if (!(s > 0.0f)) return 0;
  if (s >= static_cast<float>(grid)) return grid - 1;
  return static_cast<int>(sc_floor(s));
}

// A light tile's index: column (face * grid + cell along u) major, then row (cell along v), the order the sort by
// tile produces (light_sample_offsets, light_ref_offsets).
SC_HD uint32_t light_tile(int face, int cu, int cv, int grid) {
  return (static_cast<uint32_t>(face * grid + cu)) * static_cast<uint32_t>(grid) + static_cast<uint32_t>(cv);
}

// ---- the sample of a pixel ----

// The relative rounding bound gamma(n) = n u / (1 - n u), u = 2^-24, of n float operations (Higham).
SC_HD float gamma_bound(int n) {
  const float u = 5.9604645e-8f;
  return sc_div(static_cast<float>(n) * u, 1.0f - static_cast<float>(n) * u);
}

// The shadow ray's origin for a primary hit on triangle (a, b, c) along view direction dir: the hit point from the
// barycentrics of the cast's own test (the same operations as the shading's), moved along the triangle's normal to
// the light's side by twice the bound of its rounding error (p = b0 a + b1 b + b2 c is off the exact point by at most
// gamma(7) (|b0 a| + |b1 b| + |b2 c|) a coordinate; Pharr, Jakob & Humphreys, PBR 3rd ed., 3.9).
SC_HD Vec3 shadow_ray_origin(const LightFrame& L, Vec3 dir, Vec3 a, Vec3 b, Vec3 c) {
  float t = 0.0f, bary[3] = {1.0f / 3.0f, 1.0f / 3.0f, 1.0f / 3.0f};
  intersect_watertight(make_ray_shear(dir), a, b, c, t, bary);
  const Vec3 wa = a * bary[0], wb = b * bary[1], wc = c * bary[2];
  const Vec3 p = wa + wb + wc;
  const float g = gamma_bound(7);
  const Vec3 err{(sc_abs(wa.x) + sc_abs(wb.x) + sc_abs(wc.x)) * g, (sc_abs(wa.y) + sc_abs(wb.y) + sc_abs(wc.y)) * g,
                 (sc_abs(wa.z) + sc_abs(wb.z) + sc_abs(wc.z)) * g};
  const Vec3 n = normalize_or_zero(cross(b - a, c - a));
  const float offset = 2.0f * (sc_abs(n.x) * err.x + sc_abs(n.y) * err.y + sc_abs(n.z) * err.z);
  const Vec3 to_light = L.kind == LightKind::sun ? L.direction : L.position - p;
  const float side = dot(n, to_light) < 0.0f ? -offset : offset;
  return p + n * side;
}

// The sample of pixel (px, py), whose primary ray hit triangle `id` (kNoHit: nothing): writes its ShadowOrigin and its
// mask's first value (lit, or 128 for no hit; the test writes the shadowed ones), and returns whether it is a sample,
// with its light coordinate. The cuda backend's caster calls this as each ray finishes (render/cuda/cast_block.cuh).
SC_HD bool shadow_sample_of_hit(const FrameParams& p, int px, int py, uint32_t id, LightCoord& c) {
  const int64_t pix = static_cast<int64_t>(py) * p.view.width + px;
  ShadowOrigin s{Vec3{0, 0, 0}, kNoHit};
  bool sample = false;
  if (id != kNoHit) {
    const TriangleVerts tv = p.tri_verts[id];
    s.origin = shadow_ray_origin(p.light, pixel_ray_view(p.view, px, py), tv.a, tv.b, tv.c);
    sample = light_coord(p.light, s.origin, c);
    if (sample) s.id = id;
  }
  p.shadow_origin[pix] = s;
  p.shadow_mask[pix] = id == kNoHit ? 128 : 255;
  return sample;
}

// Pixel pix's sample, from its primary hit in hit_id.
SC_HD bool shadow_sample_one(const FrameParams& p, int64_t pix, LightCoord& c) {
  const int px = static_cast<int>(pix % p.view.width), py = static_cast<int>(pix / p.view.width);
  return shadow_sample_of_hit(p, px, py, p.hit_id[pix], c);
}

// ---- the keys packed by light tile ----
//
// A key is (light tile << 32 | pixel or triangle ID); sorting the keys by their upper bits, stably, packs them by tile
// with each tile's pixels or triangles in ascending order (the cuda backend packs both by a scatter instead, in no set
// order within a tile: render/cuda/shadow_block.cuh). Tile `tiles` (= faces * grid * grid, one past the
// last) holds what is not in any tile: the pixels without a sample, and the large triangles, which every sample
// tests.

SC_HD uint64_t light_key(uint64_t tile, uint32_t low) { return (tile << 32) | low; }
SC_HD uint64_t light_key_tile(uint64_t key) { return key >> 32; }
SC_HD uint64_t light_tile_count(const LightFrame& L) {
  return static_cast<uint64_t>(L.faces) * static_cast<uint64_t>(L.grid) * static_cast<uint64_t>(L.grid);
}

// Pixel i's key: its sample's light tile, or tile `tiles` when it has no sample; and its sample's light depth as an
// ordered key, which the tile's deepest sample keeps (light_tile_depth; 0 when it has no sample: every finite float's
// ordered key is above 0). The light and the bounds are read through pointers: on the cuda backend the kernel is
// fixed in the frame graph, and the caster copies the frame's light to light_on_device.
struct LightSampleKey {
  uint64_t key;
  uint32_t depth_key;
};
SC_HD LightSampleKey light_sample_key(const ShadowOrigin* samples, const LightFrame* light, const LightFaceKeys* faces,
                                      int64_t i) {
  const LightFrame& L = *light;
  const ShadowOrigin s = samples[i];
  LightCoord c;
  if (s.id == kNoHit || !light_coord(L, s.origin, c)) {
    return LightSampleKey{light_key(light_tile_count(L), static_cast<uint32_t>(i)), 0};
  }
  const LightFaceGrid g = face_grid(faces[c.face], L.grid);
  const int cu = light_cell(c.u, g.bounds.u0, g.u_cells, L.grid), cv = light_cell(c.v, g.bounds.v0, g.v_cells, L.grid);
  return LightSampleKey{light_key(light_tile(c.face, cu, cv, L.grid), static_cast<uint32_t>(i)), ordered_key(c.depth)};
}

// Margins that widen a triangle's light-space box against rounding (stages/shadow.h's banner): the sun's
// coordinates are dot products of view-space points of at most a few view units (camera.h scales the scene so), off
// by a few ulps; a cube face's are ratios in [-1, 1], off by a few ulps of their inputs' ratio, more for a point
// clipped near the light, where the box then covers the whole face.
constexpr float kSunMargin = 1.0f / 65536.0f;        // view units, times max(1, the largest coordinate)
constexpr float kDepthMargin = 1.0f / 65536.0f;      // light depth (view units), times max(1, the largest |depth|)
constexpr float kCubeMargin = 1.0f / 4096.0f;        // face coordinates
constexpr float kCubeNearLight = 1.0f / 256.0f;      // a clipped corner this close to the light (relative): whole face

// A corner (u, v, w) of a triangle's part on a cube face (u, v along the face, w along its axis, before the division)
// against plane k of the face's pyramid, w - u >= 0, w + u >= 0, w - v >= 0, w + v >= 0: inside when not negative.
SC_HD float cube_plane_side(Vec3 corner, int k) {
  const float su = k == 0 ? -1.0f : (k == 1 ? 1.0f : 0.0f);
  const float sv = k == 2 ? -1.0f : (k == 3 ? 1.0f : 0.0f);
  return corner.z + su * corner.x + sv * corner.y;
}

// Widens a face's box by a corner of the triangle's part on it, projected; false for a corner at (or by rounding
// behind) the light, whose box is then the whole face.
SC_HD bool add_cube_corner(Vec3 corner, float size, LightBox& box) {
  const float w = corner.z;
  if (!(w > kCubeNearLight * size)) return false;
  const float u = sc_clamp(sc_div(corner.x, w), -1.0f, 1.0f), v = sc_clamp(sc_div(corner.y, w), -1.0f, 1.0f);
  box.u0 = sc_min(box.u0, u);
  box.u1 = sc_max(box.u1, u);
  box.v0 = sc_min(box.v0, v);
  box.v1 = sc_max(box.v1, v);
  return true;
}

// Triangle (a, b, c)'s box on cube face f of a point light at L (all view units); false when it does not reach
// the face. The triangle is clipped to the face's pyramid (cube_plane_side), then its corners projected. Most
// triangles of a mesh lie wholly inside one face's pyramid, which leaves them as they are, and wholly outside one of
// the planes of each other face's: both are told from the corners' sides, and only a triangle across a plane is
// clipped, in arrays (local memory on the GPU) that the others never touch.
SC_HD bool cube_face_box(Vec3 light, int f, Vec3 a, Vec3 b, Vec3 c, LightBox& box) {
  const int axis = f / 2;
  const float sign = (f & 1) ? -1.0f : 1.0f;
  const int ku = axis == 2 ? 0 : axis + 1, kv = axis == 0 ? 2 : axis - 1;
  const Vec3 q[3] = {a - light, b - light, c - light};
  Vec3 corner[3];
  for (int k = 0; k < 3; ++k) corner[k] = Vec3{component(q[k], ku), component(q[k], kv), sign * component(q[k], axis)};
  if (corner[0].z <= 0.0f && corner[1].z <= 0.0f && corner[2].z <= 0.0f) return false;  // behind the face's plane
  bool inside = true;  // every corner inside every plane
  for (int plane = 0; plane < 4; ++plane) {
    int outside = 0;
    for (int k = 0; k < 3; ++k) outside += cube_plane_side(corner[k], plane) < 0.0f ? 1 : 0;
    if (outside == 3) return false;  // wholly outside one plane
    inside = inside && outside == 0;
  }
  // The nearest depth (w, as light_coord's samples have it) over the whole triangle, clipped or not.
  const float near = sc_min(corner[0].z, sc_min(corner[1].z, corner[2].z));
  float size = 0.0f;
  for (int k = 0; k < 3; ++k) size = sc_max(size, sc_max(sc_abs(q[k].x), sc_max(sc_abs(q[k].y), sc_abs(q[k].z))));
  const float near_bound = near - kDepthMargin * sc_max(1.0f, size);
  box = LightBox{INFINITY, -INFINITY, INFINITY, -INFINITY, near_bound};
  bool bounded = true;
  if (inside) {
    for (int k = 0; k < 3 && bounded; ++k) bounded = add_cube_corner(corner[k], size, box);
  } else {  // Sutherland-Hodgman, plane by plane
    Vec3 poly[9], next[9];
    int n = 3;
    for (int k = 0; k < 3; ++k) poly[k] = corner[k];
    for (int plane = 0; plane < 4 && n > 0; ++plane) {
      int m = 0;
      for (int k = 0; k < n; ++k) {
        const Vec3 p0 = poly[k], p1 = poly[k + 1 == n ? 0 : k + 1];
        const float d0 = cube_plane_side(p0, plane), d1 = cube_plane_side(p1, plane);
        if (d0 >= 0.0f) next[m++] = p0;
        if ((d0 >= 0.0f) != (d1 >= 0.0f)) {
          const float s = sc_div(d0, d0 - d1);
          next[m++] = p0 + (p1 - p0) * s;
        }
      }
      n = m;
      for (int k = 0; k < n; ++k) poly[k] = next[k];
    }
    if (n == 0) return false;
    for (int k = 0; k < n && bounded; ++k) bounded = add_cube_corner(poly[k], size, box);
  }
  if (!bounded) {
    box = LightBox{-1.0f, 1.0f, -1.0f, 1.0f, near_bound};
    return true;
  }
  box.u0 -= kCubeMargin;
  box.u1 += kCubeMargin;
  box.v0 -= kCubeMargin;
  box.v1 += kCubeMargin;
  return true;
}

// Whether a triangle can block any shadow ray: finite, with area. (A degenerate one never passes the watertight
// test.)
SC_HD bool can_block(const TriangleVerts& t) {
  const bool finite = sc_isfinite(t.a.x) && sc_isfinite(t.a.y) && sc_isfinite(t.a.z) && sc_isfinite(t.b.x) &&
                      sc_isfinite(t.b.y) && sc_isfinite(t.b.z) && sc_isfinite(t.c.x) && sc_isfinite(t.c.y) &&
                      sc_isfinite(t.c.z);
  const Vec3 n = cross(t.b - t.a, t.c - t.a);
  return finite && (n.x != 0.0f || n.y != 0.0f || n.z != 0.0f);
}

SC_HD LightBox empty_light_box() { return LightBox{1.0f, 0.0f, 1.0f, 0.0f, INFINITY}; }
// Whether the box's triangle can block a sample at (u, v) and light depth `depth` of its face: the sample lies in its
// projection's box and no nearer the light than its nearest point.
SC_HD bool box_holds(const LightBox& b, float u, float v, float depth) {
  return u >= b.u0 && u <= b.u1 && v >= b.v0 && v <= b.v1 && b.near <= depth;
}

// Triangle i's vertices, and whether it can block anything: not a hidden duplicate (mesh_duplicates.h: a copy of a
// triangle that is in, which would otherwise shadow its original's own points), nor degenerate or non-finite.
SC_HD bool light_blocker(const FrameParams& p, int64_t i, TriangleVerts& t) {
  const bool hidden = p.hidden_duplicate != nullptr && p.hidden_duplicate[i] != 0;
  t = hidden ? TriangleVerts{} : p.tri_verts[i];  // the bin stage writes none for a hidden one
  return !hidden && can_block(t);
}

// A blocker's box in a sun's light space (its one face).
SC_HD LightBox sun_light_box(const LightFrame& L, const TriangleVerts& t) {
  const float ua = dot(t.a, L.axis_u), ub = dot(t.b, L.axis_u), uc = dot(t.c, L.axis_u);
  const float va = dot(t.a, L.axis_v), vb = dot(t.b, L.axis_v), vc = dot(t.c, L.axis_v);
  const float size = sc_max(1.0f, sc_max(sc_max(sc_max(sc_abs(ua), sc_abs(ub)), sc_max(sc_abs(uc), sc_abs(va))),
                                         sc_max(sc_abs(vb), sc_abs(vc))));
  const float margin = kSunMargin * size;
  const float da = sun_depth(L, t.a), db = sun_depth(L, t.b), dc = sun_depth(L, t.c);
  const float depth_margin = kDepthMargin * sc_max(1.0f, sc_max(sc_abs(da), sc_max(sc_abs(db), sc_abs(dc))));
  return LightBox{sc_min(ua, sc_min(ub, uc)) - margin, sc_max(ua, sc_max(ub, uc)) + margin,
                  sc_min(va, sc_min(vb, vc)) - margin, sc_max(va, sc_max(vb, vc)) + margin,
                  sc_min(da, sc_min(db, dc)) - depth_margin};
}

// Triangle i's box on each face of light space (empty for a triangle that cannot block).
SC_HD void light_box_one(const FrameParams& p, int64_t i) {
  TriangleVerts t;
  const bool blocks = light_blocker(p, i, t);
  LightBox* boxes = p.light_boxes + i;
  if (p.light.kind == LightKind::sun) {
    *boxes = blocks ? sun_light_box(p.light, t) : empty_light_box();
    return;
  }
  for (int f = 0; f < kMaxLightFaces; ++f) {
    LightBox box;
    const bool reaches = blocks && cube_face_box(p.light.position, f, t.a, t.b, t.c, box);
    boxes[static_cast<int64_t>(f) * p.num_triangles] = reaches ? box : empty_light_box();
  }
}

// A triangle's light tiles on one face: its box against the face's sample bounds; false when it misses them.
struct LightCells {
  int u0, u1, v0, v1;
};
SC_HD bool light_cells(const LightBox& box, const LightFaceGrid& g, int grid, LightCells& c) {
  const LightBox& fb = g.bounds;
  if (box.u0 > box.u1 || fb.u0 > fb.u1) return false;                                   // empty box, or no samples
  if (box.u1 < fb.u0 || box.u0 > fb.u1 || box.v1 < fb.v0 || box.v0 > fb.v1) return false;  // misses every sample
  c = LightCells{light_cell(box.u0, fb.u0, g.u_cells, grid), light_cell(box.u1, fb.u0, g.u_cells, grid),
                 light_cell(box.v0, fb.v0, g.v_cells, grid), light_cell(box.v1, fb.v0, g.v_cells, grid)};
  return true;
}
SC_HD uint64_t cell_count(const LightCells& c) {
  return static_cast<uint64_t>(c.u1 - c.u0 + 1) * static_cast<uint64_t>(c.v1 - c.v0 + 1);
}

// Whether a tile whose deepest sample has depth key `tile_depth` (light_sample_key; 0: no sample) holds a sample that
// a triangle whose nearest depth bound is `near` can block.
SC_HD bool tile_reaches(uint32_t tile_depth, float near) { return tile_depth != 0 && ordered_key(near) <= tile_depth; }

// The light tiles a triangle reaches: every tile its box covers within the samples' bounds on every face that holds a
// sample no nearer the light than the triangle (tile_reaches), face by face, then column by column, then row by row.
// Both backends walk them with these: the cpu backend's emitter (below) into keys, the cuda backend's count and
// scatter (render/cuda/shadow_block.cuh) into each tile's count and slots, so both reach the same tiles.
struct LightTiles {
  const LightBox* boxes;  // [faces * triangles]
  int64_t triangles;
  const LightFrame* light;
  const LightFaceGrid* grids;  // [faces]: face_grid of each face's samples' bounds
  const uint32_t* tile_depth;  // [tiles]: each tile's deepest sample's depth key (light_sample_key)

  SC_HD const LightFaceGrid& grid_of(int face) const { return grids[face]; }
  SC_HD const LightBox& box_of(int face, int64_t i) const { return boxes[static_cast<int64_t>(face) * triangles + i]; }

  // Calls reach(tile) for each tile triangle i goes to: every tile it reaches, or, when its boxes cover over
  // kLargeLightTriangle tiles in all, tile `tiles` alone (the large triangles' list). Returns how many.
  template <class Reach>
  SC_HD uint32_t for_each_reached(int64_t i, Reach&& reach) const {
    return light->faces == 1 ? for_each_reached_in_box(box_of(0, i), grid_of(0), reach)
                             : for_each_reached_on_every_face(i, reach);
  }
  // for_each_reached of a light of one face (a sun), from the triangle's box and the face's grid as the caller holds
  // them: the box's cells are worked out once, and the box is not read back from memory.
  template <class Reach>
  SC_HD uint32_t for_each_reached_in_box(const LightBox& box, const LightFaceGrid& g, Reach&& reach) const {
    LightCells c{0, 0, 0, 0};
    if (!light_cells(box, g, light->grid, c)) return 0;
    if (cell_count(c) > kLargeLightTriangle) {
      reach(light_tile_count(*light));
      return 1;
    }
    return for_each_reached_in_cells(0, c, box.near, reach);
  }
  // for_each_reached of a light of any number of faces (a point light's six), each face's box read from memory: first
  // the faces whose boxes cover cells, and how many cells in all, then the walk of each of those faces. (The cuda
  // backend's count does the same with each box as it works it out, and its scatter walks the faces the count
  // recorded: render/cuda/shadow_block.cuh.)
  template <class Reach>
  SC_HD uint32_t for_each_reached_on_every_face(int64_t i, Reach&& reach) const {
    uint64_t cells = 0;
    uint32_t covered = 0;  // bit f: the box on face f covers cells
    for (int f = 0; f < light->faces; ++f) {
      LightCells c{0, 0, 0, 0};
      if (light_cells(box_of(f, i), grid_of(f), light->grid, c)) {
        cells += cell_count(c);
        covered |= 1u << f;
      }
    }
    if (cells > kLargeLightTriangle) {
      reach(light_tile_count(*light));
      return 1;
    }
    uint32_t reached = 0;
    for (int f = 0; f < light->faces; ++f) {
      if ((covered >> f & 1u) != 0) reached += for_each_reached_on_face(f, box_of(f, i), reach);
    }
    return reached;
  }
  // The tiles a triangle whose box on face f is `box` reaches on that face, whatever it covers (the caller has ruled
  // out a large one).
  template <class Reach>
  SC_HD uint32_t for_each_reached_on_face(int f, const LightBox& box, Reach&& reach) const {
    LightCells c{0, 0, 0, 0};
    if (!light_cells(box, grid_of(f), light->grid, c)) return 0;
    return for_each_reached_in_cells(f, c, box.near, reach);
  }

 private:
  // The tiles of cells c on face f that hold a sample no nearer the light than `near`, column by column.
  template <class Reach>
  SC_HD uint32_t for_each_reached_in_cells(int face, const LightCells& c, float near, Reach&& reach) const {
    uint32_t reached = 0;
    for (int cu = c.u0; cu <= c.u1; ++cu) {
      for (int cv = c.v0; cv <= c.v1; ++cv) {
        const uint32_t t = light_tile(face, cu, cv, light->grid);
        if (tile_reaches(tile_depth[t], near)) {
          reach(static_cast<uint64_t>(t));
          ++reached;
        }
      }
    }
    return reached;
  }
};

// The frame's light tiles: its triangles' boxes, its faces' grids and its tiles' deepest samples.
SC_HD LightTiles frame_light_tiles(const FrameParams& p) {
  return LightTiles{p.light_boxes, p.num_triangles, &p.light, p.counters->light_grids, p.light_tile_depth};
}

// Triangle i's keys, for prim::multi_split into one bucket (the keys of all triangles in triangle order; the cpu
// backend): one for each tile it goes to (LightTiles::for_each_reached).
struct LightTileEmitter {
  LightTiles tiles;

  template <class Emit>
  SC_HD void operator()(int64_t i, Emit& emit) const {
    const uint32_t id = static_cast<uint32_t>(i);
    tiles.for_each_reached(i, [&](uint64_t tile) { emit(0u, light_key(tile, id)); });
  }
};
SC_HD uint32_t light_ref_triangle(uint64_t r) { return static_cast<uint32_t>(r); }

// ---- the test ----

// A shadow ray: from the sample's origin along `dir` (a sun's direction, or to the point light, whose position is
// at t = 1), with the watertight test's per-ray shear.
struct ShadowRay {
  Vec3 origin;
  RayShear shear;
  bool bounded;  // a segment to a point light: only 0 < t < 1 blocks
};
SC_HD ShadowRay make_shadow_ray(const LightFrame& L, Vec3 origin) {
  const Vec3 dir = L.kind == LightKind::sun ? L.direction : L.position - origin;
  return ShadowRay{origin, make_ray_shear(dir), L.kind != LightKind::sun};
}
SC_HD bool blocks(const ShadowRay& r, const TriangleVerts& t) {
  float hit_t = 0.0f, bary[3];
  if (!intersect_watertight(r.shear, t.a - r.origin, t.b - r.origin, t.c - r.origin, hit_t, bary)) return false;
  return !r.bounded || hit_t < 1.0f;
}

// Sample k of the samples packed by light tile, as the test reads it: its pixel and light tile, the triangle it lies
// on (which never shadows it), its light coordinate and its shadow ray.
struct ShadowSample {
  uint32_t pixel, tile, own;
  LightCoord c;
  ShadowRay ray;
};
SC_HD ShadowSample shadow_sample_at(const FrameParams& p, uint64_t k) {
  const uint64_t s = p.light_samples[k];
  const uint32_t pixel = static_cast<uint32_t>(s), tile = static_cast<uint32_t>(s >> 32);
  const ShadowOrigin o = p.shadow_origin[pixel];
  LightCoord c{0, 0.0f, 0.0f, 0.0f};
  light_coord(p.light, o.origin, c);  // true: it made the sample
  return ShadowSample{pixel, tile, o.id, c, make_shadow_ray(p.light, o.origin)};
}

// A run of light references in light_refs: a tile's, or the large triangles' (after the last tile's).
struct LightRefRange {
  uint64_t begin, end;
};
SC_HD LightRefRange tile_light_refs(const FrameParams& p, uint32_t tile) {
  return LightRefRange{p.light_ref_offsets[tile], p.light_ref_offsets[tile + 1]};
}
SC_HD LightRefRange large_light_refs(const FrameParams& p) {
  const uint64_t large = light_tile_count(p.light);
  return LightRefRange{p.light_ref_offsets[large], p.light_ref_offsets[large + 1]};
}

// Sample k (of the samples packed by light tile) against its tile's triangles and the large ones, stopping at the
// first that blocks it; writes 0 to its mask when one does. A triangle whose box on the sample's face leaves out the
// sample's coordinate, or lies wholly deeper than the sample, is not tested: the segment cannot cross it (the same
// guarantees that put it in the tile). Adds the sample's pairs to `pairs`: its list's length, its tile's triangles
// and the large ones (the frame's pair count, shadow_tests, is the same however a backend walks the pairs, and
// wherever it stops).
SC_HD void shadow_test_one(const FrameParams& p, uint64_t k, uint64_t& pairs) {
  const ShadowSample x = shadow_sample_at(p, k);
  const LightBox* boxes = p.light_boxes + static_cast<int64_t>(x.c.face) * p.num_triangles;
  const auto blocked_by = [&](uint32_t id) {
    if (id == x.own) return false;  // a triangle never shadows its own points
    return box_holds(boxes[id], x.c.u, x.c.v, x.c.depth) && blocks(x.ray, p.tri_verts[id]);
  };
  const LightRefRange tile = tile_light_refs(p, x.tile);
  const LightRefRange large = large_light_refs(p);
  pairs += (tile.end - tile.begin) + (large.end - large.begin);
  for (uint64_t r = tile.begin; r < tile.end; ++r) {
    if (blocked_by(light_ref_triangle(p.light_refs[r]))) {
      p.shadow_mask[x.pixel] = 0;
      return;
    }
  }
  for (uint64_t r = large.begin; r < large.end; ++r) {
    if (blocked_by(light_ref_triangle(p.light_refs[r]))) {
      p.shadow_mask[x.pixel] = 0;
      return;
    }
  }
}

}  // namespace slabcast
