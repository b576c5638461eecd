// The cuda backend's kernels (declared in kernels.cuh): one-line entry points, as cudaraster's RasterImpl.cu. The work
// is the stage bodies': render/stages/ (shared with the cpu backend) and render/cuda/*_block.cuh (block-cooperative).
#include "render/cuda/kernels.cuh"

#include "render/constants.h"
#include "render/cuda/bin_block.cuh"
#include "render/cuda/build_block.cuh"
#include "render/cuda/cast_block.cuh"
#include "render/cuda/deform_block.cuh"
#include "render/cuda/shadow_block.cuh"
#include "render/stages/deform.h"

namespace slabcast {
namespace {
__device__ __forceinline__ int64_t item_index() { return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; }
}  // namespace

__global__ void __launch_bounds__(kVertexBlock) deform_kernel(FrameParams p) {
  if (const int64_t v = item_index(); v < p.num_vertices) deform_one(p, v);
}

__global__ void __launch_bounds__(kTriangleBlock) face_normal_kernel(FrameParams p) {
  if (const int64_t t = item_index(); t < p.num_triangles) face_normal_one(p, t);
}

__global__ void __launch_bounds__(kVertexBlock) vertex_normal_kernel(FrameParams p) {
  vertex_normal_warp(p, item_index());
}

__global__ void __launch_bounds__(kTriangleBlock) bin_kernel(FrameParams p) {
  bin_block(p, item_index());
}

__global__ void guard_overflow_kernel(uint64_t* column_offsets, int tiles_x, const uint64_t* total, uint64_t capacity,
                                      uint64_t* overflow) {
  guard_overflow_block(column_offsets, tiles_x, total, capacity, overflow);
}

namespace {
// The tiles on cast_kernel's list of tiles with a deep cell.
template <bool kShadowSamples>
__device__ __forceinline__ void cast_deep_tiles(const FrameParams& p, const CastTarget& target) {
  // Launched as the caster's programmatic dependent (cuda_renderer.cu): its blocks may be resident before the caster
  // has finished, and wait here until it has, and its list and count are written.
  cudaGridDependencySynchronize();
  const uint64_t listed = p.counters->deep_tiles;
  for (uint64_t i = blockIdx.x; i < listed; i += gridDim.x) {
    cast_tile<kCastChunk, true, kShadowSamples>(p, target, p.deep_tiles[i]);
    __syncthreads();  // the tile's shared memory is read no more before the next tile's is written
  }
}
}  // namespace

__global__ void __launch_bounds__(kTilePixels, kCastBlocksPerSm) cast_kernel(FrameParams p, CastTarget target) {
  cast_tile<kCastChunk, false, false>(p, target, blockIdx.x);
}

__global__ void __launch_bounds__(kTilePixels, kCastBlocksPerSm) cast_deep_kernel(FrameParams p, CastTarget target) {
  cast_deep_tiles<false>(p, target);
}

__global__ void __launch_bounds__(kTilePixels, kCastBlocksPerSm) cast_sample_kernel(FrameParams p, CastTarget target) {
  if (blockIdx.x == 0 && threadIdx.x == 0) *p.light_on_device = p.light;  // for the keys' kernel, fixed in the graph
  clear_light_tile_counters(p, item_index(), static_cast<int64_t>(gridDim.x) * blockDim.x);
  cast_tile<kCastChunk, false, true>(p, target, blockIdx.x);
}

__global__ void __launch_bounds__(kTilePixels, kCastBlocksPerSm) cast_deep_sample_kernel(FrameParams p,
                                                                                        CastTarget target) {
  cast_deep_tiles<true>(p, target);
}

__global__ void __launch_bounds__(kPixelBlock) light_sample_key_kernel(const ShadowOrigin* samples,
                                                                       const LightFrame* light,
                                                                       const LightFaceKeys* faces,
                                                                       LightFaceGrid* grids, int64_t pixels,
                                                                       uint64_t* keys, uint32_t* tile_depth,
                                                                       uint64_t* tile_samples,
                                                                       uint64_t* sample_count) {
  const int64_t i = item_index();
  if (blockIdx.x == 0 && threadIdx.x < light->faces) grids[threadIdx.x] = face_grid(faces[threadIdx.x], light->grid);
  bool sample = false;
  if (i < pixels) {
    const LightSampleKey k = light_sample_key(samples, light, faces, i);
    keys[i] = k.key;
    sample = k.depth_key != 0;
    if (sample) {
      const uint64_t tile = light_key_tile(k.key);
      atomicMax(tile_depth + tile, k.depth_key);
      atomicAdd(reinterpret_cast<unsigned long long*>(tile_samples) + tile, 1ull);
    }
  }
  const int block_samples = __syncthreads_count(sample);
  if (threadIdx.x == 0 && block_samples != 0) {
    atomicAdd(reinterpret_cast<unsigned long long*>(sample_count), static_cast<unsigned long long>(block_samples));
  }
}

__global__ void __launch_bounds__(kPixelBlock) light_sample_scatter_kernel(const uint64_t* keys, int64_t pixels,
                                                                           uint64_t tiles, uint64_t* tile_ends,
                                                                           uint64_t* packed) {
  const int64_t i = item_index();
  if (i >= pixels) return;
  const uint64_t key = keys[i];
  const uint64_t tile = light_key_tile(key);
  if (tile >= tiles) return;  // a pixel without a sample
  packed[take_slot_from_end(tile_ends, tile)] = key;
}

__global__ void __launch_bounds__(kTriangleBlock) light_ref_count_sun_kernel(FrameParams p) {
  if (const int64_t t = item_index(); t < p.num_triangles) light_ref_count_sun(p, t);
}

__global__ void __launch_bounds__(kTriangleBlock) light_ref_scatter_sun_kernel(FrameParams p) {
  light_ref_scatter_sun(p, item_index());
}

__global__ void __launch_bounds__(kTriangleBlock) light_ref_count_cube_kernel(FrameParams p) {
  if (const int64_t t = item_index(); t < p.num_triangles) light_ref_count_cube(p, t);
}

__global__ void __launch_bounds__(kTriangleBlock) light_ref_scatter_cube_kernel(FrameParams p) {
  light_ref_scatter_cube(p, item_index());
}

__global__ void __launch_bounds__(kShadowTestBlock, kShadowTestBlocksPerSm) shadow_test_kernel(FrameParams p,
                                                                                              CastTarget target) {
  shadow_test_block(p, target, static_cast<uint64_t>(blockIdx.x) * kShadowTestBlock);
}

__global__ void __launch_bounds__(kPixelBlock) shade_kernel(FrameParams p, CastTarget target) {
  const int64_t pix = item_index();
  if (pix >= static_cast<int64_t>(p.view.width) * p.view.height) return;
  const int px = static_cast<int>(pix % p.view.width), py = static_cast<int>(pix / p.view.width);
  write_pixel(target, px, py, shade_one(p, px, py));
}

__global__ void __launch_bounds__(kPixelBlock) accumulate_sample_kernel(SampleImage image, int k) {
  const int64_t pix = item_index();
  if (pix >= static_cast<int64_t>(image.width) * image.height) return;
  accumulate_sample(image, static_cast<int>(pix % image.width), static_cast<int>(pix / image.width), k);
}

__global__ void __launch_bounds__(kVertexBlock) project_vertices_kernel(ViewParams view, const ViewVertex* view_positions,
                                                                        int64_t vertices, float* x, float* y,
                                                                        float* depth) {
  if (const int64_t v = item_index(); v < vertices) project_vertex_one(view, view_positions, v, x, y, depth);
}

__global__ void __launch_bounds__(kVertexBlock) selected_vertices_kernel(const uint32_t* points, const uint64_t* count,
                                                                         int64_t capacity, const float* x,
                                                                         const float* y, const float* depth,
                                                                         int scale_exponent,
                                                                         SelectedVertexRecord* out) {
  const int64_t i = item_index();
  if (i < capacity && static_cast<uint64_t>(i) < *count) {
    selected_vertex_one(x, y, depth, scale_exponent, points[i], out[i]);
  }
}

__global__ void corner_triangle_kernel(uint32_t* corner_triangle, int64_t corners) {
  corner_triangle_one(corner_triangle, corners, item_index());
}

__global__ void adjacency_offsets_kernel(const uint32_t* sorted_vertex, int64_t corners, int64_t vertices,
                                         uint64_t* offsets) {
  adjacency_offsets_one(sorted_vertex, corners, vertices, offsets, item_index());
}

}  // namespace slabcast
