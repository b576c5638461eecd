// The segmented split's tile engine, kernel 2: bucket counts of the crossing segments' parts, a block a tile or on a
// resident grid.
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

namespace prim {
namespace detail {

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


}  // namespace detail
}  // namespace prim
