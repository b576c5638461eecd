// Stage 4, cast (docs/architecture.md, frame step 4): one ray per pixel centre, through its tile's cells slab by slab,
// front to back, keeping the nearest hit. A ray is finished after the first slab whose far side lies behind its hit.
//
// cast_pixel is the per-ray body as the cpu backend runs it. The cuda caster (render/cuda/cast_block.cuh) casts a
// tile's 64 rays together in one block, as (triangle, pixel) pairs over chunks of references in shared memory, with
// the same per-ray result and test count; the hit keys and tile boxes below are its pieces.
#pragma once
#include <cstdint>

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
  for (int s = 0; s < p.slabs; ++s) {
    const uint64_t c = build_cell(tx, ty, s, p.tiles_y, p.slabs);
    for (uint64_t k = p.cell_offsets[c]; k < p.cell_offsets[c + 1]; ++k) {
      const uint32_t id = ref_triangle(p.cell_refs[k]);
      const TriangleVerts& tv = p.tri_verts[id];
      float t = 0.0f, bary[3];
      ++tests;  // a candidate counts as a test also where the pixel box settles it (the cuda caster counts so too)
      if (!box_holds(p.pixel_box[id], px, py)) continue;  // outside the box the test misses (stages/bin.h)
      if (intersect_watertight(shear, tv.a, tv.b, tv.c, t, bary) && closer_hit(t, id, best_t, best_id)) {
        best_t = t;
        best_id = id;
      }
    }
    if (ray_finished_after(sr, s, best_t, -dir.z)) break;
  }
  const int64_t pix = static_cast<int64_t>(py) * p.view.width + px;
  p.hit_t[pix] = best_t;
  p.hit_id[pix] = best_id;
  p.ray_tests[pix] = tests;
  counters.ray_tests += tests;
  counters.pixels_hit += best_id != kNoHit ? 1 : 0;
}

}  // namespace slabcast
