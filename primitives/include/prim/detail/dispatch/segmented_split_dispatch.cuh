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
#include <limits>

#include "prim/detail/agent/segmented_downsweep.cuh"
#include "prim/detail/agent/segmented_io.cuh"
#include "prim/detail/agent/segmented_tile_plan.cuh"
#include "prim/detail/agent/segmented_upsweep.cuh"
#include "prim/detail/core/bits.h"
#include "prim/detail/core/error.h"
#include "prim/detail/core/overlapped_launch.cuh"
#include "prim/detail/core/temp_storage.h"
#include "prim/detail/dispatch/cub_calls.cuh"
#include "prim/detail/dispatch/device_count_scan.cuh"
#include "prim/detail/dispatch/segmented_cluster_segments.cuh"
#include "prim/detail/dispatch/segmented_large_segments.cuh"
#include "prim/detail/dispatch/split_dispatch.cuh"

namespace prim {
namespace detail {

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
  // The words the three plans count into, side by side: one memset zeroes them (a memset costs about 1.3 us of host
  // time and a gap between kernels, which a memset does not overlap).
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
    // segments of the other paths: a resident grid tests them 256 at a time (segments of 2^16: 0.50 ms against 0.51
    // with two tiles a block). Otherwise a block takes a tile (the renderer's kernel; a tile inside a large segment
    // leaves at once): segments of 2^8 0.87 ms against 1.03 on the resident grid.
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


}  // namespace detail
}  // namespace prim
