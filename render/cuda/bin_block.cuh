// The bin stage's block on the GPU (stages/bin.h has the per-triangle body both backends share): each thread bins one
// triangle, and the block folds the frame's depth range (two integer keys, each a maximum) and its binned count into
// one atomic per key and block, so the range needs no reduction kernels after this one.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "render/constants.h"
#include "render/frame_params.h"
#include "render/stages/bin.h"

namespace slabcast {

// Every thread of the block calls this (t past the end included).
__device__ __forceinline__ void bin_block(const FrameParams& p, int64_t t) {
  constexpr int kWarps = kTriangleBlock / 32;
  static_assert(kTriangleBlock % 32 == 0, "whole warps");
  __shared__ uint32_t warp_nearest[kWarps], warp_farthest[kWarps];
  const bool binned = t < p.num_triangles && bin_one(p, t);
  if (t == 0) {
    atomicAdd(reinterpret_cast<unsigned long long*>(&p.counters->l1_inputs),
              static_cast<unsigned long long>(p.num_triangles));
  }
  if (binned) {  // a large triangle's columns become L1's pieces (stages/build.h)
    const TileRange r = tile_range_of(p.pixel_box[t]);
    if (is_large(r)) {
      const unsigned long long columns = static_cast<unsigned long long>(r.x1 - r.x0 + 1);
      const unsigned long long first = atomicAdd(reinterpret_cast<unsigned long long*>(&p.counters->pieces), columns);
      atomicAdd(reinterpret_cast<unsigned long long*>(&p.counters->l1_inputs), columns);
      for (unsigned long long k = 0; k < columns && first + k < p.piece_capacity; ++k) {
        p.pieces[first + k] = pack_piece(t, r.x0 + static_cast<int>(k));
      }
    }
  }
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

}  // namespace slabcast
