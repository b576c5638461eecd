// The levels of samples of the search of needles in any order (prim/search.h, agent/search_agent.cuh): their counts
// and their places in scratch, on the host (the scratch's size) and in the kernels (where each level lies).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

namespace prim {
namespace detail {

// The levels of samples of a haystack of h items: level l holds count[l] = ceil(h / F^l) items (count[0] = h, the
// haystack), levels 1..top in scratch, each from offset[l] items, a whole number of nodes (F items) from the scratch's
// start. The top is the first level of at most max_top items. A shorter haystack never has more levels, nor more
// items in any of them, so the scratch of a haystack's host bound holds those of any count below it.
template <int FANOUT>
struct SampleLevels {
  static constexpr int kFanout = FANOUT;
  static constexpr int kMaxLevels = 31;  // F >= 4 and h < 2^60: at most 30 levels above the haystack
  int top;
  int64_t count[kMaxLevels + 1];
  int64_t offset[kMaxLevels + 1];
  int64_t scratch_items;  // levels 1..top, each rounded up to whole nodes

  // In place (a kernel's copy in shared memory, not a local one).
  __host__ __device__ void compute(int64_t h, int64_t max_top) {
    top = 0;
    count[0] = h;
    offset[0] = 0;
    scratch_items = 0;
    while (count[top] > max_top && top < kMaxLevels) {
      const int l = ++top;
      count[l] = (count[l - 1] + FANOUT - 1) / FANOUT;
      offset[l] = scratch_items;
      scratch_items += (count[l] + FANOUT - 1) / FANOUT * FANOUT;
    }
  }
};

}  // namespace detail
}  // namespace prim
