// The cast stage's block on the GPU (stages/cast.h has the per-ray semantics and the cpu backend's cast_pixel): a
// tile's 64 rays cast together, as (triangle, pixel) pairs over chunks of references in shared memory, each ray
// shaded (stages/shade.h: shade_ray) by the thread that holds it, straight into the target. cast_kernel
// (kernels.cu) is this block's entry point.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include <cub/block/block_scan.cuh>

#include "render/constants.h"
#include "render/cuda/cast_target.cuh"
#include "render/cuda/depth_sort_block.cuh"
#include "render/cuda/shadow_block.cuh"
#include "render/frame_params.h"
#include "render/intersect.h"
#include "render/stages/bin.h"
#include "render/stages/build.h"
#include "render/stages/cast.h"
#include "render/stages/shade.h"
#include "render/stages/shadow.h"

namespace slabcast {

// A pixel's result: the hit buffers when the caller asked for them, and its shade into the target (with shadows, as
// if lit: the test writes the shadowed pixels, CastTarget::grey_shadows).
__device__ __forceinline__ void finish_pixel(const FrameParams& p, const CastTarget& target, int px, int py,
                                             uint32_t best_id, float best_t, uint32_t tests, uint64_t tile_refs) {
  if (target.write_hits) {
    const int64_t pix = static_cast<int64_t>(py) * p.view.width + px;
    p.hit_t[pix] = best_t;
    p.hit_id[pix] = best_id;
    p.ray_tests[pix] = tests;
  }
  if (target.shade) write_pixel(target, px, py, shade_ray(p, px, py, best_id, best_t, tests, tile_refs));
}

// The block's share of the frame's statistics: per-block sums, one atomic each. Every block adds to the same few
// words, so only non-zero contributions go out: same-address atomics queue up at one L2 slice. Every thread of the
// block calls this, with its ray's test count and whether it hit.
__device__ __forceinline__ void add_cast_statistics(const FrameParams& p, const uint64_t* slab_begin, uint32_t tests,
                                                    bool hit) {
  __shared__ unsigned long long block_tests;
  __shared__ unsigned int block_hits;
  __shared__ unsigned int block_max_tests;
  // The ray_tests view's scale (FrameCounters::max_ray_tests): only that view pays for it, a uniform branch. An integer
  // maximum, so the order of the atomics does not matter.
  const bool want_max = p.shading == ShadeMode::ray_tests;
  if (threadIdx.x == 0) {
    block_tests = 0;
    block_hits = 0;
    block_max_tests = 0;
  }
  __syncthreads();
  atomicAdd(&block_tests, static_cast<unsigned long long>(tests));
  if (hit) atomicAdd(&block_hits, 1u);
  if (want_max) atomicMax(&block_max_tests, tests);
  __syncthreads();
  if (threadIdx.x == 0) {
    if (block_tests > 0) atomicAdd(reinterpret_cast<unsigned long long*>(&p.counters->ray_tests), block_tests);
    if (want_max && block_max_tests > 0) {
      atomicMax(reinterpret_cast<unsigned long long*>(&p.counters->max_ray_tests),
                static_cast<unsigned long long>(block_max_tests));
    }
    if (block_hits > 0) {
      atomicAdd(reinterpret_cast<unsigned long long*>(&p.counters->pixels_hit),
                static_cast<unsigned long long>(block_hits));
    }
    unsigned long long nonempty = 0;
    for (int s = 0; s < p.slabs; ++s) nonempty += slab_begin[s + 1] > slab_begin[s] ? 1 : 0;
    atomicAdd(reinterpret_cast<unsigned long long*>(&p.counters->nonempty_cells), nonempty);
    atomicMax(reinterpret_cast<unsigned long long*>(&p.counters->max_refs_per_tile),
              static_cast<unsigned long long>(slab_begin[p.slabs] - slab_begin[0]));
  }
}

// The ray test on a triangle in shared memory, whose vertices are in the ray's axis order already (kInRayAxes, where
// all of a tile's rays share their axes: to_ray_axes once a triangle, not once a test) or as they are.
template <bool kInRayAxes>
__device__ __forceinline__ bool intersect_chunk_triangle(const RayShear& shear, const TriangleVerts& tv, float& t) {
  float bary[3];
  return kInRayAxes ? intersect_watertight_ray_axes(shear, tv.a, tv.b, tv.c, t, bary)
                    : intersect_watertight(shear, tv.a, tv.b, tv.c, t, bary);
}

// The block's shared chunk: a run of references of the tile and, per reference, its triangle (in the rays' axis
// order when the tile's rays share it), ID, box inside the tile and the exclusive scan of the boxes' pixel counts.
struct CastChunk {
  TriangleVerts* triangles;
  uint32_t* ids;
  uint16_t* boxes;      // pack_tile_box
  uint32_t* pair_start; // [chunk size + 1]
};

// What the deep-cell caster's chunks are loaded from: FrameParams' arrays.
struct CastInputs {
  const TriangleRef* cell_refs;
  const TriangleVerts* tri_verts;
  const PixelBox* pixel_box;
  const float* nearest_depth;
};

// Loads references [chunk_begin, chunk_begin + n) into the chunk and scans their pairs. Every thread calls it.
template <int kChunk, class ChunkScan>
__device__ __forceinline__ void load_chunk(const CastInputs& p, const CastChunk& chunk,
                                           typename ChunkScan::TempStorage& scan_storage, uint64_t chunk_begin, int n,
                                           bool same_axes, const RayShear& shear, int tile_x0, int tile_y0) {
  constexpr int kThreads = kTilePixels;
  constexpr int kRefsPerThread = kChunk / kThreads;
  const int pixel = static_cast<int>(threadIdx.x);
  uint32_t ids[kRefsPerThread];
#pragma unroll
  for (int k = 0; k < kRefsPerThread; ++k) {  // all reference loads first: they overlap
    const int i = k * kThreads + pixel;
    ids[k] = i < n ? ref_triangle(p.cell_refs[chunk_begin + static_cast<uint64_t>(i)]) : 0u;
  }
#pragma unroll
  for (int k = 0; k < kRefsPerThread; ++k) {
    const int i = k * kThreads + pixel;
    uint32_t count = 0;
    if (i < n) {
      chunk.ids[i] = ids[k];
      const TriangleVerts tv = p.tri_verts[ids[k]];
      const PixelBox box = p.pixel_box[ids[k]];
      chunk.triangles[i] = same_axes ? TriangleVerts{to_ray_axes(shear, tv.a), to_ray_axes(shear, tv.b),
                                                     to_ray_axes(shear, tv.c)}
                                     : tv;
      // The box meets the tile: the triangle is in this tile because its box is (stages/bin.h: tile_range_of).
      const int x0 = max(box.x0 - tile_x0, 0), x1 = min(box.x1 - tile_x0, kTileSize - 1);
      const int y0 = max(box.y0 - tile_y0, 0), y1 = min(box.y1 - tile_y0, kTileSize - 1);
      chunk.boxes[i] = static_cast<uint16_t>(pack_tile_box(x0, y0, x1, y1));
      count = static_cast<uint32_t>((x1 - x0 + 1) * (y1 - y0 + 1));
    }
    chunk.pair_start[i] = count;
  }
  __syncthreads();
  uint32_t counts[kRefsPerThread], starts[kRefsPerThread];
#pragma unroll
  for (int k = 0; k < kRefsPerThread; ++k) counts[k] = chunk.pair_start[pixel * kRefsPerThread + k];
  uint32_t total = 0;
  ChunkScan(scan_storage).ExclusiveSum(counts, starts, total);
#pragma unroll
  for (int k = 0; k < kRefsPerThread; ++k) chunk.pair_start[pixel * kRefsPerThread + k] = starts[k];
  if (pixel == 0) chunk.pair_start[kChunk] = total;
  __syncthreads();
}

// Tests the pairs of chunk triangles [first, last) whose pixels' rays are not finished, folding hits into the pixels'
// nearest. Thread k takes pairs k, k + 64, ...
__device__ __forceinline__ void test_chunk_pairs(const CastChunk& chunk, int first, int last, bool same_axes,
                                                 const RayShear* pixel_shear, unsigned long long* pixel_best,
                                                 const uint32_t* pixel_finished) {
  const uint32_t pairs_end = chunk.pair_start[last];
  for (uint32_t q = chunk.pair_start[first] + threadIdx.x; q < pairs_end; q += kTilePixels) {
    int lo = first, hi = last - 1;  // the last triangle j of [first, last) with pair_start[j] <= q
    while (lo < hi) {
      const int mid = (lo + hi + 1) / 2;
      if (chunk.pair_start[mid] <= q) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    const int pair_pixel = tile_box_pixel(chunk.boxes[lo], static_cast<int>(q - chunk.pair_start[lo]));
    if ((pixel_finished[pair_pixel / 32] >> (pair_pixel % 32)) & 1u) continue;
    float t = 0.0f;
    const bool hit = same_axes ? intersect_chunk_triangle<true>(pixel_shear[pair_pixel], chunk.triangles[lo], t)
                               : intersect_chunk_triangle<false>(pixel_shear[pair_pixel], chunk.triangles[lo], t);
    if (hit) atomicMin(&pixel_best[pair_pixel], hit_key(t, chunk.ids[lo]));
  }
}

// A deep cell [begin, end) of the tile (stages/cast.h), sorted already: taken kDepthGroup references at a time,
// chunk by chunk, each group like a slab of its own; after a group the block reads the next group's first nearest
// depth, and a ray whose hit lies in front of it takes no more of the cell's pairs; the block leaves the cell when
// all its rays do. Returns this thread's tests (the groups its ray took). It loads its own chunks (the caller's
// next slab starts a new one).
template <int kChunk>
__device__ __forceinline__ uint32_t cast_deep_cell(CastInputs p, CastChunk chunk, void* scan_storage,
                                                uint64_t begin, uint64_t end, uint64_t tile_end, bool same_axes,
                                                RayShear shear, float neg_dir_z, int tile_x0, int tile_y0,
                                                bool finished, const RayShear* pixel_shear,
                                                unsigned long long* pixel_best, uint32_t* pixel_finished) {
  using ChunkScan = cub::BlockScan<uint32_t, kTilePixels>;
  const int pixel = static_cast<int>(threadIdx.x);
  uint32_t tests = 0;
  bool done = finished;
  uint64_t chunk_begin = begin, chunk_end = begin;
  for (uint64_t r = begin; r < end;) {
    const uint64_t group_begin = r, group_end = end - r > kDepthGroup ? r + kDepthGroup : end;
    while (r < group_end) {
      if (r == chunk_end) {
        __syncthreads();  // the previous chunk has been consumed
        chunk_begin = r;
        chunk_end = tile_end - r < static_cast<uint64_t>(kChunk) ? tile_end : r + kChunk;
        load_chunk<kChunk, ChunkScan>(p, chunk, *static_cast<typename ChunkScan::TempStorage*>(scan_storage),
                                      chunk_begin, static_cast<int>(chunk_end - chunk_begin), same_axes, shear,
                                      tile_x0, tile_y0);
      }
      const uint64_t stop = group_end < chunk_end ? group_end : chunk_end;
      test_chunk_pairs(chunk, static_cast<int>(r - chunk_begin), static_cast<int>(stop - chunk_begin), same_axes,
                       pixel_shear, pixel_best, pixel_finished);
      r = stop;
    }
    __syncthreads();  // the group's pairs are done
    if (!done) tests += static_cast<uint32_t>(group_end - group_begin);
    if (r == end) break;
    const float next_near = p.nearest_depth[ref_triangle(p.cell_refs[r])];
    done = done || ray_done_with_cell(hit_key_t(pixel_best[pixel]), neg_dir_z, next_near);
    const uint32_t warp_done = __ballot_sync(0xffffffffu, done);
    if (pixel % 32 == 0) pixel_finished[pixel / 32] = warp_done;
    if (__syncthreads_and(done)) break;
  }
  __syncthreads();  // the chunk's last readers are done before the caller loads the next
  return tests;
}

// The caster's block: one block of 64 threads per 8x8 tile, slabs front to back. Each pixel's ray keeps its nearest
// hit (closer_hit: smaller t, ties to the lower ID) and is finished after the first slab whose far side lies behind
// that hit (stages/cast.h: ray_finished_after); the block leaves when all its rays are. Per ray, the results and the
// test counts are exactly those of the cpu backend's cast_pixel (stages/cast.h).
//
// The threads take (triangle, pixel) pairs, not pixels: a triangle is tested only against the rays of the pixels in
// its pixel box (stages/bin.h: a ray outside the box misses it), and most triangles cover a few of a tile's 64 pixels
// (the dragon's are about a pixel at 1024x1024), so a tile makes one or two pairs a triangle where one thread a ray
// would make 64 tests. References come through shared memory in chunks of kChunk that run across slab boundaries
// (two rounds of independent global loads a chunk: the caster is latency-bound); each chunk triangle's pixels inside
// the tile are counted and scanned. Thread k takes pairs k, k + 64, ... of the slab's part of the chunk, finds its
// triangle by binary search in the scan, and folds a hit into its pixel's nearest by a shared-memory atomicMin on
// hit_key (stages/cast.h), whose order is closer_hit's, so the order of the atomics does not matter. A pixel whose
// ray is finished takes no more pairs. A ray's test count is every triangle of each slab it took part in (the ones its
// box ruled out included), as on the cpu backend.
//
// The tiles with a deep cell (stages/cast.h) are cast by a kernel of their own (kDeepCells): the ordinary caster,
// cast_kernel, lists them (FrameParams::deep_tiles) and leaves them, and cast_deep_kernel, a small grid launched after
// it, takes the listed tiles, sorts their deep cells (depth_sort_block.cuh) and casts those by cast_deep_cell. The
// ordinary caster carries none of that code, so it keeps its registers and speed (its PTX is the same as when the
// chunk loop was written out in it), and a frame without deep cells pays one launch of a few blocks that find the
// list empty.
//
// With shadows (kShadowSamples: cast_sample_kernel and cast_deep_sample_kernel), each ray's thread also makes its
// pixel's shadow sample (stages/shadow.h: shadow_sample_of_hit) as the ray finishes, and the block folds its samples'
// light-space bounds into the frame's, which saves a pass over the hit buffers; unless a shade kernel follows the test
// (stages/shade.h: shades_after_cast), it shades its pixel as if lit, and the test writes the shadowed ones.
template <int kChunk, bool kDeepCells, bool kShadowSamples>
__device__ __forceinline__ void cast_tile(const FrameParams& p, const CastTarget& target, unsigned tile) {
  constexpr int kThreads = kTilePixels;
  static_assert(kChunk % kThreads == 0, "every thread loads the same number of references per chunk");
  static_assert(kTileSize == 8, "tile boxes pack 3 bits a coordinate");
  using ChunkScan = cub::BlockScan<uint32_t, kThreads>;
  __shared__ uint64_t slab_begin[kMaxSlabs + 1];  // slab s of this tile is references [slab_begin[s], [s + 1])
  __shared__ __align__(8) TriangleVerts chunk_triangles[kChunk];  // also a deep cell's sort run, before the cast
  static_assert(sizeof(TriangleVerts) * kChunk >= sizeof(unsigned long long) * kSortRun, "a sort run fits");
  __shared__ uint32_t chunk_ids[kChunk];
  __shared__ uint16_t chunk_boxes[kChunk];        // pack_tile_box
  __shared__ uint32_t pair_start[kChunk + 1];     // exclusive scan of the chunk triangles' pixel counts
  __shared__ typename ChunkScan::TempStorage scan_storage;
  __shared__ RayShear pixel_shear[kTilePixels];
  __shared__ unsigned long long pixel_best[kTilePixels];  // hit_key
  __shared__ uint32_t pixel_finished[kTilePixels / 32];   // bit k of word w: pixel 32 w + k's ray is finished

  const int tx = static_cast<int>(tile / static_cast<unsigned>(p.tiles_y));
  const int ty = static_cast<int>(tile % static_cast<unsigned>(p.tiles_y));
  const int pixel = static_cast<int>(threadIdx.x);
  const int px = tx * kTileSize + pixel % kTileSize;
  const int py = ty * kTileSize + pixel / kTileSize;
  const bool inside = px < p.view.width && py < p.view.height;

  const uint64_t first_cell = build_cell(tx, ty, 0, p.tiles_y, p.slabs);
  for (int s = pixel; s <= p.slabs; s += kThreads) slab_begin[s] = p.cell_offsets[first_cell + static_cast<uint64_t>(s)];
  __syncthreads();
  if constexpr (!kDeepCells) {
    // A tile with a deep cell goes on the list of cast_deep_kernel, which casts it (thread s looks at slab s).
    static_assert(kMaxSlabs <= kThreads, "a thread a slab");
    if (__syncthreads_or(pixel < p.slabs && is_depth_sorted_cell(slab_begin[pixel + 1] - slab_begin[pixel]))) {
      if (pixel == 0) {
        const unsigned long long k = atomicAdd(reinterpret_cast<unsigned long long*>(&p.counters->deep_tiles), 1ull);
        p.deep_tiles[k] = tile;
      }
      return;
    }
  }
  const uint64_t tile_begin = slab_begin[0], tile_end = slab_begin[p.slabs];
  if (tile_end == tile_begin) {  // block-uniform: no triangle here, every ray misses
    if (inside) finish_pixel(p, target, px, py, kNoHit, INFINITY, 0, 0);
    if (kShadowSamples && inside) {
      LightCoord no_sample;
      shadow_sample_of_hit(p, px, py, kNoHit, no_sample);
    }
    return;
  }

  if constexpr (kDeepCells) {  // deep cells into near-depth order (block-uniform: every thread reads the same offsets)
    int deep_cells = 0;
    for (int s = 0; s < p.slabs; ++s) {
      if (!is_depth_sorted_cell(slab_begin[s + 1] - slab_begin[s])) continue;
      sort_cell_by_depth<kThreads>(p.cell_refs, p.cell_refs_scratch, p.nearest_depth, slab_begin[s],
                                   slab_begin[s + 1], reinterpret_cast<unsigned long long*>(chunk_triangles));
      ++deep_cells;
    }
    if (pixel == 0) {
      atomicAdd(reinterpret_cast<unsigned long long*>(&p.counters->depth_sorted_cells),
                static_cast<unsigned long long>(deep_cells));
    }
  }

  const Vec3 dir = inside ? pixel_ray_view(p.view, px, py) : Vec3{0.0f, 0.0f, -1.0f};
  const RayShear shear = make_ray_shear(dir);
  const SlabRange sr = frame_slab_range(p);
  pixel_shear[pixel] = shear;
  pixel_best[pixel] = hit_key(INFINITY, kNoHit);
  // Whether every ray of the tile has the same axis order (always, below a 90-degree field of view: z dominates):
  // then each triangle enters shared memory already in that order, and the tests skip the per-ray permutation.
  __shared__ int tile_axes;
  const int axes = shear.kx * 9 + shear.ky * 3 + shear.kz;
  if (pixel == 0) tile_axes = axes;
  __syncthreads();
  const bool same_axes = __syncthreads_and(axes == tile_axes) != 0;
  bool finished = !inside;  // pixels past the image's right / bottom edge take no part
  {
    const uint32_t warp_finished = __ballot_sync(0xffffffffu, finished);
    if (pixel % 32 == 0) pixel_finished[pixel / 32] = warp_finished;
  }
  uint32_t tests = 0;
  float best_t = INFINITY;
  uint32_t best_id = kNoHit;
  const int tile_x0 = tx * kTileSize, tile_y0 = ty * kTileSize;

  uint64_t chunk_begin = tile_begin, chunk_end = tile_begin;  // references in shared memory
  for (int s = 0; s < p.slabs; ++s) {
    const uint64_t slab_end = slab_begin[s + 1];
    if (kDeepCells && is_depth_sorted_cell(slab_end - slab_begin[s])) {  // block-uniform
      tests += cast_deep_cell<kChunk>(CastInputs{p.cell_refs, p.tri_verts, p.pixel_box, p.nearest_depth},
                                      CastChunk{chunk_triangles, chunk_ids, chunk_boxes, pair_start}, &scan_storage,
                                      slab_begin[s], slab_end, tile_end, same_axes, shear, -dir.z, tile_x0, tile_y0,
                                      finished, pixel_shear, pixel_best, pixel_finished);
      chunk_begin = chunk_end = slab_end;  // the next slab loads its own chunk
    } else {
      const CastChunk chunk{chunk_triangles, chunk_ids, chunk_boxes, pair_start};
      for (uint64_t r = slab_begin[s]; r < slab_end;) {
        if (r == chunk_end) {  // bring in the next chunk, its tile boxes and their scan
          __syncthreads();     // the previous chunk has been consumed
          chunk_begin = r;
          chunk_end = tile_end - r < static_cast<uint64_t>(kChunk) ? tile_end : r + kChunk;
          load_chunk<kChunk, ChunkScan>(CastInputs{p.cell_refs, p.tri_verts, p.pixel_box, p.nearest_depth}, chunk,
                                        scan_storage, chunk_begin, static_cast<int>(chunk_end - chunk_begin),
                                        same_axes, shear, tile_x0, tile_y0);
        }
        const uint64_t stop = slab_end < chunk_end ? slab_end : chunk_end;
        test_chunk_pairs(chunk, static_cast<int>(r - chunk_begin), static_cast<int>(stop - chunk_begin), same_axes,
                         pixel_shear, pixel_best, pixel_finished);
        r = stop;
      }
    }
    __syncthreads();  // the slab's pairs are done
    if (!finished && !(kDeepCells && is_depth_sorted_cell(slab_end - slab_begin[s]))) {
      tests += static_cast<uint32_t>(slab_end - slab_begin[s]);
    }
    const unsigned long long best = pixel_best[pixel];
    best_t = hit_key_t(best);
    best_id = hit_key_id(best);
    finished = finished || ray_finished_after(sr, s, best_t, -dir.z);
    const uint32_t warp_finished = __ballot_sync(0xffffffffu, finished);
    if (pixel % 32 == 0) pixel_finished[pixel / 32] = warp_finished;
    if (__syncthreads_and(finished)) break;
  }

  if (inside) finish_pixel(p, target, px, py, best_id, best_t, tests, tile_end - tile_begin);
  if constexpr (kShadowSamples) {
    LightCoord c{};
    const bool sample = inside && shadow_sample_of_hit(p, px, py, best_id, c);
    add_block_samples_to_light_bounds(p, sample, c);
  }
  add_cast_statistics(p, slab_begin, tests, inside && best_id != kNoHit);
}

}  // namespace slabcast
