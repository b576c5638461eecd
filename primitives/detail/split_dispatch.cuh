// Host dispatch of the split engine: picks the radix width from num_buckets and the downsweep from the split order,
// plans the grid, carves the scratch blob (two-phase, TempCarver) and launches upsweep -> spine scan -> downsweep
// on the caller's stream.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cub/device/device_scan.cuh>
#include <type_traits>

#include "detail/bits.h"
#include "detail/split_agent.cuh"
#include "detail/split_types.cuh"
#include "detail/split_unstable_agent.cuh"
#include "prim/error.h"
#include "prim/item_count.h"
#include "prim/temp_storage.h"

namespace prim {
namespace detail {

// One pass handles up to 2^11 buckets: <= 256 with an 8-bit ranker, <= 2048 with an 11-bit ranker in dynamic
// shared memory (chosen over two 8-bit passes, which would move every record twice). Measured in session 10 (H100,
// 2^26 u32 pairs, 2048 buckets): 6.6 ms with uniform keys, 1.9 ms with low-entropy keys, where CUB sorts the same
// 11 bits in 1.16 ms and two 8-bit passes would take about 2 x 0.8 ms: 128-thread blocks of 228 registers, two an
// SM, leave the 11-bit downsweep latency-bound (docs/bench/README.md, "Session 10", 2048 buckets).
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

// The downsweep of one split order: the stable agent (block-wide stable rank) or the unstable one (warp-aggregated
// atomics, split_unstable_agent.cuh). Only the chosen one is instantiated. Both use the policy's tile and the same
// partition, so they read the same upsweep table.
template <SplitOrder ORDER, class Policy, SplitOutput OUT, class KeyT, class ValueT, class BucketOp, class Partition>
struct SplitDownsweepFor {
  using Agent = std::conditional_t<ORDER == SplitOrder::stable,
                                   SplitDownsweepAgent<Policy, OUT, KeyT, ValueT, BucketOp, Partition>,
                                   SplitUnstableDownsweepAgent<Policy, OUT, KeyT, ValueT, BucketOp, Partition>>;
  static auto kernel() {
    if constexpr (ORDER == SplitOrder::stable) {
      return split_downsweep_kernel<Policy, OUT, KeyT, ValueT, BucketOp, Partition>;
    } else {
      return split_unstable_downsweep_kernel<Policy, OUT, KeyT, ValueT, BucketOp, Partition>;
    }
  }
};

template <int RADIX_BITS, SplitOrder ORDER, SplitOutput OUT, class KeyT, class ValueT, class BucketOp>
cudaError_t dispatch_split_bits(void* d_temp, size_t& temp_bytes, const KeyT* keys_in, KeyT* keys_out,
                                const ValueT* values_in, ValueT* values_out, ItemCount n, uint32_t num_buckets,
                                BucketOp bucket_of, uint64_t* d_bucket_offsets, cudaStream_t stream,
                                uint64_t* d_num_invalid) {
  constexpr size_t kRecordBytes = sizeof(KeyT) > sizeof(ValueT) ? sizeof(KeyT) : sizeof(ValueT);
  using Policy = typename SplitPolicyFor<RADIX_BITS, kRecordBytes>::type;
  // The 8-bit downsweeps claim tiles in input order and find their bases by look-back (TileLookbackPartition); the
  // 11-bit ones walk a chunk a block (a look-back row of 2048 buckets would cost as much as their 2048-record tile).
  constexpr bool kClaimTiles = RADIX_BITS == 8;
  using Partition = std::conditional_t<kClaimTiles, TileLookbackPartition<Policy::TILE_ITEMS>,
                                       EvenSharePartition<Policy::TILE_ITEMS>>;
  using Down = SplitDownsweepFor<ORDER, Policy, OUT, KeyT, ValueT, BucketOp, Partition>;
  auto upsweep = split_upsweep_kernel<Policy, KeyT, BucketOp, Partition>;
  auto downsweep = Down::kernel();
  constexpr size_t kSmem = sizeof(typename Down::Agent::TempStorage);
  constexpr size_t kDefaultSmemLimit = 48 * 1024;

  if (kSmem > kDefaultSmemLimit) {
    PRIM_TRY(cudaFuncSetAttribute(downsweep, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kSmem)));
  }
  const int64_t max_tiles = ceil_div(std::max<int64_t>(n.max, 1), Policy::TILE_ITEMS);
  int grid = 1;
  PRIM_TRY(split_grid_size(downsweep, Policy::BLOCK_THREADS, kSmem, Policy::BLOCKS_PER_SM, max_tiles, grid));

  // counts[bucket][upsweep block] (+1 zero entry that scans into the total), its exclusive scan, the scan's scratch.
  const int upsweep_grid = grid * Partition::kUpsweepBlocksPerChunk;
  const int64_t table = int64_t{num_buckets} * upsweep_grid + 1;
  TempCarver carver(d_temp);
  uint64_t* counts = carver.take<uint64_t>(static_cast<size_t>(table));
  uint64_t* scanned = carver.take<uint64_t>(static_cast<size_t>(table));
  size_t scan_bytes = 0;
  PRIM_TRY(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, counts, scanned, table, stream));
  void* scan_temp = carver.take<unsigned char>(scan_bytes);
  uint32_t* lookback = nullptr;
  uint32_t* next_tile = nullptr;
  if constexpr (kClaimTiles) {
    // A chunk's look-back sums must fit their 30-bit field (a chunk of more than 2^30 records needs > 2^38 in all).
    if (ceil_div(max_tiles, grid) * Policy::TILE_ITEMS > Partition::kMaxChunkRecords) return cudaErrorInvalidValue;
    lookback = carver.take<uint32_t>(static_cast<size_t>(max_tiles * num_buckets));
    next_tile = carver.take<uint32_t>(1);
  }
  bool size_query = false;
  PRIM_TRY(carver.finish(temp_bytes, size_query));
  if (size_query) return cudaSuccess;

  // ---- upsweep: per-chunk bucket histogram ----
  Partition partition{n};
  if constexpr (kClaimTiles) {
    partition.lookback = lookback;
    partition.next_tile = next_tile;
    partition.chunks = grid;
  }
  upsweep<<<upsweep_grid, Policy::BLOCK_THREADS, 0, stream>>>(keys_in, partition, num_buckets, bucket_of, counts,
                                                              d_num_invalid);
  PRIM_TRY_LAUNCH();
  // ---- spine: exclusive scan of the bucket-major table ----
  PRIM_TRY(cub::DeviceScan::ExclusiveSum(scan_temp, scan_bytes, counts, scanned, table, stream));
  // ---- downsweep: rank (stable or unstable), exchange, scatter ----
  downsweep<<<grid, Policy::BLOCK_THREADS, kSmem, stream>>>(keys_in, keys_out, values_in, values_out, partition,
                                                              num_buckets, bucket_of, scanned, d_bucket_offsets);
  PRIM_TRY_LAUNCH();
  return cudaSuccess;
}

// The library's own callers (sort passes, split_index, the hierarchical and LSD splits) need the stable order and
// take the default, so they never instantiate the unstable kernels.
template <SplitOutput OUT, class KeyT, class ValueT, SplitOrder ORDER = SplitOrder::stable, class BucketOp>
cudaError_t dispatch_split(void* d_temp, size_t& temp_bytes, const KeyT* keys_in, KeyT* keys_out,
                           const ValueT* values_in, ValueT* values_out, ItemCount n, uint32_t num_buckets,
                           BucketOp bucket_of, uint64_t* d_bucket_offsets, cudaStream_t stream,
                           uint64_t* d_num_invalid) {
  if (num_buckets == 0 || num_buckets > kMaxSplitBuckets || n.max < 0) return cudaErrorInvalidValue;
  if (num_buckets <= 256) {
    return dispatch_split_bits<8, ORDER, OUT>(d_temp, temp_bytes, keys_in, keys_out, values_in, values_out, n,
                                              num_buckets, bucket_of, d_bucket_offsets, stream, d_num_invalid);
  }
  return dispatch_split_bits<11, ORDER, OUT>(d_temp, temp_bytes, keys_in, keys_out, values_in, values_out, n,
                                             num_buckets, bucket_of, d_bucket_offsets, stream, d_num_invalid);
}

// prim::split / split_pairs take the order at run time; each order has its own kernels (and, through its kernel's
// occupancy, possibly its own grid and scratch size: query with the order you call with).
template <SplitOutput OUT, class KeyT, class ValueT, class BucketOp>
cudaError_t dispatch_split_in_order(SplitOrder order, void* d_temp, size_t& temp_bytes, const KeyT* keys_in,
                                    KeyT* keys_out, const ValueT* values_in, ValueT* values_out, ItemCount n,
                                    uint32_t num_buckets, BucketOp bucket_of, uint64_t* d_bucket_offsets,
                                    cudaStream_t stream, uint64_t* d_num_invalid) {
  if (order == SplitOrder::unstable) {
    return dispatch_split<OUT, KeyT, ValueT, SplitOrder::unstable>(d_temp, temp_bytes, keys_in, keys_out, values_in,
                                                                   values_out, n, num_buckets, bucket_of,
                                                                   d_bucket_offsets, stream, d_num_invalid);
  }
  return dispatch_split<OUT, KeyT, ValueT, SplitOrder::stable>(d_temp, temp_bytes, keys_in, keys_out, values_in,
                                                               values_out, n, num_buckets, bucket_of,
                                                               d_bucket_offsets, stream, d_num_invalid);
}

}  // namespace detail
}  // namespace prim
