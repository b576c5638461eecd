// The build stage's cuda-only piece (stages/build.h has the key layout and the split functors; the splits themselves
// are the primitives' multi_split and segmented_split): the overflow guard between L1 and L2.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

namespace slabcast {

// After L1 (the build's first split): if the references did not fit, mark the overflow and empty the column offsets,
// so that L2, L3 and the cast see an empty structure (they run, cheaply, on consistent data) and the host redoes the
// frame. Without this L2 would be handed a count above its capacity and leave its offsets unwritten. One block.
__device__ __forceinline__ void guard_overflow_block(uint64_t* column_offsets, int tiles_x, const uint64_t* total,
                                                     uint64_t capacity, uint64_t* overflow) {
  const bool over = *total > capacity;
  if (!over) return;
  for (int i = threadIdx.x; i <= tiles_x; i += blockDim.x) column_offsets[i] = 0;
  if (threadIdx.x == 0) *overflow = 1;
}

}  // namespace slabcast
