// Searches of the segmented split's offsets: the call's validity, and a warp-wide upper bound.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

namespace prim {
namespace detail {

// Validity of the whole call (device-resident count): offsets start at 0 and the total fits max_items.
__device__ __forceinline__ bool segmented_input_ok(const uint64_t* offsets, int64_t num_segments, int64_t max_items) {
  return offsets[0] == 0 && offsets[num_segments] <= static_cast<uint64_t>(max_items);
}

// First index i in [0, m) with a[i] > x (m if none); the 32 lanes of a warp probe 32 places per step.
__device__ __forceinline__ int64_t warp_upper_bound(const uint64_t* a, int64_t m, uint64_t x) {
  const int lane = threadIdx.x & 31;
  int64_t l = 0, r = m;  // the answer lies in [l, r]
  while (r > l) {
    const int64_t step = (r - l + 31) / 32;
    const int64_t p = l + lane * step;
    const bool greater = p >= r || a[p] > x;
    const unsigned ballot = __ballot_sync(0xffffffffu, greater);
    if (ballot == 0) {
      l = l + 31 * step + 1;
    } else {
      const int f = __ffs(ballot) - 1;
      const int64_t pf = l + f * step;
      const int64_t new_l = f == 0 ? l : l + (f - 1) * step + 1;
      r = pf < r ? pf : r;
      l = new_l;
    }
  }
  return l;
}

}  // namespace detail
}  // namespace prim
