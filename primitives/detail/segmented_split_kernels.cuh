// Segmented split engine: tile plan -> upsweep (histograms of segments that cross tiles) -> spine scan ->
// downsweep (block-local stable split of every tile by (segment, bucket), then scatter).
//
// Tiling. Nominal tile boundaries lie every kTileStride items. A boundary that falls inside a *small* segment
// (at most kSmallSegment items) is moved back to that segment's start, so small segments never straddle two
// tiles; boundaries inside big segments stay put. A tile therefore holds at most kTileStride + kSmallSegment - 1
// = kTileCapacity items, and the tile that holds position x of a big segment is x / kTileStride.
//
// Inside a tile every item gets the sort key  ord * num_buckets + bucket, where ord counts the segment starts in
// (tile start, item]. A stable block radix sort by that key leaves each segment's items contiguous and split by
// bucket, so for a segment that lies wholly in the tile the sorted rank r *is* its output slot (tile start + r).
//
// Crossing segments (big segments spanning several tiles; at most two per tile: "A" began in an earlier tile,
// "B" begins in this one and goes on) need the counts of the other tiles. Each tile owns two count slots:
// slot 2k for A's part in tile k, slot 2k+1 for B's part. Segment s covering tiles t0..t1 owns the slots
// [2*t0+1, 2*t1], and its counts are stored bucket-major inside that range:
//     matrix[B*(2*t0+1) + b*L + j],   L = 2*(t1-t0) slots, j = slot - (2*t0+1),
// so that ONE exclusive scan over the whole matrix yields, at (s, b, j), (earlier segments' counts) + (counts of
// s in buckets < b) + (counts of bucket b of s in earlier slots). Slots owned by no crossing segment, and
// slot 2k+1 of a tile in the middle of a segment, hold zeros. Only the parts of crossing segments are read by the
// upsweep, so many small segments cost one read and one write of the data.
//
// Invalid items (bucket >= num_buckets) take the key (max_ord + 1) * num_buckets, after every valid key of the
// tile; they are not written, and the slots of a local segment shift by the number of invalid items before it.
//
// Large segments (more than a window of the large-segment path, segmented_large_segments.cuh) are not this
// engine's: a tile leaves out a large crossing part, and a tile wholly inside one does nothing. (For 2^26 keys in
// segments of 2^16 this engine took 1.314 ms, the split engine 0.816 ms with this engine's empty tiles included.)
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cub/block/block_exchange.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_scan.cuh>
#include <limits>

#include "detail/bits.h"
#include "detail/device_count_scan.cuh"
#include "detail/overlapped_launch.cuh"
#include "detail/segmented_cluster_segments.cuh"
#include "detail/split_dispatch.cuh"
#include "detail/segmented_large_segments.cuh"
#include "prim/error.h"
#include "prim/scan.h"
#include "prim/temp_storage.h"

namespace prim {
namespace detail {

// ---- tuning (one place; feeds __launch_bounds__ and the smem layout) ----
// A tile's records pass through shared memory twice (transpose, sort exchange), so wider records get fewer items
// per thread to keep the downsweep under the 48 KiB static limit. 1/8 of the capacity is reserved for small
// segments moved whole into a tile.
template <int kRecordBytes>
struct SegmentedSplitPolicy {
  static constexpr int kBlockThreads = 256;
  static constexpr int kItemsPerThread = kRecordBytes <= 4 ? 16 : kRecordBytes <= 8 ? 8 : kRecordBytes <= 16 ? 4 : 2;
  static constexpr int kTileCapacity = kBlockThreads * kItemsPerThread;      // items one block holds
  static constexpr int64_t kTileStride = kTileCapacity - kTileCapacity / 8;  // nominal tile spacing
  static constexpr int64_t kSmallSegment = kTileCapacity - kTileStride + 1;  // never split across tiles
  // Block radix sort digit. 5: the renderer's L2 / L3 keys (segment ordinal x buckets + bucket) have 9-10 bits, two
  // passes instead of three with 4-bit digits (Nsight Compute, session 6: its downsweeps issue 24% of the time).
  static constexpr int kRadixBits = 5;
  // Downsweep blocks per SM: 3 caps registers at 80 (8-byte records used 90, so only two blocks shared an SM and
  // the renderer's L2 / L3 ran in two waves). 4-byte records (16 a thread) would spill under that cap; left
  // uncapped they took 151 registers, one block an SM, and ran 1.6x slower (prim_bench, session 6): 2 caps them at
  // 128, as many as they used before.
  static constexpr int kDownsweepMinBlocks = kRecordBytes <= 4 ? 2 : 3;
  static constexpr int kUpsweepThreads = 256;
  static constexpr int kPlanWarpsPerBlock = 8;
  static_assert(kSmallSegment >= 1 && kSmallSegment <= kTileStride, "a small segment fits between two boundaries");
  static_assert(kTileCapacity < (1 << 16), "local counters are packed into 16 bits");
};
// Two u32 histograms of this many buckets fit the upsweep's shared memory; keys (ord * B + b) fit 32 bits.
constexpr uint32_t kMaxSegmentedBuckets = 2048;

// Where tile boundary j lies: pos = snapped position; lb / ub = lower / upper bound of pos in the offsets.
struct TileBoundary {
  uint64_t pos;
  int64_t lb;     // first s with offsets[s] >= pos
  int64_t ub;     // first s with offsets[s] >  pos
  bool in_large;  // pos lies in a segment of the large-segment path
  bool crossing;  // resident engine only: pos lies inside (not at the start of) a segment whose tiles exchange counts
};

// Tile k lies wholly inside one large segment (no segment starts in (lo, hi]): it has nothing to split or publish.
// (Tiles at the end of the records do not qualify: their upper boundary lies past every segment.) Without the
// large-segment path (large_above = INT64_MAX) no tile does, and the plan is not even read: the renderer's L2 / L3
// build was 0.6-1.2% slower with every block reading it (H100, session 9).
// Both boundaries are loaded at once (no short circuit), and the callers load the validity of the call beside them:
// a block of such a tile then waits for one round of loads, not three. Nsight Compute, H100 (session 14, 2^26 keys
// in segments of 2^16, every tile idle): the downsweep 71 -> 52 us, the upsweep unchanged (26 us).
__device__ __forceinline__ bool tile_inside_large_segment(const TileBoundary* plan, int64_t k, int64_t large_above) {
  if (large_above == std::numeric_limits<int64_t>::max()) return false;
  const TileBoundary lower = plan[k];
  const TileBoundary upper = plan[k + 1];
  return lower.in_large & (lower.ub == upper.ub);
}

// One crossing segment's part in this tile, and where its counts live in the matrix.
struct CrossingPart {
  uint64_t start, end;  // the whole segment's item range
  int64_t base;         // matrix index of (bucket 0, slot 0) of this segment
  int64_t stride;       // L: slots per bucket row
  int64_t slot;         // j: this tile's slot inside the segment
  __host__ __device__ int64_t index(uint32_t bucket) const { return base + int64_t{bucket} * stride + slot; }
};

struct TileHeader {
  uint64_t lo, hi;                 // the tile's items [lo, hi)
  int64_t starts_first, starts_end;  // segments that start strictly inside (lo, hi)
  int64_t own_first, own_end;      // segments whose bucket offsets this tile writes (not the empty ones at lo)
  CrossingPart a, b;
  bool has_a, has_b;
  bool a_goes_on;  // A continues past hi: slot 2k+1 is A's (zero) slot
};

// ---- kernel 1: tile plan (one warp per boundary) ----
// d_matrix_used (resident engine, else null; zeroed before): the end of the count matrix's part that the crossing
// segments own, the largest B * (2 * t1 + 1) of a crossing segment over tiles t0..t1.
template <class Policy>
__global__ __launch_bounds__(Policy::kPlanWarpsPerBlock * 32) void segmented_plan_kernel(
    const uint64_t* offsets, int64_t num_segments, int64_t max_items, int64_t num_boundaries, TileBoundary* plan,
    int64_t large_above, uint64_t* d_num_invalid, uint32_t num_buckets, unsigned long long* d_matrix_used) {
  wait_for_earlier_kernels();  // first: overlapped_launch.cuh
  const int64_t j = (int64_t{blockIdx.x} * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x & 31;
  if (j >= num_boundaries) return;  // warp-uniform
  const uint64_t total = offsets[num_segments];
  if (!segmented_input_ok(offsets, num_segments, max_items)) {
    if (j == 0 && lane == 0 && d_num_invalid) {
      atomicAdd(reinterpret_cast<unsigned long long*>(d_num_invalid), static_cast<unsigned long long>(total));
    }
    return;
  }
  const uint64_t nominal = static_cast<uint64_t>(j) * Policy::kTileStride;
  const uint64_t x = nominal < total ? nominal : total;
  const int64_t ub = warp_upper_bound(offsets, num_segments + 1, x);
  uint64_t pos = x;
  bool in_large = false;
  bool crossing = false;
  if (x < total) {
    const int64_t s = ub - 1;  // the segment holding x
    const uint64_t start = offsets[s];
    const uint64_t size = offsets[s + 1] - start;
    const bool small = size <= static_cast<uint64_t>(Policy::kSmallSegment);
    if (small) pos = start;
    in_large = size > static_cast<uint64_t>(large_above);
    crossing = d_matrix_used != nullptr && !small && !in_large && start < x;
    if (crossing && lane == 0) {
      const uint64_t t1 = (start + size - 1) / static_cast<uint64_t>(Policy::kTileStride);
      atomicMax(d_matrix_used, static_cast<unsigned long long>(num_buckets) * (2 * t1 + 1));
    }
  }
  // ub(pos) == ub(x): a snapped pos is the start of the segment holding x.
  const int64_t lb = pos == 0 ? 0 : warp_upper_bound(offsets, num_segments + 1, pos - 1);
  if (lane == 0) plan[j] = TileBoundary{pos, lb, ub, in_large, crossing};
}

// The crossing part of segment s (t0 < t1) in tile k.
template <class Policy>
__device__ __forceinline__ CrossingPart make_crossing_part(uint64_t start, uint64_t end, int64_t k,
                                                           uint32_t num_buckets) {
  const int64_t t0 = static_cast<int64_t>(start / Policy::kTileStride);
  const int64_t t1 = static_cast<int64_t>((end - 1) / Policy::kTileStride);
  const int64_t first_slot = 2 * t0 + 1;
  const int64_t slot = k == t0 ? 2 * k + 1 : 2 * k;
  return CrossingPart{start, end, int64_t{num_buckets} * first_slot, 2 * (t1 - t0), slot - first_slot};
}

// large_above: a crossing segment of more records than this is the large-segment path's
// (segmented_large_segments.cuh); its records leave the tile, which keeps the segments between such parts.
template <class Policy>
__device__ TileHeader make_tile_header(int64_t k, const TileBoundary* plan, const uint64_t* offsets,
                                       uint32_t num_buckets, int64_t large_above) {
  const TileBoundary p0 = plan[k];
  const TileBoundary p1 = plan[k + 1];
  TileHeader h;
  h.lo = p0.pos;
  h.hi = p1.pos;
  h.starts_first = p0.ub;
  h.starts_end = p1.lb;
  // The segments that start in [lo, hi), less the empty ones at lo's position, which segmented_empty_offsets_kernel
  // writes: of the segments [p0.lb, p0.ub) starting at lo only the last can hold items. Without this, every empty
  // segment at position 0 (or at the end: none of them is owned here) fell to one block, a serial loop of
  // (empty segments) x buckets writes: 1.2 ms of L3 at 3840x2160, where the tiles beside the model are empty.
  h.own_first = p0.lb < p0.ub ? p0.ub - 1 : p0.lb;
  h.own_end = p1.lb;
  h.has_a = h.has_b = h.a_goes_on = false;
  if (h.lo < h.hi) {
    const int64_t sa = p0.ub - 1;  // holds lo
    const uint64_t a_start = offsets[sa];
    if (a_start < h.lo) {
      const uint64_t a_end = offsets[sa + 1];
      h.has_a = true;
      h.a = make_crossing_part<Policy>(a_start, a_end, k, num_buckets);
      h.a_goes_on = a_end > h.hi;
    }
    const int64_t sb = p1.lb - 1;  // holds hi - 1
    const uint64_t b_start = offsets[sb];
    const uint64_t b_end = offsets[sb + 1];
    if (b_start >= h.lo && b_end > h.hi) {
      h.has_b = true;
      h.b = make_crossing_part<Policy>(b_start, b_end, k, num_buckets);
    }
    const auto is_large = [&](const CrossingPart& c) { return c.end - c.start > static_cast<uint64_t>(large_above); };
    if (h.has_a && is_large(h.a)) {  // the tile starts where A ends (or holds nothing when A goes on)
      h.lo = h.a.end < h.hi ? h.a.end : h.hi;
      h.has_a = h.a_goes_on = false;
    }
    if (h.has_b && is_large(h.b)) {  // the tile ends where B starts; B is not the tile's to publish
      h.hi = h.b.start;
      h.has_b = false;
      h.own_end = sb;
      h.starts_end = sb;
    }
  }
  return h;
}

// The bucket counts of tile h's crossing parts into hist ([2 * num_buckets]: A's part, then B's part; zeroed by the
// caller, a barrier before). Out-of-range buckets are not counted. Ends with a barrier: hist is complete.
template <class Io>
__device__ __forceinline__ void count_crossing_parts(const TileHeader& h, const Io& io, uint32_t num_buckets,
                                                     uint32_t* hist) {
  if (h.has_a) {
    const uint64_t end = h.a.end < h.hi ? h.a.end : h.hi;
    for (uint64_t p = h.lo + threadIdx.x; p < end; p += blockDim.x) {
      const uint32_t b = io.bucket_at(p);
      if (b < num_buckets) atomicAdd(&hist[b], 1u);
    }
  }
  if (h.has_b) {
    for (uint64_t p = h.b.start + threadIdx.x; p < h.hi; p += blockDim.x) {
      const uint32_t b = io.bucket_at(p);
      if (b < num_buckets) atomicAdd(&hist[num_buckets + b], 1u);
    }
  }
  __syncthreads();
}

// ---- kernel 2: upsweep (bucket counts of the crossing parts; one block per tile) ----
template <class Policy, class Io, class CountT>
__global__ __launch_bounds__(Policy::kUpsweepThreads) void segmented_upsweep_kernel(
    Io io, const uint64_t* offsets, int64_t num_segments, int64_t max_items, const TileBoundary* plan,
    uint32_t num_buckets, int64_t large_above, CountT* matrix) {
  extern __shared__ uint32_t segmented_hist[];  // [2 * num_buckets]: A's part, then B's part
  __shared__ TileHeader h;
  const int64_t k = blockIdx.x;
  // Zeros where nothing is split (the spine scan still reads the whole matrix: leave it defined, initcheck), or where
  // the tile lies inside a large segment (both of its slots are owned by no one).
  const bool ok = segmented_input_ok(offsets, num_segments, max_items);
  const bool inside = tile_inside_large_segment(plan, k, large_above);
  if (!ok | inside) {
    for (uint32_t i = threadIdx.x; i < 2 * num_buckets; i += blockDim.x) matrix[2 * k * num_buckets + i] = 0;
    return;
  }
  if (threadIdx.x == 0) h = make_tile_header<Policy>(k, plan, offsets, num_buckets, large_above);
  for (uint32_t i = threadIdx.x; i < 2 * num_buckets; i += blockDim.x) segmented_hist[i] = 0;
  __syncthreads();
  count_crossing_parts(h, io, num_buckets, segmented_hist);

  // Every tile writes both of its slots completely (counts or zeros), so the matrix needs no memset.
  const int64_t head_slot = 2 * k;
  for (uint32_t b = threadIdx.x; b < num_buckets; b += blockDim.x) {
    if (h.has_a) {
      matrix[h.a.index(b)] = segmented_hist[b];
    } else {
      matrix[int64_t{num_buckets} * head_slot + b] = 0;
    }
    if (h.has_b) {
      matrix[h.b.index(b)] = segmented_hist[num_buckets + b];
    } else if (h.has_a && h.a_goes_on) {
      matrix[h.a.index(b) + 1] = 0;
    } else {
      matrix[int64_t{num_buckets} * (head_slot + 1) + b] = 0;
    }
  }
}

// ---- the resident engine (large-segment path on) ----
// With large segments about, most tiles may have nothing to do: every tile of 2^26 keys in segments of 2^16 lies
// inside a segment of the cluster path, and a grid of a block a tile spent 0.11 ms (Nsight Compute) on the upsweep,
// the spine scan of the whole count matrix and the downsweep of such tiles. Here the upsweep runs on a resident grid:
// block b takes tiles b, b + G, b + 2G, ...; each thread of a block tests one of its next 256 tiles, so a block learns
// in one round of loads which tiles it has work in. The downsweep takes a block a tile, or, when the mean segment is
// longer than a window, runs on a resident grid too (the dispatch's comment). Only the part of the matrix the
// crossing segments own (the plan kernel's d_matrix_used) is zeroed and scanned (device_count_scan.cuh). Nsight
// Compute, the same call: those kernels 0.11 -> 0.06 ms. The engine's launches after its plan, and those of the
// cluster and large-segment paths, overlap with the kernel before them (overlapped_launch.cuh).

// A block's next round of tiles: those of b + G * (round * BT + i), i < BT, for which needed(k) holds, in order,
// into list[0, *count). Contains barriers; returns false when the block has no tile left.
template <int BT, class Scan, class Needed>
__device__ __forceinline__ bool segmented_next_tiles(int64_t round, int64_t num_tiles, typename Scan::TempStorage& scan,
                                                     int64_t* list, int* count, Needed needed) {
  const int64_t first = int64_t{blockIdx.x} + round * BT * int64_t{gridDim.x};
  if (first >= num_tiles) return false;  // block-uniform
  const int64_t k = first + int64_t{threadIdx.x} * gridDim.x;
  const uint32_t take = k < num_tiles && needed(k) ? 1u : 0u;
  uint32_t at = 0, total = 0;
  Scan(scan).ExclusiveSum(take, at, total);
  if (take) list[at] = k;
  if (threadIdx.x == 0) *count = static_cast<int>(total);
  __syncthreads();
  return true;
}

// Zeroes matrix[0, *used): the slots of the crossing segments (the upsweep writes only the counts of their parts).
template <class CountT>
__global__ void __launch_bounds__(256)
    segmented_zero_used_matrix_kernel(CountT* matrix, const unsigned long long* used) {
  wait_for_earlier_kernels();  // first: overlapped_launch.cuh
  const uint64_t n = *used;
  for (uint64_t i = uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += uint64_t{gridDim.x} * blockDim.x) {
    matrix[i] = 0;
  }
}

// The upsweep of the tiles with a crossing part: one whose boundary lies inside a crossing segment.
template <class Policy, class Io, class CountT>
__global__ __launch_bounds__(Policy::kUpsweepThreads) void segmented_upsweep_resident_kernel(
    Io io, const uint64_t* offsets, int64_t num_segments, int64_t max_items, const TileBoundary* plan,
    int64_t num_tiles, uint32_t num_buckets, int64_t large_above, CountT* matrix) {
  wait_for_earlier_kernels();  // first: overlapped_launch.cuh
  constexpr int BT = Policy::kUpsweepThreads;
  using Scan = cub::BlockScan<uint32_t, BT>;
  extern __shared__ uint32_t segmented_hist[];  // [2 * num_buckets]: A's part, then B's part
  __shared__ TileHeader h;
  __shared__ typename Scan::TempStorage scan;
  __shared__ int64_t list[BT];
  __shared__ int listed;
  if (!segmented_input_ok(offsets, num_segments, max_items)) return;
  const auto crossing = [&](int64_t k) { return plan[k].crossing | plan[k + 1].crossing; };
  for (int64_t round = 0; segmented_next_tiles<BT, Scan>(round, num_tiles, scan, list, &listed, crossing); ++round) {
    for (int i = 0; i < listed; ++i) {
      const int64_t k = list[i];
      if (threadIdx.x == 0) h = make_tile_header<Policy>(k, plan, offsets, num_buckets, large_above);
      for (uint32_t b = threadIdx.x; b < 2 * num_buckets; b += BT) segmented_hist[b] = 0;
      __syncthreads();
      count_crossing_parts(h, io, num_buckets, segmented_hist);
      for (uint32_t b = threadIdx.x; b < num_buckets; b += BT) {
        if (h.has_a) matrix[h.a.index(b)] = segmented_hist[b];
        if (h.has_b) matrix[h.b.index(b)] = segmented_hist[num_buckets + b];
      }
      __syncthreads();  // h and the histograms are the next tile's
    }
  }
}

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
// tile's registers are its own (inlined into the loop, ptxas spilled 80 bytes in the kernel; in session 15 such a
// loop, spilling 84-92 bytes, took segments of 2^8 in 1.13 ms against 0.97).
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
__global__ void segmented_empty_offsets_kernel(const uint64_t* offsets, int64_t num_segments, int64_t max_items,
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

// ---- host dispatch ----
template <class CountT, class Io>
cudaError_t segmented_split_dispatch_counts(void* d_temp, size_t& temp_bytes, Io io, int64_t max_items,
                                            const uint64_t* d_segment_offsets, int64_t num_segments,
                                            uint32_t num_buckets, uint64_t* d_bucket_offsets, cudaStream_t stream,
                                            uint64_t* d_num_invalid, bool large_segment_path) {
  using Policy = SegmentedSplitPolicy<static_cast<int>(sizeof(typename Io::Record))>;
  using SplitKey = typename Io::SplitKey;
  using SplitValue = typename Io::SplitValue;
  using BucketOp = decltype(io.bucket_of);
  // At least one tile: tile 0 also writes the final total.
  const int64_t num_tiles = max_items > 0 ? ceil_div(max_items, Policy::kTileStride) : 1;
  const int64_t matrix_size = 2 * int64_t{num_buckets} * num_tiles;
  // Segments of more than a window's records take the large-segment path; a window holds more than a tile, so
  // such a segment always crosses tiles (the tile engine leaves out crossing parts only).
  const int64_t window = large_segment_window<SplitKey, SplitValue>(num_buckets);
  static_assert(large_segment_window<SplitKey, SplitValue>(1) >= Policy::kTileCapacity &&
                    large_segment_window<SplitKey, SplitValue>(kMaxSegmentedBuckets) >= Policy::kTileCapacity,
                "a large segment crosses tiles");

  TempCarver carver(d_temp);
  TileBoundary* plan = carver.take<TileBoundary>(static_cast<size_t>(num_tiles + 1));
  CountT* matrix = carver.take<CountT>(static_cast<size_t>(matrix_size));
  LargeSegmentScratch large;
  ClusterSegmentScratch cluster;
  // The words the three plans count into, side by side: one memset zeroes them (a memset costs 1.3 us of host time on
  // the H100, session 16, and a gap between kernels, which a memset does not overlap).
  enum CallWord { kMatrixUsed, kClusterCount, kLargeTableUsed, kCallWords };
  unsigned long long* call_words = nullptr;
  if (large_segment_path) {
    call_words = carver.take<unsigned long long>(kCallWords);
    PRIM_TRY(carve_large_segment_scratch(carver, max_items, window, num_buckets, call_words + kLargeTableUsed, large));
    carve_cluster_segment_scratch<Io::kSplitOutput, SplitKey, SplitValue, BucketOp>(
        carver, max_items, window, num_buckets, call_words + kClusterCount, cluster);
  }
  // With a segment that can be large, the tile engine runs resident (segmented_upsweep_resident_kernel's comment).
  const bool resident = large.grid > 0;
  const int64_t large_above = resident ? window : std::numeric_limits<int64_t>::max();
  size_t scan_bytes = 0;
  void* scan_temp = nullptr;
  unsigned long long* matrix_used = nullptr;
  CountT* scan_partials = nullptr;
  if (resident) {
    matrix_used = call_words + kMatrixUsed;
    scan_partials = carver.take<CountT>(device_count_scan_partials<CountT>(matrix_size));
  } else {
    PRIM_TRY(exclusive_sum(nullptr, scan_bytes, matrix, matrix, matrix_size, stream));
    scan_temp = carver.take<unsigned char>(scan_bytes);
  }
  bool size_query = false;
  PRIM_TRY(carver.finish(temp_bytes, size_query));
  if (size_query) return cudaSuccess;

  // ---- plan: snapped tile boundaries ----
  constexpr int kPlanThreads = Policy::kPlanWarpsPerBlock * 32;
  const int64_t plan_blocks = ceil_div(num_tiles + 1, Policy::kPlanWarpsPerBlock);
  if (resident) PRIM_TRY(cudaMemsetAsync(call_words, 0, kCallWords * sizeof(unsigned long long), stream));
  segmented_plan_kernel<Policy><<<static_cast<unsigned>(plan_blocks), kPlanThreads, 0, stream>>>(
      d_segment_offsets, num_segments, max_items, num_tiles + 1, plan, large_above, d_num_invalid, num_buckets,
      matrix_used);
  PRIM_TRY_LAUNCH();
  // The resident engine's launches after the plan overlap with the kernel before them (overlapped_launch.cuh),
  // where the device runs the kernels' code for compute capability 9.0 or up.
  bool overlap = false;
  if (resident) PRIM_TRY(kernel_waits_for_earlier_kernels<segmented_plan_kernel<Policy>>(overlap));
  if (resident) {
    // ---- the crossing segments' slots zeroed, their parts counted, those slots scanned ----
    constexpr int kZeroThreads = 256;
    const int64_t zero_blocks = std::min<int64_t>(ceil_div(matrix_size, int64_t{kZeroThreads} * 8), 1024);
    PRIM_TRY(launch_overlapped(overlap, segmented_zero_used_matrix_kernel<CountT>, static_cast<unsigned>(zero_blocks),
                               kZeroThreads, 0, stream, matrix, static_cast<const unsigned long long*>(matrix_used)));
    auto upsweep = segmented_upsweep_resident_kernel<Policy, Io, CountT>;
    const size_t upsweep_smem = 2 * num_buckets * sizeof(uint32_t);
    int upsweep_grid = 1;
    PRIM_TRY(split_grid_size(upsweep, Policy::kUpsweepThreads, upsweep_smem, 32, num_tiles, upsweep_grid));
    PRIM_TRY(launch_overlapped(overlap, upsweep, upsweep_grid, Policy::kUpsweepThreads, upsweep_smem, stream, io,
                               d_segment_offsets, num_segments, max_items, static_cast<const TileBoundary*>(plan),
                               num_tiles, num_buckets, large_above, matrix));
    PRIM_TRY(device_count_exclusive_sum(matrix, reinterpret_cast<const uint64_t*>(matrix_used), matrix_size,
                                        scan_partials, stream, overlap));
    // Two downsweeps, the same output. When the mean segment is longer than a window, most tiles probably lie inside
    // segments of the other paths: a resident grid tests them 256 at a time. Otherwise a block takes a tile (the
    // renderer's kernel; a tile inside a large segment leaves at once). H100, session 16, 2^26 u32 keys, three
    // rounds: the resident grid took segments of 2^16 in 0.494-0.502 ms against 0.511-0.514 with two tiles a block
    // (call a); segments of 2^8 took 1.026-1.029 ms on the resident grid (its out-of-line tile), 0.966-0.972 with
    // two tiles a block (session 15's kernel, unrolled), 0.865-0.885 with a block a tile (call l).
    const size_t first_rank_bytes = 2 * num_buckets * sizeof(uint16_t);
    const bool downsweep_resident = max_items / std::max<int64_t>(num_segments, 1) > window;
    if (downsweep_resident) {
      auto downsweep = segmented_downsweep_resident_kernel<Policy, Io, CountT>;
      const size_t downsweep_smem = resident_downsweep_args_bytes<Io, CountT>() + first_rank_bytes;
      int downsweep_grid = 1;
      PRIM_TRY(split_grid_size(downsweep, Policy::kBlockThreads, downsweep_smem, Policy::kDownsweepMinBlocks,
                               num_tiles, downsweep_grid));
      PRIM_TRY(launch_overlapped(
          overlap, downsweep, downsweep_grid, Policy::kBlockThreads, downsweep_smem, stream,
          SegmentedDownsweepArgs<Io, CountT>{io, d_segment_offsets, num_segments, plan, num_buckets, large_above,
                                             matrix, d_bucket_offsets, d_num_invalid},
          max_items, num_tiles));
    } else {
      PRIM_TRY(launch_overlapped(overlap, segmented_downsweep_kernel<Policy, Io, CountT>,
                                 static_cast<unsigned>(num_tiles), Policy::kBlockThreads, first_rank_bytes, stream, io,
                                 d_segment_offsets, num_segments, max_items, static_cast<const TileBoundary*>(plan),
                                 num_buckets, large_above, static_cast<const CountT*>(matrix), d_bucket_offsets,
                                 d_num_invalid));
    }
  } else {
    // ---- upsweep: counts of the crossing parts ----
    segmented_upsweep_kernel<Policy, Io, CountT>
        <<<static_cast<unsigned>(num_tiles), Policy::kUpsweepThreads, 2 * num_buckets * sizeof(uint32_t), stream>>>(
            io, d_segment_offsets, num_segments, max_items, plan, num_buckets, large_above, matrix);
    PRIM_TRY_LAUNCH();
    // ---- spine: one exclusive scan over every crossing segment's (bucket, slot) counts ----
    PRIM_TRY(exclusive_sum(scan_temp, scan_bytes, matrix, matrix, matrix_size, stream));
    // ---- downsweep ----
    segmented_downsweep_kernel<Policy, Io, CountT>
        <<<static_cast<unsigned>(num_tiles), Policy::kBlockThreads, 2 * num_buckets * sizeof(uint16_t), stream>>>(
            io, d_segment_offsets, num_segments, max_items, plan, num_buckets, large_above, matrix,
            d_bucket_offsets, d_num_invalid);
    PRIM_TRY_LAUNCH();
  }
  // ---- segments of a cluster's size: a cluster each (segmented_cluster_segments.cuh) ----
  bool cluster_path = false;
  PRIM_TRY((launch_cluster_segment_split<Io::kSplitOutput>(
      cluster, io.split_keys_in(), io.split_keys_out(), io.split_values_in(), io.split_values_out(),
      d_segment_offsets, num_segments, max_items, window, num_buckets, io.bucket_of, d_bucket_offsets, stream,
      d_num_invalid, overlap, cluster_path)));
  // The large-segment path takes the segments above this.
  const int64_t split_engine_above =
      cluster_path ? ClusterSegmentPath<Io::kSplitOutput, SplitKey, SplitValue, BucketOp>::kMaxRecords : window;
  // ---- large segments: the split engine, a window part a block ----
  PRIM_TRY((launch_large_segment_split<Io::kSplitOutput>(large, io.split_keys_in(), io.split_keys_out(),
                                                         io.split_values_in(), io.split_values_out(),
                                                         d_segment_offsets, num_segments, max_items,
                                                         split_engine_above, num_buckets, io.bucket_of,
                                                         d_bucket_offsets, stream, d_num_invalid, overlap)));
  if (d_bucket_offsets && num_segments > 0) {
    constexpr int kThreads = 256;
    constexpr int64_t kMaxBlocks = 4096;  // grid-stride beyond: enough to fill the GPU
    const int64_t blocks = std::min(kMaxBlocks, ceil_div(num_segments * int64_t{num_buckets}, int64_t{kThreads}));
    PRIM_TRY(launch_overlapped(overlap, segmented_empty_offsets_kernel, static_cast<unsigned>(blocks), kThreads, 0,
                               stream, d_segment_offsets, num_segments, max_items, num_buckets, d_bucket_offsets));
  }
  return cudaSuccess;
}

// Checks the arguments, picks 32-bit counts where every count fits.
template <class Io>
cudaError_t segmented_split_dispatch(void* d_temp, size_t& temp_bytes, Io io, int64_t max_items,
                                     const uint64_t* d_segment_offsets, int64_t num_segments, uint32_t num_buckets,
                                     uint64_t* d_bucket_offsets, cudaStream_t stream, uint64_t* d_num_invalid,
                                     bool large_segment_path) {
  if (max_items < 0 || num_segments < 0 || num_buckets == 0 || num_buckets > kMaxSegmentedBuckets ||
      d_segment_offsets == nullptr) {
    return cudaErrorInvalidValue;
  }
  if (max_items <= int64_t{UINT32_MAX}) {
    return segmented_split_dispatch_counts<uint32_t>(d_temp, temp_bytes, io, max_items, d_segment_offsets,
                                                     num_segments, num_buckets, d_bucket_offsets, stream,
                                                     d_num_invalid, large_segment_path);
  }
  return segmented_split_dispatch_counts<uint64_t>(d_temp, temp_bytes, io, max_items, d_segment_offsets, num_segments,
                                                   num_buckets, d_bucket_offsets, stream, d_num_invalid,
                                                   large_segment_path);
}

// ---- record access: keys only, key-value pairs ----
// Each also gives the split engine's view of its arrays (the large-segment path).
template <class T, class BucketOp>
struct SegmentedKeysIo {
  using Record = T;
  using SplitKey = T;
  using SplitValue = NoValue;
  static constexpr SplitOutput kSplitOutput = SplitOutput::keys;
  const T* in;
  T* out;
  BucketOp bucket_of;
  const T* split_keys_in() const { return in; }
  T* split_keys_out() const { return out; }
  const NoValue* split_values_in() const { return nullptr; }
  NoValue* split_values_out() const { return nullptr; }
  __device__ __forceinline__ T load(uint64_t i) const { return in[i]; }
  __device__ __forceinline__ uint32_t bucket_at(uint64_t i) const { return static_cast<uint32_t>(bucket_of(in[i])); }
  __device__ __forceinline__ uint32_t bucket(const T& r) const { return static_cast<uint32_t>(bucket_of(r)); }
  __device__ __forceinline__ void store(uint64_t i, const T& r) const { out[i] = r; }
};

template <class K, class V>
struct KeyValue {
  K key;
  V value;
};

template <class K, class V, class BucketOp>
struct SegmentedPairsIo {
  using Record = KeyValue<K, V>;
  using SplitKey = K;
  using SplitValue = V;
  static constexpr SplitOutput kSplitOutput = SplitOutput::pairs;
  const K* keys_in;
  K* keys_out;
  const V* values_in;
  V* values_out;
  BucketOp bucket_of;
  const K* split_keys_in() const { return keys_in; }
  K* split_keys_out() const { return keys_out; }
  const V* split_values_in() const { return values_in; }
  V* split_values_out() const { return values_out; }
  __device__ __forceinline__ Record load(uint64_t i) const { return Record{keys_in[i], values_in[i]}; }
  __device__ __forceinline__ uint32_t bucket_at(uint64_t i) const {
    return static_cast<uint32_t>(bucket_of(keys_in[i]));
  }
  __device__ __forceinline__ uint32_t bucket(const Record& r) const { return static_cast<uint32_t>(bucket_of(r.key)); }
  __device__ __forceinline__ void store(uint64_t i, const Record& r) const {
    keys_out[i] = r.key;
    values_out[i] = r.value;
  }
};

}  // namespace detail
}  // namespace prim
