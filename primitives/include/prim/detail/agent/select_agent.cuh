// The select / partition tile agent: single pass, stable. A block claims tiles in input order; each warp owns 32 x
// ITEMS_PER_THREAD consecutive items, a row of 32 at a time, so that one ballot ranks a row (warp-aggregated output:
// a popcount of the lanes below gives an item's place among the warp's selected items). Tiles find how many items
// earlier tiles selected by decoupled look-back (tile_lookback.cuh).
//
//   claim_tile     the next tile in input order (one atomic a tile), so that every tile a block waits for is held by
//                  a block already running
//   load_rows      the warp's rows, 32 consecutive items a load (evict-first: read once)
//   flag_rows      the selector's flag of each item (a predicate, a flags array, or "differs from its predecessor")
//   rank_rows      a ballot a row: an item's rank among the warp's selected items; the warps' counts in shared memory
//   publish_count  the tile's count of selected items, before its own look-back
//   stage          selected items packed in input order into shared memory; for a partition, the rejected after them
//   look_back      one warp sums the counts of earlier tiles back to an inclusive prefix, and publishes its own
//   store          selected items to [prefix, prefix + selected), rejected (a partition) to the second array at
//                  [tile start - prefix, ...): every store a warp's consecutive items
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "prim/detail/block/split_block_utils.cuh"
#include "prim/detail/block/tile_lookback.cuh"
#include "prim/detail/block/warp_shuffle.cuh"
#include "prim/detail/core/device_count.cuh"
#include "prim/detail/core/item_count.h"

namespace prim {
namespace detail {

// What a select tile writes: the selected items only, or (a partition) the rejected ones too, to a second array.
enum class SelectOutput { selected, partition };

// ---- Selectors: the flags of a warp's rows. Row i, lane l holds item warp_base + 32 i + l; items at or past
// `count` are not real (their flags are cleared by the agent). ----

template <class Pred>
struct SelectByPredicate {
  Pred pred;
  template <class T, int ITEMS>
  __device__ __forceinline__ void flag_rows(const T (&items)[ITEMS], const T* /*in*/, int64_t /*warp_base*/,
                                            int64_t /*count*/, bool (&flag)[ITEMS]) const {
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) flag[i] = static_cast<bool>(pred(items[i]));
  }
};

template <class Flag>
struct SelectByFlags {
  const Flag* __restrict__ flags;  // selected where static_cast<bool>(flags[i])
  template <class T, int ITEMS>
  __device__ __forceinline__ void flag_rows(const T (&)[ITEMS], const T* /*in*/, int64_t warp_base, int64_t count,
                                            bool (&flag)[ITEMS]) const {
    const int lane = threadIdx.x & 31;
    Flag f[ITEMS];
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      const int64_t index = warp_base + i * 32 + lane;
      if (index < count) f[i] = load_streaming(flags + index);
    }
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) flag[i] = warp_base + i * 32 + lane < count && static_cast<bool>(f[i]);
  }
};

// The first item of every run of items equal under `equal`: item 0, and each item not equal to its predecessor. The
// predecessor of a row's lane 0 is the previous row's lane 31, that of the warp's first item the item before the warp's
// stretch (one load by lane 0).
template <class Equal>
struct SelectRunHeads {
  Equal equal;
  template <class T, int ITEMS>
  __device__ __forceinline__ void flag_rows(const T (&items)[ITEMS], const T* in, int64_t warp_base, int64_t count,
                                            bool (&flag)[ITEMS]) const {
    const int lane = threadIdx.x & 31;
    T before_warp = items[0];
    if (lane == 0 && warp_base > 0 && warp_base <= count) before_warp = in[warp_base - 1];
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      T previous = shuffle_up_one(items[i]);
      const T row_before = shuffle_index(items[i > 0 ? i - 1 : 0], 31);
      if (lane == 0) previous = i > 0 ? row_before : before_warp;
      const int64_t index = warp_base + i * 32 + lane;
      flag[i] = index == 0 || !static_cast<bool>(equal(previous, items[i]));
    }
  }
};

template <class Policy, SelectOutput OUT, class T, class Selector>
struct SelectAgent {
  static constexpr int kThreads = Policy::BLOCK_THREADS;
  static constexpr int kItems = Policy::ITEMS_PER_THREAD;
  static constexpr int kWarps = Policy::WARPS;
  static constexpr int kWarpItems = Policy::WARP_ITEMS;
  static constexpr int kTile = Policy::TILE_ITEMS;

  struct TempStorage {
    T items[kTile];             // the tile's selected items in input order, then (a partition) its rejected ones
    int warp_selected[kWarps];  // each warp's count of selected items
    int64_t tile;               // the claimed tile
    uint64_t prefix;            // selected items in earlier tiles
  };

  // The arrays and counters of a call.
  struct Io {
    const T* __restrict__ in;
    T* __restrict__ selected_out;
    T* __restrict__ rejected_out;  // a partition's rejected items (else unused)
    uint64_t* num_selected;        // may be null
    uint32_t* next_tile;           // the claim counter, zeroed before the call
    TileCountLookback lookback;
  };

  template <bool FULL>
  __device__ __forceinline__ static void select_tile(TempStorage& temp, const Io& io, const Selector& selector,
                                                     int64_t tile, int64_t count) {
    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x & 31;
    const int64_t tile_base = tile * kTile;
    const int valid = FULL ? kTile : static_cast<int>(count - tile_base);
    const int warp_first = warp * kWarpItems;  // the warp's first item in the tile

    // ---- load_rows ----
    T items[kItems];
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
      const int local = warp_first + i * 32 + lane;
      if (FULL || local < valid) items[i] = load_streaming(io.in + tile_base + local);
    }
    // ---- flag_rows ----
    bool flag[kItems];
    selector.flag_rows(items, io.in, tile_base + warp_first, count, flag);
    if (!FULL) {
#pragma unroll
      for (int i = 0; i < kItems; ++i) flag[i] = flag[i] && warp_first + i * 32 + lane < valid;
    }
    // ---- rank_rows: rank[i] = selected items of the warp before item i ----
    int rank[kItems];
    int warp_count = 0;
    const uint32_t below = (1u << lane) - 1u;  // the lanes before this one
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
      const uint32_t ballot = __ballot_sync(0xFFFFFFFFu, flag[i]);
      rank[i] = warp_count + __popc(ballot & below);
      warp_count += __popc(ballot);
    }
    if (lane == 0) temp.warp_selected[warp] = warp_count;
    __syncthreads();
    int warp_offset = 0, tile_selected = 0;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
      const int c = temp.warp_selected[w];
      warp_offset += w < warp ? c : 0;
      tile_selected += c;
    }
    // ---- publish_count ----
    if (threadIdx.x == 0) io.lookback.publish_count(tile, static_cast<uint64_t>(tile_selected));
    // ---- stage ----
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
      const int local = warp_first + i * 32 + lane;
      const int selected_before = warp_offset + rank[i];
      if (flag[i]) {
        temp.items[selected_before] = items[i];
      } else if (OUT == SelectOutput::partition && (FULL || local < valid)) {
        temp.items[tile_selected + (local - selected_before)] = items[i];
      }
    }
    // ---- look_back ----
    if (warp == 0) {
      const uint64_t prefix = tile == 0 ? 0 : io.lookback.exclusive_prefix(tile);
      if (lane == 0) {
        if (tile != 0) io.lookback.publish_inclusive(tile, prefix + static_cast<uint64_t>(tile_selected));
        temp.prefix = prefix;
      }
    }
    __syncthreads();
    const uint64_t prefix = temp.prefix;
    // ---- store ----
    const int end = OUT == SelectOutput::partition ? valid : tile_selected;
    // Staged position p >= tile_selected is the tile's rejected item p - tile_selected; earlier tiles rejected
    // tile_base - prefix items.
    const int64_t rejected_base = tile_base - static_cast<int64_t>(prefix) - tile_selected;
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
      const int p = i * kThreads + threadIdx.x;
      if (p < end) {
        if (p < tile_selected) {
          io.selected_out[prefix + p] = temp.items[p];
        } else if constexpr (OUT == SelectOutput::partition) {
          io.rejected_out[rejected_base + p] = temp.items[p];
        }
      }
    }
    if (threadIdx.x == 0 && tile_base + valid == count && io.num_selected != nullptr) {
      *io.num_selected = prefix + static_cast<uint64_t>(tile_selected);
    }
  }

  __device__ __forceinline__ static void run(TempStorage& temp, const Io& io, ItemCount n, const Selector& selector,
                                             uint64_t* num_invalid) {
    // ---- claim_tile ----
    if (threadIdx.x == 0) temp.tile = atomicAdd(io.next_tile, 1u);
    __syncthreads();
    const int64_t tile = temp.tile;
    if (!count_in_bound(n)) {  // nothing selected, everything counted invalid (by tile 0)
      if (tile == 0 && threadIdx.x == 0) {
        add_invalid(num_invalid, count_above_bound(n));
        if (io.num_selected != nullptr) *io.num_selected = 0;
      }
      return;
    }
    const int64_t count = count_on_device(n);
    if (tile * kTile >= count) {  // past the real count (a device count below the bound, or none at all)
      if (tile == 0 && threadIdx.x == 0 && io.num_selected != nullptr) *io.num_selected = 0;
      return;
    }
    if (count - tile * kTile >= kTile) {
      select_tile<true>(temp, io, selector, tile, count);
    } else {
      select_tile<false>(temp, io, selector, tile, count);
    }
  }
};

}  // namespace detail
}  // namespace prim
