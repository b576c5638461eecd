// The searches' agents: the sorted-needle sweep (merge-path tiles of needles and haystack) and the sampled search of
// needles in any order.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "prim/detail/agent/merge_agent.cuh"
#include "prim/detail/core/device_count.cuh"

namespace prim {
namespace detail {

// ------------------------------------------------------------------------------------------------------------
// Sweep: a needle's lower bound is the number of haystack items that come before it in the stable merge of
// (needles, haystack); its upper bound, the number before it in the stable merge of (haystack, needles). A tile merges
// TILE_ITEMS items of that merge as MergeAgent does, but writes only each needle's count, in needle order.
//
//   tile_shares / load_shares / merge_thread   as the merge's (MergeTile)
//   record_needles   for each merged needle, haystack items before it = merged position - needles before it
//   store_results    the tile's needles' results out in warp-consecutive order
// ------------------------------------------------------------------------------------------------------------
template <class Policy, bool NEEDLES_FIRST, class K, class Index, class TakeSecond>
struct SearchSweepAgent {
  using Tile = MergeTile<Policy, K, TakeSecond>;
  static constexpr int kThreads = Policy::BLOCK_THREADS;
  static constexpr int kItems = Policy::ITEMS_PER_THREAD;
  static constexpr int kTile = Policy::TILE_ITEMS;

  struct TempStorage {
    K keys[kTile];         // the tile's needles and haystack items (the first input's share first)
    Index results[kTile];  // result of the tile's j-th needle
  };

  template <bool FULL>
  __device__ __forceinline__ static void sweep_tile(TempStorage& temp, const K* first, const K* second,
                                                    Index* __restrict__ out, const MergeTileShares& s,
                                                    TakeSecond take_second) {
    const int count = s.count1 + s.count2;
    Tile::template load_shares<FULL>(temp.keys, first, second, s);
    __syncthreads();
    K keys[kItems];
    int32_t source[kItems];
    const int first_item = Tile::template merge_thread<FULL>(temp.keys, s, take_second, keys, source);

    // ---- record_needles ----
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
      const int position = first_item + i;  // in the tile's merged items
      if (!FULL && position >= count) break;
      const bool needle = NEEDLES_FIRST ? source[i] < s.count1 : source[i] >= s.count1;
      if (!needle) continue;
      const int j = NEEDLES_FIRST ? source[i] : source[i] - s.count1;  // the needle's place in the tile's share
      const int64_t haystack_begin = NEEDLES_FIRST ? s.begin2 : s.begin1;
      temp.results[j] = static_cast<Index>(sweep_haystack_before(haystack_begin, position, j));
    }
    __syncthreads();

    // ---- store_results ----
    const int needles = NEEDLES_FIRST ? s.count1 : s.count2;
    Index* tile_out = out + (NEEDLES_FIRST ? s.begin1 : s.begin2);
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
      const int p = striped_position(static_cast<int>(threadIdx.x), i, kThreads);
      if (p < needles) tile_out[p] = temp.results[p];
    }
  }

  // Tile blockIdx.x of the merge of needles and haystack (the first input's count n1, the second's n2).
  __device__ __forceinline__ static void run(TempStorage& temp, const K* needles, const K* haystack,
                                             Index* __restrict__ out, const int64_t* __restrict__ partitions,
                                             int64_t n1, int64_t n2, TakeSecond take_second) {
    const int64_t tile = blockIdx.x;
    if (tile * kTile >= n1 + n2) return;
    MergeTileShares s;
    if (!Tile::tile_shares(partitions, tile, n1, n2, s)) return;
    const K* first = NEEDLES_FIRST ? needles : haystack;
    const K* second = NEEDLES_FIRST ? haystack : needles;
    if (s.count1 + s.count2 == kTile) {
      sweep_tile<true>(temp, first, second, out, s, take_second);
    } else {
      sweep_tile<false>(temp, first, second, out, s, take_second);
    }
  }
};

// ------------------------------------------------------------------------------------------------------------
// Sampled search: every needle by itself, in two levels. The haystack's items at multiples of `stride` (the samples,
// gathered once a call into scratch) sit in shared memory; a needle's binary search there leaves a stretch of fewer
// than `stride` haystack items, searched in global memory with the other needles of the thread in lockstep, so that
// their loads are in flight together. The searched predicate is monotone over the haystack: "item before needle"
// (comp(item, needle) for the lower bound, !comp(needle, item) for the upper bound); the result is the number of items
// for which it holds.
//
//   load_samples       the samples into shared memory (once a block)
//   search_samples     a needle's stretch [lo, lo + len] from the samples
//   search_stretches   the kNeedles stretches, halved in lockstep: one load a needle a step, all issued first
// ------------------------------------------------------------------------------------------------------------

// The sampling of a haystack of h items into at most max_samples samples: every stride-th item, from item 0.
struct HaystackSampling {
  int64_t stride;
  int64_t count;
  int steps;  // halvings that take a stretch of up to stride - 1 items to none

  __host__ __device__ __forceinline__ static HaystackSampling of(int64_t h, int64_t max_samples) {
    HaystackSampling s;
    s.stride = h <= max_samples ? 1 : (h + max_samples - 1) / max_samples;
    s.count = (h + s.stride - 1) / s.stride;
    s.steps = 0;
    for (int64_t len = s.stride - 1; len > 0; len >>= 1) ++s.steps;
    return s;
  }
};

// The searched predicate: "haystack item before needle".
template <class Compare>
struct BeforeForLowerBound {  // item < needle
  Compare comp;
  template <class K>
  __host__ __device__ __forceinline__ bool operator()(const K& item, const K& needle) const {
    return comp(item, needle);
  }
};
template <class Compare>
struct BeforeForUpperBound {  // !(needle < item)
  Compare comp;
  template <class K>
  __host__ __device__ __forceinline__ bool operator()(const K& item, const K& needle) const {
    return !comp(needle, item);
  }
};

template <class Policy, class K, class Index, class Before>
struct SampledSearchAgent {
  static constexpr int kThreads = Policy::kThreads;
  static constexpr int kNeedles = Policy::kNeedlesPerThread;
  static constexpr int64_t kChunk = int64_t{kThreads} * kNeedles;
  // As many samples as fit kSampleBytes (at least one), at most kMaxSamples.
  static constexpr int max_samples() {
    const size_t fit = Policy::kSampleBytes / sizeof(K) > 0 ? Policy::kSampleBytes / sizeof(K) : 1;
    return fit < static_cast<size_t>(Policy::kMaxSamples) ? static_cast<int>(fit) : Policy::kMaxSamples;
  }
  static constexpr int kMaxSamples = max_samples();

  struct TempStorage {
    K samples[kMaxSamples];
  };

  // ---- search_samples: the number of samples before x, as a stretch of the haystack ----
  __device__ __forceinline__ static void search_samples(const TempStorage& temp, const HaystackSampling& sampling,
                                                        int64_t h, const K& x, Before before, int64_t& lo,
                                                        int64_t& len) {
    int base = 0;
    int n = static_cast<int>(sampling.count);
    while (n > 0) {
      const int half = n / 2;
      if (before(temp.samples[base + half], x)) {
        base += half + 1;
        n -= half + 1;
      } else {
        n = half;
      }
    }
    // Samples [0, base) are before x, sample `base` (if any) is not: the result lies in
    // [(base - 1) * stride + 1, base * stride], within the haystack.
    lo = base == 0 ? 0 : (base - 1) * sampling.stride + 1;
    const int64_t hi = base < sampling.count ? base * sampling.stride : h;
    len = hi - lo;
  }

  __device__ __forceinline__ static void run(TempStorage& temp, const K* __restrict__ haystack,
                                             const K* __restrict__ samples, const K* __restrict__ needles,
                                             Index* __restrict__ out, ItemCount num_haystack, ItemCount num_needles,
                                             Before before) {
    // A count above its bound: nothing is written (the sampling kernel counted it).
    if (!count_in_bound(num_haystack) || !count_in_bound(num_needles)) return;
    const int64_t h = count_on_device(num_haystack);
    const int64_t n = count_on_device(num_needles);
    if (static_cast<int64_t>(blockIdx.x) * kChunk >= n) return;
    const HaystackSampling sampling = HaystackSampling::of(h, kMaxSamples);

    // ---- load_samples ----
    for (int j = threadIdx.x; j < sampling.count; j += kThreads) temp.samples[j] = samples[j];
    __syncthreads();

    for (int64_t chunk = blockIdx.x * kChunk; chunk < n; chunk += static_cast<int64_t>(gridDim.x) * kChunk) {
      K x[kNeedles];
      int64_t lo[kNeedles], len[kNeedles];
#pragma unroll
      for (int k = 0; k < kNeedles; ++k) {
        const int64_t i = chunk + k * kThreads + threadIdx.x;
        if (i < n) x[k] = needles[i];
      }
      // ---- search_samples ----
#pragma unroll
      for (int k = 0; k < kNeedles; ++k) {
        const int64_t i = chunk + k * kThreads + threadIdx.x;
        if (i < n) {
          search_samples(temp, sampling, h, x[k], before, lo[k], len[k]);
        } else {
          lo[k] = 0;
          len[k] = 0;
        }
      }
      // ---- search_stretches ----
      for (int step = 0; step < sampling.steps; ++step) {
        K probe[kNeedles];
#pragma unroll
        for (int k = 0; k < kNeedles; ++k) {
          if (len[k] > 0) probe[k] = haystack[lo[k] + len[k] / 2];
        }
#pragma unroll
        for (int k = 0; k < kNeedles; ++k) {
          if (len[k] > 0) {
            const int64_t half = len[k] / 2;
            if (before(probe[k], x[k])) {
              lo[k] += half + 1;
              len[k] -= half + 1;
            } else {
              len[k] = half;
            }
          }
        }
      }
#pragma unroll
      for (int k = 0; k < kNeedles; ++k) {
        const int64_t i = chunk + k * kThreads + threadIdx.x;
        if (i < n) out[i] = static_cast<Index>(lo[k]);
      }
    }
  }
};

}  // namespace detail
}  // namespace prim
