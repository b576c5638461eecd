// The cuda backend's kernels, in pipeline order: each is a one-line entry point (kernels.cu) that calls its stage's
// per-item body (render/stages/) or the stage's block (render/cuda/*_block.cuh). The driver (cuda_renderer.cu) and
// set_mesh (device_arrays.cu) launch them; the frame graph (frame_graph.cu) finds the per-frame ones by address.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "render/cuda/cast_target.cuh"
#include "render/frame_params.h"
#include "render/stages/resolve.h"
#include "render/stages/select.h"

namespace slabcast {

// ---- the frame: FrameParams (and CastTarget for the kernels that write pixels) are its arguments, set each frame ----
__global__ void deform_kernel(FrameParams p);         // 1. deform: one thread a vertex, kVertexBlock threads
__global__ void face_normal_kernel(FrameParams p);    //    smooth normals: one thread a triangle, kTriangleBlock
__global__ void vertex_normal_kernel(FrameParams p);  //    one thread (or warp) a vertex, kVertexBlock
__global__ void bin_kernel(FrameParams p);            // 2. bin: one thread a triangle, kTriangleBlock
__global__ void guard_overflow_kernel(uint64_t* column_offsets, int tiles_x, const uint64_t* total,
                                      uint64_t capacity, uint64_t* overflow);  // 3. after L1: one block
__global__ void cast_kernel(FrameParams p, CastTarget target);  // 4 + 5. cast and shade: a block of kTilePixels a tile
__global__ void cast_deep_kernel(FrameParams p, CastTarget target);  // the same for the tiles with a deep cell
constexpr unsigned kCastDeepBlocks = 132;  // cast_deep_kernel's grid: the tiles on its list, this many at a time
// 4b. shadows (stages/shadow.h): the casters that also make each pixel's shadow sample and fold their light-space
// bounds; the samples' keys (packed by light tile beside the next), the triangles' boxes and references, the test:
__global__ void cast_sample_kernel(FrameParams p, CastTarget target);
__global__ void cast_deep_sample_kernel(FrameParams p, CastTarget target);
// Pixel i's key (stages/shadow.h: light_sample_key) into keys[i], its sample's depth key into its tile's maximum,
// tile_depth[tile], a count of its tile's samples into tile_samples[tile], and the samples into *sample_count (all
// zeroed before); and each face's grid into grids (stages/shadow.h: face_grid). One thread a pixel, kPixelBlock.
__global__ void light_sample_key_kernel(const ShadowOrigin* samples, const LightFrame* light,
                                        const LightFaceKeys* faces, LightFaceGrid* grids, int64_t pixels,
                                        uint64_t* keys, uint32_t* tile_depth, uint64_t* tile_samples,
                                        uint64_t* sample_count);
// The samples' keys packed by light tile: once tile_samples is scanned inclusively into each tile's end, each
// sample's key goes to a slot of its tile's run, taken from the run's end (so in no set order within the run, which
// neither the mask nor the pair count depends on). Pixels without a sample are left out. One thread a pixel,
// kPixelBlock.
__global__ void light_sample_scatter_kernel(const uint64_t* keys, int64_t pixels, uint64_t tiles, uint64_t* tile_ends,
                                            uint64_t* packed);
// The triangles' light references by a count, a scan and a scatter (render/cuda/shadow_block.cuh); the count writes
// the triangles' light boxes first. One thread a triangle, kTriangleBlock. A sun's (one face of light space) and a
// point light's (six) are kernels of their own.
__global__ void light_ref_count_sun_kernel(FrameParams p);
__global__ void light_ref_scatter_sun_kernel(FrameParams p);
__global__ void light_ref_count_cube_kernel(FrameParams p);
__global__ void light_ref_scatter_cube_kernel(FrameParams p);
// A warp 32 samples (in light-tile order), kShadowTestBlock; writes shadowed pixels' grey (CastTarget::grey_shadows)
__global__ void shadow_test_kernel(FrameParams p, CastTarget target);
// 5. where the frame is shaded after the cast (stages/shade.h: shades_after_cast): one thread a pixel, kPixelBlock
__global__ void shade_kernel(FrameParams p, CastTarget target);
constexpr int kPixelBlock = 256;
// 6. resolve (samples > 1): sample k's frame into the sums, the average after the last; one thread a pixel, kPixelBlock
__global__ void accumulate_sample_kernel(SampleImage image, int k);

// ---- vertex selection (Renderer::select_vertices, after a frame; stages/select.h): one thread a vertex, kVertexBlock
__global__ void project_vertices_kernel(ViewParams view, const ViewVertex* view_positions, int64_t vertices, float* x,
                                        float* y, float* depth);
// The records of the first *count of `points` (a range-tree report; at most `capacity`).
__global__ void selected_vertices_kernel(const uint32_t* points, const uint64_t* count, int64_t capacity,
                                         const float* x, const float* y, const float* depth, int scale_exponent,
                                         SelectedVertexRecord* out);

// ---- set_mesh: the vertex -> triangle adjacency (kTriangleBlock threads) ----
__global__ void corner_triangle_kernel(uint32_t* corner_triangle, int64_t corners);
__global__ void adjacency_offsets_kernel(const uint32_t* sorted_vertex, int64_t corners, int64_t vertices,
                                         uint64_t* offsets);

// Blocks of `block` threads for n items.
template <typename Count>
unsigned grid_for(Count n, int block) {
  return static_cast<unsigned>((static_cast<int64_t>(n) + block - 1) / block);
}

}  // namespace slabcast
