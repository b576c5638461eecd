// The two-level (MSD, "hierarchical") iterative split of thesis ch. 4.3.
//
//   level 1  one global stable split by the top hi = min(11, id_bits) bits of the id (<= 2048 buckets). On a
//            spread-out id distribution this leaves segments of about n / 2^hi records.
//   level 2  every segment is split by its low lo = id_bits - hi bits on its own:
//            * a segment of at most LOCAL_TILE records is sorted by one block entirely in shared memory (CUB's
//              BlockRadixSort on (low bits, local index), then a coalesced write): one read and one write,
//              however many low bits there are;
//            * a larger segment takes 8-bit segmented LSD passes through the split engine with the
//              SegmentedPartition (a segment gets ceil(size / chunk) blocks; segments handled locally get none).
// So ids of up to ~22 bits cost two passes over the data when the segments fit in shared memory (8M uniformly
// spread records of 4 bytes), where the LSD variant costs ceil(id_bits / 8) passes.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>

#include "detail/bits.h"
#include "detail/split_agent.cuh"
#include "detail/split_dispatch.cuh"
#include "detail/split_lsd.cuh"
#include "detail/split_lsd.cuh"
#include "prim/error.h"
#include "prim/item_count.h"
#include "prim/temp_storage.h"

namespace prim {
namespace detail {

// Level 1 splits into up to 2048 segments: since session 10 the split runs more than 256 buckets as two 8-bit
// passes, so level 1 moves the records twice, through a scratch copy of them. It is prim::split's own dispatch
// (split_lsd.cuh): below 2^30 records, two LSD passes of the one-sweep route (since session 18; H100, 2^26 u32 keys,
// 12-bit ids: 1.81-1.83 -> 1.57-1.59 ms for the whole hierarchical split, call h).
constexpr int kHierarchicalTopBits = 11;
constexpr int kLocalSortThreads = 256;
constexpr int kPlanThreads = 1024;

// Shared memory of the local sort: the staged records plus BlockRadixSort's key exchange, ~40 KiB per block.
constexpr int kLocalSortBudgetBytes = 40 * 1024;

template <size_t RECORD_BYTES, size_t KEY_BYTES>
struct LocalSortPolicy {
  static constexpr int BLOCK_THREADS = kLocalSortThreads;
  static constexpr int ITEMS_PER_THREAD = [] {
    const int fit = static_cast<int>(kLocalSortBudgetBytes / (kLocalSortThreads * (RECORD_BYTES + KEY_BYTES)));
    return fit < 1 ? 1 : (fit > 16 ? 16 : fit);
  }();
  static constexpr int TILE_ITEMS = BLOCK_THREADS * ITEMS_PER_THREAD;
};

// Records per block of a large segment in the segmented LSD passes.
constexpr int64_t kSegmentChunkTiles = 8;

// Blocks per segment for the segmented passes: 0 for a segment the local sort handles, else ceil(size / chunk).
// One block scans the segment table (num_segments <= 2048).
__global__ void __launch_bounds__(kPlanThreads)
    hierarchical_plan_kernel(const uint64_t* seg_offsets, uint32_t num_segments, int64_t local_capacity,
                             int64_t chunk_items, uint32_t* block_first) {
  using Scan = cub::BlockScan<uint32_t, kPlanThreads>;
  __shared__ typename Scan::TempStorage temp;
  __shared__ uint32_t carry;
  if (threadIdx.x == 0) carry = 0;
  __syncthreads();
  for (uint32_t base = 0; base < num_segments; base += kPlanThreads) {
    const uint32_t s = base + threadIdx.x;
    uint32_t blocks = 0;
    if (s < num_segments) {
      const int64_t size = static_cast<int64_t>(seg_offsets[s + 1] - seg_offsets[s]);
      blocks = size > local_capacity ? static_cast<uint32_t>((size + chunk_items - 1) / chunk_items) : 0;
    }
    uint32_t first = 0, total = 0;
    Scan(temp).ExclusiveSum(blocks, first, total);
    if (s < num_segments) block_first[s] = carry + first;
    __syncthreads();
    if (threadIdx.x == 0) carry += total;
    __syncthreads();
  }
  if (threadIdx.x == 0) block_first[num_segments] = carry;
}

// Level 2 for small segments: one block sorts one segment by the low bits of the id, in shared memory.
// In place (src == dst) is safe: the block reads its whole segment before writing any of it.
template <class Policy, class T, class LoKey, class IdOp>
__global__ void __launch_bounds__(Policy::BLOCK_THREADS)
    hierarchical_local_sort_kernel(const T* src, T* dst, const uint64_t* seg_offsets, IdOp id_of, int lo_bits) {
  constexpr int IPT = Policy::ITEMS_PER_THREAD;
  constexpr int TILE = Policy::TILE_ITEMS;
  using Sort = cub::BlockRadixSort<LoKey, Policy::BLOCK_THREADS, IPT, uint32_t>;
  __shared__ typename Sort::TempStorage sort_temp;
  __shared__ alignas(16) unsigned char staged_bytes[TILE * sizeof(T)];  // raw: T need not be default-constructible
  T* staged = reinterpret_cast<T*>(staged_bytes);

  const int64_t begin = static_cast<int64_t>(seg_offsets[blockIdx.x]);
  const int64_t size = static_cast<int64_t>(seg_offsets[blockIdx.x + 1]) - begin;
  if (size > TILE || size == 0) return;  // empty, or taken by the segmented passes
  const int items = static_cast<int>(size);

  // Blocked arrangement (BlockRadixSort's input). Past the end: key 2^lo_bits, sorted behind every record.
  LoKey keys[IPT];
  uint32_t index[IPT];
  const LoKey lo_mask = (LoKey{1} << lo_bits) - 1;
#pragma unroll
  for (int k = 0; k < IPT; ++k) {
    const int j = threadIdx.x * IPT + k;
    index[k] = j;
    if (j < items) {
      const T record = src[begin + j];
      staged[j] = record;
      keys[k] = static_cast<LoKey>(id_of(record)) & lo_mask;
    } else {
      keys[k] = lo_mask + 1;
    }
  }
  Sort(sort_temp).SortBlockedToStriped(keys, index, 0, lo_bits + 1);  // has barriers: staged[] is complete
#pragma unroll
  for (int k = 0; k < IPT; ++k) {
    const int i = k * Policy::BLOCK_THREADS + threadIdx.x;
    if (i < items) dst[begin + i] = staged[index[k]];
  }
}

// Two levels; LoKey (uint32_t or uint64_t) holds the low lo_bits of an id in the local sort.
template <class LoKey, class T, class IdOp>
cudaError_t hierarchical_split_two_level(void* d_temp, size_t& temp_bytes, const T* d_in, T* d_out, ItemCount n,
                                         int id_bits, IdOp id_of, cudaStream_t stream, uint64_t* d_num_invalid) {
  const int hi_bits = std::min(kHierarchicalTopBits, id_bits);
  const int lo_bits = id_bits - hi_bits;
  const uint32_t num_segments = uint32_t{1} << hi_bits;
  const IdDigit<IdOp> top{id_of, lo_bits, hi_bits, id_bits};  // level 1: the top bits, with the validity check
  using Local = LocalSortPolicy<sizeof(T), sizeof(LoKey)>;
  constexpr int kDigitRadix = 8;
  constexpr uint32_t kPassBuckets = 1u << kDigitRadix;
  using SegPolicy = typename SplitPolicyFor<kDigitRadix, sizeof(T)>::type;
  using Partition = SegmentedPartition;
  using LowDigit = IdDigit<IdOp>;
  const int lo_passes = passes_for_bits(lo_bits, kDigitRadix);
  const int64_t chunk_items = kSegmentChunkTiles * SegPolicy::TILE_ITEMS;
  // Blocks of the segmented passes: every segment larger than the local tile gets ceil(size / chunk) <= size /
  // chunk + 1 blocks, and there are at most n / local_tile such segments.
  const int64_t max_big_segments = std::min<int64_t>(num_segments, ceil_div(std::max<int64_t>(n.max, 1),
                                                                             Local::TILE_ITEMS + 1));
  const int64_t seg_grid64 = ceil_div(std::max<int64_t>(n.max, 1), chunk_items) + max_big_segments;
  const int seg_grid = static_cast<int>(std::max<int64_t>(1, seg_grid64));
  const int64_t table = int64_t{kPassBuckets} * seg_grid + 1;

  TempCarver carver(d_temp);
  T* alt = carver.take<T>(static_cast<size_t>(n.max));
  uint64_t* seg_offsets = carver.take<uint64_t>(num_segments + 1);
  uint32_t* block_first = carver.take<uint32_t>(num_segments + 1);
  uint64_t* counts = carver.take<uint64_t>(static_cast<size_t>(table));
  uint64_t* scanned = carver.take<uint64_t>(static_cast<size_t>(table));
  size_t scan_bytes = 0;
  PRIM_TRY(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, counts, scanned, table, stream));
  void* scan_temp = carver.take<unsigned char>(scan_bytes);
  size_t level1_bytes = 0;
  PRIM_TRY((dispatch_split_of_any_functor<SplitOutput::keys, T, NoValue>(
      SplitOrder::stable, nullptr, level1_bytes, d_in, d_out, static_cast<const NoValue*>(nullptr),
      static_cast<NoValue*>(nullptr), n, num_segments, top, seg_offsets, stream, d_num_invalid)));
  void* level1_temp = carver.take<unsigned char>(level1_bytes);
  bool size_query = false;
  PRIM_TRY(carver.finish(temp_bytes, size_query));
  if (size_query) return cudaSuccess;

  // ---- level 1: global split by the top bits. Its destination is chosen so that the big segments' passes,
  //      which ping-pong, end in d_out. ----
  T* level1_out = lo_passes % 2 == 1 ? alt : d_out;
  PRIM_TRY((dispatch_split_of_any_functor<SplitOutput::keys, T, NoValue>(
      SplitOrder::stable, level1_temp, level1_bytes, d_in, level1_out, static_cast<const NoValue*>(nullptr),
      static_cast<NoValue*>(nullptr), n, num_segments, top, seg_offsets, stream, d_num_invalid)));

  // ---- level 2a: small segments, one block each, sorted in shared memory ----
  hierarchical_local_sort_kernel<Local, T, LoKey, IdOp>
      <<<num_segments, Local::BLOCK_THREADS, 0, stream>>>(level1_out, d_out, seg_offsets, id_of, lo_bits);
  PRIM_TRY_LAUNCH();

  // ---- level 2b: large segments, 8-bit segmented LSD passes over the low bits ----
  hierarchical_plan_kernel<<<1, kPlanThreads, 0, stream>>>(seg_offsets, num_segments, Local::TILE_ITEMS,
                                                           chunk_items, block_first);
  PRIM_TRY_LAUNCH();
  using Down = SplitDownsweepAgent<SegPolicy, SplitOutput::keys, T, NoValue, LowDigit, Partition>;
  auto upsweep = split_upsweep_kernel<SegPolicy, T, LowDigit, Partition>;
  auto downsweep = split_downsweep_kernel<SegPolicy, SplitOutput::keys, T, NoValue, LowDigit, Partition>;
  constexpr size_t kSmem = sizeof(typename Down::TempStorage);
  if (kSmem > 48 * 1024) {
    PRIM_TRY(cudaFuncSetAttribute(downsweep, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kSmem)));
  }
  const Partition partition{seg_offsets, block_first, num_segments};
  const T* src = level1_out;
  for (int pass = 0; pass < lo_passes; ++pass) {
    T* dst = (lo_passes - 1 - pass) % 2 == 0 ? d_out : alt;
    const int bits = std::min(kDigitRadix, lo_bits - pass * kDigitRadix);
    const LowDigit digit{id_of, pass * kDigitRadix, bits, -1};
    // Every pass uses the full 256-entry stride per block so that the table layout does not change.
    upsweep<<<seg_grid, SegPolicy::BLOCK_THREADS, 0, stream>>>(src, partition, kPassBuckets, digit, counts, nullptr);
    PRIM_TRY_LAUNCH();
    PRIM_TRY(cub::DeviceScan::ExclusiveSum(scan_temp, scan_bytes, counts, scanned, table, stream));
    downsweep<<<seg_grid, SegPolicy::BLOCK_THREADS, kSmem, stream>>>(src, dst, static_cast<const NoValue*>(nullptr),
                                                                     static_cast<NoValue*>(nullptr), partition,
                                                                     kPassBuckets, digit, scanned, nullptr);
    PRIM_TRY_LAUNCH();
    src = dst;
  }
  return cudaSuccess;
}

template <class T, class IdOp>
cudaError_t hierarchical_split(void* d_temp, size_t& temp_bytes, const T* d_in, T* d_out, ItemCount n, int id_bits,
                               IdOp id_of, cudaStream_t stream, uint64_t* d_num_invalid) {
  if (n.max < 0 || id_bits < 0 || id_bits > 64) return cudaErrorInvalidValue;
  if (id_bits <= kHierarchicalTopBits) {  // one level suffices: a single split by the whole id
    const IdDigit<IdOp> whole{id_of, 0, id_bits, id_bits};
    return dispatch_split_of_any_functor<SplitOutput::keys, T, NoValue>(
        SplitOrder::stable, d_temp, temp_bytes, d_in, d_out, static_cast<const NoValue*>(nullptr),
        static_cast<NoValue*>(nullptr), n, uint32_t{1} << id_bits, whole, nullptr, stream, d_num_invalid);
  }
  // The local sort ranks lo_bits + 1 bits (one more for "past the end of the segment").
  if (id_bits - kHierarchicalTopBits + 1 <= 32) {
    return hierarchical_split_two_level<uint32_t>(d_temp, temp_bytes, d_in, d_out, n, id_bits, id_of, stream,
                                                  d_num_invalid);
  }
  return hierarchical_split_two_level<uint64_t>(d_temp, temp_bytes, d_in, d_out, n, id_bits, id_of, stream,
                                                d_num_invalid);
}

}  // namespace detail
}  // namespace prim
