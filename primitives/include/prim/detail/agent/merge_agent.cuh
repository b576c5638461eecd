// The merge's tile agent: a block writes TILE_ITEMS consecutive items of the merged output. Its shares of the two
// inputs were cut by merge_partition_kernel (one merge-path search a tile boundary); the agent stages both shares in
// shared memory, cuts them again at each thread's diagonal, merges a thread's ITEMS_PER_THREAD items serially, and
// stores the tile through shared memory so that every store is a warp's consecutive items.
//
//   tile_shares   the tile's [begin, end) in each input, from the boundary cuts (an unsorted input can make them
//                 cross: such a tile writes nothing)
//   load_shares   keys (and values) of both shares into shared memory, the first input's first, every load in flight
//                 before the first store to shared memory
//   merge_thread  the thread's diagonal cut (merge_path in shared memory) and its serial merge: the merged keys and
//                 where in shared memory each came from (a full tile of keys alone: the keys only, one shared read an
//                 item)
//   store_tile    the merged keys back to shared memory in thread order, then out in warp-consecutive order; a value
//                 is fetched from shared memory through the position its key came from. Keys alone are passed
//                 through their warp's own stretch of shared memory, so a warp waits only for itself
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "prim/detail/block/merge_path.cuh"
#include "prim/detail/block/merge_tile.h"
#include "prim/detail/block/split_block_utils.cuh"

namespace prim {
namespace detail {

// The arrays of a merge call. Values are moved when PAIRS (values1 / values2 / values_out; otherwise unused).
template <class K, class V>
struct MergeIo {
  const K* __restrict__ keys1;
  const V* __restrict__ values1;
  const K* __restrict__ keys2;
  const V* __restrict__ values2;
  K* __restrict__ keys_out;
  V* __restrict__ values_out;
};

// The steps a merge-path tile shares with the sorted-needle sweep (search_agent.cuh): its cuts, the staging of both
// shares' keys, and a thread's serial merge.
template <class Policy, class K, class TakeSecond>
struct MergeTile {
  static constexpr int kThreads = Policy::BLOCK_THREADS;
  static constexpr int kItems = Policy::ITEMS_PER_THREAD;
  static constexpr int kTile = Policy::TILE_ITEMS;

  // ---- tile_shares: the boundary cuts of tile `tile` (partitions[t] = first-input items before tile t) ----
  __device__ __forceinline__ static bool tile_shares(const int64_t* __restrict__ partitions, int64_t tile,
                                                     int64_t n1, int64_t n2, MergeTileShares& s) {
    return merge_tile_shares(partitions, tile, kTile, n1, n2, s);
  }

  // Items [begin1, begin1 + count1) of `first` then [begin2, begin2 + count2) of `second` as tile positions
  // [0, count1 + count2): position p's item, loaded with an evict-first load (read once).
  template <class T>
  __device__ __forceinline__ static T load_share_item(const T* __restrict__ first, const T* __restrict__ second,
                                                      const MergeTileShares& s, int p) {
    int64_t index = 0;
    return load_streaming(share_source(s, p, index) == 0 ? first + index : second + index);
  }

  // ---- load_shares: both shares into staged[0, count), every load in flight before the first shared store ----
  template <bool FULL, class T>
  __device__ __forceinline__ static void load_shares(T* staged, const T* __restrict__ first,
                                                     const T* __restrict__ second, const MergeTileShares& s) {
    const int count = s.count1 + s.count2;
    T items[kItems];
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
      const int p = striped_position(static_cast<int>(threadIdx.x), i, kThreads);
      if (FULL || p < count) items[i] = load_share_item(first, second, s, p);
    }
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
      const int p = striped_position(static_cast<int>(threadIdx.x), i, kThreads);
      if (FULL || p < count) staged[p] = items[i];
    }
  }

  // ---- merge_thread: this thread's items [first, first + kItems) of the tile, serially ----
  // keys[] and source[] receive the merged keys and their positions in `staged`; returns the thread's first item.
  // Items past the tile's count (a partial tile) hold no key.
  template <bool FULL>
  __device__ __forceinline__ static int merge_thread(const K* staged, const MergeTileShares& s,
                                                     TakeSecond take_second, K (&keys)[kItems],
                                                     int32_t (&source)[kItems]) {
    return merge_thread_items<kItems, FULL>(staged, s, static_cast<int>(threadIdx.x), take_second, keys, source);
  }
};

template <class Policy, bool PAIRS, class K, class V, class TakeSecond>
struct MergeAgent {
  using Tile = MergeTile<Policy, K, TakeSecond>;
  static constexpr int kThreads = Policy::BLOCK_THREADS;
  static constexpr int kItems = Policy::ITEMS_PER_THREAD;
  static constexpr int kTile = Policy::TILE_ITEMS;

  struct TempStorage {
    K keys[PAIRS ? kTile : kTile + 1];    // the two shares, then the merged keys in thread order (keys alone: the
                                          // slot after them is read, never taken, by merge_full_thread_keys)
    V values[PAIRS ? kTile : 1];          // the two shares' values
    int32_t source[PAIRS ? kTile : 1];    // merged position -> position in `keys` / `values` it came from
  };

  // ---- load_shares of keys and values together: every load of both in flight before the first shared store
  // (twice the loads in flight of loading the values after the merge) ----
  template <bool FULL>
  __device__ __forceinline__ static void load_pairs(TempStorage& temp, const MergeIo<K, V>& io,
                                                    const MergeTileShares& s) {
    const int count = s.count1 + s.count2;
    K keys[kItems];
    V values[kItems];
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
      const int p = striped_position(static_cast<int>(threadIdx.x), i, kThreads);
      if (FULL || p < count) {
        keys[i] = Tile::load_share_item(io.keys1, io.keys2, s, p);
        values[i] = Tile::load_share_item(io.values1, io.values2, s, p);
      }
    }
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
      const int p = striped_position(static_cast<int>(threadIdx.x), i, kThreads);
      if (FULL || p < count) {
        temp.keys[p] = keys[i];
        temp.values[p] = values[i];
      }
    }
  }

  // ---- store_tile: through shared memory in thread order, out in warp-consecutive order ----
  template <bool FULL>
  __device__ __forceinline__ static void store_tile(TempStorage& temp, const MergeIo<K, V>& io,
                                                    const MergeTileShares& s, const K (&keys)[kItems],
                                                    const int32_t (&source)[kItems], int first) {
    const int count = s.count1 + s.count2;
    const int thread = static_cast<int>(threadIdx.x);
    __syncthreads();  // every thread's merge has read the staged keys
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
      const int p = blocked_position(thread, i, kItems);  // an odd kItems keeps these writes free of bank conflicts
      if (FULL || first + i < count) {
        temp.keys[p] = keys[i];
        if constexpr (PAIRS) temp.source[p] = source[i];
      }
    }
    // Keys alone: a warp reads back only its lanes' blocked runs (each position < count of its stretch was written by
    // one of its lanes). Pairs pass the whole tile, the form their measured tuning was taken with.
    if constexpr (PAIRS) {
      __syncthreads();
    } else {
      __syncwarp();
    }
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
      const int p = PAIRS ? striped_position(thread, i, kThreads) : warp_striped_position(thread, i, kItems);
      if (FULL || p < count) {
        io.keys_out[s.out_begin + p] = temp.keys[p];
        if constexpr (PAIRS) io.values_out[s.out_begin + p] = temp.values[temp.source[p]];
      }
    }
  }

  template <bool FULL>
  __device__ __forceinline__ static void merge_tile(TempStorage& temp, const MergeIo<K, V>& io,
                                                    const MergeTileShares& s, TakeSecond take_second) {
    if constexpr (PAIRS) {
      load_pairs<FULL>(temp, io, s);
    } else {
      Tile::template load_shares<FULL>(temp.keys, io.keys1, io.keys2, s);
    }
    __syncthreads();
    K keys[kItems];
    int32_t source[kItems];
    int first = 0;
    if constexpr (FULL && !PAIRS) {
      first = merge_full_thread_keys<kItems>(temp.keys, s, static_cast<int>(threadIdx.x), take_second, keys);
    } else {
      first = Tile::template merge_thread<FULL>(temp.keys, s, take_second, keys, source);
    }
    store_tile<FULL>(temp, io, s, keys, source, first);
  }

  // Tile blockIdx.x of the merge of n1 and n2 items: a full tile without bounds, the last one with them.
  __device__ __forceinline__ static void run(TempStorage& temp, const MergeIo<K, V>& io,
                                             const int64_t* __restrict__ partitions, int64_t n1, int64_t n2,
                                             TakeSecond take_second) {
    const int64_t tile = blockIdx.x;
    if (tile * kTile >= n1 + n2) return;  // a device count below the bound: fewer tiles than blocks
    MergeTileShares s;
    if (!Tile::tile_shares(partitions, tile, n1, n2, s)) return;
    if (s.count1 + s.count2 == kTile) {
      merge_tile<true>(temp, io, s, take_second);
    } else {
      merge_tile<false>(temp, io, s, take_second);
    }
  }
};

}  // namespace detail
}  // namespace prim
