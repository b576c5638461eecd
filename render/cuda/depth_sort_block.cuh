// A deep cell put in near-depth order on the GPU (stages/cast.h: depth_order_key; the cpu backend's
// sort_cell_by_depth_on_host gives the same order). The cast block of the cell's tile sorts it before it casts, so
// the sort costs nothing where no cell is deep, and needs no launch or host decision of its own.
//
// A block sort in two phases: runs of kSortRun keys sorted in shared memory by a bitonic network, written to the
// cell's range of the scratch references; then runs merged pairwise, back and forth between that range and the cell's
// own, each thread merging one slice of a pair's output found by a merge-path search. Keys are unique (they end in
// the triangle ID), so the order is total and no stability is needed. The last step writes the references back:
// a cell's references differ only in their triangle IDs (stages/build.h).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "render/frame_params.h"
#include "render/stages/build.h"
#include "render/stages/cast.h"

namespace slabcast {

constexpr int kSortRun = 256;

// How many of a's first elements are among the first `diagonal` of the merge of sorted a[0, na) and b[0, nb).
__device__ __forceinline__ uint64_t merge_path(const unsigned long long* a, uint64_t na, const unsigned long long* b,
                                               uint64_t nb, uint64_t diagonal) {
  uint64_t lo = diagonal > nb ? diagonal - nb : 0, hi = diagonal < na ? diagonal : na;
  while (lo < hi) {
    const uint64_t mid = (lo + hi) / 2;
    if (a[mid] < b[diagonal - 1 - mid]) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

// Sorts refs[begin, end) (FrameParams::cell_refs) by depth_order_key with the whole block of kThreads threads (all
// must call it), using scratch[begin, end) (cell_refs_scratch); `run` is kSortRun keys of shared memory. Ends with
// the block synchronised. Not inlined, and given plain pointers rather than the FrameParams, so that the caster's
// registers stay as they are where no cell is deep.
template <int kThreads>
__device__ __noinline__ void sort_cell_by_depth(TriangleRef* refs, TriangleRef* scratch, const float* nearest_depth,
                                                uint64_t begin, uint64_t end, unsigned long long* run) {
  const int thread = static_cast<int>(threadIdx.x);
  const uint64_t n = end - begin;
  const TriangleRef cell_bits = refs[begin] & ~static_cast<TriangleRef>(0xFFFFFFFFu);
  unsigned long long* from = reinterpret_cast<unsigned long long*>(scratch + begin);
  unsigned long long* to = reinterpret_cast<unsigned long long*>(refs + begin);

  // Runs: keys into shared memory (past the cell's end, the largest key), a bitonic sort, out to the scratch range.
  for (uint64_t first = 0; first < n; first += kSortRun) {
    for (int i = thread; i < kSortRun; i += kThreads) {
      unsigned long long key = ~0ull;
      if (first + static_cast<uint64_t>(i) < n) {
        const uint32_t id = ref_triangle(refs[begin + first + static_cast<uint64_t>(i)]);
        key = depth_order_key(nearest_depth[id], id);
      }
      run[i] = key;
    }
    __syncthreads();
    for (int k = 2; k <= kSortRun; k <<= 1) {
      for (int j = k >> 1; j > 0; j >>= 1) {
        for (int i = thread; i < kSortRun; i += kThreads) {
          const int partner = i ^ j;
          if (partner > i) {
            const unsigned long long x = run[i], y = run[partner];
            if ((x > y) == ((i & k) == 0)) {
              run[i] = y;
              run[partner] = x;
            }
          }
        }
        __syncthreads();
      }
    }
    for (int i = thread; i < kSortRun; i += kThreads) {
      if (first + static_cast<uint64_t>(i) < n) from[first + static_cast<uint64_t>(i)] = run[i];
    }
    __syncthreads();
  }

  // Merges: runs of `width` into runs of 2 * width, `from` -> `to`, then the two swap.
  for (uint64_t width = kSortRun; width < n; width *= 2) {
    for (uint64_t lo = 0; lo < n; lo += 2 * width) {
      const uint64_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
      const uint64_t na = mid - lo, nb = hi - mid, total = hi - lo;
      const uint64_t slice = (total + kThreads - 1) / kThreads;
      const uint64_t d0 = slice * static_cast<uint64_t>(thread) < total ? slice * static_cast<uint64_t>(thread) : total;
      const uint64_t d1 = d0 + slice < total ? d0 + slice : total;
      if (d0 < d1) {
        uint64_t i = merge_path(from + lo, na, from + mid, nb, d0), j = d0 - i;
        for (uint64_t d = d0; d < d1; ++d) {
          const bool take_a = j >= nb || (i < na && from[lo + i] < from[mid + j]);
          to[lo + d] = take_a ? from[lo + i++] : from[mid + j++];
        }
      }
    }
    __syncthreads();
    unsigned long long* const swap = from;
    from = to;
    to = swap;
  }

  // The sorted keys (in `from`) back to references, in the cell's own range.
  for (uint64_t k = static_cast<uint64_t>(thread); k < n; k += kThreads) {
    refs[begin + k] = cell_bits | static_cast<uint32_t>(from[k]);
  }
  __syncthreads();
}

}  // namespace slabcast
