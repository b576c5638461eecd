// The cuda backend: one frame = deform -> project and bin -> L1 / L2 / L3 split -> cast and shade, all on one
// stream and launched as one CUDA graph, with no allocation and no host synchronisation inside the frame except the
// single wait at its end that reads the statistics (and tells whether L1 overflowed the reference buffer: then the
// buffer grows and the frame is redone, so an overflow costs time, never a wrong image).
//
// The per-item work of every stage is the shared __host__ __device__ code of frame_params.h, which the cpu
// backend runs in plain loops; the kernels here are thin shims around it, except the caster, whose block
// cooperation ((triangle, pixel) pairs over chunks of triangles in shared memory, the block-wide early exit) is
// GPU-specific; it shades each pixel with the same shade_ray the cpu backend uses, straight into the target.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <cub/block/block_scan.cuh>

#include "prim/multi_split.h"
#include "prim/segmented_split.h"
#include "prim/sort.h"
#include "render/backends.h"
#include "render/cuda_check.h"
#include "render/frame_params.h"
#include "render/frame_setup.h"

namespace slabcast {
namespace {

// L2 and L3 send every segment through the segmented split's tile engine. With its large-segment path on (columns
// or tiles of more than 49152 references; the path's first version, H100, session 9) every scene of `slabcast
// bench` was slower, 0.310 -> 0.330 ms for the dragon at 1024x1024 and 2.996 -> 3.118 ms for the 16M sphere at
// 3840x2160: the path's launches cost more than the few large columns gain.
constexpr prim::SegmentedSplitOptions kBuildSegmentedOptions{false};

// ============================================================================================ kernels

__global__ void __launch_bounds__(kVertexBlock) deform_kernel(FrameParams p) {
  const int64_t v = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (v < p.num_vertices) deform_one(p, v);
}

__global__ void __launch_bounds__(kTriangleBlock) face_normal_kernel(FrameParams p) {
  const int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t < p.num_triangles) face_normal_one(p, t);
}

// One thread a vertex, except that a vertex with many triangles (frame_params.h: summed_by_lanes) is summed by its
// whole warp, one after another, each lane adding every 32nd triangle, then the lanes' sums in a butterfly.
__global__ void __launch_bounds__(kVertexBlock) vertex_normal_kernel(FrameParams p) {
  static_assert(kVertexBlock % 32 == 0 && kWarpSumLanes == 32, "whole warps sum the many-triangle vertices");
  const int64_t v = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool by_lanes = v < p.num_vertices && summed_by_lanes(p, v);
  if (v < p.num_vertices && !by_lanes) vertex_normal_one(p, v);
  const int lane = static_cast<int>(threadIdx.x) % 32;
  for (unsigned waiting = __ballot_sync(0xffffffffu, by_lanes); waiting != 0; waiting &= waiting - 1) {
    const int owner = __ffs(static_cast<int>(waiting)) - 1;
    const int64_t hub = __shfl_sync(0xffffffffu, v, owner);
    Vec3 sum = face_normal_sum(p, p.adjacency_offsets[hub] + static_cast<uint64_t>(lane), p.adjacency_offsets[hub + 1],
                               kWarpSumLanes);
#pragma unroll
    for (int offset = kWarpSumLanes / 2; offset >= 1; offset /= 2) {
      sum = sum + Vec3{__shfl_xor_sync(0xffffffffu, sum.x, offset), __shfl_xor_sync(0xffffffffu, sum.y, offset),
                       __shfl_xor_sync(0xffffffffu, sum.z, offset)};
    }
    if (lane == 0) p.vertex_normals[hub] = normalize_or_zero(sum);
  }
}

// Also folds the frame's depth range (bin.h: two integer keys, each a maximum) into one atomic per key and block,
// so the range needs no reduction kernels after this one.
__global__ void __launch_bounds__(kTriangleBlock) bin_kernel(FrameParams p) {
  constexpr int kWarps = kTriangleBlock / 32;
  static_assert(kTriangleBlock % 32 == 0, "whole warps");
  __shared__ uint32_t warp_nearest[kWarps], warp_farthest[kWarps];
  const int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool binned = t < p.num_triangles && bin_one(p, t);
  const float depth = binned ? p.nearest_depth[t] : kCulledDepth;  // bin_one wrote it; culled ones have no key
  const uint32_t nearest = __reduce_max_sync(0xffffffffu, nearest_depth_key(depth));
  const uint32_t farthest = __reduce_max_sync(0xffffffffu, farthest_depth_key(depth));
  const int warp = static_cast<int>(threadIdx.x) / 32;
  if (threadIdx.x % 32 == 0) {
    warp_nearest[warp] = nearest;
    warp_farthest[warp] = farthest;
  }
  const int block_binned = __syncthreads_count(binned);  // every thread of the block reaches this
  if (threadIdx.x == 0) {
    uint32_t block_nearest = 0, block_farthest = 0;
    for (int w = 0; w < kWarps; ++w) {
      block_nearest = max(block_nearest, warp_nearest[w]);
      block_farthest = max(block_farthest, warp_farthest[w]);
    }
    if (block_nearest != 0) atomicMax(&p.depth_range->nearest, block_nearest);
    if (block_farthest != 0) atomicMax(&p.depth_range->farthest, block_farthest);
    if (block_binned > 0) {
      atomicAdd(reinterpret_cast<unsigned long long*>(&p.counters->binned),
                static_cast<unsigned long long>(block_binned));
    }
  }
}

// After L1: if the references did not fit, mark the overflow and empty the column offsets, so that L2, L3 and the
// cast see an empty structure (they run, cheaply, on consistent data) and the host redoes the
// frame. Without this L2 would be handed a count above its capacity and leave its offsets unwritten.
__global__ void guard_overflow_kernel(uint64_t* column_offsets, int tiles_x, const uint64_t* total,
                                      uint64_t capacity, uint64_t* overflow) {
  const bool over = *total > capacity;
  if (!over) return;
  for (int i = threadIdx.x; i <= tiles_x; i += blockDim.x) column_offsets[i] = 0;
  if (threadIdx.x == 0) *overflow = 1;
}

// Where the caster's pixels go: the caller's surface, and the hit buffers only when the caller asked for them
// (FrameExtras); the frame itself needs neither buffer, since each ray is shaded by the thread that cast it.
struct CastTarget {
  uint8_t* pixels;
  size_t pitch_bytes;
  bool word_aligned;
  bool write_hits;
};

__device__ __forceinline__ void write_pixel(const CastTarget& target, int px, int py, const Rgba8& c) {
  uint8_t* out = target.pixels + static_cast<size_t>(py) * target.pitch_bytes + 4 * static_cast<size_t>(px);
  if (target.word_aligned) {
    *reinterpret_cast<uchar4*>(out) = make_uchar4(c.r, c.g, c.b, c.a);
  } else {
    out[0] = c.r;
    out[1] = c.g;
    out[2] = c.b;
    out[3] = c.a;
  }
}

// A pixel's result: the hit buffers when the caller asked for them, and its shade into the target.
__device__ __forceinline__ void finish_pixel(const FrameParams& p, const CastTarget& target, int px, int py,
                                             uint32_t best_id, float best_t, uint32_t tests, uint64_t tile_refs) {
  if (target.write_hits) {
    const int64_t pix = static_cast<int64_t>(py) * p.view.width + px;
    p.hit_t[pix] = best_t;
    p.hit_id[pix] = best_id;
    p.ray_tests[pix] = tests;
  }
  write_pixel(target, px, py, shade_ray(p, px, py, best_id, best_t, tests, tile_refs));
}

// The block's share of the frame's statistics: per-block sums, one atomic each. Every block adds to the same few
// words, so only non-zero contributions go out: same-address atomics queue up at one L2 slice. Every thread of the
// block calls this, with its ray's test count and whether it hit.
__device__ __forceinline__ void add_cast_statistics(const FrameParams& p, const uint64_t* slab_begin, uint32_t tests,
                                                    bool hit) {
  __shared__ unsigned long long block_tests;
  __shared__ unsigned int block_hits;
  if (threadIdx.x == 0) {
    block_tests = 0;
    block_hits = 0;
  }
  __syncthreads();
  atomicAdd(&block_tests, static_cast<unsigned long long>(tests));
  if (hit) atomicAdd(&block_hits, 1u);
  __syncthreads();
  if (threadIdx.x == 0) {
    if (block_tests > 0) atomicAdd(reinterpret_cast<unsigned long long*>(&p.counters->ray_tests), block_tests);
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

// A hit as one 64-bit key whose minimum is the nearest hit of closer_hit's order: t's bits above (t > 0 and finite, so
// its bits order as it does), the triangle ID below (ties: the lower ID). A miss is +inf with kNoHit, above every hit.
__device__ __forceinline__ unsigned long long hit_key(float t, uint32_t id) {
  return (static_cast<unsigned long long>(__float_as_uint(t)) << 32) | id;
}
__device__ __forceinline__ float hit_key_t(unsigned long long key) {
  return __uint_as_float(static_cast<uint32_t>(key >> 32));
}
__device__ __forceinline__ uint32_t hit_key_id(unsigned long long key) { return static_cast<uint32_t>(key); }

// A chunk triangle's pixels inside the tile (bin.h's pixel box, clipped to the tile), 3 bits a field: first column,
// first row, columns - 1, rows - 1.
__device__ __forceinline__ uint32_t pack_tile_box(int x0, int y0, int x1, int y1) {
  return static_cast<uint32_t>(x0 | (y0 << 3) | ((x1 - x0) << 6) | ((y1 - y0) << 9));
}
__device__ __forceinline__ int tile_box_pixel(uint32_t box, int k) {  // the box's k-th pixel, row by row
  const int columns = static_cast<int>((box >> 6) & 7u) + 1;
  const int x = static_cast<int>(box & 7u) + k % columns;
  const int y = static_cast<int>((box >> 3) & 7u) + k / columns;
  return y * kTileSize + x;
}

// The caster: one block of 64 threads per 8x8 tile, slabs front to back. Each pixel's ray keeps its nearest hit
// (closer_hit: smaller t, ties to the lower ID) and is finished after the first slab whose far side lies behind that
// hit (frame_params.h: ray_finished_after); the block leaves when all its rays are. Per ray, the results and the
// test counts are exactly those of the cpu backend's cast_pixel.
//
// The threads take (triangle, pixel) pairs, not pixels: a triangle is tested only against the rays of the pixels in
// its pixel box (bin.h: a ray outside the box misses it), and most triangles cover a few of a tile's 64 pixels (the
// dragon's are about a pixel at 1024x1024), so a tile makes one or two pairs a triangle where one thread a ray made
// 64 tests. References come through shared memory in chunks of kChunk that run across slab boundaries (two rounds
// of independent global loads a chunk); each chunk triangle's pixels inside the tile are counted and scanned. Thread k
// takes pairs k, k + 64, ... of the slab's part of the chunk, finds its triangle by binary search in the scan, and
// folds a hit into its pixel's nearest by a shared-memory atomicMin on hit_key, whose order is closer_hit's, so the
// order of the atomics does not matter. A pixel whose ray is finished takes no more pairs. A ray's test count is
// every triangle of each slab it took part in (the ones its box ruled out included), as on the cpu backend.
//
// Session 6's caster gave each ray its own thread (or two) and was instruction-bound at 90 instructions a test.
// Measured on the H100, session 7, cast ms at 8 slabs, rays -> pairs: dragon 1024^2 0.140 -> 0.080, dragon 3840x2160
// 0.281 -> 0.237, 4M sphere 1024^2 0.334 -> 0.170, 16M sphere 3840x2160 1.137 -> 0.520; no row of the bench suite
// was slower (docs/bench/README.md). Nsight Compute on the dragon at 1024^2: latency-bound (an instruction every
// 14 cycles a warp, 50% of cycles with no warp eligible, occupancy 41% of 56%).
template <int kChunk>
__global__ void __launch_bounds__(kTilePixels, kCastBlocksPerSm) cast_kernel(FrameParams p, CastTarget target) {
  constexpr int kThreads = kTilePixels;
  constexpr int kRefsPerThread = kChunk / kThreads;
  static_assert(kChunk % kThreads == 0, "every thread loads the same number of references per chunk");
  static_assert(kTileSize == 8, "tile boxes pack 3 bits a coordinate");
  using ChunkScan = cub::BlockScan<uint32_t, kThreads>;
  __shared__ uint64_t slab_begin[kMaxSlabs + 1];  // slab s of this tile is references [slab_begin[s], [s + 1])
  __shared__ TriangleVerts chunk_triangles[kChunk];
  __shared__ uint32_t chunk_ids[kChunk];
  __shared__ uint16_t chunk_boxes[kChunk];        // pack_tile_box
  __shared__ uint32_t pair_start[kChunk + 1];     // exclusive scan of the chunk triangles' pixel counts
  __shared__ typename ChunkScan::TempStorage scan_storage;
  __shared__ RayShear pixel_shear[kTilePixels];
  __shared__ unsigned long long pixel_best[kTilePixels];  // hit_key
  __shared__ uint32_t pixel_finished[kTilePixels / 32];   // bit k of word w: pixel 32 w + k's ray is finished

  const int tx = static_cast<int>(blockIdx.x / static_cast<unsigned>(p.tiles_y));
  const int ty = static_cast<int>(blockIdx.x % static_cast<unsigned>(p.tiles_y));
  const int pixel = static_cast<int>(threadIdx.x);
  const int px = tx * kTileSize + pixel % kTileSize;
  const int py = ty * kTileSize + pixel / kTileSize;
  const bool inside = px < p.view.width && py < p.view.height;

  const uint64_t first_cell = build_cell(tx, ty, 0, p.tiles_y, p.slabs);
  for (int s = pixel; s <= p.slabs; s += kThreads) slab_begin[s] = p.cell_offsets[first_cell + static_cast<uint64_t>(s)];
  __syncthreads();
  const uint64_t tile_begin = slab_begin[0], tile_end = slab_begin[p.slabs];
  if (tile_end == tile_begin) {  // block-uniform: no triangle here, every ray misses
    if (inside) finish_pixel(p, target, px, py, kNoHit, INFINITY, 0, 0);
    return;
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
    for (uint64_t r = slab_begin[s]; r < slab_end;) {
      if (r == chunk_end) {  // bring in the next chunk, its tile boxes and their scan
        __syncthreads();     // the previous chunk has been consumed
        chunk_begin = r;
        chunk_end = tile_end - r < static_cast<uint64_t>(kChunk) ? tile_end : r + kChunk;
        const int n = static_cast<int>(chunk_end - chunk_begin);
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
            chunk_ids[i] = ids[k];
            const TriangleVerts tv = p.tri_verts[ids[k]];
            const PixelBox box = p.pixel_box[ids[k]];
            chunk_triangles[i] = same_axes ? TriangleVerts{to_ray_axes(shear, tv.a), to_ray_axes(shear, tv.b),
                                                           to_ray_axes(shear, tv.c)}
                                           : tv;
            // The box meets the tile: the triangle is in this tile because its box is (bin.h: tile_range_of).
            const int x0 = max(box.x0 - tile_x0, 0), x1 = min(box.x1 - tile_x0, kTileSize - 1);
            const int y0 = max(box.y0 - tile_y0, 0), y1 = min(box.y1 - tile_y0, kTileSize - 1);
            chunk_boxes[i] = static_cast<uint16_t>(pack_tile_box(x0, y0, x1, y1));
            count = static_cast<uint32_t>((x1 - x0 + 1) * (y1 - y0 + 1));
          }
          pair_start[i] = count;
        }
        __syncthreads();
        uint32_t counts[kRefsPerThread], starts[kRefsPerThread];
#pragma unroll
        for (int k = 0; k < kRefsPerThread; ++k) counts[k] = pair_start[pixel * kRefsPerThread + k];
        uint32_t total = 0;
        ChunkScan(scan_storage).ExclusiveSum(counts, starts, total);
#pragma unroll
        for (int k = 0; k < kRefsPerThread; ++k) pair_start[pixel * kRefsPerThread + k] = starts[k];
        if (pixel == 0) pair_start[kChunk] = total;
        __syncthreads();
      }
      const uint64_t stop = slab_end < chunk_end ? slab_end : chunk_end;
      const int first = static_cast<int>(r - chunk_begin), last = static_cast<int>(stop - chunk_begin);
      const uint32_t pairs_end = pair_start[last];
      for (uint32_t q = pair_start[first] + static_cast<uint32_t>(pixel); q < pairs_end; q += kThreads) {
        int lo = first, hi = last - 1;  // the last triangle j of [first, last) with pair_start[j] <= q
        while (lo < hi) {
          const int mid = (lo + hi + 1) / 2;
          if (pair_start[mid] <= q) {
            lo = mid;
          } else {
            hi = mid - 1;
          }
        }
        const int pair_pixel = tile_box_pixel(chunk_boxes[lo], static_cast<int>(q - pair_start[lo]));
        if ((pixel_finished[pair_pixel / 32] >> (pair_pixel % 32)) & 1u) continue;
        float t = 0.0f;
        const bool hit = same_axes ? intersect_chunk_triangle<true>(pixel_shear[pair_pixel], chunk_triangles[lo], t)
                                   : intersect_chunk_triangle<false>(pixel_shear[pair_pixel], chunk_triangles[lo], t);
        if (hit) atomicMin(&pixel_best[pair_pixel], hit_key(t, chunk_ids[lo]));
      }
      r = stop;
    }
    __syncthreads();  // the slab's pairs are done
    if (!finished) tests += static_cast<uint32_t>(slab_end - slab_begin[s]);
    const unsigned long long best = pixel_best[pixel];
    best_t = hit_key_t(best);
    best_id = hit_key_id(best);
    finished = finished || ray_finished_after(sr, s, best_t, -dir.z);
    const uint32_t warp_finished = __ballot_sync(0xffffffffu, finished);
    if (pixel % 32 == 0) pixel_finished[pixel / 32] = warp_finished;
    if (__syncthreads_and(finished)) break;
  }

  if (inside) finish_pixel(p, target, px, py, best_id, best_t, tests, tile_end - tile_begin);
  add_cast_statistics(p, slab_begin, tests, inside && best_id != kNoHit);
}

// ---- set_mesh helpers ----

__global__ void corner_triangle_kernel(uint32_t* corner_triangle, int64_t corners) {
  const int64_t c = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c < corners) corner_triangle[c] = static_cast<uint32_t>(c / 3);
}

// CSR offsets from the corners' vertices sorted ascending: offsets[v] = first corner of vertex v; vertices
// without triangles get an empty range. Position i fills the offsets of the vertices in (key[i-1], key[i]].
__global__ void adjacency_offsets_kernel(const uint32_t* sorted_vertex, int64_t corners, int64_t vertices,
                                         uint64_t* offsets) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i > corners) return;
  const int64_t prev = i == 0 ? -1 : static_cast<int64_t>(sorted_vertex[i - 1]);
  const int64_t cur = i == corners ? vertices : static_cast<int64_t>(sorted_vertex[i]);
  for (int64_t v = prev + 1; v <= cur; ++v) offsets[v] = static_cast<uint64_t>(i);
}

template <typename Count>
unsigned grid_for(Count n, int block) {
  return static_cast<unsigned>((static_cast<int64_t>(n) + block - 1) / block);
}

// ============================================================================================ device memory

// An owning device allocation. The out-of-memory message (which names the mesh and what was free) is the
// renderer's job (CudaRenderer::allocate), so this only reports the runtime's status.
template <typename T>
class DeviceArray {
 public:
  DeviceArray() = default;
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  ~DeviceArray() { reset(); }
  void reset() {
    if (ptr_) cudaFree(ptr_);  // release path: nothing to report to
    ptr_ = nullptr;
    count_ = 0;
  }
  T* get() const { return ptr_; }
  size_t count() const { return count_; }
  size_t bytes() const { return count_ * sizeof(T); }
  // Frees the old contents, then allocates exactly `count` elements; on failure the array is left empty.
  cudaError_t try_allocate(size_t count) {
    reset();
    if (count == 0) return cudaSuccess;
    void* p = nullptr;
    const cudaError_t status = cudaMalloc(&p, count * sizeof(T));
    if (status != cudaSuccess) return status;
    ptr_ = static_cast<T*>(p);
    count_ = count;
    return cudaSuccess;
  }

 private:
  T* ptr_ = nullptr;
  size_t count_ = 0;
};

// ============================================================================================ the renderer

class CudaRenderer final : public Renderer {
 public:
  explicit CudaRenderer(const RendererOptions& options) : options_(options),
        sync_stages_(sync_stages_requested()),
        frame_graph_(frame_graph_requested() && !sync_stages_) {
    SLABCAST_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    for (cudaEvent_t& e : events_) SLABCAST_CUDA_CHECK(cudaEventCreate(&e));
    SLABCAST_CUDA_CHECK(cudaMallocHost(&host_counters_, sizeof(FrameCounters)));
    allocate(counters_, 1, "frame counters");
  }
  ~CudaRenderer() override {
    if (stream_) cudaStreamSynchronize(stream_);
    release_frame_graph();
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
    if (host_counters_) cudaFreeHost(host_counters_);
    if (stream_) cudaStreamDestroy(stream_);
  }

  // All or nothing: on failure the previous mesh stays and still renders. A mesh that cannot fit even in place
  // of the previous one is refused before anything is freed (OutOfMemory naming what was needed and what is
  // free). Otherwise the previous mesh is copied to the host and freed; should an allocation then fail anyway
  // (another process took the memory meanwhile), the copy is uploaded again. Only if that fails too is the
  // renderer left without a mesh (render() then throws until a set_mesh succeeds), and the message says so.
  void set_mesh(const Mesh& mesh) override {
    validate_mesh(mesh);
    SLABCAST_CUDA_CHECK(cudaStreamSynchronize(stream_));
    const size_t V = mesh.positions.size(), T = mesh.triangle_count();
    const uint64_t capacity = initial_reference_capacity(options_, T);
    const uint64_t needed = mesh_upload_bytes(V, T, capacity);
    // The frame's scratch depends on the triangle count: it is sized again at the next render().
    scratch_.reset();
    configured_ = Config{};
    const uint64_t held = mesh_bytes_held();
    size_t free_bytes = 0, total_bytes = 0;
    SLABCAST_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (needed > free_bytes + held) {
      const std::string beyond = held > 0 ? ", beyond the " + format_bytes(held) + " the previous mesh holds" : "";
      throw OutOfMemory(out_of_memory_message("GPU", mesh.name, needed - held,
                                              mesh_buffers_what(V, T, capacity) + beyond, free_bytes, total_bytes) +
                        (held > 0 ? "; the previous mesh is kept" : ""));
    }
    std::unique_ptr<Mesh> previous;
    uint64_t previous_capacity = 0;
    if (held > 0) {
      previous = std::make_unique<Mesh>(download_mesh());
      previous_capacity = capacity_;
    }
    release_mesh();
    try {
      upload_mesh(mesh, capacity);
    } catch (const OutOfMemory& e) {
      release_mesh();
      if (!previous) throw;
      try {
        upload_mesh(*previous, previous_capacity);
      } catch (const OutOfMemory&) {
        release_mesh();
        throw OutOfMemory(std::string(e.what()) + "; restoring the previous mesh failed too: the renderer has no mesh");
      }
      throw OutOfMemory(std::string(e.what()) + "; the previous mesh is kept");
    }
  }

  FrameStats render(const FrameSettings& settings, const Surface& target, FrameExtras* extras) override {
    if (num_triangles_ == 0) {
      throw std::logic_error("slabcast: render() without a mesh (none was set, or running out of memory dropped it)");
    }
    check_settings(settings);
    if (target.pixels == nullptr || target.width != settings.width || target.height != settings.height ||
        target.pitch_bytes < 4 * static_cast<size_t>(target.width)) {
      throw std::invalid_argument("slabcast: the target surface does not match the frame size " +
                                  std::to_string(settings.width) + "x" + std::to_string(settings.height));
    }
    configure(settings.width, settings.height, settings.slabs);

    FrameStats stats;
    stats.triangles_in = static_cast<uint64_t>(num_triangles_);
    for (;;) {
      const FrameParams p = frame_params(settings);
      if (frame_graph_) {
        launch_frame_graph(p, target, extras != nullptr);
      } else {
        encode_frame(p, target, extras != nullptr);
      }
      SLABCAST_CUDA_CHECK(cudaMemcpyAsync(host_counters_, counters_.get(), sizeof(FrameCounters),
                                          cudaMemcpyDeviceToHost, stream_));
      SLABCAST_CUDA_CHECK(cudaEventRecord(events_[kEventCount - 1], stream_));
      SLABCAST_CUDA_CHECK(cudaEventSynchronize(events_[kEventCount - 1]));  // the frame's one wait
      if (host_counters_->overflow == 0) break;
      // L1 needed more references than the buffer holds: grow it (and the scratch sized by it), redo the frame.
      grow_references(grown_reference_capacity(capacity_, host_counters_->references), host_counters_->references,
                      settings);
      ++stats.frame_redone;
    }

    const FrameCounters& c = *host_counters_;
    copy_counters(c, stats);
    float* ms[kTimedStages] = {&stats.ms.deform, &stats.ms.bin, &stats.ms.l1,
                               &stats.ms.l2,     &stats.ms.l3,  &stats.ms.cast};
    for (int i = 0; i < kTimedStages; ++i) {
      SLABCAST_CUDA_CHECK(cudaEventElapsedTime(ms[i], events_[i], events_[i + 1]));
    }
    stats.ms.shade = 0.0f;  // done by the caster
    SLABCAST_CUDA_CHECK(cudaEventElapsedTime(&stats.ms.total, events_[0], events_[kTimedStages]));

    if (extras) {
      const size_t pixels = static_cast<size_t>(settings.width) * settings.height;
      extras->depth.resize(pixels);
      extras->triangle_id.resize(pixels);
      SLABCAST_CUDA_CHECK(cudaMemcpy(extras->depth.data(), hit_t_.get(), pixels * sizeof(float), cudaMemcpyDeviceToHost));
      SLABCAST_CUDA_CHECK(
          cudaMemcpy(extras->triangle_id.data(), hit_id_.get(), pixels * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    }
    have_frame_ = true;
    return stats;
  }

  FrameStructure last_structure() const override {
    if (!have_frame_) return FrameStructure{};
    SLABCAST_CUDA_CHECK(cudaStreamSynchronize(stream_));
    const size_t T = static_cast<size_t>(num_triangles_);
    std::vector<PixelBox> boxes(T);
    std::vector<float> depth(T);
    DepthRangeKeys range;
    const uint64_t cells = static_cast<uint64_t>(configured_.tiles_x) * configured_.tiles_y * configured_.slabs;
    std::vector<uint64_t> offsets(cells + 1);
    SLABCAST_CUDA_CHECK(cudaMemcpy(boxes.data(), pixel_box_.get(), T * sizeof(PixelBox), cudaMemcpyDeviceToHost));
    SLABCAST_CUDA_CHECK(cudaMemcpy(depth.data(), nearest_depth_.get(), T * sizeof(float), cudaMemcpyDeviceToHost));
    SLABCAST_CUDA_CHECK(
        cudaMemcpy(&range, &counters_.get()->depth_range, sizeof(range), cudaMemcpyDeviceToHost));
    SLABCAST_CUDA_CHECK(
        cudaMemcpy(offsets.data(), cell_offsets_.get(), offsets.size() * sizeof(uint64_t), cudaMemcpyDeviceToHost));
    std::vector<TriangleRef> refs(offsets.back());
    SLABCAST_CUDA_CHECK(
        cudaMemcpy(refs.data(), refs_a_.get(), refs.size() * sizeof(TriangleRef), cudaMemcpyDeviceToHost));
    const BuildView b{configured_.tiles_x, configured_.tiles_y, configured_.slabs, nearest_of(range), farthest_of(range),
                      boxes.data(),
                      depth.data(), T, offsets.data(), refs.data()};
    return to_frame_structure(b);
  }

  std::vector<glm::vec3> last_deformed_positions() const override { return download_vertices(world_); }
  std::vector<glm::vec3> last_vertex_normals() const override { return download_vertices(vertex_normals_); }

  Backend backend() const override { return Backend::cuda; }

  size_t device_bytes_in_use() const override {
    return mesh_bytes_held() + column_offsets_.bytes() + tile_offsets_.bytes() + cell_offsets_.bytes() +
           hit_t_.bytes() + hit_id_.bytes() + ray_tests_.bytes() + scratch_.bytes() + counters_.bytes();
  }

 private:
  static constexpr int kTimedStages = 6;  // deform, bin, l1, l2, l3, cast (which shades)
  static constexpr int kEventCount = kTimedStages + 2;

  struct Config {
    int width = 0, height = 0, slabs = 0, tiles_x = 0, tiles_y = 0;
  };

  static int vertex_key_bits(size_t vertices) {
    int bits = 1;
    while (bits < 32 && (uint64_t(1) << bits) < vertices) ++bits;
    return bits;
  }

  // Bytes set_mesh allocates for a mesh: what it keeps plus the adjacency sort's temporaries.
  size_t mesh_upload_bytes(size_t V, size_t T, uint64_t capacity) {
    size_t sort_temp = 0;
    SLABCAST_CUDA_CHECK(prim::sort_pairs<uint32_t, uint32_t>(nullptr, sort_temp, nullptr, nullptr, nullptr, nullptr,
                                                             prim::ItemCount(static_cast<int64_t>(3 * T)), 0,
                                                             vertex_key_bits(V), stream_));
    const size_t kept = V * (sizeof(Vec3) * 3 + sizeof(ViewVertex)) + (V + 1) * sizeof(uint64_t) +
                        3 * T * sizeof(uint32_t) * 2 +
                        T * (sizeof(Vec3) + sizeof(PixelBox) + sizeof(float) + sizeof(TriangleVerts)) +
                        2 * capacity * sizeof(TriangleRef);
    return kept + 3 * T * sizeof(uint32_t) * 2 + sort_temp;
  }

  static std::string mesh_buffers_what(size_t V, size_t T, uint64_t capacity) {
    return "its buffers (" + std::to_string(T) + " triangles, " + std::to_string(V) + " vertices, room for " +
           std::to_string(capacity) + " triangle references)";
  }

  size_t mesh_bytes_held() const {
    return rest_.bytes() + world_.bytes() + view_.bytes() + vertex_normals_.bytes() + indices_.bytes() +
           face_normals_.bytes() + adjacency_offsets_.bytes() + adjacency_triangles_.bytes() + pixel_box_.bytes() +
           nearest_depth_.bytes() + tri_verts_.bytes() + refs_a_.bytes() + refs_b_.bytes();
  }

  std::vector<glm::vec3> download_vertices(const DeviceArray<Vec3>& a) const {
    SLABCAST_CUDA_CHECK(cudaStreamSynchronize(stream_));
    std::vector<Vec3> host(static_cast<size_t>(num_vertices_));
    SLABCAST_CUDA_CHECK(cudaMemcpy(host.data(), a.get(), host.size() * sizeof(Vec3), cudaMemcpyDeviceToHost));
    return to_glm(host);
  }

  // The current mesh as set (rest positions and indices), to upload again if its successor does not fit.
  Mesh download_mesh() const {
    Mesh m;
    m.name = mesh_name_;
    std::vector<Vec3> rest(static_cast<size_t>(num_vertices_));
    m.indices.resize(3 * static_cast<size_t>(num_triangles_));
    SLABCAST_CUDA_CHECK(cudaMemcpy(rest.data(), rest_.get(), rest.size() * sizeof(Vec3), cudaMemcpyDeviceToHost));
    SLABCAST_CUDA_CHECK(
        cudaMemcpy(m.indices.data(), indices_.get(), m.indices.size() * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    m.positions.resize(rest.size());
    for (size_t v = 0; v < rest.size(); ++v) m.positions[v] = glm::vec3(rest[v].x, rest[v].y, rest[v].z);
    return m;
  }

  // Allocates and fills every mesh buffer; throws OutOfMemory (the buffers so far stay: the caller releases).
  void upload_mesh(const Mesh& mesh, uint64_t capacity) {
    const size_t V = mesh.positions.size(), T = mesh.triangle_count();
    mesh_name_ = mesh.name;
    allocate(rest_, V, "rest positions");
    allocate(world_, V, "deformed positions");
    allocate(view_, V, "view-space positions");
    allocate(vertex_normals_, V, "vertex normals");
    allocate(indices_, 3 * T, "triangle indices");
    allocate(face_normals_, T, "face normals");
    allocate(adjacency_offsets_, V + 1, "vertex adjacency offsets");
    allocate(adjacency_triangles_, 3 * T, "vertex adjacency");
    allocate(pixel_box_, T, "pixel boxes");
    allocate(nearest_depth_, T, "nearest depths");
    allocate(tri_verts_, T, "view-space triangles");
    allocate(refs_a_, capacity, "triangle references");
    allocate(refs_b_, capacity, "triangle references");
    capacity_ = capacity;

    std::vector<Vec3> rest(V);
    for (size_t v = 0; v < V; ++v) rest[v] = Vec3{mesh.positions[v].x, mesh.positions[v].y, mesh.positions[v].z};
    SLABCAST_CUDA_CHECK(cudaMemcpyAsync(rest_.get(), rest.data(), V * sizeof(Vec3), cudaMemcpyHostToDevice, stream_));
    SLABCAST_CUDA_CHECK(cudaMemcpyAsync(indices_.get(), mesh.indices.data(), 3 * T * sizeof(uint32_t),
                                        cudaMemcpyHostToDevice, stream_));

    // Vertex -> triangle adjacency, once: a stable sort of the 3T (vertex, triangle) corners by vertex, so each
    // vertex's triangles come in ascending ID order and the normal sums have a fixed order (no float atomics).
    {
      size_t sort_temp = 0;
      SLABCAST_CUDA_CHECK(prim::sort_pairs<uint32_t, uint32_t>(nullptr, sort_temp, nullptr, nullptr, nullptr,
                                                               nullptr, prim::ItemCount(static_cast<int64_t>(3 * T)),
                                                               0, vertex_key_bits(V), stream_));
      DeviceArray<uint32_t> corner_triangle, sorted_vertex;
      DeviceArray<unsigned char> temp;
      allocate(corner_triangle, 3 * T, "the adjacency sort's input");
      allocate(sorted_vertex, 3 * T, "the adjacency sort's output");
      allocate(temp, std::max<size_t>(sort_temp, 1), "the adjacency sort's scratch");
      corner_triangle_kernel<<<grid_for(3 * T, kTriangleBlock), kTriangleBlock, 0, stream_>>>(
          corner_triangle.get(), static_cast<int64_t>(3 * T));
      SLABCAST_CUDA_CHECK_LAUNCH(corner_triangle_kernel);
      size_t bytes = temp.bytes();
      SLABCAST_CUDA_CHECK(prim::sort_pairs<uint32_t, uint32_t>(
          temp.get(), bytes, indices_.get(), sorted_vertex.get(), corner_triangle.get(), adjacency_triangles_.get(),
          prim::ItemCount(static_cast<int64_t>(3 * T)), 0, vertex_key_bits(V), stream_));
      adjacency_offsets_kernel<<<grid_for(3 * T + 1, kTriangleBlock), kTriangleBlock, 0, stream_>>>(
          sorted_vertex.get(), static_cast<int64_t>(3 * T), static_cast<int64_t>(V), adjacency_offsets_.get());
      SLABCAST_CUDA_CHECK_LAUNCH(adjacency_offsets_kernel);
      SLABCAST_CUDA_CHECK(cudaStreamSynchronize(stream_));  // before the setup buffers (and `rest`) are freed
    }
    bounds_ = rest_bounds(mesh);
    num_vertices_ = static_cast<int64_t>(V);
    num_triangles_ = static_cast<int64_t>(T);
    configured_ = Config{};  // frame buffers and scratch are sized at the next render()
    have_frame_ = false;
  }

  // Every device allocation of the renderer goes through here: a failure for lack of memory becomes OutOfMemory
  // with the mesh's name, what the buffer is for, the bytes asked for and what the device has free; any other
  // runtime error is reported as usual.
  template <typename T>
  void allocate(DeviceArray<T>& array, size_t count, const std::string& what) const {
    ++buffers_generation_;  // a frame graph that pointed into the old buffer must not be launched again
    const cudaError_t status = array.try_allocate(count);
    if (status == cudaSuccess) return;
    if (status != cudaErrorMemoryAllocation) detail::check_cuda(status, "cudaMalloc", __FILE__, __LINE__);
    (void)cudaGetLastError();  // an allocation failure is not sticky; clear it so the next call starts clean
    size_t free_bytes = 0, total_bytes = 0;
    SLABCAST_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    throw OutOfMemory(out_of_memory_message("GPU", mesh_name_, count * sizeof(T), what, free_bytes, total_bytes));
  }
  template <typename T>
  void ensure(DeviceArray<T>& array, size_t count, const std::string& what) const {
    if (count > array.count()) allocate(array, count, what);
  }

  void release_mesh() {
    rest_.reset();
    world_.reset();
    view_.reset();
    vertex_normals_.reset();
    indices_.reset();
    face_normals_.reset();
    adjacency_offsets_.reset();
    adjacency_triangles_.reset();
    pixel_box_.reset();
    nearest_depth_.reset();
    tri_verts_.reset();
    refs_a_.reset();
    refs_b_.reset();
    capacity_ = 0;
    num_vertices_ = 0;
    num_triangles_ = 0;
    configured_ = Config{};
    have_frame_ = false;
  }

  // After L1 overflowed: both reference arrays grow to `capacity`, and the scratch with them. If they cannot fit
  // even in place of the old ones, nothing changes (OutOfMemory; frames needing fewer references still render).
  // Should an allocation fail anyway, the old capacity is allocated again; only if that fails too is the mesh
  // dropped (render() then throws until the next set_mesh).
  void grow_references(uint64_t capacity, uint64_t needed_refs, const FrameSettings& s) {
    const std::string what = "triangle references (this " + std::to_string(s.width) + "x" +
                             std::to_string(s.height) + " frame makes " + std::to_string(needed_refs) + ")";
    const uint64_t bytes = 2 * capacity * sizeof(TriangleRef);
    const uint64_t held = refs_a_.bytes() + refs_b_.bytes();
    size_t free_bytes = 0, total_bytes = 0;
    SLABCAST_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (bytes > free_bytes + held) {
      throw OutOfMemory(out_of_memory_message("GPU", mesh_name_, bytes - held, what, free_bytes, total_bytes) +
                        "; this frame is not drawn");
    }
    const uint64_t old_capacity = capacity_;
    try {
      allocate(refs_a_, capacity, what);
      allocate(refs_b_, capacity, what);
      capacity_ = capacity;
    } catch (const OutOfMemory& e) {
      try {
        allocate(refs_a_, old_capacity, "triangle references");
        allocate(refs_b_, old_capacity, "triangle references");
      } catch (const OutOfMemory&) {
        release_mesh();
        throw OutOfMemory(std::string(e.what()) + "; keeping the old reference buffers failed too: the renderer "
                                                  "has no mesh");
      }
      throw OutOfMemory(std::string(e.what()) + "; this frame is not drawn");
    }
    try {
      size_scratch();
    } catch (const OutOfMemory& e) {
      configured_ = Config{};  // the scratch is gone: the next render() sizes it again (or reports again)
      throw OutOfMemory(std::string(e.what()) + "; this frame is not drawn");
    }
  }

  // Frame-size dependent buffers; allocates only when the size or slab count changes (not inside a frame).
  void configure(int width, int height, int slabs) {
    if (configured_.width == width && configured_.height == height && configured_.slabs == slabs) return;
    SLABCAST_CUDA_CHECK(cudaStreamSynchronize(stream_));
    Config c;
    c.width = width;
    c.height = height;
    c.slabs = slabs;
    c.tiles_x = tiles_for(width);
    c.tiles_y = tiles_for(height);
    const size_t pixels = static_cast<size_t>(width) * height;
    const size_t columns = static_cast<size_t>(c.tiles_x) + 1, tiles = static_cast<size_t>(c.tiles_x) * c.tiles_y + 1,
                 cells = static_cast<size_t>(c.tiles_x) * c.tiles_y * slabs + 1;
    // The arrays that grow are freed before they are allocated again, so what they hold counts as free.
    uint64_t needed = 0, held = 0;
    const auto count_growth = [&](size_t count, size_t element, size_t have) {
      if (count <= have) return;
      needed += count * element;
      held += have * element;
    };
    count_growth(pixels, sizeof(float), hit_t_.count());
    count_growth(pixels, sizeof(uint32_t), hit_id_.count());
    count_growth(pixels, sizeof(uint32_t), ray_tests_.count());
    count_growth(columns, sizeof(uint64_t), column_offsets_.count());
    count_growth(tiles, sizeof(uint64_t), tile_offsets_.count());
    count_growth(cells, sizeof(uint64_t), cell_offsets_.count());
    const std::string what = "the per-pixel buffers of a " + std::to_string(width) + "x" + std::to_string(height) +
                             " frame";
    size_t free_bytes = 0, total_bytes = 0;
    SLABCAST_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (needed > free_bytes + held) {  // nothing changed: frames of the previous size still render
      throw OutOfMemory(out_of_memory_message("GPU", mesh_name_, needed - held, what, free_bytes, total_bytes));
    }
    configured_ = Config{};  // until every buffer is in place; a failure below leaves the next render to redo this
    ensure(hit_t_, pixels, what);
    ensure(hit_id_, pixels, what);
    ensure(ray_tests_, pixels, what);
    ensure(column_offsets_, columns, "column offsets");
    ensure(tile_offsets_, tiles, "tile offsets");
    ensure(cell_offsets_, cells, "cell offsets");
    size_scratch(c);
    configured_ = c;
  }

  // One scratch blob for every primitive of the frame (they run one after another on one stream): the largest
  // of their size queries, which depend on the triangle count, the tile counts, the slabs and the capacity.
  void size_scratch() { size_scratch(configured_); }
  void size_scratch(const Config& c) {
    size_t need = 0, bytes = 0;
    const TileColumnEmitter no_emitter{nullptr, nullptr, nullptr, c.slabs};
    // The size queries validate their pointer arguments too, so they get the real offsets / counters.
    SLABCAST_CUDA_CHECK(prim::multi_split<TriangleRef>(nullptr, bytes, prim::ItemCount(num_triangles_), no_emitter,
                                                       static_cast<uint32_t>(c.tiles_x), nullptr,
                                                       static_cast<int64_t>(capacity_), column_offsets_.get(),
                                                       &counters_.get()->references, stream_));
    need = std::max(need, bytes);
    SLABCAST_CUDA_CHECK(prim::segmented_split<TriangleRef>(nullptr, bytes, nullptr, nullptr,
                                                           static_cast<int64_t>(capacity_), column_offsets_.get(),
                                                           c.tiles_x, static_cast<uint32_t>(c.tiles_y), RowOfRef{},
                                                           tile_offsets_.get(), stream_, nullptr,
                                                           kBuildSegmentedOptions));
    need = std::max(need, bytes);
    SLABCAST_CUDA_CHECK(prim::segmented_split<TriangleRef>(
        nullptr, bytes, nullptr, nullptr, static_cast<int64_t>(capacity_), tile_offsets_.get(),
        static_cast<int64_t>(c.tiles_x) * c.tiles_y, static_cast<uint32_t>(c.slabs), SlabOfRef{}, cell_offsets_.get(),
        stream_, nullptr, kBuildSegmentedOptions));
    need = std::max(need, bytes);
    ensure(scratch_, need, "the build's scratch");
  }

  FrameParams frame_params(const FrameSettings& s) const {
    FrameParams p{};
    p.num_vertices = num_vertices_;
    p.num_triangles = num_triangles_;
    p.rest_positions = rest_.get();
    p.indices = indices_.get();
    p.adjacency_offsets = adjacency_offsets_.get();
    p.adjacency_triangles = adjacency_triangles_.get();
    p.deform = make_deform_frame(s.deform, bounds_);
    p.view = make_view_params(s.camera, s.width, s.height);
    p.tiles_x = configured_.tiles_x;
    p.tiles_y = configured_.tiles_y;
    p.slabs = configured_.slabs;
    p.shading = to_shade_mode(s.shading);
    p.need_smooth_normals = needs_smooth_normals(s.shading);
    p.world_positions = world_.get();
    p.view_positions = view_.get();
    p.face_normals = face_normals_.get();
    p.vertex_normals = vertex_normals_.get();
    p.pixel_box = pixel_box_.get();
    p.nearest_depth = nearest_depth_.get();
    p.tri_verts = tri_verts_.get();
    p.depth_range = &counters_.get()->depth_range;  // zeroed with the counters at the frame's start
    p.reference_capacity = capacity_;
    p.cell_refs = refs_a_.get();
    p.cell_offsets = cell_offsets_.get();
    p.hit_t = hit_t_.get();
    p.hit_id = hit_id_.get();
    p.ray_tests = ray_tests_.get();
    p.counters = counters_.get();
    return p;
  }

  // Debug switch SLABCAST_SYNC_STAGES=1: wait after each stage and check, so a fault is pinned to its stage.
  void stage_done(const char* stage) const {
    if (!sync_stages_) return;
    const cudaError_t status = cudaStreamSynchronize(stream_);
    if (status != cudaSuccess) {
      throw std::runtime_error(std::string("slabcast: CUDA error in stage '") + stage + "': " +
                               cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")");
    }
  }

  // What decides the frame graph's nodes: the smooth-normal kernels, the sizes from which the primitives choose
  // their grids and kernels (CUB's scans pick single- or multi-pass by size), and the buffers the nodes point into
  // (a new allocation anywhere, e.g. another mesh of the same size, makes a new graph).
  struct GraphShape {
    bool smooth_normals = false;
    int width = 0, height = 0, slabs = 0;
    int64_t triangles = 0, vertices = 0;
    uint64_t capacity = 0;
    uint64_t buffers_generation = 0;
    bool operator==(const GraphShape& o) const {
      return smooth_normals == o.smooth_normals && width == o.width && height == o.height && slabs == o.slabs &&
             triangles == o.triangles && vertices == o.vertices && capacity == o.capacity &&
             buffers_generation == o.buffers_generation;
    }
  };
  // A kernel node of the frame graph whose arguments are the frame's (FrameParams, and for the caster CastTarget).
  struct FrameKernelNode {
    cudaGraphNode_t node;
    cudaKernelNodeParams params;  // as captured; the argument pointers are replaced at each launch
    bool cast;
  };

  // The frame as one CUDA graph: encode_frame captured, then launched. Launching the ~25 kernels one by one left
  // the GPU idle between them (most stages are a few microseconds of work); a graph's nodes follow one another
  // with less of that. The graph is captured once per shape of frame (GraphShape: what decides its kernels, grids and
  // buffers). Between frames of one shape only the arguments of this file's kernels change (FrameParams: time,
  // camera, shading; CastTarget: the surface), so each frame sets those on the executable graph's kernel nodes and
  // launches it. Session 6 captured the whole frame again every frame and updated the executable graph from it,
  // which cost the host about 45 us a frame (session 7, `slabcast bench`'s host column).
  void launch_frame_graph(const FrameParams& p, const Surface& target, bool write_hits) {
    const GraphShape shape = graph_shape(p);
    if (!frame_exec_ || !(shape == frame_exec_shape_)) capture_frame_graph(p, target, write_hits, shape);
    if (!frame_exec_) {  // the device is too full for the graph itself: the buffers are in place, launch directly
      encode_frame(p, target, write_hits);
      return;
    }
    FrameParams params = p;
    CastTarget cast = cast_target(target, write_hits);
    void* frame_args[] = {&params};
    void* cast_args[] = {&params, &cast};
    for (const FrameKernelNode& node : frame_nodes_) {
      cudaKernelNodeParams kernel = node.params;
      kernel.kernelParams = node.cast ? cast_args : frame_args;
      SLABCAST_CUDA_CHECK(cudaGraphExecKernelNodeSetParams(frame_exec_, node.node, &kernel));
    }
    const cudaError_t status = cudaGraphLaunch(frame_exec_, stream_);
    if (status == cudaErrorMemoryAllocation) {  // as above, found at launch
      cudaGetLastError();
      release_frame_graph();
      encode_frame(p, target, write_hits);
      return;
    }
    SLABCAST_CUDA_CHECK(status);
  }

  void release_frame_graph() {
    if (frame_exec_) cudaGraphExecDestroy(frame_exec_);
    if (frame_graph_template_) cudaGraphDestroy(frame_graph_template_);
    frame_exec_ = nullptr;
    frame_graph_template_ = nullptr;
    frame_nodes_.clear();
  }

  // Captures encode_frame for a new shape of frame and instantiates it. Leaves frame_exec_ null if the device has no
  // memory left for the graph (the caller then launches the frame directly); throws on any other error.
  void capture_frame_graph(const FrameParams& p, const Surface& target, bool write_hits, const GraphShape& shape) {
    release_frame_graph();
    SLABCAST_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
    capturing_ = true;
    cudaGraph_t graph = nullptr;
    try {
      encode_frame(p, target, write_hits);
    } catch (...) {
      capturing_ = false;
      cudaStreamEndCapture(stream_, &graph);  // leave the stream usable; the capture is void anyway
      cudaGetLastError();
      if (graph) cudaGraphDestroy(graph);
      throw;
    }
    capturing_ = false;
    SLABCAST_CUDA_CHECK(cudaStreamEndCapture(stream_, &graph));
    frame_graph_template_ = graph;  // kept: its nodes name the executable graph's nodes to update
    // encode_frame launches deform, bin and cast once a frame, and the two normal kernels when the shading needs them.
    const std::vector<FrameKernelNode> nodes = frame_kernel_nodes(graph, p.need_smooth_normals ? 5 : 3);
    const cudaError_t status = cudaGraphInstantiate(&frame_exec_, graph, 0);
    if (status == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      frame_exec_ = nullptr;
      release_frame_graph();
      return;
    }
    if (status != cudaSuccess) {
      frame_exec_ = nullptr;
      release_frame_graph();
      SLABCAST_CUDA_CHECK(status);
    }
    frame_nodes_ = nodes;
    frame_exec_shape_ = shape;
  }

  // The captured graph's nodes of this file's per-frame kernels, found by their function. Each must be there as
  // often as encode_frame launches it (the primitives' kernels take only buffers, which the shape fixes).
  std::vector<FrameKernelNode> frame_kernel_nodes(cudaGraph_t graph, size_t expected) const {
    size_t count = 0;
    SLABCAST_CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &count));
    std::vector<cudaGraphNode_t> all(count);
    SLABCAST_CUDA_CHECK(cudaGraphGetNodes(graph, all.data(), &count));
    const void* frame_kernels[] = {reinterpret_cast<const void*>(deform_kernel),
                                   reinterpret_cast<const void*>(face_normal_kernel),
                                   reinterpret_cast<const void*>(vertex_normal_kernel),
                                   reinterpret_cast<const void*>(bin_kernel)};
    const void* cast = reinterpret_cast<const void*>(cast_kernel<kCastChunk>);
    std::vector<FrameKernelNode> nodes;
    for (cudaGraphNode_t node : all) {
      cudaGraphNodeType type;
      SLABCAST_CUDA_CHECK(cudaGraphNodeGetType(node, &type));
      if (type != cudaGraphNodeTypeKernel) continue;
      cudaKernelNodeParams params{};
      SLABCAST_CUDA_CHECK(cudaGraphKernelNodeGetParams(node, &params));
      const bool is_cast = params.func == cast;
      const bool is_frame = std::find(std::begin(frame_kernels), std::end(frame_kernels), params.func) !=
                            std::end(frame_kernels);
      if (is_cast || is_frame) nodes.push_back(FrameKernelNode{node, params, is_cast});
    }
    if (nodes.size() != expected) {
      throw std::logic_error("slabcast: the frame graph has " + std::to_string(nodes.size()) +
                             " nodes of the frame's kernels, expected " + std::to_string(expected));
    }
    return nodes;
  }

  GraphShape graph_shape(const FrameParams& p) const {
    return GraphShape{p.need_smooth_normals, configured_.width, configured_.height, configured_.slabs,
                      num_triangles_,         num_vertices_,      capacity_,          buffers_generation_};
  }

  static CastTarget cast_target(const Surface& target, bool write_hits) {
    const bool aligned = reinterpret_cast<uintptr_t>(target.pixels) % 4 == 0 && target.pitch_bytes % 4 == 0;
    return CastTarget{target.pixels, target.pitch_bytes, aligned, write_hits};
  }

  // The stage timing events; inside a capture they become event-record nodes of the graph.
  void record_stage_event(int i) {
    SLABCAST_CUDA_CHECK(
        cudaEventRecordWithFlags(events_[i], stream_, capturing_ ? cudaEventRecordExternal : cudaEventRecordDefault));
  }

  // Stream-ordered: no allocation, no synchronisation (unless SLABCAST_SYNC_STAGES).
  void encode_frame(const FrameParams& p, const Surface& target, bool write_hits) {
    const Config& c = configured_;
    const int64_t V = num_vertices_, T = num_triangles_;
    SLABCAST_CUDA_CHECK(cudaMemsetAsync(counters_.get(), 0, sizeof(FrameCounters), stream_));

    // ---- 1. deform (+ smooth normals when the shading uses them) ----
    record_stage_event(0);
    deform_kernel<<<grid_for(V, kVertexBlock), kVertexBlock, 0, stream_>>>(p);
    SLABCAST_CUDA_CHECK_LAUNCH(deform_kernel);
    if (p.need_smooth_normals) {
      face_normal_kernel<<<grid_for(T, kTriangleBlock), kTriangleBlock, 0, stream_>>>(p);
      SLABCAST_CUDA_CHECK_LAUNCH(face_normal_kernel);
      vertex_normal_kernel<<<grid_for(V, kVertexBlock), kVertexBlock, 0, stream_>>>(p);
      SLABCAST_CUDA_CHECK_LAUNCH(vertex_normal_kernel);
    }
    stage_done("deform");

    // ---- 2. project and bin (the depth range too) ----
    record_stage_event(1);
    bin_kernel<<<grid_for(T, kTriangleBlock), kTriangleBlock, 0, stream_>>>(p);
    SLABCAST_CUDA_CHECK_LAUNCH(bin_kernel);
    stage_done("bin");

    // ---- 3. build: L1 by tile column (one reference per covered tile), L2 by row, L3 by slab ----
    record_stage_event(2);
    const TileColumnEmitter emitter{pixel_box_.get(), nearest_depth_.get(), p.depth_range, c.slabs};
    size_t bytes = scratch_.bytes();
    SLABCAST_CUDA_CHECK(prim::multi_split<TriangleRef>(scratch_.get(), bytes, prim::ItemCount(T), emitter,
                                                       static_cast<uint32_t>(c.tiles_x), refs_a_.get(),
                                                       static_cast<int64_t>(capacity_), column_offsets_.get(),
                                                       &counters_.get()->references, stream_));
    guard_overflow_kernel<<<1, 256, 0, stream_>>>(column_offsets_.get(), c.tiles_x, &counters_.get()->references,
                                                  capacity_, &counters_.get()->overflow);
    SLABCAST_CUDA_CHECK_LAUNCH(guard_overflow_kernel);
    stage_done("L1");
    record_stage_event(3);
    bytes = scratch_.bytes();
    SLABCAST_CUDA_CHECK(prim::segmented_split(scratch_.get(), bytes, static_cast<const TriangleRef*>(refs_a_.get()),
                                              refs_b_.get(), static_cast<int64_t>(capacity_), column_offsets_.get(),
                                              c.tiles_x, static_cast<uint32_t>(c.tiles_y), RowOfRef{},
                                              tile_offsets_.get(), stream_, nullptr, kBuildSegmentedOptions));
    stage_done("L2");
    record_stage_event(4);
    bytes = scratch_.bytes();
    SLABCAST_CUDA_CHECK(prim::segmented_split(scratch_.get(), bytes, static_cast<const TriangleRef*>(refs_b_.get()),
                                              refs_a_.get(), static_cast<int64_t>(capacity_), tile_offsets_.get(),
                                              static_cast<int64_t>(c.tiles_x) * c.tiles_y,
                                              static_cast<uint32_t>(c.slabs), SlabOfRef{}, cell_offsets_.get(),
                                              stream_, nullptr, kBuildSegmentedOptions));
    stage_done("L3");

    // ---- 4. cast, and 5. shade into the caller's surface, by the same threads ----
    record_stage_event(5);
    cast_kernel<kCastChunk><<<static_cast<unsigned>(c.tiles_x * c.tiles_y), kTilePixels, 0, stream_>>>(
        p, cast_target(target, write_hits));
    SLABCAST_CUDA_CHECK_LAUNCH(cast_kernel);
    stage_done("cast");
    // The shade stage has no kernel of its own (session 6), and no events either: two back to back cost ~1 us.
    record_stage_event(kTimedStages);
  }

  RendererOptions options_;
  bool sync_stages_ = false;
  bool frame_graph_ = true;
  cudaGraphExec_t frame_exec_ = nullptr;
  cudaGraph_t frame_graph_template_ = nullptr;  // what frame_exec_ was instantiated from
  std::vector<FrameKernelNode> frame_nodes_;    // its nodes whose arguments change every frame
  GraphShape frame_exec_shape_;
  mutable uint64_t buffers_generation_ = 0;     // counts device allocations (GraphShape)
  bool capturing_ = false;  // encode_frame is being captured into the frame's graph
  cudaStream_t stream_ = nullptr;
  cudaEvent_t events_[kEventCount] = {};
  FrameCounters* host_counters_ = nullptr;  // pinned

  // mesh (set_mesh)
  std::string mesh_name_;  // in out-of-memory messages
  MeshBounds bounds_;
  int64_t num_vertices_ = 0, num_triangles_ = 0;
  DeviceArray<Vec3> rest_, world_, vertex_normals_, face_normals_;
  DeviceArray<ViewVertex> view_;
  DeviceArray<uint32_t> indices_, adjacency_triangles_;
  DeviceArray<uint64_t> adjacency_offsets_;
  DeviceArray<PixelBox> pixel_box_;
  DeviceArray<float> nearest_depth_;
  DeviceArray<TriangleVerts> tri_verts_;
  // build
  uint64_t capacity_ = 0;
  DeviceArray<TriangleRef> refs_a_, refs_b_;  // L1 -> a, L2 a -> b, L3 b -> a (cells)
  DeviceArray<uint64_t> column_offsets_, tile_offsets_, cell_offsets_;
  DeviceArray<unsigned char> scratch_;
  DeviceArray<FrameCounters> counters_;
  // frame size
  Config configured_;
  DeviceArray<float> hit_t_;
  DeviceArray<uint32_t> hit_id_, ray_tests_;
  bool have_frame_ = false;
};

}  // namespace

std::unique_ptr<Renderer> make_cuda_renderer(const RendererOptions& options) {
  return std::make_unique<CudaRenderer>(options);
}

}  // namespace slabcast
