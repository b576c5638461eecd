// The segmented split's tile engine, kernel 3: block-local stable split of every tile by (segment, bucket), scatter
// and bucket offsets; and the bucket offsets of empty segments.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cub/block/block_exchange.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_scan.cuh>
#include <limits>

#include "prim/detail/core/bits.h"
#include "prim/detail/core/overlapped_launch.cuh"
#include "prim/detail/agent/segmented_tile_plan.cuh"
#include "prim/detail/agent/segmented_upsweep.cuh"

namespace prim {
namespace detail {

// ---- kernel 3: downsweep (block-local stable split by (segment, bucket), scatter, bucket offsets) ----
template <class Policy, class Io, class CountT>
struct SegmentedDownsweep {
  static constexpr int BT = Policy::kBlockThreads;
  static constexpr int IPT = Policy::kItemsPerThread;
  static constexpr int C = Policy::kTileCapacity;
  using Record = typename Io::Record;
  using Exchange = cub::BlockExchange<Record, BT, IPT>;
  using Scan = cub::BlockScan<uint32_t, BT>;
  using Sort = cub::BlockRadixSort<uint32_t, BT, IPT, Record, Policy::kRadixBits>;

  struct TempStorage {
    union {
      typename Exchange::TempStorage exchange;  // load: striped -> blocked
      uint8_t starts[C];                        // then: 1 where a segment starts (position > 0)
      typename Sort::TempStorage sort;          // then: the sort
      uint32_t sorted_keys[C];                  // then: the keys in sorted order
    } phase;
    typename Scan::TempStorage scan;
    // Only when the tile holds invalid items: invalid items before each position, and each ord's start.
    uint16_t invalid_before[C + 1];
    uint16_t start_of_ord[C + 1];
    TileHeader h;
    CountT a_base, b_base;
  };
};

// Tile k of the downsweep. first_rank: [2 * num_buckets] of shared memory, A's then B's first sorted rank.
template <class Policy, class Io, class CountT>
__device__ __forceinline__ void segmented_downsweep_tile(
    int64_t k, typename SegmentedDownsweep<Policy, Io, CountT>::TempStorage& sm, uint16_t* first_rank, Io io,
    const uint64_t* offsets, int64_t num_segments, const TileBoundary* plan, uint32_t num_buckets,
    int64_t large_above, const CountT* scanned, uint64_t* d_bucket_offsets, uint64_t* d_num_invalid) {
  using D = SegmentedDownsweep<Policy, Io, CountT>;
  using Record = typename D::Record;
  constexpr int BT = D::BT;
  constexpr int IPT = D::IPT;
  uint16_t* first_a = first_rank;
  uint16_t* first_b = first_rank + num_buckets;
  const int t = threadIdx.x;
  if (t == 0) {
    sm.h = make_tile_header<Policy>(k, plan, offsets, num_buckets, large_above);
    if (sm.h.has_a) sm.a_base = scanned[sm.h.a.base];
    if (sm.h.has_b) sm.b_base = scanned[sm.h.b.base];
    if (k == 0 && d_bucket_offsets) {
      d_bucket_offsets[static_cast<uint64_t>(num_segments) * num_buckets] = offsets[num_segments];
    }
  }
  __syncthreads();
  const TileHeader h = sm.h;
  const int n = static_cast<int>(h.hi - h.lo);
  // The grid is sized by max_items, the frame's count lives on the device: the tiles past the count hold nothing
  // and own no segment (their empty ones are segmented_empty_offsets_kernel's). Leaving at once spares them the
  // block sort; the renderer's L2 / L3 launch about twice the tiles its references fill.
  if (n == 0 && h.own_end <= h.own_first) return;  // block-uniform

  // ---- load (coalesced, striped) and transpose to blocked order ----
  Record rec[IPT];
  for (int i = 0; i < IPT; ++i) {
    const int p = i * BT + t;
    if (p < n) rec[i] = io.load(h.lo + p);
  }
  typename D::Exchange(sm.phase.exchange).StripedToBlocked(rec);
  __syncthreads();

  // ---- segment starts inside the tile ----
  for (int i = t; i < D::C; i += BT) sm.phase.starts[i] = 0;
  __syncthreads();
  // (Empty segments just before a large B start at hi: they mark nothing.)
  for (int64_t s = h.starts_first + t; s < h.starts_end; s += BT) {
    const uint64_t p = offsets[s] - h.lo;
    if (p < static_cast<uint64_t>(n)) sm.phase.starts[p] = 1;
  }
  __syncthreads();

  // ---- ord (segment starts in (lo, p]) and invalid counts, packed into one scan: ord << 16 | invalid ----
  uint32_t bucket[IPT];
  uint32_t packed[IPT];
  for (int i = 0; i < IPT; ++i) {
    const int p = t * IPT + i;
    bucket[i] = p < n ? io.bucket(rec[i]) : 0;
    const uint32_t invalid = p < n && bucket[i] >= num_buckets ? 1u : 0u;
    const uint32_t start = p > 0 && p < n && sm.phase.starts[p] ? 1u : 0u;
    packed[i] = start << 16 | invalid;
  }
  uint32_t aggregate = 0;
  typename D::Scan(sm.scan).InclusiveSum(packed, packed, aggregate);
  const uint32_t max_ord = aggregate >> 16;
  const uint32_t num_invalid = aggregate & 0xFFFFu;
  const int num_valid = n - static_cast<int>(num_invalid);

  uint32_t key[IPT];
  for (int i = 0; i < IPT; ++i) {
    const int p = t * IPT + i;
    const uint32_t ord = packed[i] >> 16;
    if (p >= n) {
      key[i] = max_ord * num_buckets + num_buckets - 1;  // last in input order: stays behind every valid item
    } else if (bucket[i] >= num_buckets) {
      key[i] = (max_ord + 1) * num_buckets;
    } else {
      key[i] = ord * num_buckets + bucket[i];
    }
  }
  if (num_invalid > 0) {  // block-uniform
    for (int i = 0; i < IPT; ++i) {
      const int p = t * IPT + i;
      if (p >= n) continue;
      const uint32_t invalid_incl = packed[i] & 0xFFFFu;
      const uint32_t invalid_here = bucket[i] >= num_buckets ? 1u : 0u;
      sm.invalid_before[p] = static_cast<uint16_t>(invalid_incl - invalid_here);
      if (p == 0) {
        sm.start_of_ord[0] = 0;
      } else if (sm.phase.starts[p]) {
        sm.start_of_ord[packed[i] >> 16] = static_cast<uint16_t>(p);
      }
    }
    if (t == 0) sm.invalid_before[n] = static_cast<uint16_t>(num_invalid);
  }
  __syncthreads();  // the starts array is dead from here on: the sort reuses its memory

  // ---- block-local stable sort by (ord, bucket) ----
  const uint32_t max_key = num_invalid > 0 ? (max_ord + 1) * num_buckets : max_ord * num_buckets + num_buckets - 1;
  const int end_bit = max_key == 0 ? 1 : 32 - __clz(max_key);
  typename D::Sort(sm.phase.sort).SortBlockedToStriped(key, rec, 0, end_bit);
  __syncthreads();
  for (int i = 0; i < IPT; ++i) sm.phase.sorted_keys[i * BT + t] = key[i];
  __syncthreads();

  // ---- first sorted rank of each bucket in the crossing parts ----
  if (h.has_a || h.has_b) {
    for (int i = 0; i < IPT; ++i) {
      const int r = i * BT + t;
      if (r >= num_valid) continue;
      if (r > 0 && sm.phase.sorted_keys[r - 1] == key[i]) continue;
      const uint32_t ord = key[i] / num_buckets;
      const uint32_t b = key[i] - ord * num_buckets;
      if (h.has_a && ord == 0) first_a[b] = static_cast<uint16_t>(r);
      if (h.has_b && ord == max_ord) first_b[b] = static_cast<uint16_t>(r);
    }
    __syncthreads();
  }

  // ---- scatter ----
  for (int i = 0; i < IPT; ++i) {
    const int r = i * BT + t;
    if (r >= num_valid) continue;
    const uint32_t ord = key[i] / num_buckets;
    const uint32_t b = key[i] - ord * num_buckets;
    uint64_t dest;
    if (h.has_a && ord == 0) {
      dest = h.a.start + static_cast<uint64_t>(scanned[h.a.index(b)] - sm.a_base) + (r - first_a[b]);
    } else if (h.has_b && ord == max_ord) {
      dest = h.b.start + static_cast<uint64_t>(scanned[h.b.index(b)] - sm.b_base) + (r - first_b[b]);
    } else {
      dest = h.lo + r + (num_invalid > 0 ? sm.invalid_before[sm.start_of_ord[ord]] : 0);
    }
    io.store(dest, rec[i]);
  }

  if (t == 0 && num_invalid > 0 && d_num_invalid) {
    atomicAdd(reinterpret_cast<unsigned long long*>(d_num_invalid), static_cast<unsigned long long>(num_invalid));
  }
  if (!d_bucket_offsets) return;

  // ---- bucket offsets of the segments that start in this tile ----
  const int64_t owned = h.own_end - h.own_first;
  for (int64_t idx = t; idx < owned * num_buckets; idx += BT) {
    const int64_t s = h.own_first + idx / num_buckets;
    const uint32_t b = static_cast<uint32_t>(idx - (idx / num_buckets) * num_buckets);
    const uint64_t start = offsets[s];
    const uint64_t end = offsets[s + 1];
    uint64_t value = start;
    if (start == end) {
      // empty segment: every bucket starts (and ends) at its start
    } else if (h.has_b && start == h.b.start) {
      value = start + static_cast<uint64_t>(scanned[h.b.index(b)] - sm.b_base);
    } else {
      // A local segment: its valid items are sorted ranks [rs, rs + len), in bucket order.
      const int p = static_cast<int>(start - h.lo);
      const int q = static_cast<int>(end - h.lo);
      const int before = num_invalid > 0 ? sm.invalid_before[p] : 0;
      const int rs = p - before;
      const int len = (q - p) - (num_invalid > 0 ? sm.invalid_before[q] - before : 0);
      if (len > 0) {
        const uint32_t ord = sm.phase.sorted_keys[rs] / num_buckets;
        const uint32_t target = ord * num_buckets + b;
        int lo = rs, hi = rs + len;  // first rank with key >= target
        while (lo < hi) {
          const int mid = (lo + hi) >> 1;
          if (sm.phase.sorted_keys[mid] < target) {
            lo = mid + 1;
          } else {
            hi = mid;
          }
        }
        value = start + static_cast<uint64_t>(lo - rs);
      }
    }
    d_bucket_offsets[static_cast<uint64_t>(s) * num_buckets + b] = value;
  }
}

// A block a tile (the renderer's engine, large-segment path off; the resident engine's when segments are short).
template <class Policy, class Io, class CountT>
__global__ __launch_bounds__(Policy::kBlockThreads, Policy::kDownsweepMinBlocks) void segmented_downsweep_kernel(
    Io io, const uint64_t* offsets, int64_t num_segments, int64_t max_items, const TileBoundary* plan,
    uint32_t num_buckets, int64_t large_above, const CountT* scanned, uint64_t* d_bucket_offsets,
    uint64_t* d_num_invalid) {
  wait_for_earlier_kernels();  // first: overlapped_launch.cuh (the resident engine launches it overlapped)
  __shared__ typename SegmentedDownsweep<Policy, Io, CountT>::TempStorage sm;
  extern __shared__ uint16_t segmented_first_rank[];  // [2 * num_buckets]
  const int64_t k = blockIdx.x;
  // A tile inside a large segment leaves: cheaper than finding that out through the header (tile 0 always takes it:
  // it publishes the total).
  const bool ok = segmented_input_ok(offsets, num_segments, max_items);
  const bool inside = tile_inside_large_segment(plan, k, large_above);
  if (!ok | (inside & (k > 0))) return;
  segmented_downsweep_tile<Policy, Io, CountT>(k, sm, segmented_first_rank, io, offsets, num_segments, plan,
                                               num_buckets, large_above, scanned, d_bucket_offsets, d_num_invalid);
}

// The resident downsweep's arguments, kept in the block's shared memory (resident_downsweep_smem) rather than passed
// to the out-of-line tile as twelve register arguments (ptxas: 100 bytes of spill stores in the tile, against 116).
template <class Io, class CountT>
struct SegmentedDownsweepArgs {
  Io io;
  const uint64_t* offsets;
  int64_t num_segments;
  const TileBoundary* plan;
  uint32_t num_buckets;
  int64_t large_above;
  const CountT* scanned;
  uint64_t* d_bucket_offsets;
  uint64_t* d_num_invalid;
};

// Dynamic shared memory of the resident downsweep: the arguments, then [2 * num_buckets] first ranks.
extern __shared__ uint64_t resident_downsweep_smem[];

template <class Io, class CountT>
__host__ __device__ constexpr size_t resident_downsweep_args_bytes() {
  return (sizeof(SegmentedDownsweepArgs<Io, CountT>) + 15) / 16 * 16;
}

// Tile k of the resident downsweep, out of line: the loop around it then keeps only the round's list live, and the
// tile's registers are its own (inlined into the loop, ptxas spilled 80-92 bytes and segments of 2^8 took 1.13 ms
// against 0.97).
template <class Policy, class Io, class CountT>
__device__ __noinline__ void segmented_downsweep_tile_out_of_line(int64_t k) {
  __shared__ typename SegmentedDownsweep<Policy, Io, CountT>::TempStorage sm;
  using Args = SegmentedDownsweepArgs<Io, CountT>;
  const Args& a = *reinterpret_cast<const Args*>(resident_downsweep_smem);
  uint16_t* first_rank = reinterpret_cast<uint16_t*>(reinterpret_cast<unsigned char*>(resident_downsweep_smem) +
                                                     resident_downsweep_args_bytes<Io, CountT>());
  segmented_downsweep_tile<Policy, Io, CountT>(k, sm, first_rank, a.io, a.offsets, a.num_segments, a.plan,
                                               a.num_buckets, a.large_above, a.scanned, a.d_bucket_offsets,
                                               a.d_num_invalid);
}

// The resident engine's downsweep on a resident grid: block b takes tiles b, b + G, ...; each thread tests one of its
// block's next 256 tiles (segmented_next_tiles), and the block splits those not inside a large segment (tile 0
// always: it publishes the total). Idle tiles then cost a round of loads per 256 tiles a block, not a block each.
template <class Policy, class Io, class CountT>
__global__ __launch_bounds__(Policy::kBlockThreads, Policy::kDownsweepMinBlocks) void
segmented_downsweep_resident_kernel(const SegmentedDownsweepArgs<Io, CountT> args, int64_t max_items,
                                    int64_t num_tiles) {
  wait_for_earlier_kernels();  // first: overlapped_launch.cuh
  constexpr int BT = Policy::kBlockThreads;
  using Scan = cub::BlockScan<uint32_t, BT>;
  __shared__ typename Scan::TempStorage scan;
  __shared__ int64_t list[BT];
  __shared__ int listed;
  if (!segmented_input_ok(args.offsets, args.num_segments, max_items)) return;
  if (threadIdx.x == 0) *reinterpret_cast<SegmentedDownsweepArgs<Io, CountT>*>(resident_downsweep_smem) = args;
  const TileBoundary* plan = args.plan;
  const int64_t large_above = args.large_above;
  const auto needed = [&](int64_t k) { return k == 0 || !tile_inside_large_segment(plan, k, large_above); };
  for (int64_t round = 0; segmented_next_tiles<BT, Scan>(round, num_tiles, scan, list, &listed, needed); ++round) {
    const int count = listed;
    for (int i = 0; i < count; ++i) {
      segmented_downsweep_tile_out_of_line<Policy, Io, CountT>(list[i]);
      __syncthreads();  // the tile's shared memory is the next one's
    }
  }
}

// ---- kernel 4: the bucket offsets of every empty segment (all of its buckets start at its start), grid-wide ----
static __global__ void segmented_empty_offsets_kernel(const uint64_t* offsets, int64_t num_segments, int64_t max_items,
                                               uint32_t num_buckets, uint64_t* d_bucket_offsets) {
  wait_for_earlier_kernels();  // first: overlapped_launch.cuh
  if (!segmented_input_ok(offsets, num_segments, max_items)) return;
  const int64_t entries = num_segments * int64_t{num_buckets};
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < entries; i += stride) {
    const int64_t s = i / num_buckets;
    const uint64_t start = offsets[s];
    if (start == offsets[s + 1]) d_bucket_offsets[i] = start;
  }
}

}  // namespace detail
}  // namespace prim
