// The segmented split's path for large segments: the split engine (agent/split_*.cuh) with a partition that cuts
// every large segment into parts of a few tiles, one block a part.
//
// Why. The tile engine (segmented_split_dispatch.cuh) sorts every tile by (segment, bucket) with two block radix
// sort passes and scatters its records one by one; for a segment spanning many tiles that is two rank passes and
// runs of a few records per bucket and tile. The split engine ranks by the bucket in one pass, with chunks of
// several tiles per block, and writes every bucket's run of a tile through shared memory.
//
// Windows. The input is cut into windows of W records (kLargeSegmentWindowTiles split tiles). A segment of more
// than W records is *large*; it always spans two windows or more, and a window holds parts of at most two large
// segments: "A", begun in an earlier window, holding the window's first record, and "B", begun in this window and
// holding its last record. Block 2j + 0 takes window j's A part, block 2j + 1 its B part; so a large segment gets
// one part (block) for every window it touches, and its parts share its tiles evenly (assign). The table slots follow
// the tile engine's layout: large segment s over windows t0..t1 owns slots [2*t0+1, 2*t1], bucket-major inside its
// range, with K entries per (slot, bucket), one per upsweep block of the part (entry K*(B*(2*t0+1) + b*L + slot -
// (2*t0+1)) + k, L = 2*(t1-t0)), so that one exclusive scan over the table gives every (segment, bucket, part) its
// place; slots no large segment owns, and the B slots in a segment's middle, hold zeros. The tile engine leaves the
// large segments' records out of its tiles.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <limits>

#include "prim/detail/block/segmented_search.cuh"
#include "prim/detail/core/bits.h"
#include "prim/detail/dispatch/device_count_scan.cuh"
#include "prim/detail/core/overlapped_launch.cuh"
#include "prim/detail/kernels/split_kernels.cuh"
#include "prim/detail/core/error.h"
#include "prim/detail/core/temp_storage.h"

namespace prim {
namespace detail {

// Split tiles per window. Eight keep a block's fixed costs (its table row, its partial last tile) small against its
// records, and still make segments of 2^16 four-byte records (the benchmark's) large. Measured on the H100 (2^26 u32
// keys in segments of 2^16, 256 buckets): 4 tiles 0.852 ms, 8 tiles 0.816 ms, 10 tiles 0.822 ms.
constexpr int64_t kLargeSegmentWindowTiles = 8;

// Upsweep blocks per part (K). A part is 5-6 tiles for segments of 2^16 keys; with one block a part the upsweep
// ran 4.1 waves of blocks and its last was mostly empty. H100, 2^26 u32 keys, 256 buckets, K = 1 / 2 / 4: segments
// of 2^16 0.796 / 0.780-0.783 / 0.810 ms (the upsweep 155 -> 131 µs with K = 2); segments of 2^8, where every block
// of the path is idle, 0.975 / 0.982-0.990 / 1.001-1.017 ms.
constexpr int64_t kLargeSegmentUpsweepBlocks = 2;

// The split engine's policy for this path: the plain split's, by the radix width the bucket count needs.
template <int RADIX_BITS, class KeyT, class ValueT>
using LargeSegmentPolicy =
    typename SplitPolicyFor<RADIX_BITS, (sizeof(KeyT) > sizeof(ValueT) ? sizeof(KeyT) : sizeof(ValueT))>::type;

template <class KeyT, class ValueT>
constexpr int64_t large_segment_window(uint32_t num_buckets) {
  return kLargeSegmentWindowTiles * (num_buckets <= 256 ? LargeSegmentPolicy<8, KeyT, ValueT>::TILE_ITEMS
                                                        : LargeSegmentPolicy<11, KeyT, ValueT>::TILE_ITEMS);
}

// Where the parts of the large segments lie: one warp finds the part of a slot (a block of the path).
struct LargeSegmentLocator {
  const uint64_t* offsets;  // [num_segments + 1]
  int64_t num_segments;
  int64_t max_items;
  int64_t window;       // W (kLargeSegmentWindowTiles split tiles): the parts' windows
  int64_t tile;         // records per split tile
  int64_t large_above;  // a segment of more records than this (>= W) is large; the cluster path takes shorter ones

  // Block `slot` = 2j + part of the path (warp-cooperative: every lane gets the answer).
  __device__ __forceinline__ BlockWork find_part(int64_t slot, uint32_t num_buckets) const {
    const int64_t j = slot / 2;
    BlockWork w;  // no records; by default the slot's zero entries, K * (B * slot + b) + k
    w.table_base = kLargeSegmentUpsweepBlocks * int64_t{num_buckets} * slot;
    if (!segmented_input_ok(offsets, num_segments, max_items)) return w;
    const uint64_t total = offsets[num_segments];
    const uint64_t x0 = static_cast<uint64_t>(j) * static_cast<uint64_t>(window);
    if (x0 >= total) return w;
    const uint64_t x1 = x0 + window < total ? x0 + window : total;
    const int64_t sa = warp_upper_bound(offsets, num_segments + 1, x0) - 1;  // holds x0
    const uint64_t a_start = offsets[sa];
    const uint64_t a_end = offsets[sa + 1];
    const bool a_large = a_start < x0 && a_end - a_start > static_cast<uint64_t>(large_above);
    if (slot % 2 == 0) {
      if (a_large) assign(w, sa, a_start, a_end, slot, true, num_buckets);
      return w;
    }
    const int64_t sb = warp_upper_bound(offsets, num_segments + 1, x1 - 1) - 1;  // holds x1 - 1
    const uint64_t b_start = offsets[sb];
    const uint64_t b_end = offsets[sb + 1];
    if (b_start >= x0 && b_end - b_start > static_cast<uint64_t>(large_above)) {
      assign(w, sb, b_start, b_end, slot, true, num_buckets);
    } else if (a_large && a_end > x1) {
      assign(w, sa, a_start, a_end, slot, false, num_buckets);  // A goes on: zeros at this slot of A's range
    }
    return w;
  }

 private:
  // A large segment over windows t0..t1 has P = t1 - t0 + 1 parts: its B part in window t0 (p = 0), its A part in
  // each later window (p = window - t0). The slots fix where a part's counts go; its records are an even share of
  // the segment's tiles, counted from the segment's start: only the segment's last tile is partial, and the parts
  // differ by one tile at most (cutting at the windows left a partial tile in most parts, and parts of a third of a
// window to a whole one: 0.816 against 0.794 ms, H100, 2^26 keys in segments of 2^16).
  __device__ __forceinline__ void assign(BlockWork& w, int64_t s, uint64_t start, uint64_t end, int64_t slot,
                                         bool has_records, uint32_t num_buckets) const {
    const int64_t t0 = static_cast<int64_t>(start / static_cast<uint64_t>(window));
    const int64_t t1 = static_cast<int64_t>((end - 1) / static_cast<uint64_t>(window));
    const int64_t first_slot = 2 * t0 + 1;
    const int64_t size = static_cast<int64_t>(end - start);
    const int64_t tiles = ceil_div(size, tile);
    const int64_t parts = t1 - t0 + 1;
    const int64_t p = slot == first_slot ? 0 : slot / 2 - t0;
    const auto tile_start = [&](int64_t q) {
      const int64_t at = tiles * q / parts * tile;
      return static_cast<int64_t>(start) + (at < size ? at : size);
    };
    w.begin = has_records ? tile_start(p) : static_cast<int64_t>(end);
    w.end = has_records ? tile_start(p + 1) : static_cast<int64_t>(end);
    w.segment_start = static_cast<int64_t>(start);
    w.segment_entry = kLargeSegmentUpsweepBlocks * int64_t{num_buckets} * first_slot;
    w.table_base = w.segment_entry + (slot - first_slot) * kLargeSegmentUpsweepBlocks;
    w.table_stride = 2 * (t1 - t0) * kLargeSegmentUpsweepBlocks;  // a large segment spans two windows or more
    w.table_span = kLargeSegmentUpsweepBlocks;
    if (slot == first_slot) {        // the segment's first part publishes its bucket starts
      w.offsets_row = s * int64_t{num_buckets};
      w.offsets_count = num_buckets;
    }
  }
};

// The path's plan: one warp a slot writes the part its upsweep and downsweep blocks take. Searching the offsets
// in the blocks themselves kept every block's warps waiting on a warp's three dependent loads first.
// A slot of a large segment also sets *table_used (zeroed by the caller) to the table's length: with no large segment
// it stays 0, and the path's kernels and scan do nothing (LargeSegmentPartition::idle).
constexpr int kLargeSegmentPlanWarps = 8;
static __global__ void __launch_bounds__(kLargeSegmentPlanWarps * 32)
    large_segment_plan_kernel(LargeSegmentLocator locator, uint32_t num_buckets, int64_t num_slots, BlockWork* parts,
                              unsigned long long* table_used, int64_t table) {
  wait_for_earlier_kernels();  // first: overlapped_launch.cuh
  const int64_t slot = (int64_t{blockIdx.x} * blockDim.x + threadIdx.x) / 32;
  if (slot >= num_slots) return;  // warp-uniform
  const BlockWork w = locator.find_part(slot, num_buckets);
  if ((threadIdx.x & 31) == 0) {
    parts[slot] = w;
    if (w.segment_entry >= 0) *table_used = static_cast<unsigned long long>(table);  // the same value from every slot
  }
}

// The split engine's partition: downsweep block b takes parts[b]; upsweep block u counts the k-th of K even shares
// of the tiles of parts[u / K] (k = u % K) into the k-th of the part's K entries per bucket.
struct LargeSegmentPartition {
  static constexpr int kUpsweepBlocksPerChunk = kLargeSegmentUpsweepBlocks;
  const BlockWork* parts;
  int64_t tile;  // records per split tile
  const unsigned long long* table_used;  // the plan's: 0 when no segment is large
  // No large segment: every block leaves (an idle upsweep block of 2^26 keys' 5464 wrote its zeros, and the path's
  // three kernels and its scan took 70 us under Nsight Compute with segments of 2^16, all the cluster path's).
  __device__ __forceinline__ bool idle() const { return *table_used == 0; }
  __device__ __forceinline__ BlockWork work(uint32_t /*num_buckets*/) const { return parts[blockIdx.x]; }
  __device__ __forceinline__ BlockWork upsweep_work(uint32_t num_buckets) const {
    constexpr int64_t K = kUpsweepBlocksPerChunk;
    const int64_t k = blockIdx.x % K;
    BlockWork w = parts[blockIdx.x / K];
    if (w.segment_entry < 0) {  // a slot no large segment owns: its K * B zero entries, B a block
      w.table_base += k * num_buckets;
      w.table_stride = 1;
      return w;
    }
    const int64_t tiles = ceil_div(w.end - w.begin, tile);
    const int64_t first = w.begin + tiles * k / K * tile;
    const int64_t last = w.begin + tiles * (k + 1) / K * tile;
    w.begin = first < w.end ? first : w.end;
    w.end = last < w.end ? last : w.end;
    w.table_base += k;
    return w;
  }
  __device__ __forceinline__ uint64_t overflow_invalid() const { return 0; }  // the tile engine counts it
};

// Scratch and launches of the path for one call: windows of W records, 2 blocks (parts) a window.
struct LargeSegmentScratch {
  int64_t grid = 0;  // 0: the path is off (no segment can be large)
  BlockWork* parts = nullptr;
  int64_t table = 0;
  uint64_t* counts = nullptr;  // scanned in place, over the plan's table_used entries
  unsigned long long* table_used = nullptr;
  uint64_t* scan_partials = nullptr;
};

// Carves the path's scratch; with max_items <= window no segment can be large and the path costs nothing.
// table_used: a word of the caller's, zeroed before the path's launches (the segmented split zeroes its three
// paths' words in one memset).
inline cudaError_t carve_large_segment_scratch(TempCarver& carver, int64_t max_items, int64_t window,
                                               uint32_t num_buckets, unsigned long long* table_used,
                                               LargeSegmentScratch& out) {
  out = LargeSegmentScratch{};
  if (max_items <= window) return cudaSuccess;
  out.grid = 2 * ceil_div(max_items, window);
  if (out.grid * kLargeSegmentUpsweepBlocks > int64_t{std::numeric_limits<int32_t>::max()}) {
    return cudaErrorInvalidValue;
  }
  out.parts = carver.take<BlockWork>(static_cast<size_t>(out.grid));
  out.table = kLargeSegmentUpsweepBlocks * int64_t{num_buckets} * out.grid + 1;  // + a zero: scans into the total
  out.counts = carver.take<uint64_t>(static_cast<size_t>(out.table));
  out.table_used = table_used;
  out.scan_partials = carver.take<uint64_t>(device_count_scan_partials<uint64_t>(out.table));
  return cudaSuccess;
}

template <int RADIX_BITS, SplitOutput OUT, class KeyT, class ValueT, class BucketOp>
cudaError_t launch_large_segment_split_bits(const LargeSegmentScratch& scratch, const KeyT* keys_in, KeyT* keys_out,
                                            const ValueT* values_in, ValueT* values_out,
                                            const uint64_t* d_segment_offsets, int64_t num_segments,
                                            int64_t max_items, int64_t large_above, uint32_t num_buckets,
                                            BucketOp bucket_of, uint64_t* d_bucket_offsets, cudaStream_t stream,
                                            uint64_t* d_num_invalid, bool overlap) {
  using Policy = LargeSegmentPolicy<RADIX_BITS, KeyT, ValueT>;
  using Down = SplitDownsweepAgent<Policy, OUT, KeyT, ValueT, BucketOp, LargeSegmentPartition>;
  auto upsweep = split_upsweep_kernel<Policy, KeyT, BucketOp, LargeSegmentPartition>;
  auto downsweep = split_downsweep_kernel<Policy, OUT, KeyT, ValueT, BucketOp, LargeSegmentPartition>;
  constexpr size_t kSmem = sizeof(typename Down::TempStorage);
  if (kSmem > 48 * 1024) {
    PRIM_TRY(cudaFuncSetAttribute(downsweep, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kSmem)));
  }
  const LargeSegmentLocator locator{d_segment_offsets, num_segments, max_items,
                                    large_segment_window<KeyT, ValueT>(num_buckets), Policy::TILE_ITEMS,
                                    large_above};
  const unsigned grid = static_cast<unsigned>(scratch.grid);
  const unsigned plan_blocks = static_cast<unsigned>(ceil_div(scratch.grid, kLargeSegmentPlanWarps));
  PRIM_TRY(launch_overlapped(overlap, large_segment_plan_kernel, plan_blocks, kLargeSegmentPlanWarps * 32, 0, stream,
                             locator, num_buckets, scratch.grid, scratch.parts, scratch.table_used, scratch.table));
  const LargeSegmentPartition partition{scratch.parts, Policy::TILE_ITEMS, scratch.table_used};
  const unsigned upsweep_grid = static_cast<unsigned>(scratch.grid * kLargeSegmentUpsweepBlocks);
  PRIM_TRY(launch_overlapped(overlap, upsweep, upsweep_grid, Policy::BLOCK_THREADS, 0, stream, keys_in, partition,
                             num_buckets, bucket_of, scratch.counts, d_num_invalid));
  PRIM_TRY(device_count_exclusive_sum(scratch.counts, reinterpret_cast<const uint64_t*>(scratch.table_used),
                                      scratch.table, scratch.scan_partials, stream, overlap));
  PRIM_TRY(launch_overlapped(overlap, downsweep, grid, Policy::BLOCK_THREADS, kSmem, stream, keys_in, keys_out,
                             values_in, values_out, partition, num_buckets, bucket_of,
                             static_cast<const uint64_t*>(scratch.counts), d_bucket_offsets));
  return cudaSuccess;
}

// The path's launches (none when scratch.grid == 0).
template <SplitOutput OUT, class KeyT, class ValueT, class BucketOp>
cudaError_t launch_large_segment_split(const LargeSegmentScratch& scratch, const KeyT* keys_in, KeyT* keys_out,
                                       const ValueT* values_in, ValueT* values_out, const uint64_t* d_segment_offsets,
                                       int64_t num_segments, int64_t max_items, int64_t large_above,
                                       uint32_t num_buckets, BucketOp bucket_of, uint64_t* d_bucket_offsets,
                                       cudaStream_t stream, uint64_t* d_num_invalid, bool overlap) {
  if (scratch.grid == 0) return cudaSuccess;
  if (num_buckets <= 256) {
    return launch_large_segment_split_bits<8, OUT>(scratch, keys_in, keys_out, values_in, values_out,
                                                   d_segment_offsets, num_segments, max_items, large_above,
                                                   num_buckets, bucket_of, d_bucket_offsets, stream, d_num_invalid,
                                                   overlap);
  }
  return launch_large_segment_split_bits<11, OUT>(scratch, keys_in, keys_out, values_in, values_out,
                                                  d_segment_offsets, num_segments, max_items, large_above,
                                                  num_buckets, bucket_of, d_bucket_offsets, stream, d_num_invalid,
                                                  overlap);
}

}  // namespace detail
}  // namespace prim
