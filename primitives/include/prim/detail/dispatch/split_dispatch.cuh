// Host dispatch of the split engine: picks the radix width from num_buckets, plans the grid, carves the scratch blob
// (two-phase, TempCarver) and launches upsweep -> spine scan -> downsweep on the caller's stream.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cub/device/device_scan.cuh>
#include <type_traits>

#include "prim/detail/core/bits.h"
#include "prim/detail/core/overlapped_launch.cuh"
#include "prim/detail/agent/split_tile.cuh"
#include "prim/detail/kernels/bucket_offsets_kernels.cuh"
#include "prim/detail/kernels/split_kernels.cuh"
#include "prim/detail/tuning.h"
#include "prim/detail/core/split_types.h"
#include "prim/detail/core/error.h"
#include "prim/detail/core/item_count.h"
#include "prim/detail/core/temp_storage.h"

namespace prim {
namespace detail {

// Up to 2^11 buckets: <= 256 in one pass of the 8-bit ranker; more in two 8-bit passes (dispatch_split_two_passes;
// split_index sorts (bucket, index) pairs with them, split_index_two_passes.cuh). A one-pass 11-bit ranker in dynamic
// shared memory moves every record once, but 128-thread blocks of 228 registers, two an SM, leave it latency-bound:
// 6.6 ms for 2^26 u32 pairs into 2048 buckets, where CUB sorts the same 11 bits in 1.16 ms. Only the segmented split's
// large-segment path runs the 11-bit agents (segmented_large_segments.cuh).
constexpr uint32_t kMaxSplitBuckets = 2048;

// Grid of the upsweep/downsweep pair: one chunk per block, at most what the device keeps resident, so every
// block is live at once and walks ~n / (SMs x occupancy) records.
template <class Kernel>
cudaError_t split_grid_size(Kernel kernel, int threads, size_t smem_bytes, int blocks_per_sm_cap, int64_t max_tiles,
                            int& grid) {
  int device = 0;
  PRIM_TRY(cudaGetDevice(&device));
  int sms = 0;
  PRIM_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  int occupancy = 0;
  PRIM_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occupancy, kernel, threads, smem_bytes));
  occupancy = std::max(1, std::min(occupancy, blocks_per_sm_cap));
  grid = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(max_tiles, int64_t{sms} * occupancy)));
  return cudaSuccess;
}

// The downsweep kernel of a policy, output and partition, with its agent (whose TempStorage sizes its dynamic shared
// memory).
template <class Policy, SplitOutput OUT, class KeyT, class ValueT, class BucketOp, class Partition>
struct SplitDownsweepFor {
  using Agent = SplitDownsweepAgent<Policy, OUT, KeyT, ValueT, BucketOp, Partition>;
  static constexpr auto kKernel = split_downsweep_kernel<Policy, OUT, KeyT, ValueT, BucketOp, Partition>;
};

// One 8-bit split pass (<= 256 buckets): upsweep, spine, downsweep. The downsweeps claim tiles in input order and
// find their bases by look-back inside a chunk (TileLookbackPartition).
template <SplitOutput OUT, class KeyT, class ValueT, class BucketOp>
cudaError_t dispatch_split_pass(void* d_temp, size_t& temp_bytes, const KeyT* keys_in, KeyT* keys_out,
                                const ValueT* values_in, ValueT* values_out, ItemCount n, uint32_t num_buckets,
                                BucketOp bucket_of, uint64_t* d_bucket_offsets, cudaStream_t stream,
                                uint64_t* d_num_invalid) {
  constexpr size_t kRecordBytes = sizeof(KeyT) > sizeof(ValueT) ? sizeof(KeyT) : sizeof(ValueT);
  using Policy = typename SplitPolicyFor<8, kRecordBytes>::type;
  using Partition = TileLookbackPartition<Policy::TILE_ITEMS>;
  using Down = SplitDownsweepFor<Policy, OUT, KeyT, ValueT, BucketOp, Partition>;
  auto upsweep = split_upsweep_kernel<Policy, KeyT, BucketOp, Partition>;
  auto downsweep = Down::kKernel;
  constexpr size_t kSmem = sizeof(typename Down::Agent::TempStorage);
  constexpr size_t kDefaultSmemLimit = 48 * 1024;

  if (kSmem > kDefaultSmemLimit) {
    PRIM_TRY(cudaFuncSetAttribute(downsweep, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kSmem)));
  }
  const int64_t max_tiles = ceil_div(std::max<int64_t>(n.max, 1), Policy::TILE_ITEMS);
  int grid = 1;
  PRIM_TRY(split_grid_size(downsweep, Policy::BLOCK_THREADS, kSmem, Policy::BLOCKS_PER_SM, max_tiles, grid));
  // A chunk's look-back sums must fit their 30-bit field (a chunk of more than 2^30 records needs > 2^38 in all).
  if (ceil_div(max_tiles, grid) * Policy::TILE_ITEMS > Partition::kMaxRunRecords) return cudaErrorInvalidValue;

  // counts[bucket][upsweep block] (+1 zero entry that scans into the total), its exclusive scan, the scan's scratch,
  // the look-back words, the claim counter, the upsweep blocks' invalid records.
  const int upsweep_grid = grid * Partition::kUpsweepBlocksPerChunk;
  const int64_t table = int64_t{num_buckets} * upsweep_grid + 1;
  TempCarver carver(d_temp);
  uint64_t* counts = carver.take<uint64_t>(static_cast<size_t>(table));
  uint64_t* scanned = carver.take<uint64_t>(static_cast<size_t>(table));
  size_t scan_bytes = 0;
  PRIM_TRY(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, counts, scanned, table, stream));
  void* scan_temp = carver.take<unsigned char>(scan_bytes);
  uint32_t* lookback = carver.take<uint32_t>(static_cast<size_t>(max_tiles * num_buckets));
  uint32_t* next_tile = carver.take<uint32_t>(1);
  uint32_t* part_invalid = carver.take<uint32_t>(static_cast<size_t>(upsweep_grid));
  bool size_query = false;
  PRIM_TRY(carver.finish(temp_bytes, size_query));
  if (size_query) return cudaSuccess;

  // ---- upsweep: per-chunk bucket histogram ----
  Partition partition{};
  partition.n = n;
  partition.lookback = lookback;
  partition.next_tile = next_tile;
  partition.part_invalid = part_invalid;
  partition.chunks = grid;
  upsweep<<<upsweep_grid, Policy::BLOCK_THREADS, 0, stream>>>(keys_in, partition, num_buckets, bucket_of, counts,
                                                              d_num_invalid);
  PRIM_TRY_LAUNCH();
  // ---- spine: exclusive scan of the bucket-major table ----
  PRIM_TRY(cub::DeviceScan::ExclusiveSum(scan_temp, scan_bytes, counts, scanned, table, stream));
  // ---- downsweep: stable rank, exchange, scatter ----
  downsweep<<<grid, Policy::BLOCK_THREADS, kSmem, stream>>>(keys_in, keys_out, values_in, values_out, partition,
                                                              num_buckets, bucket_of, scanned, d_bucket_offsets);
  PRIM_TRY_LAUNCH();
  return cudaSuccess;
}

// What a one-sweep pass may take over from the call (split_lsd.cuh): the first pass the offsets, the zeroing and the
// overlap; a later one knows its input holds no invalid record. Each saves a stream operation, which costs
// microseconds of host and GPU time even when it has nothing to do.
struct PassOptions {
  uint64_t* bucket_offsets = nullptr;  // block 0 writes offsets_buckets + 1 bucket starts here (null: none)
  uint32_t offsets_buckets = 0;        // the caller's buckets; those of the pass above them must be empty
  bool lookback_zeroed = false;        // the call zeroed the look-back words and the claim counters already
  bool overlap = false;                // launch overlapped with the kernel before it (overlapped_launch.cuh)
  // A later pass of an LSD split: pass 0 dropped the invalid records, so none is left, and CLEAN_TILES_APART's
  // second kernel (whose blocks would all leave at once) is not launched.
  bool later_pass = false;
};

// ---- One stable 8-bit pass with bases from the caller: the LSD one-sweep route (split_lsd.cuh) ----
// `scanned` holds the pass's bucket starts over the whole input ([num_buckets] = the valid records), from one
// histogram of every pass (lsd_histogram.cuh); no upsweep, no spine. The downsweep's look-back runs over the whole
// input (GlobalLookbackPartition), so n.max <= kMaxRunRecords; `lookback` holds lookback_words(n.max) words (4 bytes a
// tile and bucket: 0.11 bytes a record of 4 bytes), zeroed here before the launch (one memset node).
// The shape by default: a resident grid whose blocks claim tiles of 24 items a thread, two blocks an SM. The caller
// may ask for another (split_lsd.cuh: SplitSort's 32-bit keys take a block a tile, 19 items, three blocks an SM).
// CLEAN_TILES_APART: a functor that may return out-of-range buckets runs the pass as two kernels over the same tiles
// (TileChoice, split_partitions.cuh): the shape's kernel splits a valid input and holds no general tile; a resident
// grid splits an input with invalid records, in general tiles. Each kernel's blocks leave at once on the other's input.
// A functor without out-of-range buckets (PadsWithAllOnes) runs one kernel in either case.
// CURSOR_BASES: any order inside a bucket (SplitOrder::unstable): the tiles take their bases from per-bucket cursors
// (CursorBases, split_bases.cuh), not by look-back; the look-back words shrink to the cursors.
template <SplitOutput OUT, class KeyT, class ValueT, int MAX_ITEMS_PER_THREAD = OneSweepShape::kResidentItems,
          int MIN_BLOCKS_PER_SM = OneSweepShape::kResidentMinBlocks,
          bool ONE_TILE_PER_BLOCK = false, bool CLEAN_TILES_APART = false, bool CURSOR_BASES = false>
struct GlobalSplitPass {
  static constexpr size_t kRecordBytes = sizeof(KeyT) > sizeof(ValueT) ? sizeof(KeyT) : sizeof(ValueT);
  // 24 items a thread by default, where the split's own route keeps 16 (SplitPolicyFor, whose rows lose 1-8% at 20
  // items and 5-75% at 24): OneSweepShape in tuning.h.
  static constexpr int kItems = split_items_per_thread(384, kRecordBytes, MAX_ITEMS_PER_THREAD);
  using Policy = SplitTilePolicy<8, 384, kItems, 4, MIN_BLOCKS_PER_SM>;
  using Partition = GlobalLookbackPartition<Policy::TILE_ITEMS, ONE_TILE_PER_BLOCK, TileChoice::every, CURSOR_BASES>;
  // The two kernels of CLEAN_TILES_APART: the shape's, and a resident grid at two blocks an SM.
  using CleanPartition =
      GlobalLookbackPartition<Policy::TILE_ITEMS, ONE_TILE_PER_BLOCK, TileChoice::clean_only, CURSOR_BASES>;
  using ValidLessPolicy = SplitTilePolicy<8, 384, kItems, 4, 2>;
  using ValidLessPartition = GlobalLookbackPartition<Policy::TILE_ITEMS, false, TileChoice::valid_less, CURSOR_BASES>;
  static constexpr int64_t kMaxRecords = Partition::kMaxRunRecords;

  // The words a pass of num_buckets uses: its tiles' look-back rows (or its cursors), then two claim counters
  // (TileChoice).
  static size_t pass_lookback_words(int64_t max_records, uint32_t num_buckets) {
    if constexpr (CURSOR_BASES) return size_t{num_buckets} + 2;
    return static_cast<size_t>(ceil_div(std::max<int64_t>(max_records, 1), Policy::TILE_ITEMS)) * num_buckets + 2;
  }
  static size_t lookback_words(int64_t max_records) { return pass_lookback_words(max_records, 256); }

  using KeysOut = SplitKeysOut<OUT, KeyT>;

  template <class BucketOp>
  static cudaError_t launch(const KeyT* keys_in, KeysOut* keys_out, const ValueT* values_in, ValueT* values_out,
                            ItemCount n, uint32_t num_buckets, BucketOp bucket_of, const uint64_t* scanned,
                            uint32_t* lookback, cudaStream_t stream, const PassOptions& first = {}) {
    if (num_buckets == 0 || num_buckets > 256 || n.max < 0 || n.max > kMaxRecords) return cudaErrorInvalidValue;
    const size_t words = pass_lookback_words(n.max, num_buckets);
    if (!first.lookback_zeroed) PRIM_TRY(cudaMemsetAsync(lookback, 0, words * sizeof(uint32_t), stream));
    constexpr bool kApart = CLEAN_TILES_APART && !PadsWithAllOnes<BucketOp>::value;
    using First = std::conditional_t<kApart, CleanPartition, Partition>;
    PRIM_TRY((launch_downsweep<Policy, First, ONE_TILE_PER_BLOCK>(keys_in, keys_out, values_in, values_out, n,
                                                                   num_buckets, bucket_of, scanned, lookback, words,
                                                                   first.offsets_buckets, first.bucket_offsets,
                                                                   first.overlap, stream)));
    if constexpr (kApart) {
      if (first.later_pass) return cudaSuccess;
      using ValidLessDown = SplitDownsweepFor<ValidLessPolicy, OUT, KeyT, ValueT, BucketOp, ValidLessPartition>;
      bool overlap = false;
      PRIM_TRY(kernel_waits_for_earlier_kernels<ValidLessDown::kKernel>(overlap));
      PRIM_TRY((launch_downsweep<ValidLessPolicy, ValidLessPartition, false>(
          keys_in, keys_out, values_in, values_out, n, num_buckets, bucket_of, scanned, lookback, words, 0, nullptr,
          overlap, stream)));
    }
    return cudaSuccess;
  }

 private:
  template <class P, class Part, bool kOneTilePerBlock, class BucketOp>
  static cudaError_t launch_downsweep(const KeyT* keys_in, KeysOut* keys_out, const ValueT* values_in,
                                      ValueT* values_out, ItemCount n, uint32_t num_buckets, BucketOp bucket_of,
                                      const uint64_t* scanned, uint32_t* lookback, size_t words,
                                      uint32_t offsets_buckets, uint64_t* bucket_offsets, bool overlap,
                                      cudaStream_t stream) {
    using Down = SplitDownsweepFor<P, OUT, KeyT, ValueT, BucketOp, Part>;
    auto downsweep = Down::kKernel;
    constexpr size_t kSmem = sizeof(typename Down::Agent::TempStorage);
    if (kSmem > 48 * 1024) {
      PRIM_TRY(cudaFuncSetAttribute(downsweep, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kSmem)));
    }
    const int64_t max_tiles = ceil_div(std::max<int64_t>(n.max, 1), P::TILE_ITEMS);
    int grid = 1;
    if constexpr (kOneTilePerBlock) {
      grid = static_cast<int>(max_tiles);  // < 2^30 / TILE_ITEMS (kMaxRecords)
    } else {
      PRIM_TRY(split_grid_size(downsweep, P::BLOCK_THREADS, kSmem, P::BLOCKS_PER_SM, max_tiles, grid));
    }
    Part part{};
    part.n = n;
    part.lookback = lookback;
    part.next_tile = lookback + words - 2;
    part.published_buckets = offsets_buckets;
    PRIM_TRY(launch_overlapped(overlap, downsweep, dim3(static_cast<unsigned>(grid)), dim3(P::BLOCK_THREADS), kSmem,
                               stream, keys_in, keys_out, values_in, values_out, part, num_buckets, bucket_of,
                               scanned, bucket_offsets));
    PRIM_TRY_LAUNCH();
    return cudaSuccess;
  }
};

// ---- More than 256 buckets, records moved (keys or pairs): two stable 8-bit passes ----
// Pass 1 splits by the bucket's low 8 bits (an out-of-range bucket stays out of range, so pass 1 drops and counts
// it), pass 2 by the rest; both stable, so the result is ordered by bucket and stable inside a bucket (LSD). The
// one-pass 11-bit downsweep is latency-bound (above).
// Costs: the records move twice, through a scratch copy of n.max records; the bucket functor runs several times a
// record (in each pass's upsweep and downsweep, and for the offsets). split_index, whose output is a permutation of
// the input, sends (bucket, index) pairs through these passes (split_index_two_passes.cuh).

// From this many records on the search is the cheaper of the two. Its cost barely grows with the count (a load
// more each time the count doubles), while the sweep reads every record: at 2^26 u32 keys that read is 268 MB.
constexpr int64_t kSearchedBucketOffsetsFrom = int64_t{1} << 23;

// The grid of a kernel that walks `items` with a thread each (grid-stride): blocks of 256, at most eight an SM.
inline cudaError_t grid_stride_blocks(int64_t items, unsigned& blocks) {
  int device = 0, sms = 0;
  PRIM_TRY(cudaGetDevice(&device));
  PRIM_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const int64_t wanted = std::min<int64_t>(ceil_div(items, 256), int64_t{sms} * 8);
  blocks = static_cast<unsigned>(std::max<int64_t>(1, wanted));
  return cudaSuccess;
}

// The bucket offsets of the *d_count valid records that `sorted` holds (at most max_count), sorted by bucket.
template <class KeyT, class BucketOp>
cudaError_t launch_sorted_bucket_offsets(const KeyT* sorted, int64_t max_count, const uint64_t* d_count,
                                         uint32_t num_buckets, BucketOp bucket_of, uint64_t* offsets,
                                         cudaStream_t stream) {
  if (max_count >= kSearchedBucketOffsetsFrom) {
    const unsigned blocks = static_cast<unsigned>(ceil_div(int64_t{num_buckets} + 1, 128));
    searched_bucket_offsets_kernel<<<blocks, 128, 0, stream>>>(sorted, d_count, num_buckets, bucket_of, offsets);
    PRIM_TRY_LAUNCH();
    return cudaSuccess;
  }
  unsigned blocks = 1;
  PRIM_TRY(grid_stride_blocks(max_count + 1, blocks));  // positions 0..count
  sorted_bucket_offsets_kernel<<<blocks, 256, 0, stream>>>(sorted, d_count, num_buckets, bucket_of, offsets);
  PRIM_TRY_LAUNCH();
  return cudaSuccess;
}

template <SplitOutput OUT, class KeyT, class ValueT, class BucketOp>
cudaError_t dispatch_split_two_passes(void* d_temp, size_t& temp_bytes, const KeyT* keys_in, KeyT* keys_out,
                                      const ValueT* values_in, ValueT* values_out, ItemCount n, uint32_t num_buckets,
                                      BucketOp bucket_of, uint64_t* d_bucket_offsets, cudaStream_t stream,
                                      uint64_t* d_num_invalid) {
  static_assert(OUT == SplitOutput::keys || OUT == SplitOutput::pairs, "two passes move records");
  constexpr bool kPairs = OUT == SplitOutput::pairs;
  const BucketByteOrSink<BucketOp> low{{bucket_of, num_buckets}, 0};
  const BucketByteOrSink<BucketOp> high{{bucket_of, num_buckets}, 8};  // pass 2 meets no out-of-range bucket
  const uint32_t high_buckets = (num_buckets + 255) / 256;

  TempCarver carver(d_temp);
  KeyT* mid_keys = carver.take<KeyT>(static_cast<size_t>(n.max));
  ValueT* mid_values = kPairs ? carver.take<ValueT>(static_cast<size_t>(n.max)) : nullptr;
  uint64_t* low_offsets = carver.take<uint64_t>(257);  // [256] = the valid records: pass 2's count
  size_t low_bytes = 0, high_bytes = 0;
  PRIM_TRY((dispatch_split_pass<OUT>(nullptr, low_bytes, keys_in, mid_keys, values_in, mid_values, n, 256, low,
                                      low_offsets, stream, d_num_invalid)));
  const ItemCount valid(n.max, low_offsets + 256);
  PRIM_TRY((dispatch_split_pass<OUT>(nullptr, high_bytes, mid_keys, keys_out, mid_values, values_out, valid,
                                      high_buckets, high, nullptr, stream, nullptr)));
  void* split_temp = carver.take<unsigned char>(std::max(low_bytes, high_bytes));
  bool size_query = false;
  PRIM_TRY(carver.finish(temp_bytes, size_query));
  if (size_query) return cudaSuccess;

  size_t bytes = low_bytes;
  PRIM_TRY((dispatch_split_pass<OUT>(split_temp, bytes, keys_in, mid_keys, values_in, mid_values, n, 256, low,
                                      low_offsets, stream, d_num_invalid)));
  bytes = high_bytes;
  PRIM_TRY((dispatch_split_pass<OUT>(split_temp, bytes, mid_keys, keys_out, mid_values, values_out, valid,
                                      high_buckets, high, nullptr, stream, nullptr)));
  if (d_bucket_offsets == nullptr) return cudaSuccess;
  return launch_sorted_bucket_offsets(keys_out, n.max, low_offsets + 256, num_buckets, bucket_of, d_bucket_offsets,
                                      stream);
}

// The split's own route: one 8-bit pass, or two above 256 buckets. prim::split takes it for more than 2^30 - 1 records
// or more than 256 buckets, in either order (a stable split is also a valid unstable one); split_index and the LSD
// splits' fallback call it too. A downsweep of the unstable order's own (warp-aggregated shared-memory atomics a
// tile) was slower than the stable one with 256 buckets.
template <SplitOutput OUT, class KeyT, class ValueT, class BucketOp>
cudaError_t dispatch_split(void* d_temp, size_t& temp_bytes, const KeyT* keys_in, KeyT* keys_out,
                           const ValueT* values_in, ValueT* values_out, ItemCount n, uint32_t num_buckets,
                           BucketOp bucket_of, uint64_t* d_bucket_offsets, cudaStream_t stream,
                           uint64_t* d_num_invalid) {
  if (num_buckets == 0 || num_buckets > kMaxSplitBuckets || n.max < 0) return cudaErrorInvalidValue;
  if (num_buckets <= 256) {
    return dispatch_split_pass<OUT>(d_temp, temp_bytes, keys_in, keys_out, values_in, values_out, n, num_buckets,
                                    bucket_of, d_bucket_offsets, stream, d_num_invalid);
  }
  if constexpr (OUT == SplitOutput::keys || OUT == SplitOutput::pairs) {  // either order: two stable passes
    return dispatch_split_two_passes<OUT>(d_temp, temp_bytes, keys_in, keys_out, values_in, values_out, n,
                                          num_buckets, bucket_of, d_bucket_offsets, stream, d_num_invalid);
  } else {
    return cudaErrorInvalidValue;  // split_index routes more than 256 buckets to split_index_two_passes
  }
}

}  // namespace detail
}  // namespace prim
