// The select / partition tile agent: single pass, stable. A block a tile, in input order; each warp owns 32 x
// ITEMS_PER_THREAD consecutive items, read in rows of 32 x VEC, lane l holding items VEC l .. VEC l + VEC - 1 of each
// row, so that a row's ballots rank it (warp-aggregated output: the counts of the lanes below give an item's place
// among the warp's selected items). Tiles find how many items earlier tiles selected by decoupled look-back
// (tile_lookback.cuh).
//
//   (the tile)     the block's index: a tile waits only for lower ones, and the GPU starts the blocks of a grid in
//                  index order, so every tile it waits for is held by a block already running (as CUB's single-pass
//                  scans rely on); claiming tiles with an atomic instead cost 2-10 % (a round trip before the loads)
//   load_rows      the warp's rows, 32 x VEC consecutive items a load, VEC a lane at once where the input is aligned
//                  for it (else one at a time; a predicate's full tile from one address a lane) (evict-first: read
//                  once)
//   flag_rows      the selector's flag of each item (a predicate, a flags array, or "differs from its predecessor"),
//                  a bit an item; VEC > 1 pays only for the last (SelectPolicyFor)
//   stage_rows     each lane's count of selected items in a row, 0..VEC, one ballot a bit: each selected item
//                  straight to its rank in the warp's stretch of shared memory (for a partition, and in a predicate's
//                  full tile, each rejected item to its rank from the stretch's end); a warp's only state is its
//                  running counts, so that four blocks fit an SM's registers (occupancy is what a memory-bound pass
//                  lives on)
//   publish_count  the tile's count of selected items, before its own look-back
//   look_back      one warp sums the counts of earlier tiles back to an inclusive prefix, and publishes its own
//   store          each warp its own stretch: selected items to [prefix + the earlier warps' count, ...), rejected
//                  ones (a partition) to the second array likewise; every store 32 consecutive items
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "prim/detail/block/split_block_utils.cuh"
#include "prim/detail/block/tile_lookback.cuh"
#include "prim/detail/block/warp_shuffle.cuh"
#include "prim/detail/core/bits.h"
#include "prim/detail/core/device_count.cuh"
#include "prim/detail/core/item_count.h"

namespace prim {
namespace detail {

// What a select tile writes: the selected items only, or (a partition) the rejected ones too, to a second array.
enum class SelectOutput { selected, partition };

// ---- Selectors: the flags of a warp's items as a mask. A warp's stretch is read in rows of 32 x VEC consecutive
// items, lane l holding items VEC l .. VEC l + VEC - 1 of each row; items[r * VEC + k] is item warp_base + 32 VEC r +
// VEC lane + k, and its flag is bit r * VEC + k. The bits of items at or past `count` are don't-cares (the agent
// clears them). FULL: the tile is full, so that every item of the warp is below `count`. ----

// VEC consecutive items, loaded at once.
template <class T, int VEC>
struct alignas(sizeof(T) * VEC) ItemVector {
  T v[VEC];
};

// The warp-relative index of items[j] in a layout of VEC items a lane a row.
template <int VEC>
__device__ __forceinline__ int select_item_offset(int j, int lane) {
  return (j / VEC) * 32 * VEC + lane * VEC + j % VEC;
}

template <class Pred>
struct SelectByPredicate {
  Pred pred;
  template <int VEC, bool FULL, class T, int ITEMS>
  __device__ __forceinline__ uint32_t flag_rows(const T (&items)[ITEMS], const T* /*in*/, int64_t /*warp_base*/,
                                                int64_t /*count*/) const {
    uint32_t flags = 0;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) flags |= static_cast<uint32_t>(static_cast<bool>(pred(items[i]))) << i;
    return flags;
  }
};

// Flags beside the items. Those of a full tile need no bound checks. Where a lane's part of a row of flags (below) is
// one load, a lane's flags in flight take ITEMS * sizeof(Flag) / 4 registers and one load, not ITEMS and ITEMS loads,
// so that the loads of its items and flags all fit the register cap (SelectPolicyFor) ahead of the first ballot.
template <class Flag>
struct SelectByFlags {
  const Flag* __restrict__ flags;  // selected where static_cast<bool>(flags[i])

  template <int VEC, bool FULL, class T, int ITEMS>
  __device__ __forceinline__ uint32_t flag_rows(const T (&)[ITEMS], const T* /*in*/, int64_t warp_base,
                                                int64_t count) const {
    const Flag* warp_flags = flags + warp_base;
    const int warp_valid =  // the warp's real items (all of them in a full tile), so that bound checks are 32-bit
        FULL ? 32 * ITEMS : static_cast<int>(min(max(count - warp_base, int64_t{0}), int64_t{32 * ITEMS}));
    if constexpr (VEC == 1 && kPartLoads<ITEMS>) {
      if (reinterpret_cast<uintptr_t>(flags) % sizeof(ItemVector<Flag, ITEMS>) == 0) {  // grid-uniform
        return flag_rows_by_parts<FULL, ITEMS>(warp_flags, warp_valid);
      }
    }
    // One flag a load, in the layout of the items. A flag past the real items is a don't-care (Flag{}).
    const int lane = threadIdx.x & 31;
    Flag f[ITEMS];
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      const int offset = select_item_offset<VEC>(i, lane);
      f[i] = FULL || offset < warp_valid ? load_streaming(warp_flags + offset) : Flag{};
    }
    uint32_t mask = 0;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) mask |= static_cast<uint32_t>(static_cast<bool>(f[i])) << i;
    return mask;
  }

 private:
  // A row of 32 flags is 32 / ITEMS parts of ITEMS consecutive flags: whether a part is one load (4, 8 or 16 bytes).
  template <int ITEMS>
  static constexpr bool kPartLoads =
      32 % ITEMS == 0 && (sizeof(Flag) * ITEMS == 4 || sizeof(Flag) * ITEMS == 8 || sizeof(Flag) * ITEMS == 16);

  // flag_rows for one item a lane a row, from one part of a row a lane: lane l loads part l / ITEMS of row
  // l % ITEMS, and ballot j gathers element j of every lane's part, so that bit ITEMS p + r of ballot j is the flag
  // of item ITEMS p + j of row r. Lane l holds item l of each row: its flags are bits ITEMS (l / ITEMS) .. + ITEMS - 1
  // of ballot l % ITEMS. (A part is aligned: the warp's stretch starts at a multiple of 32 ITEMS.)
  template <bool FULL, int ITEMS>
  __device__ __forceinline__ uint32_t flag_rows_by_parts(const Flag* warp_flags, int warp_valid) const {
    using Part = ItemVector<Flag, ITEMS>;
    const int lane = threadIdx.x & 31;
    const int element = lane % ITEMS;                          // the ballot this lane keeps
    const int first = 32 * element + ITEMS * (lane / ITEMS);  // the warp-relative index of the lane's part
    Part part;
    if (FULL || first + ITEMS <= warp_valid) {
      part = load_streaming(reinterpret_cast<const Part*>(warp_flags + first));
    } else {  // a part that reaches past the real items: its real flags only, the others don't-cares (Flag{})
#pragma unroll
      for (int j = 0; j < ITEMS; ++j) {
        part.v[j] = first + j < warp_valid ? load_streaming(warp_flags + first + j) : Flag{};
      }
    }
    // Ballot `element`, chosen as the ballots come by a tournament on its bits: ITEMS - 1 selects in all, where
    // comparing `element` with each j would take a compare and a select a ballot. chosen[b] is the pick among the
    // latest 2^b ballots.
    constexpr int kRounds = bits_for_buckets(ITEMS);  // log2(ITEMS)
    uint32_t chosen[kRounds + 1];
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
      uint32_t pick = __ballot_sync(0xFFFFFFFFu, static_cast<bool>(part.v[j]));
      int round = 0;
#pragma unroll
      for (; (j >> round) & 1; ++round) pick = (element >> round) & 1 ? pick : chosen[round];
      chosen[round] = pick;
    }
    return (chosen[kRounds] >> (lane - element)) & ((1u << ITEMS) - 1u);
  }
};

// The first item of every run of items equal under `equal`: item 0, and each item not equal to its predecessor. A
// lane's items but its first follow one another in its registers; the predecessor of its first is the previous
// lane's last (a shuffle), that of lane 0's first the previous row's last item (lane 31's), and that of the warp's
// first item the item before the warp's stretch (one load by lane 0).
template <class Equal>
struct SelectRunHeads {
  Equal equal;
  template <int VEC, bool FULL, class T, int ITEMS>
  __device__ __forceinline__ uint32_t flag_rows(const T (&items)[ITEMS], const T* in, int64_t warp_base,
                                                int64_t count) const {
    const int lane = threadIdx.x & 31;
    T before_warp = items[0];
    if (lane == 0 && warp_base > 0 && warp_base <= count) before_warp = in[warp_base - 1];
    uint32_t flags = 0;
#pragma unroll
    for (int r = 0; r < ITEMS / VEC; ++r) {
      T previous = shuffle_up_one(items[r * VEC + VEC - 1]);
      const T row_before = shuffle_index(items[r > 0 ? r * VEC - 1 : 0], 31);
      if (lane == 0) previous = r > 0 ? row_before : before_warp;
#pragma unroll
      for (int k = 0; k < VEC; ++k) {
        const int i = r * VEC + k;
        const bool first_item = k == 0 && warp_base + select_item_offset<VEC>(i, lane) == 0;
        const bool head = first_item || !static_cast<bool>(equal(k == 0 ? previous : items[i - 1], items[i]));
        flags |= static_cast<uint32_t>(head) << i;
      }
    }
    return flags;
  }
};

// Whether a selector reads a flags array beside the items (its tile shape differs), and whether it reads each item's
// predecessor, which gains from VEC items a lane a row (SelectPolicyFor).
template <class Selector>
inline constexpr bool kSelectorReadsFlags = false;
template <class Flag>
inline constexpr bool kSelectorReadsFlags<SelectByFlags<Flag>> = true;
template <class Selector>
inline constexpr bool kSelectorVectorRows = false;
template <class Equal>
inline constexpr bool kSelectorVectorRows<SelectRunHeads<Equal>> = true;
// Whether a selector's full tiles load from one address a lane and stage every item of a row in one store
// (load_lane_rows, stage_whole_rows): the predicate's and the flags'. The run heads' tiles keep an address an item
// and a store of the selected items only.
template <class Selector>
inline constexpr bool kSelectorWholeRows = false;
template <class Pred>
inline constexpr bool kSelectorWholeRows<SelectByPredicate<Pred>> = true;
template <class Flag>
inline constexpr bool kSelectorWholeRows<SelectByFlags<Flag>> = true;

template <class Policy, SelectOutput OUT, class T, class Selector>
struct SelectAgent {
  static constexpr int kItems = Policy::ITEMS_PER_THREAD;
  static constexpr int kVec = Policy::VEC;  // consecutive items a lane holds in a row
  static constexpr int kRows = kItems / kVec;
  static constexpr int kWarps = Policy::WARPS;
  static constexpr int kWarpItems = Policy::WARP_ITEMS;
  static constexpr int kTile = Policy::TILE_ITEMS;
  // A lane's count of selected items in a row, 0..kVec, as bits: one ballot each ranks the row.
  static constexpr int kCountBits = kVec >= 8 ? 4 : kVec >= 4 ? 3 : kVec >= 2 ? 2 : 1;
  static constexpr size_t kRunBytes = sizeof(T) * kVec;
  static constexpr bool kVectorLoads = kVec > 1 && (kRunBytes & (kRunBytes - 1)) == 0 && kRunBytes <= 16;
  static constexpr bool kWholeRows = kSelectorWholeRows<Selector>;
  static_assert(kItems % kVec == 0, "whole rows only");

  struct TempStorage {
    // Warp w's stretch [w * kWarpItems, (w + 1) * kWarpItems): its selected items in input order from the front,
    // and (a partition) its rejected ones in input order from the back, reversed. Together they never exceed it.
    T items[kTile];
    int warp_selected[kWarps];  // each warp's count of selected items
    uint64_t prefix;            // selected items in earlier tiles
  };

  // The arrays and counters of a call.
  struct Io {
    const T* __restrict__ in;
    T* __restrict__ selected_out;
    T* __restrict__ rejected_out;  // a partition's rejected items (else unused)
    uint64_t* num_selected;        // may be null
    TileCountLookback lookback;
  };

  // stage_rows, one item a lane a row: a ballot a row ranks it. (stage_vector_rows at VEC 1 ranks the same, but
  // compiles to more spills: select_flagged 0.94 -> 0.90 of CUB on an H200.)
  template <bool FULL>
  __device__ __forceinline__ static void stage_single_rows(T* stretch, const T (&items)[kItems], uint32_t flags,
                                                           int warp_valid, int& warp_count, int& warp_rejected) {
    const int lane = threadIdx.x & 31;
    const uint32_t below = (1u << lane) - 1u;  // the lanes before this one
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
      const bool selected = (flags >> i) & 1u;
      const uint32_t ballot = __ballot_sync(0xFFFFFFFFu, selected);
      if (selected) stretch[warp_count + __popc(ballot & below)] = items[i];
      if constexpr (OUT == SelectOutput::partition) {
        // The real lanes of a row are a prefix of it: a rejected item's rank is its real lanes below, less the
        // selected ones.
        const int row_valid = FULL ? 32 : min(max(warp_valid - i * 32, 0), 32);
        if (!selected && lane < row_valid) {
          stretch[kWarpItems - 1 - (warp_rejected + lane - __popc(ballot & below))] = items[i];
        }
        warp_rejected += row_valid - __popc(ballot);
      }
      warp_count += __popc(ballot);
    }
  }

  // load_rows of a full tile, one item a load, from one address a lane: the offsets of its items are constants in the
  // loads, where an address an item costs a 64-bit add and shift a load.
  __device__ __forceinline__ static void load_lane_rows(T (&items)[kItems], const T* warp_in) {
    const T* lane_in = warp_in + (threadIdx.x & 31) * kVec;
#pragma unroll
    for (int i = 0; i < kItems; ++i) items[i] = load_streaming(lane_in + select_item_offset<kVec>(i, 0));
  }

  // stage_rows of a full tile, one item a lane a row, one store a row with no branch: a selected item to its rank
  // from the front, a rejected one to its rank from the back, as in a partition (a select never reads the back). Of
  // the 32 i items before row i, 32 i - warp_count were rejected, so that a rejected item's place is kWarpItems - 1 -
  // (32 i - warp_count + its rank among the row's rejected ones). The two ends never meet, and a row's 32 places fall
  // in 32 distinct banks (4-byte items): the front ones from warp_count up, the back ones from warp_count - 1 down.
  __device__ __forceinline__ static void stage_whole_rows(T* stretch, const T (&items)[kItems], uint32_t flags,
                                                          int& warp_count, int& warp_rejected) {
    const int lane = threadIdx.x & 31;
    const uint32_t below = (1u << lane) - 1u;    // the lanes before this one
    const int back_offset = kWarpItems - 1 - lane;  // a rejected item's place less its front place, in row 0
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
      const bool selected = (flags >> i) & 1u;
      const uint32_t ballot = __ballot_sync(0xFFFFFFFFu, selected);
      const int front = warp_count + __popc(ballot & below);
      stretch[selected ? front : front + back_offset - 32 * i] = items[i];
      warp_count += __popc(ballot);
    }
    warp_rejected = kWarpItems - warp_count;
  }

  // stage_rows, VEC items a lane a row: a ballot for each bit of the lanes' counts ranks the row (selected items
  // only: a partition runs one item a lane a row, which is faster for it).
  __device__ __forceinline__ static void stage_vector_rows(T* stretch, const T (&items)[kItems], uint32_t flags,
                                                           int& warp_count) {
    static_assert(OUT == SelectOutput::selected, "a partition stages one item a lane a row");
    const int lane = threadIdx.x & 31;
    const uint32_t below = (1u << lane) - 1u;  // the lanes before this one
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
      const uint32_t lane_flags = (flags >> (r * kVec)) & ((1u << kVec) - 1u);
      const int lane_count = __popc(lane_flags);
      int before = 0, row_count = 0;  // selected items of the lanes below, and of the row
#pragma unroll
      for (int b = 0; b < kCountBits; ++b) {
        const uint32_t ballot = __ballot_sync(0xFFFFFFFFu, (lane_count >> b) & 1);
        before += __popc(ballot & below) << b;
        row_count += __popc(ballot) << b;
      }
      int place = warp_count + before;
#pragma unroll
      for (int k = 0; k < kVec; ++k) {
        if ((lane_flags >> k) & 1u) stretch[place++] = items[r * kVec + k];
      }
      warp_count += row_count;
    }
  }

  template <bool FULL>
  __device__ __forceinline__ static void select_tile(TempStorage& temp, const Io& io, const Selector& selector,
                                                     int64_t tile, int64_t count) {
    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x & 31;
    const int64_t tile_base = tile * kTile;
    const int valid = FULL ? kTile : static_cast<int>(count - tile_base);
    const int warp_first = warp * kWarpItems;  // the warp's first item in the tile
    // The warp's real items: all of them in a full tile.
    const int warp_valid = FULL ? kWarpItems : min(max(valid - warp_first, 0), kWarpItems);

    // ---- load_rows ----
    T items[kItems];
    bool loaded = false;
    if constexpr (kVectorLoads && FULL) {
      if (reinterpret_cast<uintptr_t>(io.in) % kRunBytes == 0) {  // grid-uniform: every run is then aligned
        using Run = ItemVector<T, kVec>;
#pragma unroll
        for (int r = 0; r < kRows; ++r) {
          const Run v = load_streaming(
              reinterpret_cast<const Run*>(io.in + tile_base + warp_first + select_item_offset<kVec>(r * kVec, lane)));
#pragma unroll
          for (int k = 0; k < kVec; ++k) items[r * kVec + k] = v.v[k];
        }
        loaded = true;
      }
    }
    if constexpr (FULL && kWholeRows) {
      if (!loaded) {
        load_lane_rows(items, io.in + (tile_base + warp_first));
        loaded = true;
      }
    }
    if (!loaded) {
#pragma unroll
      for (int i = 0; i < kItems; ++i) {
        const int local = warp_first + select_item_offset<kVec>(i, lane);
        if (FULL || local < valid) items[i] = load_streaming(io.in + tile_base + local);
      }
    }
    // ---- flag_rows (bit i: items[i] is selected; cleared past the real items) ----
    uint32_t flags = selector.template flag_rows<kVec, FULL>(items, io.in, tile_base + warp_first, count);
    if (!FULL) {
#pragma unroll
      for (int i = 0; i < kItems; ++i) {
        if (select_item_offset<kVec>(i, lane) >= warp_valid) flags &= ~(1u << i);
      }
    }
    // ---- stage_rows: a row's ballots of the lanes' counts rank each item among the warp's selected (or rejected)
    // ones, and the item goes straight to its place in the warp's stretch: only the ranks' running totals stay in
    // registers ----
    T* stretch = temp.items + warp_first;
    int warp_count = 0;
    int warp_rejected = 0;
    if constexpr (kVec == 1 && FULL && kWholeRows) {
      stage_whole_rows(stretch, items, flags, warp_count, warp_rejected);
    } else if constexpr (kVec == 1) {
      stage_single_rows<FULL>(stretch, items, flags, warp_valid, warp_count, warp_rejected);
    } else {
      stage_vector_rows(stretch, items, flags, warp_count);
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
    // ---- store: each warp its own stretch, 32 consecutive items a store ----
    T* selected_out = io.selected_out + prefix + warp_offset;
    for (int j = lane; j < warp_count; j += 32) selected_out[j] = stretch[j];
    if constexpr (OUT == SelectOutput::partition) {
      // Earlier tiles rejected tile_base - prefix items; earlier warps of this tile min(warp_first, valid) less
      // their selected ones.
      T* rejected_out = io.rejected_out + (tile_base - static_cast<int64_t>(prefix)) +
                        (min(warp_first, valid) - warp_offset);
      for (int j = lane; j < warp_rejected; j += 32) rejected_out[j] = stretch[kWarpItems - 1 - j];
    }
    if (threadIdx.x == 0 && tile_base + valid == count && io.num_selected != nullptr) {
      *io.num_selected = prefix + static_cast<uint64_t>(tile_selected);
    }
  }

  __device__ __forceinline__ static void run(TempStorage& temp, const Io& io, ItemCount n, const Selector& selector,
                                             uint64_t* num_invalid) {
    const int64_t tile = blockIdx.x;
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
