// The index arithmetic and per-thread steps of a merge-path tile, as plain __host__ __device__ functions of an
// explicit thread index: the merge's and the sorted-needle sweep's agents call them with threadIdx.x, and
// tests/primitives/test_merge_tile_emulation.cpp runs the same functions on the host for every thread of a simulated
// block, between the same barriers (a step that reads shared memory written by other threads comes after a barrier).
//
//   merge_tile_shares     a tile's shares of both inputs from the boundary cuts
//   share_source          where tile position p of the staged shares comes from
//   striped_position      the tile position of a thread's i-th item in a coalesced (warp-consecutive) pass
//   blocked_position      the tile position of a thread's i-th item in its own merged run
//   warp_striped_position the tile position of a thread's i-th item in a pass over its warp's merged runs
//   merge_thread_items    a thread's diagonal cut in the staged shares and its serial merge
//   merge_full_thread_keys the same on a full tile, keys only, one shared read an item
//   sweep_haystack_before the sweep's result for a needle: haystack items merged before it
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "prim/detail/block/merge_path.cuh"

namespace prim {
namespace detail {

// A tile's shares: items [begin1, begin1 + count1) of the first input and [begin2, begin2 + count2) of the second
// make the output's [out_begin, out_begin + count1 + count2).
struct MergeTileShares {
  int64_t begin1, begin2, out_begin;
  int count1, count2;
};

// The shares of tile `tile` of `tile_items` output items (partitions[t] = first-input items before tile t). False when
// the cuts cross (only unsorted input can make them cross): such a tile writes nothing.
__host__ __device__ __forceinline__ bool merge_tile_shares(const int64_t* partitions, int64_t tile, int tile_items,
                                                           int64_t n1, int64_t n2, MergeTileShares& s) {
  const int64_t diag0 = tile * tile_items;
  const int64_t diag1 = diag0 + tile_items < n1 + n2 ? diag0 + tile_items : n1 + n2;
  const int64_t a0 = partitions[tile];
  const int64_t a1 = partitions[tile + 1];
  const int64_t b0 = diag0 - a0;
  const int64_t b1 = diag1 - a1;
  s.begin1 = a0;
  s.begin2 = b0;
  s.out_begin = diag0;
  s.count1 = static_cast<int>(a1 - a0);
  s.count2 = static_cast<int>(b1 - b0);
  return a0 <= a1 && b0 <= b1;
}

// Tile position p (< count1 + count2) of the staged shares: the first input's share, then the second's.
// Returns the input (0 first, 1 second) and sets `index` to the item's index in that input.
__host__ __device__ __forceinline__ int share_source(const MergeTileShares& s, int p, int64_t& index) {
  if (p < s.count1) {
    index = s.begin1 + p;
    return 0;
  }
  index = s.begin2 + (p - s.count1);
  return 1;
}

// Coalesced passes: item i of thread t is tile position i * threads + t, so a warp's lanes touch consecutive items.
__host__ __device__ __forceinline__ int striped_position(int thread, int i, int threads) { return i * threads + thread; }
// A thread's merged run: item i of thread t is tile position t * items + i.
__host__ __device__ __forceinline__ int blocked_position(int thread, int i, int items) { return thread * items + i; }
// A warp's merged runs (its lanes' blocked positions, one stretch of 32 * items) in warp-consecutive order: item i of
// thread t is position i * 32 + lane of its warp's stretch, so the pass needs only the warp's own blocked writes.
__host__ __device__ __forceinline__ int warp_striped_position(int thread, int i, int items) {
  return (thread / 32) * 32 * items + i * 32 + thread % 32;
}

// Thread `thread`'s items [first, first + ITEMS) of the tile's merge (first = thread * ITEMS, clipped to the count
// on a partial tile), serially, from the staged shares (staged[0, count1) the first input's, staged[count1, count)
// the second's). keys[i] and source[i] receive the i-th merged key and its position in `staged`; returns `first`.
// On a partial tile the items past the count hold no key (the callers store only first + i < count).
// Every index is a plain int: no array is indexed by anything but the unrolled loop counter. Each step reads both
// heads from shared memory (two independent reads) and keeps the one taken, rather than carrying the heads in
// registers from the step before: nvcc 13.0 (sm_90, -O3) compiled the carried-heads form of this loop so that a
// thread's items from its third on came out shifted by one (keys-only merges and the sorted-needle sweep; with -G,
// or with this form, every test passes).
template <int ITEMS, bool FULL, class K, class TakeSecond>
__host__ __device__ __forceinline__ int merge_thread_items(const K* staged, const MergeTileShares& s, int thread,
                                                           TakeSecond take_second, K (&keys)[ITEMS],
                                                           int32_t (&source)[ITEMS]) {
  const int count = s.count1 + s.count2;
  const int unclipped = blocked_position(thread, 0, ITEMS);
  const int first = FULL || unclipped < count ? unclipped : count;
  int p1 = merge_path(staged, s.count1, staged + s.count1, s.count2, first, take_second);
  int p2 = s.count1 + first - p1;
  // A head past its share reads position 0 instead (then it is never taken, or, on a partial tile's spare items,
  // the key is never stored).
  for (int i = 0; i < ITEMS; ++i) {
    const K head1 = staged[p1 < s.count1 ? p1 : 0];
    const K head2 = staged[p2 < count ? p2 : 0];
    const bool second = p2 < count && (p1 >= s.count1 || take_second(head1, head2));
    keys[i] = second ? head2 : head1;
    source[i] = second ? p2 : p1;
    p2 += second ? 1 : 0;
    p1 += second ? 0 : 1;
  }
  return first;
}

// Thread `thread`'s items of a full tile (count1 + count2 = ITEMS * threads) as merge_thread_items, keys only, with
// both heads carried in registers: a step reads one key from shared memory, the next of the side it took (two reads
// a step cost the keys-only merge shared-memory bandwidth). On a full tile every step takes an item inside its share,
// so a head index never passes count1 (first share) or count (second); the read at count itself (a share just used
// up) is of the slot after the staged keys, which `staged` must have (count + 1 slots), and its key is never taken.
// The read is one unguarded load from an index chosen by a select: a guarded load in each branch is the form that
// merge_thread_items says nvcc 13.0 miscompiled, and the compiler issues both branches' loads.
template <int ITEMS, class K, class TakeSecond>
__host__ __device__ __forceinline__ int merge_full_thread_keys(const K* staged, const MergeTileShares& s, int thread,
                                                               TakeSecond take_second, K (&keys)[ITEMS]) {
  const int count = s.count1 + s.count2;
  const int first = blocked_position(thread, 0, ITEMS);
  int p1 = merge_path(staged, s.count1, staged + s.count1, s.count2, first, take_second);
  int p2 = s.count1 + first - p1;
  K head1 = staged[p1];
  K head2 = staged[p2];
  for (int i = 0; i < ITEMS; ++i) {
    const bool second = p2 < count && (p1 >= s.count1 || take_second(head1, head2));
    keys[i] = second ? head2 : head1;
    p2 += second ? 1 : 0;
    p1 += second ? 0 : 1;
    const K next = staged[second ? p2 : p1];
    head2 = second ? next : head2;
    head1 = second ? head1 : next;
  }
  return first;
}

// The sweep: a needle at merged tile position `position` that is the j-th needle of the tile's share has
// position - j haystack items of the tile before it, after the haystack_begin items of earlier tiles.
__host__ __device__ __forceinline__ int64_t sweep_haystack_before(int64_t haystack_begin, int position, int j) {
  return haystack_begin + (position - j);
}

}  // namespace detail
}  // namespace prim
