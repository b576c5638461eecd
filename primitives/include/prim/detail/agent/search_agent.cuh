// The searches' agents: the sorted-needle sweep (merge-path tiles of needles and haystack) and the sampled search of
// needles in any order.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>

#include "prim/detail/agent/merge_agent.cuh"
#include "prim/detail/core/device_count.cuh"
#include "prim/detail/core/search_levels.h"

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
// Sampled search: every needle by itself, down a pyramid of samples of the haystack (a B+ tree whose leaves are the
// haystack itself, so only its upper levels are built). Level 0 is the haystack; level l >= 1 holds the haystack's
// items at multiples of F^l, F = the fanout (SampleLevels); a node is F consecutive items of a level. The top level,
// the first of at most kMaxTop items (the haystack itself when it is that short), sits in shared memory; the levels
// below it are gathered once a call into scratch. A needle's binary search in the top leaves the last top sample before
// it; each level down, one node read from global memory (F items, 32 bytes for 4-byte keys: one sector, no dependent
// steps inside it) and a count of its items before the needle narrow that to the level below, until the leaf node of
// the haystack gives the result. A thread's kNeedles needles step down in lockstep, so their nodes' loads are in flight
// together. The upper levels are small enough to stay in L1 and L2; the haystack's leaf node is the one read that goes
// to DRAM, one sector (a binary search makes about three dependent scattered reads there). The searched predicate is
// monotone over the haystack: "item before needle" (comp(item, needle) for the lower bound, !comp(needle, item) for the
// upper bound); the result is the number of items for which it holds.
//
//   load_top        the top level into shared memory (once a block)
//   search_top      a needle's count of top items before it
//   step_down       the kNeedles nodes of a level loaded together, then each needle's count of its node's items
//                   before it: its node on the level below, or at level 0 its result
// ------------------------------------------------------------------------------------------------------------

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

// A node of F items from p: whole 16-byte loads when the node is full and 16-byte aligned (`aligned`: every node of
// the level is), else one item at a time, the first `valid` only.
template <int F, class K>
__device__ __forceinline__ void load_node(const K* p, int valid, bool aligned, K (&node)[F]) {
  constexpr bool kWhole16 = (sizeof(K) * F) % 16 == 0;
  if (kWhole16 && aligned && valid == F) {
    constexpr int kWords = kWhole16 ? static_cast<int>(sizeof(K) * F / 16) : 1;
    uint4 words[kWords];
    const uint4* q = reinterpret_cast<const uint4*>(p);
#pragma unroll
    for (int w = 0; w < kWords; ++w) words[w] = q[w];
    memcpy(node, words, sizeof(K) * F);
  } else {
#pragma unroll
    for (int j = 0; j < F; ++j) {
      if (j < valid) node[j] = p[j];
    }
  }
}

template <class Policy, class K, class Index, class Before>
struct SampledSearchAgent {
  static constexpr int kThreads = Policy::kThreads;
  static constexpr int kNeedles = Policy::kNeedlesPerThread;
  static constexpr int64_t kChunk = int64_t{kThreads} * kNeedles;
  // A node of about kNodeBytes, at least 4 and at most 16 items (the fanout).
  static constexpr size_t kNodeItems = Policy::kNodeBytes / sizeof(K);
  static constexpr int kFanout = static_cast<int>(kNodeItems < 4 ? 4 : (kNodeItems > 16 ? 16 : kNodeItems));
  using Levels = SampleLevels<kFanout>;
  // As many top items as fit kTopBytes (at least one), at most kMaxTopItems.
  static constexpr int max_top() {
    const size_t fit = Policy::kTopBytes / sizeof(K) > 0 ? Policy::kTopBytes / sizeof(K) : 1;
    return fit < static_cast<size_t>(Policy::kMaxTopItems) ? static_cast<int>(fit) : Policy::kMaxTopItems;
  }
  static constexpr int kMaxTop = max_top();

  struct TempStorage {
    K top[kMaxTop];
    Levels levels;
  };

  // ---- search_top: the number of top items before x ----
  __device__ __forceinline__ static int64_t search_top(const TempStorage& temp, int count, const K& x, Before before) {
    int base = 0;
    int n = count;
    while (n > 0) {
      const int half = n / 2;
      if (before(temp.top[base + half], x)) {
        base += half + 1;
        n -= half + 1;
      } else {
        n = half;
      }
    }
    return base;
  }

  // ---- step_down: level l's nodes for every needle still going down (bit k of `going`), then their counts ----
  // at[k]: the needle's last item before it on level l + 1, the first of its node on level l. After the step, its
  // last item before it on level l; at level 0 (the haystack, leaf) the number of items before it, its result.
  __device__ __forceinline__ static void step_down(const K* level, int64_t count, bool aligned, bool leaf,
                                                   const K (&x)[kNeedles], int64_t (&at)[kNeedles], unsigned& going,
                                                   Before before) {
    K items[kNeedles][kFanout];
    int valid[kNeedles];
#pragma unroll
    for (int k = 0; k < kNeedles; ++k) {
      valid[k] = 0;
      if (going >> k & 1u) {
        const int64_t first = at[k] * kFanout;
        valid[k] = static_cast<int>(count - first < kFanout ? count - first : kFanout);
        load_node<kFanout>(level + first, valid[k], aligned, items[k]);
      }
    }
#pragma unroll
    for (int k = 0; k < kNeedles; ++k) {
      if (!(going >> k & 1u)) continue;
      int before_x = 1;  // the node's first item is the sample above it, known to be before x
#pragma unroll
      for (int j = 1; j < kFanout; ++j) before_x += (j < valid[k] && before(items[k][j], x[k])) ? 1 : 0;
      at[k] = at[k] * kFanout + before_x - (leaf ? 0 : 1);
    }
    if (leaf) going = 0;
  }

  __device__ __forceinline__ static void run(TempStorage& temp, const K* __restrict__ haystack,
                                             const K* __restrict__ scratch, const K* __restrict__ needles,
                                             Index* __restrict__ out, ItemCount num_haystack, ItemCount num_needles,
                                             Before before) {
    // A count above its bound: nothing is written (the sampling kernel counted it).
    if (!count_in_bound(num_haystack) || !count_in_bound(num_needles)) return;
    const int64_t h = count_on_device(num_haystack);
    const int64_t n = count_on_device(num_needles);
    if (static_cast<int64_t>(blockIdx.x) * kChunk >= n) return;

    // ---- load_top ----
    if (threadIdx.x == 0) temp.levels.compute(h, kMaxTop);
    __syncthreads();
    const int top = temp.levels.top;
    const int top_count = static_cast<int>(temp.levels.count[top]);
    const K* top_items = top == 0 ? haystack : scratch + temp.levels.offset[top];
    for (int j = threadIdx.x; j < top_count; j += kThreads) temp.top[j] = top_items[j];
    __syncthreads();
    const bool haystack_aligned = reinterpret_cast<uintptr_t>(haystack) % 16 == 0;

    for (int64_t chunk = blockIdx.x * kChunk; chunk < n; chunk += static_cast<int64_t>(gridDim.x) * kChunk) {
      K x[kNeedles];
      int64_t at[kNeedles];  // a needle's last item before it on the current level; at the end, its result
      unsigned going = 0;    // bit k: needle k still steps down
#pragma unroll
      for (int k = 0; k < kNeedles; ++k) {
        const int64_t i = chunk + k * kThreads + threadIdx.x;
        if (i < n) x[k] = needles[i];
      }
      // ---- search_top ----
#pragma unroll
      for (int k = 0; k < kNeedles; ++k) {
        const int64_t i = chunk + k * kThreads + threadIdx.x;
        at[k] = 0;
        if (i < n) {
          const int64_t before_x = search_top(temp, top_count, x[k], before);
          if (top == 0) {
            at[k] = before_x;  // the top is the haystack: the result
          } else if (before_x > 0) {
            at[k] = before_x - 1;
            going |= 1u << k;
          }  // else no item is before x: 0
        }
      }
      // ---- step_down ----
      for (int l = top - 1; l >= 0; --l) {
        const bool leaf = l == 0;
        const K* level = leaf ? haystack : scratch + temp.levels.offset[l];
        step_down(level, temp.levels.count[l], leaf ? haystack_aligned : true, leaf, x, at, going, before);
      }
#pragma unroll
      for (int k = 0; k < kNeedles; ++k) {
        const int64_t i = chunk + k * kThreads + threadIdx.x;
        if (i < n) out[i] = static_cast<Index>(at[k]);
      }
    }
  }
};

}  // namespace detail
}  // namespace prim
