// Stage 4, cast (docs/architecture.md, frame step 4): one ray per pixel centre, through its tile's cells slab by slab,
// front to back, keeping the nearest hit. A ray is finished after the first slab whose far side lies behind its hit.
//
// cast_pixel is the per-ray body as the cpu backend runs it. The cuda caster (render/cuda/cast_block.cuh) casts a
// tile's 64 rays together in one block, as (triangle, pixel) pairs over chunks of references in shared memory, with
// the same per-ray result and test count; the hit keys and tile boxes below are its pieces.
//
// Deep cells. A cell of more than kDepthSortedCell references (constants.h) is put in near-depth order before the cast:
// by depth_order_key, the nearest depth of each triangle (stages/bin.h), then its ID. Its rays take it kDepthGroup
// references at a time, and a ray is done with the cell before a group whose first triangle's nearest depth is not in
// front of its hit by more than kDepthTie (ray_done_with_cell): every later triangle of the cell is at least that
// deep. So a skipped triangle could only have been nearer by less than kDepthTie, relative: the result differs from
// testing every triangle only between hits within that of each other in depth (2^-20, about 16 float ulps, where the
// brute-force oracle counts relative 1e-5 as a tie). That tolerance is what ends coplanar and coincident stacks after
// one group. A ray's test count there is the groups it took, whole. Either backend gives every ray the same groups,
// hit and count.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "render/camera.h"
#include "render/constants.h"
#include "render/frame_params.h"
#include "render/hd_math.h"
#include "render/intersect.h"
#include "render/stages/bin.h"
#include "render/stages/build.h"

namespace slabcast {

// A ray is finished after slab s when its nearest hit lies in front of slab s+1's near boundary: every triangle of a
// later slab has all its points at view depth >= that boundary (stages/bin.h), and a hit's view depth is
// t * (-dir.z).
SC_HD bool ray_finished_after(const SlabRange& sr, int s, float best_t, float neg_dir_z) {
  return best_t * neg_dir_z < slab_boundary(sr, s + 1);
}

SC_HD bool is_depth_sorted_cell(uint64_t references) { return references > kDepthSortedCell; }

// A triangle's place in a deep cell: its nearest depth's bits made to order as the float does (the straddling
// triangles' kStraddleDepth first), then its ID, so the order is total and the same on both backends.
SC_HD unsigned long long depth_order_key(float nearest_depth, uint32_t id) {
  const uint32_t bits = sc_bit_cast<uint32_t>(nearest_depth);
  const uint32_t ordered = (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
  return (static_cast<unsigned long long>(ordered) << 32) | id;
}

// Whether a ray whose nearest hit is best_t is done with a deep cell before a group whose first triangle has nearest
// depth next_near: no triangle left lies in front of that hit by more than kDepthTie of its depth.
constexpr float kDepthTie = 1.0f / 1048576.0f;  // 2^-20
SC_HD bool ray_done_with_cell(float best_t, float neg_dir_z, float next_near) {
  const float depth = best_t * neg_dir_z;
  return depth < INFINITY && depth - depth * kDepthTie <= next_near;
}

// A hit as one 64-bit key whose minimum is the nearest hit of closer_hit's order: t's bits above (t > 0 and finite, so
// its bits order as it does), the triangle ID below (ties: the lower ID). A miss is +inf with kNoHit, above every hit.
SC_HD unsigned long long hit_key(float t, uint32_t id) {
#if defined(__CUDA_ARCH__)
  const uint32_t bits = __float_as_uint(t);
#else
  const uint32_t bits = sc_bit_cast<uint32_t>(t);
#endif
  return (static_cast<unsigned long long>(bits) << 32) | id;
}
SC_HD float hit_key_t(unsigned long long key) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(static_cast<uint32_t>(key >> 32));
#else
  return sc_bit_cast<float>(static_cast<uint32_t>(key >> 32));
#endif
}
SC_HD uint32_t hit_key_id(unsigned long long key) { return static_cast<uint32_t>(key); }

// A triangle's pixels inside one tile (its pixel box, clipped to the tile), 3 bits a field: first column, first row,
// columns - 1, rows - 1.
static_assert(kTileSize == 8, "tile boxes pack 3 bits a coordinate");
SC_HD uint32_t pack_tile_box(int x0, int y0, int x1, int y1) {
  return static_cast<uint32_t>(x0 | (y0 << 3) | ((x1 - x0) << 6) | ((y1 - y0) << 9));
}
SC_HD int tile_box_pixel(uint32_t box, int k) {  // the box's k-th pixel, row by row, as an index into the tile
  const int columns = static_cast<int>((box >> 6) & 7u) + 1;
  const int x = static_cast<int>(box & 7u) + k % columns;
  const int y = static_cast<int>((box >> 3) & 7u) + k / columns;
  return y * kTileSize + x;
}

// ---- per-ray body (cpu backend) ----

// Pixel (px, py) of tile (tx, ty): its ray tests every triangle of a slab's cell until it is finished after some slab.
// Writes the cast's buffers and adds the ray's tests and hit to the counters.
inline void cast_pixel(const FrameParams& p, const SlabRange& sr, int tx, int ty, int px, int py,
                       FrameCounters& counters) {
  const Vec3 dir = pixel_ray_view(p.view, px, py);
  const RayShear shear = make_ray_shear(dir);
  float best_t = INFINITY;
  uint32_t best_id = kNoHit;
  uint32_t tests = 0;
  const auto test = [&](uint64_t k) {
    const uint32_t id = ref_triangle(p.cell_refs[k]);
    const TriangleVerts& tv = p.tri_verts[id];
    float t = 0.0f, bary[3];
    if (!box_holds(p.pixel_box[id], px, py)) return;  // outside the box the test misses (stages/bin.h)
    if (intersect_watertight(shear, tv.a, tv.b, tv.c, t, bary) && closer_hit(t, id, best_t, best_id)) {
      best_t = t;
      best_id = id;
    }
  };
  for (int s = 0; s < p.slabs; ++s) {
    const uint64_t c = build_cell(tx, ty, s, p.tiles_y, p.slabs);
    const uint64_t begin = p.cell_offsets[c], end = p.cell_offsets[c + 1];
    // A candidate counts as a test also where the pixel box settles it (the cuda caster counts so too).
    if (!is_depth_sorted_cell(end - begin)) {
      tests += static_cast<uint32_t>(end - begin);
      for (uint64_t k = begin; k < end; ++k) test(k);
    } else {
      for (uint64_t g = begin; g < end; g += kDepthGroup) {
        if (g > begin && ray_done_with_cell(best_t, -dir.z, p.nearest_depth[ref_triangle(p.cell_refs[g])])) break;
        const uint64_t group_end = end - g < kDepthGroup ? end : g + kDepthGroup;
        tests += static_cast<uint32_t>(group_end - g);
        for (uint64_t k = g; k < group_end; ++k) test(k);
      }
    }
    if (ray_finished_after(sr, s, best_t, -dir.z)) break;
  }
  const int64_t pix = static_cast<int64_t>(py) * p.view.width + px;
  p.hit_t[pix] = best_t;
  p.hit_id[pix] = best_id;
  p.ray_tests[pix] = tests;
  counters.ray_tests += tests;
  if (tests > counters.max_ray_tests) counters.max_ray_tests = tests;
  counters.pixels_hit += best_id != kNoHit ? 1 : 0;
}

// Puts a deep cell's references [begin, end) in near-depth order (cpu backend; the cuda caster sorts the same keys).
// The references of one cell differ only in their triangle IDs (stages/build.h), so the cell is rebuilt from its
// first reference's upper bits and the sorted IDs.
inline void sort_cell_by_depth_on_host(const FrameParams& p, uint64_t begin, uint64_t end,
                                       std::vector<unsigned long long>& keys) {
  keys.resize(end - begin);
  for (uint64_t k = begin; k < end; ++k) {
    const uint32_t id = ref_triangle(p.cell_refs[k]);
    keys[k - begin] = depth_order_key(p.nearest_depth[id], id);
  }
  std::sort(keys.begin(), keys.end());
  const TriangleRef cell_bits = p.cell_refs[begin] & ~static_cast<TriangleRef>(0xFFFFFFFFu);
  for (uint64_t k = begin; k < end; ++k) p.cell_refs[k] = cell_bits | static_cast<uint32_t>(keys[k - begin]);
}

}  // namespace slabcast
