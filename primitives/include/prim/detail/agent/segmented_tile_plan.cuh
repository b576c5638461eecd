// The segmented split's tile engine, kernel 1: the tile plan (snapped tile boundaries, the crossing segments' parts
// and where their counts live in the count matrix).
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
#include "prim/detail/block/segmented_search.cuh"
#include "prim/detail/tuning.h"

namespace prim {
namespace detail {

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
// build was 0.6-1.2% slower with every block reading it.
// Both boundaries are loaded at once (no short circuit), and the callers load the validity of the call beside them:
// a block of such a tile then waits for one round of loads, not three (2^26 keys in segments of 2^16, every tile
// idle: the downsweep 71 -> 52 us).
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


}  // namespace detail
}  // namespace prim
