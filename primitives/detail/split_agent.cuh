// The split engine's device side: tile policy, partitions, the upsweep (per-chunk bucket histogram) and the stable
// downsweep (block-wide ranking by bucket, exchange through shared memory, coalesced scatter).
//
// Why this shape (thesis ch. 3/4; CUB's radix passes, the one-sweep look-back among them):
//   * upsweep   — every downsweep block owns one contiguous chunk of tiles (an even share of the input); a few
//                 upsweep blocks count its records per bucket, a part of the chunk each; only the keys are read
//                 and only the bucket functor is evaluated.
//   * spine     — an exclusive scan of the bucket-major table counts[bucket][part] gives every (bucket, block)
//                 pair its first output position (cub::DeviceScan, a building block; the table is small:
//                 num_buckets x a few parts per SM).
//   * downsweep — the plain split (TileLookbackPartition; more than 256 buckets take two 8-bit passes): blocks
//                 claim tiles in input order, one at a time; a tile's output base for a bucket is its chunk's base
//                 from the spine plus the bucket's records in the chunk's earlier tiles, found by decoupled look-back
//                 inside the chunk. In the segmented splits: every block walks its chunk again, tile by tile, keeping
//                 one running output base per bucket in registers. Either way a tile is loaded,
//                 ranked stably by bucket (warp match-any ranking), staged in shared memory in bucket order and
//                 written out with consecutive threads on consecutive addresses.
// The spine stays small (num_buckets x a few parts per SM) because the look-back covers only the tiles inside a
// chunk; the keys are read twice (upsweep + downsweep). Memory traffic per record: key read twice, value read once,
// both written once. The LSD passes of SplitSort and the iterative split skip upsweep and spine: one histogram
// counts every pass first, and each pass's look-back runs over the whole input (GlobalLookbackPartition).
//
// Records whose bucket is out of range, and the unused tail of a partial tile, are ranked under a "sink" digit
// (the last digit of the ranker). When num_buckets < 2^RADIX_BITS the sink digit is not a bucket, so sinks
// sort after every real record and are simply not written. When num_buckets == 2^RADIX_BITS the sink digit is
// the last real bucket; the sinks in front of a real record of that bucket are counted (one ballot per item)
// and subtracted from its rank, so real records still get dense, stable slots.
//
// Why claimed tiles (H100, 2^26 u32 pairs, 256 buckets; docs/bench/README.md, "Session 8" and "Session 10"): when a
// block walks a chunk, a bucket's run that ends inside a 32-byte sector is completed a tile time later, after the
// L2 has written the half sector back, and the downsweep moved 30% more DRAM bytes than the records (1.00 ms).
// Claimed in order, neighbouring tiles are in flight together: CUB's one-sweep bytes, 0.62 ms (CUB's: 0.55 ms).
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <cub/block/block_radix_rank.cuh>
#include <cuda/atomic>
#include <type_traits>
#include <utility>

#include "detail/overlapped_launch.cuh"
#include "prim/item_count.h"

namespace prim {
namespace detail {

// What a downsweep writes.
enum class SplitOutput {
  keys,           // records (keys) only
  pairs,          // keys and values
  gather_index,   // out[pos] = original index (no records moved)
  scatter_index,  // out[original index] = pos (no records moved, no exchange needed)
  // The first pass of split_index into more than 256 buckets (split_index_two_passes.cuh): out[pos] = original index
  // as gather_index, and buckets_out[pos] = the record's whole bucket (16 bits; the pass splits by its low byte), the
  // (bucket, index) pairs that the second pass splits by the bucket's high byte.
  buckets_and_gather_index,
};

// buckets_and_gather_index's pass functor: byte 0 of the bucket, or the sink (split_dispatch.cuh), whose whole bucket
// the pass also writes.
template <class BucketOp>
struct BucketByteOrSink;
template <class BucketOp>
struct IsBucketByteOrSink : std::false_type {};
template <class BucketOp>
struct IsBucketByteOrSink<BucketByteOrSink<BucketOp>> : std::true_type {};

// What a downsweep writes where the keys go: the records themselves, or buckets_and_gather_index's 16-bit buckets.
template <SplitOutput OUT, class KeyT>
using SplitKeysOut = std::conditional_t<OUT == SplitOutput::buckets_and_gather_index, uint16_t, KeyT>;

// Tuning is data: one place for block size, items per thread, radix width.
template <int RADIX_BITS_, int BLOCK_THREADS_, int ITEMS_PER_THREAD_, int BLOCKS_PER_SM_, int MIN_BLOCKS_ = 1>
struct SplitTilePolicy {
  static constexpr int MIN_BLOCKS = MIN_BLOCKS_;  // __launch_bounds__ residency: caps registers per thread
  static constexpr int RADIX_BITS = RADIX_BITS_;
  static constexpr int RADIX_DIGITS = 1 << RADIX_BITS;
  static constexpr int BLOCK_THREADS = BLOCK_THREADS_;
  static constexpr int ITEMS_PER_THREAD = ITEMS_PER_THREAD_;
  static constexpr int TILE_ITEMS = BLOCK_THREADS * ITEMS_PER_THREAD;
  static constexpr int WARP_THREADS = 32;
  static constexpr int WARPS = BLOCK_THREADS / WARP_THREADS;
  static constexpr int WARP_ITEMS = WARP_THREADS * ITEMS_PER_THREAD;
  static constexpr uint32_t SINK_DIGIT = RADIX_DIGITS - 1;
  static constexpr int BLOCKS_PER_SM = BLOCKS_PER_SM_;  // upper bound on the grid: chunks per SM
  static_assert(BLOCK_THREADS % WARP_THREADS == 0, "whole warps only");
};

// Bytes of records staged per tile in shared memory: large records get fewer items per thread so a tile's
// exchange buffer stays within 48 KiB (two blocks per SM) and a thread's records stay in registers.
constexpr int kSplitExchangeBudgetBytes = 48 * 1024;

constexpr int split_items_per_thread(int block_threads, size_t record_bytes, int max_items) {
  const int fit = static_cast<int>(kSplitExchangeBudgetBytes / (static_cast<size_t>(block_threads) * record_bytes));
  return fit < 1 ? 1 : (fit > max_items ? max_items : fit);
}

// RADIX_BITS 8 (<= 256 buckets): 384 threads, up to 16 items each (6144-record tiles of 4-byte records), at most
// 85 registers a thread so that two blocks share an SM (__launch_bounds__(384, 2)). Measured on the H100 (2^26
// u32+u32 pairs, stable 256-way): 1.34 ms, against 1.92 ms for 256 threads x 16 items with no register cap. With
// claimed tiles (session 10): 18 or 20 items helped some rows and spilled in others (SplitSort keys 2.37 -> 2.57 ms
// at 20, the functor split 0.59 -> 0.55 ms); 23, CUB's one-sweep count, spilled 28-72 bytes and lost everywhere.
// RADIX_BITS 11 (<= 2048 buckets): 128 threads, because the match ranker keeps a counter per (digit, warp):
// 2048 x 5 x 4 B = 40 KiB of shared memory already.
template <int RADIX_BITS, size_t RECORD_BYTES>
struct SplitPolicyFor {
  static constexpr int kThreads = RADIX_BITS <= 8 ? 384 : 128;
  using type = SplitTilePolicy<RADIX_BITS, kThreads, split_items_per_thread(kThreads, RECORD_BYTES, 16),
                               RADIX_BITS <= 8 ? 4 : 2, RADIX_BITS <= 8 ? 2 : 1>;
};

struct NoValue {};

// A bucket functor that declares `static constexpr bool kPadsWithAllOnes = true` promises that every record's bucket
// is in range and that the key of all one bits falls in the last bucket (SplitSort's key digits). A partial tile
// of such a split is then padded with that key, as CUB pads its last tile: the padding ranks after every real
// record of the last bucket, so the clean tile's code serves it with a bound on the scatter, and the split's kernel
// has no sink path at all.
template <class BucketOp, class = void>
struct PadsWithAllOnes : std::false_type {};
template <class BucketOp>
struct PadsWithAllOnes<BucketOp, std::void_t<decltype(BucketOp::kPadsWithAllOnes)>>
    : std::integral_constant<bool, BucketOp::kPadsWithAllOnes> {};

template <class T>
__device__ __forceinline__ T all_ones() {
  T out;
  memset(&out, 0xFF, sizeof(T));
  return out;
}

// How a downsweep tile is split (SplitDownsweepAgent::split_tile):
//   clean   — a full tile whose run has no out-of-range record: no bounds, no sinks;
//   padded  — a partial tile of a PadsWithAllOnes functor: the clean code, with all-ones keys past the end;
//   general — anything else: out-of-range records and the unused tail are ranked under the sink digit.
enum class TileKind { clean, padded, general };

// The real element count inside a kernel (device-resident counts are read here, never on the host).
__device__ __forceinline__ int64_t resolve_count(const ItemCount& n) {
  if (n.device == nullptr) return n.max;
  const uint64_t c = *n.device;
  return c <= static_cast<uint64_t>(n.max) ? static_cast<int64_t>(c) : 0;
}

// The records one block of a split kernel owns, and where its bucket counts live in the spine table.
// Table entry of bucket d for this block: table_base + d * table_stride. Its output base for bucket d is
// scanned[that entry] + bias (block_bias). The block's count of bucket d spans table_span consecutive entries from
// there (the upsweep may count a downsweep block's records in several parts).
struct BlockWork {
  int64_t begin = 0;  // records [begin, end)
  int64_t end = 0;
  int64_t table_base = 0;
  int64_t table_stride = 1;
  int64_t table_span = 1;
  // Segmented partitions number a segment's output from its own start: bias = segment_start - scanned[segment_entry]
  // (the scan's value at the segment's first table entry). segment_entry < 0: positions are global, no bias.
  int64_t segment_start = 0;
  int64_t segment_entry = -1;
  // offsets_row >= 0: this block publishes bucket_offsets[offsets_row + d] = the output base of bucket d, for
  // d < offsets_count.
  int64_t offsets_row = -1;
  int64_t offsets_count = 0;
};

__device__ __forceinline__ int64_t block_bias(const uint64_t* __restrict__ scanned, const BlockWork& w) {
  return w.segment_entry < 0 ? 0 : w.segment_start - static_cast<int64_t>(scanned[w.segment_entry]);
}

// The bucket offsets a block publishes (BlockWork::offsets_row).
__device__ __forceinline__ void write_bucket_offsets(const uint64_t* __restrict__ scanned, const BlockWork& w,
                                                     int64_t bias, uint64_t* bucket_offsets) {
  if (w.offsets_row < 0 || bucket_offsets == nullptr) return;
  for (int64_t d = threadIdx.x; d < w.offsets_count; d += blockDim.x) {
    bucket_offsets[w.offsets_row + d] = scanned[w.table_base + d * w.table_stride] + bias;
  }
}

// Even share (the plain split's upsweep and table): chunk b of G holds tiles [T*b/G, T*(b+1)/G) of the T tiles of the
// input (G = the downsweep's grid). The upsweep counts each chunk with kUpsweepBlocksPerChunk blocks, each an even
// share of the chunk's tiles: a
// grid of two blocks an SM left the upsweep at 60% of DRAM bandwidth (Nsight Compute, H100, 2^26 keys), and the
// counting between a block's tiles is then the only overlap. K = 3 measured best of 3, 4 and 6 (session 10, 2^26
// u32 pairs: upsweep 145 / 152 / 152 us, with a cap of 4 or 5 blocks an SM 155-230 us). The table is bucket-major,
// counts[d * G*K + b*K + j] (K = kUpsweepBlocksPerChunk, j the part), so one exclusive scan orders bucket 0 of all
// blocks, then bucket 1, ...
template <int TILE_ITEMS>
struct EvenSharePartition {
  static constexpr int kUpsweepBlocksPerChunk = 3;
  ItemCount n;

  // Tiles [first, last) of part `part` of `parts` of chunk `chunk` of `chunks`, as records, clipped to the count.
  __device__ __forceinline__ static void share(int64_t count, int64_t chunk, int64_t chunks, int64_t part,
                                               int64_t parts, BlockWork& w) {
    const int64_t num_tiles = (count + TILE_ITEMS - 1) / TILE_ITEMS;
    const int64_t t0 = num_tiles * chunk / chunks;
    const int64_t t1 = num_tiles * (chunk + 1) / chunks;
    w.begin = (t0 + (t1 - t0) * part / parts) * TILE_ITEMS;
    w.end = (t0 + (t1 - t0) * (part + 1) / parts) * TILE_ITEMS;
    if (w.end > count) w.end = count;
    if (w.begin > w.end) w.begin = w.end;
  }

  // Upsweep block blockIdx.x of a grid of G * kUpsweepBlocksPerChunk.
  __device__ __forceinline__ BlockWork upsweep_work(uint32_t /*num_buckets*/) const {
    const int64_t grid = gridDim.x;
    BlockWork w;
    share(resolve_count(n), blockIdx.x / kUpsweepBlocksPerChunk, grid / kUpsweepBlocksPerChunk,
          blockIdx.x % kUpsweepBlocksPerChunk, kUpsweepBlocksPerChunk, w);
    w.table_base = blockIdx.x;
    w.table_stride = grid;
    return w;
  }
  // Records that exist (device count) beyond the capacity are all invalid and none is written.
  __device__ __forceinline__ uint64_t overflow_invalid() const {
    return (n.device && *n.device > static_cast<uint64_t>(n.max)) ? *n.device : 0;
  }
};

// Decoupled look-back over claimed tiles (Merrill & Garland's single-pass scan, as CUB's one-sweep radix pass): a
// tile's output base for bucket d is its run's base for d plus the counts of d in the run's earlier tiles, which it
// reads from one 32-bit word per (tile, bucket): a 30-bit count and two flags. A run is a chunk of tiles
// (TileLookbackPartition) or the whole input (GlobalLookbackPartition); its first tile's words are always inclusive,
// so a walk ends there, and its sums stay below 2^30 records (checked on the host). A block waits only on tiles
// claimed before its own, by blocks that were running when they claimed them, so it needs no more forward progress
// than CUB's one-sweep pass does.
struct LookbackWords {
  static constexpr uint32_t kPartial = 1u << 30;    // the word holds the tile's own count of the bucket
  static constexpr uint32_t kInclusive = 1u << 31;  // ... the count of the bucket in the run up to this tile
  static constexpr uint32_t kValueMask = kPartial - 1;
  static constexpr int64_t kMaxRunRecords = kPartial - 1;
};

// A claimed tile's run: its first tile, where the run's bases are in the scanned table (bucket d's:
// scanned[base_entry + d * entry_stride]), and whether the run has no record of an out-of-range bucket (then its
// full tiles take the clean path).
struct LookbackRun {
  int64_t first_tile;
  int64_t base_entry;
  int64_t entry_stride;
  bool valid;

  // The run's bases of the buckets a thread tracks (digits threadIdx.x * BINS ..), 0 past num_buckets.
  template <int BINS>
  __device__ __forceinline__ void load_bases(const uint64_t* __restrict__ scanned, uint32_t num_buckets,
                                             uint64_t (&base)[BINS]) const {
#pragma unroll
    for (int t = 0; t < BINS; ++t) {
      const uint32_t d = threadIdx.x * BINS + t;
      base[t] = d < num_buckets ? scanned[base_entry + d * entry_stride] : 0;
    }
  }
};

// Even share with one tile a claim (the plain split with <= 256 buckets, stable or not). The upsweep and its table
// are EvenSharePartition's: `chunks` chunks of tiles, each counted by kUpsweepBlocksPerChunk blocks. The downsweep
// does not walk a chunk: its blocks claim tiles in input order from a counter (next_tile), so neighbouring tiles are
// in flight together and a bucket's run that ends inside a 32-byte sector is completed by the next tile while the
// sector is still in L2 (walking a chunk, the completing record comes a tile time later and the L2 has written the
// half sector back: 30% more DRAM bytes, docs/bench/README.md "Session 8"). A run is a chunk: its bases come from
// the scanned table, and the look-back stays inside it.
template <int TILE_ITEMS>
struct TileLookbackPartition : EvenSharePartition<TILE_ITEMS>, LookbackWords {
  using EvenSharePartition<TILE_ITEMS>::kUpsweepBlocksPerChunk;
  uint32_t* lookback = nullptr;      // [tiles of n.max][num_buckets], zeroed by the upsweep for the tiles that exist
  uint32_t* next_tile = nullptr;     // the claim counter, zeroed by the upsweep
  uint32_t* part_invalid = nullptr;  // [upsweep block]: its part's records of an out-of-range bucket
  int64_t chunks = 1;                // the table's chunks (the upsweep grid / kUpsweepBlocksPerChunk)

  // The upsweep block of part `w` zeroes the look-back rows of its tiles (parts are whole tiles, so every tile that
  // exists has exactly one owner), and the first block the claim counter. The downsweep runs after it in the stream.
  __device__ __forceinline__ void clear_lookback(const BlockWork& w, uint32_t num_buckets) const {
    if (blockIdx.x == 0 && threadIdx.x == 0) *next_tile = 0;
    if (w.begin >= w.end) return;
    const int64_t first = w.begin / TILE_ITEMS * num_buckets;
    const int64_t last = (w.end + TILE_ITEMS - 1) / TILE_ITEMS * num_buckets;
    for (int64_t i = first + threadIdx.x; i < last; i += blockDim.x) lookback[i] = 0;
  }
  // Every upsweep block writes its entry (no zeroing needed).
  __device__ __forceinline__ void record_invalid(uint64_t invalid) const {
    part_invalid[blockIdx.x] = static_cast<uint32_t>(invalid);  // a part holds < 2^30 records
  }
  // Block 0 publishes the bucket offsets: the scanned table's first column (write_bucket_offsets).
  __device__ __forceinline__ BlockWork offsets_work(uint32_t num_buckets) const {
    BlockWork w;
    w.table_stride = chunks * kUpsweepBlocksPerChunk;
    if (blockIdx.x == 0) {
      w.offsets_row = 0;
      w.offsets_count = int64_t{num_buckets} + 1;
    }
    return w;
  }
  // The chunk that holds `tile` is the last c with num_tiles * c / chunks <= tile (EvenSharePartition::share).
  __device__ __forceinline__ LookbackRun run_of(int64_t tile, int64_t num_tiles, int64_t /*count*/,
                                                const uint64_t* __restrict__ /*scanned*/,
                                                uint32_t /*num_buckets*/) const {
    const int64_t chunk = ((tile + 1) * chunks - 1) / num_tiles;
    uint32_t invalid = 0;
#pragma unroll
    for (int j = 0; j < kUpsweepBlocksPerChunk; ++j) invalid += part_invalid[chunk * kUpsweepBlocksPerChunk + j];
    return {num_tiles * chunk / chunks, chunk * kUpsweepBlocksPerChunk, chunks * kUpsweepBlocksPerChunk,
            invalid == 0};
  }
};

// Which tiles of a one-sweep pass a downsweep kernel splits. A pass whose functor may return out-of-range buckets can
// run as two kernels over the same tiles and look-back words, so that the one that runs on valid input holds no
// general tile, whose registers the clean tile pays for (docs/bench/README.md, "Session 17"):
//   every       — every tile (one kernel);
//   clean_only  — every tile when the whole input is valid: the full ones clean, a partial last one general but out
//                 of line (split_general_tile_out_of_line); otherwise nothing (its blocks leave at once);
//   valid_less  — every tile when the input holds invalid records (general tiles), otherwise nothing. It claims from
//                 the second counter.
enum class TileChoice { every, clean_only, valid_less };

// One run over the whole input (the LSD passes' one-sweep route, split_lsd.cuh): no upsweep and no table; the caller
// scans one histogram of the whole input, scanned[d] = the start of bucket d, scanned[num_buckets] = the valid
// records, and zeroes the look-back words and the claim counters before the launch. The run's sums reach the whole
// input: n.max <= kMaxRunRecords. Its full tiles are clean only when the whole input is valid.
// CURSOR_BASES: the order inside a bucket is free (SplitOrder::unstable); the tiles take their bases from per-bucket
// cursors (CursorBases, the first num_buckets words of `lookback`) instead of looking back.
template <int TILE_ITEMS, bool ONE_TILE_PER_BLOCK = false, TileChoice CHOICE = TileChoice::every,
          bool CURSOR_BASES = false>
struct GlobalLookbackPartition : LookbackWords {
  // true: the grid has a block per tile and each block splits one tile, as CUB's one-sweep pass does (no tile loop
  // and no barrier between tiles); false: a resident grid whose blocks claim tiles until none is left.
  static constexpr bool kOneTilePerBlock = ONE_TILE_PER_BLOCK;
  // Plain loads of the input, not evict-first ones (load_streaming): measured on the H100 (session 13, call c,
  // 2^26 uniform keys, three rounds) SplitSort keys 1.518-1.527 -> 1.468-1.475 ms and pairs 2.484-2.510 -> 2.436-2.444.
  static constexpr bool kPlainLoads = true;
  static constexpr TileChoice kTileChoice = CHOICE;
  static constexpr bool kCursorBases = CURSOR_BASES;
  ItemCount n;
  uint32_t* lookback = nullptr;   // [tiles of n.max][num_buckets]
  uint32_t* next_tile = nullptr;  // the claim counters: [0] every / clean_only, [1] valid_less
  uint32_t published_buckets = 0;  // block 0 publishes this many bucket offsets + 1 (0: the pass's num_buckets)

  __device__ __forceinline__ BlockWork offsets_work(uint32_t num_buckets) const {
    BlockWork w;
    if (blockIdx.x == 0) {
      w.offsets_row = 0;
      w.offsets_count = int64_t{published_buckets ? published_buckets : num_buckets} + 1;
    }
    return w;
  }
  __device__ __forceinline__ LookbackRun run_of(int64_t /*tile*/, int64_t /*num_tiles*/, int64_t count,
                                                const uint64_t* __restrict__ scanned, uint32_t num_buckets) const {
    return {0, 0, 1, scanned[num_buckets] == static_cast<uint64_t>(count)};
  }
};

// The downsweep's choices that a partition may make (GlobalLookbackPartition does); the others keep the defaults:
// blocks that claim tiles until none is left, and evict-first input loads.
template <class Partition, class = void>
struct PartitionChoices {
  static constexpr bool kOneTilePerBlock = false;
  static constexpr bool kPlainLoads = false;
  static constexpr TileChoice kTileChoice = TileChoice::every;
  static constexpr bool kCursorBases = false;
};
template <class Partition>
struct PartitionChoices<Partition,
                        std::void_t<decltype(Partition::kOneTilePerBlock), decltype(Partition::kPlainLoads)>> {
  static constexpr bool kOneTilePerBlock = Partition::kOneTilePerBlock;
  static constexpr bool kPlainLoads = Partition::kPlainLoads;
  static constexpr TileChoice kTileChoice = Partition::kTileChoice;
  static constexpr bool kCursorBases = Partition::kCursorBases;
};

template <class Partition, class = void>
struct UsesLookback : std::false_type {};
template <class Partition>
struct UsesLookback<Partition, std::void_t<decltype(Partition::kInclusive)>> : std::true_type {};

// The downsweep's per-tile hooks. publish(real) runs inside the ranker, as soon as the tile's count of every bucket
// is known (before the ranks themselves), with the counts of the buckets this thread tracks, sinks left out.
// resolve(real, base) runs after the ranker and turns `base` into the tile's output bases. A chunk-walking block
// already holds them (running bases): nothing to do.
struct RunningBases {
  template <int BINS>
  __device__ __forceinline__ void publish(const int (&)[BINS], uint32_t) const {}
  template <int BINS>
  __device__ __forceinline__ void resolve(const int (&)[BINS], uint64_t (&)[BINS], uint32_t) const {}
};

// A claimed tile's bases in a split of any order within a bucket (GlobalLookbackPartition's CURSOR_BASES): each
// bucket's records are handed out from a cursor, one atomicAdd a tile and bucket, in whatever order the tiles come.
// No tile waits for another: there is nothing to publish. `cursor` holds num_buckets words, zeroed by the caller.
struct CursorBases {
  uint32_t* cursor;
  template <int BINS>
  __device__ __forceinline__ void publish(const int (&)[BINS], uint32_t) const {}
  template <int BINS>
  __device__ __forceinline__ void resolve(const int (&real)[BINS], uint64_t (&base)[BINS],
                                          uint32_t num_buckets) const {
#pragma unroll
    for (int t = 0; t < BINS; ++t) {
      const uint32_t d = threadIdx.x * BINS + t;
      if (d < num_buckets && real[t] > 0) base[t] += atomicAdd(cursor + d, static_cast<uint32_t>(real[t]));
    }
  }
};

// A claimed tile's bases: `base` holds its run's bases; add the bucket's count in the run's earlier tiles.
struct LookbackBases : LookbackWords {
  uint32_t* lookback;  // row 0 = the run's first tile
  int64_t tile;        // this tile, counted from the run's first

  __device__ __forceinline__ static void store(uint32_t* word, uint32_t value) {
    cuda::atomic_ref<uint32_t, cuda::thread_scope_device>(*word).store(value, cuda::memory_order_relaxed);
  }
  // The tile's own counts, early, so that later tiles need not wait for this tile's ranks and look-back.
  template <int BINS>
  __device__ __forceinline__ void publish(const int (&real)[BINS], uint32_t num_buckets) const {
    uint32_t* row = lookback + tile * num_buckets;
#pragma unroll
    for (int t = 0; t < BINS; ++t) {
      const uint32_t d = threadIdx.x * BINS + t;
      if (d < num_buckets) {
        store(row + d, static_cast<uint32_t>(real[t]) | (tile == 0 ? kInclusive : kPartial));
      }
    }
  }
  template <int BINS>
  __device__ __forceinline__ void resolve(const int (&real)[BINS], uint64_t (&base)[BINS],
                                          uint32_t num_buckets) const {
    if (tile == 0) return;
#pragma unroll
    for (int t = 0; t < BINS; ++t) {
      const uint32_t d = threadIdx.x * BINS + t;
      if (d >= num_buckets) continue;
      uint32_t before = 0;
      for (int64_t j = tile - 1;; --j) {
        cuda::atomic_ref<uint32_t, cuda::thread_scope_device> word(lookback[j * num_buckets + d]);
        uint32_t v;
        while ((v = word.load(cuda::memory_order_relaxed)) == 0) {
        }
        before += v & kValueMask;
        if (v & kInclusive) break;  // the run's first tile is always inclusive: the walk ends there
      }
      store(lookback + tile * num_buckets + d, (before + static_cast<uint32_t>(real[t])) | kInclusive);
      base[t] += before;
    }
  }
};

// Segmented (every segment split on its own, e.g. level 2 of the hierarchical split): segment s gets
// block_first[s+1] - block_first[s] blocks (0 for a segment another kernel handles), each an even share of its
// tiles. The table is segment-major, then bucket-major inside the segment, so the scan's value at a segment's first
// entry is subtracted again and the segment's own start added (bias): segments without blocks are then allowed.
// Blocks past block_first[num_segments] are idle and zero their share of the table. It publishes no bucket offsets
// (the hierarchical split asks for none).
struct SegmentedPartition {
  static constexpr int kUpsweepBlocksPerChunk = 1;  // the upsweep and the downsweep share the blocks' ranges
  const uint64_t* seg_offsets;  // [num_segments + 1] record offsets of the segments
  const uint32_t* block_first;  // [num_segments + 1] first block of each segment; [num_segments] = blocks used
  uint32_t num_segments;

  __device__ __forceinline__ uint32_t segment_of(uint32_t block) const {
    // The last segment s with block_first[s] <= block (segments with no blocks share their successor's entry).
    uint32_t lo = 0, hi = num_segments;  // invariant: block_first[lo] <= block < block_first[hi]
    while (hi - lo > 1) {
      const uint32_t mid = (lo + hi) / 2;
      if (block_first[mid] <= block) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
  __device__ __forceinline__ BlockWork work(uint32_t num_buckets) const {
    const uint32_t used = block_first[num_segments];
    BlockWork w;
    if (blockIdx.x >= used) {  // idle: own B zero entries past the used part of the table
      w.table_base = int64_t{used} * num_buckets + int64_t{blockIdx.x - used} * num_buckets;
      w.table_stride = 1;
      return w;
    }
    const uint32_t s = segment_of(blockIdx.x);
    const int64_t sub = blockIdx.x - block_first[s];
    const int64_t nb = block_first[s + 1] - block_first[s];
    const int64_t seg_begin = static_cast<int64_t>(seg_offsets[s]);
    const int64_t size = static_cast<int64_t>(seg_offsets[s + 1]) - seg_begin;
    w.begin = seg_begin + size * sub / nb;
    w.end = seg_begin + size * (sub + 1) / nb;
    w.table_base = int64_t{block_first[s]} * num_buckets + sub;
    w.table_stride = nb;
    w.segment_start = seg_begin;
    w.segment_entry = int64_t{block_first[s]} * num_buckets;
    return w;
  }
  __device__ __forceinline__ BlockWork upsweep_work(uint32_t num_buckets) const { return work(num_buckets); }
  __device__ __forceinline__ uint64_t overflow_invalid() const { return 0; }
};

__device__ __forceinline__ uint32_t lanemask_lt() {
  uint32_t mask;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(mask));
  return mask;
}

// A load of input that streams through: evict-first in L1 and L2 (ld.global.cs), so that it does not push out of
// L2 the output's sectors that the downsweep has only partly written yet. Measured on the H100 (2^26 u32 pairs,
// 256 buckets): the downsweep's DRAM reads 752 -> 713 MB, 1.144 -> 1.112 ms.
template <class T>
__device__ __forceinline__ T load_streaming(const T* p) {
  T out;
  if constexpr (sizeof(T) == 4 && alignof(T) >= 4) {
    const unsigned int v = __ldcs(reinterpret_cast<const unsigned int*>(p));
    memcpy(&out, &v, sizeof(T));
  } else if constexpr (sizeof(T) == 8 && alignof(T) >= 8) {
    const unsigned long long v = __ldcs(reinterpret_cast<const unsigned long long*>(p));
    memcpy(&out, &v, sizeof(T));
  } else if constexpr (sizeof(T) == 16 && alignof(T) >= 16) {
    const uint4 v = __ldcs(reinterpret_cast<const uint4*>(p));
    memcpy(&out, &v, sizeof(T));
  } else {
    out = *p;
  }
  return out;
}

// The ranker ranks precomputed digits: the "key" it sees is the digit itself.
struct IdentityDigit {
  __device__ __forceinline__ uint32_t Digit(uint32_t digit) const { return digit; }
};

// Receives the ranker's per-digit tile counts (digits in blocked order over the threads) and hands the real ones
// (sinks and padding left out of sink_digit) to the bases' publish hook. The ranker calls it after a barrier, so the
// warps' sink counts, written before the ranker, are visible (clean and padded tiles have none: warp_sinks ==
// nullptr).
template <int BINS, int WARPS, class Bases>
struct CaptureCounts {
  int* out;
  const Bases& bases;
  const int* warp_sinks;  // general tile: each warp's sinks
  int padding;            // padded tile: the all-ones keys past the end
  uint32_t sink_digit;    // the digit that holds the sinks or the padding
  uint32_t num_buckets;
  __device__ __forceinline__ void operator()(int (&bins)[BINS]) {
    int tile_sinks = padding;
    if (warp_sinks != nullptr) {
#pragma unroll
      for (int w = 0; w < WARPS; ++w) tile_sinks += warp_sinks[w];
    }
    int real[BINS];
#pragma unroll
    for (int i = 0; i < BINS; ++i) {
      out[i] = bins[i];
      const uint32_t d = threadIdx.x * BINS + i;
      real[i] = d < num_buckets ? bins[i] - (d == sink_digit ? tile_sinks : 0) : 0;
    }
    bases.publish(real, num_buckets);
  }
};

// Everything a downsweep tile needs besides its position.
template <class KeyT, class ValueT, class BucketOp, class KeysOutT = KeyT>
struct SplitIo {
  const KeyT* __restrict__ keys_in;
  KeysOutT* __restrict__ keys_out;
  const ValueT* __restrict__ values_in;
  ValueT* __restrict__ values_out;
  uint32_t num_buckets;
  BucketOp bucket_of;
};

// ------------------------------------------------------------------------------------------------------------
// Upsweep: counts[d * gridDim.x + block] = number of valid records of bucket d in this block's chunk.
// ------------------------------------------------------------------------------------------------------------
template <class Policy, class KeyT, class BucketOp, class Partition>
struct SplitUpsweepAgent {
  static constexpr int D = Policy::RADIX_DIGITS;
  static constexpr int WARPS = Policy::WARPS;
  static constexpr uint32_t kNotCounted = 0xFFFFFFFFu;  // past the end of the chunk, or an invalid bucket
  struct TempStorage {
    // One histogram per warp: shared atomics then only collide inside a warp. 32-bit counters (a chunk holds
    // < 2^32 records) keep the atomics native; they are widened to 64 bits when written out.
    uint32_t hist[WARPS][D];
    unsigned long long invalid;
  };

  __device__ __forceinline__ static void run(TempStorage& temp, const KeyT* __restrict__ keys, Partition part,
                                             uint32_t num_buckets, BucketOp bucket_of, uint64_t* counts,
                                             uint64_t* num_invalid) {
    const int tid = threadIdx.x;
    const int lane = tid % Policy::WARP_THREADS;
    const int warp = tid / Policy::WARP_THREADS;
    for (int i = tid; i < WARPS * D; i += Policy::BLOCK_THREADS) (&temp.hist[0][0])[i] = 0;
    if (tid == 0) temp.invalid = 0;
    __syncthreads();

    const BlockWork w = part.upsweep_work(num_buckets);
    if constexpr (UsesLookback<Partition>::value) part.clear_lookback(w, num_buckets);
    uint32_t* hist = temp.hist[warp];
    uint32_t my_invalid = 0;

    for (int64_t tile_base = w.begin; tile_base < w.end; tile_base += Policy::TILE_ITEMS) {
      const int64_t in_tile = w.end - tile_base;  // > 0
      // Loads first (all in flight together), then the counting.
      uint32_t digits[Policy::ITEMS_PER_THREAD];
#pragma unroll
      for (int item = 0; item < Policy::ITEMS_PER_THREAD; ++item) {
        const int local = warp * Policy::WARP_ITEMS + item * Policy::WARP_THREADS + lane;
        digits[item] = local < in_tile ? bucket_of(keys[tile_base + local]) : kNotCounted;
      }
#pragma unroll
      for (int item = 0; item < Policy::ITEMS_PER_THREAD; ++item) {
        const int local = warp * Policy::WARP_ITEMS + item * Policy::WARP_THREADS + lane;
        uint32_t digit = digits[item];
        if (digit >= num_buckets) {
          my_invalid += local < in_tile;
          digit = kNotCounted;
        }
        // A warp whose 32 records share one bucket (skewed input) adds 32 once instead of colliding 32 times.
        const uint32_t first = __shfl_sync(0xFFFFFFFFu, digit, 0);
        if (__all_sync(0xFFFFFFFFu, digit == first)) {
          if (lane == 0 && first != kNotCounted) atomicAdd(&hist[first], 32u);
        } else if (digit != kNotCounted) {
          atomicAdd(&hist[digit], 1u);
        }
      }
    }
    if (my_invalid) atomicAdd(&temp.invalid, static_cast<unsigned long long>(my_invalid));
    __syncthreads();
    if constexpr (UsesLookback<Partition>::value) {
      if (tid == 0) part.record_invalid(temp.invalid);
    }

    for (uint32_t d = tid; d < num_buckets; d += Policy::BLOCK_THREADS) {
      uint64_t total = 0;
#pragma unroll
      for (int k = 0; k < WARPS; ++k) total += temp.hist[k][d];
      counts[w.table_base + static_cast<int64_t>(d) * w.table_stride] = total;
    }
    if (tid == 0) {
      if (blockIdx.x == 0) {
        counts[static_cast<int64_t>(num_buckets) * gridDim.x] = 0;  // scans into the total of valid records
        const uint64_t overflow = part.overflow_invalid();
        if (num_invalid && overflow) {
          atomicAdd(reinterpret_cast<unsigned long long*>(num_invalid), static_cast<unsigned long long>(overflow));
        }
      }
      if (num_invalid && temp.invalid) atomicAdd(reinterpret_cast<unsigned long long*>(num_invalid), temp.invalid);
    }
  }
};

// ------------------------------------------------------------------------------------------------------------
// Downsweep: stable rank + exchange + scatter. `scanned` is the exclusive scan of the upsweep's table.
//
// A tile is *clean* when it is full and its run has no invalid record (the upsweep's per-part counts, or for the LSD
// passes the histogram, say so). A clean tile has no sinks, so it keeps no digit array and no sink bookkeeping in
// registers: the ranker asks the bucket functor itself, and the staging asks it once more (with keys only, the
// scatter a third time). That keeps the 384-thread, 16-item tile within its 80 registers (Nsight Compute, H100: the
// tile that kept digits and sink ballots for the ranker spilled 72 bytes a thread, and its spill traffic was the
// largest stall). Every other tile (a chunk's partial last tile, a chunk with invalid records) takes the general
// path with the sink digit; a partial tile of a PadsWithAllOnes functor (SplitSort) is padded instead.
// ------------------------------------------------------------------------------------------------------------
template <class Policy, SplitOutput OUT, class KeyT, class ValueT, class BucketOp, class Partition>
struct SplitDownsweepAgent {
  static constexpr int THREADS = Policy::BLOCK_THREADS;
  static constexpr int IPT = Policy::ITEMS_PER_THREAD;
  static constexpr int TILE = Policy::TILE_ITEMS;
  static constexpr int D = Policy::RADIX_DIGITS;
  // Early counts: warp histograms by shared atomics, one block scan, then match-any ranks. It keeps no per-item
  // counter pointers across the scan, as BlockRadixRankMatch does (16 more live registers at 16 items).
  // CUB's one-sweep shape (a block a tile: SplitSort's 32-bit keys, and its u32+u32 pairs) also takes CUB's
  // one-sweep scan of the counts, raking-memoize, and keeps a warp converged between its key stores (__syncwarp, as
  // CUB's scatter does). Measured on the H100 (session 13, 2^26 uniform keys, three rounds): SplitSort keys
  // 1.518-1.527 -> 1.509-1.522 ms (the scan) and 1.483-1.496 ms (the __syncwarp); with them, the plain loads
  // (kPlainLoads) and the keys' smaller shared memory, 1.407-1.417 ms (call c). Pairs in the resident grid lost with
  // either (2.48-2.51 -> 2.59-2.61 and 2.54-2.56 ms, call c); in a block a tile of 17 they gained (2.457-2.472 ->
  // 2.384-2.407 ms, call d), so they are tied to the shape.
  static constexpr bool kOneSweepShape = PartitionChoices<Partition>::kOneTilePerBlock;
  // A gather permutation's ranker counts in two parts a warp (each lane's count in its part, lane % 2). Measured on the
  // H100 (session 18, calls a and b; 2^26 u32 keys, 256 buckets, medians of 2-3 interleaved rounds): split_index
  // gather 0.460-0.467 -> 0.434-0.449 ms, at 2^24 0.139 -> 0.132; four parts 0.448-0.464. Two parts everywhere lost:
  // keys by a functor 0.438 -> 0.447 ms, SplitSort keys 1.43 -> 1.45, pairs 0.650 -> 0.651-0.678; so did CUB's
  // WARP_MATCH_ATOMIC_OR ranks (keys 0.450, SplitSort keys 1.49-1.95, split_index 0.471-0.476).
  static constexpr bool kBucketsOut = OUT == SplitOutput::buckets_and_gather_index;
  static constexpr bool kGatherIndex = OUT == SplitOutput::gather_index || kBucketsOut;
  static constexpr int kRankParts = kGatherIndex ? 2 : 1;
  using Ranker = cub::BlockRadixRankMatchEarlyCounts<THREADS, Policy::RADIX_BITS, false,
                                                     kOneSweepShape ? cub::BLOCK_SCAN_RAKING_MEMOIZE
                                                                    : cub::BLOCK_SCAN_WARP_SCANS,
                                                     cub::WARP_MATCH_ANY, kRankParts>;
  static constexpr int BINS = Ranker::BINS_TRACKED_PER_THREAD;
  static_assert(IPT <= 32, "a tile's sink flags are one bit an item");

  static constexpr bool kStageKeys = OUT == SplitOutput::keys || OUT == SplitOutput::pairs;
  static constexpr bool kStageValues = OUT == SplitOutput::pairs || kGatherIndex;
  static constexpr size_t kKeyBytes = kStageKeys ? sizeof(KeyT) : 0;
  static constexpr size_t kValueBytes = kStageValues ? sizeof(ValueT) : 0;
  // Staged slot of sorted rank r: one slot of padding every 32 when a tile's even share of a bucket is a multiple of
  // 32 (the cluster path's 8192-record tile, 256 buckets). Keys whose low byte repeats with period 256 (sorted or
  // iota keys, an LCG's) then give every bucket exactly that share, and the 32 records a warp stages at once, one a
  // bucket, sat in one bank: a 32-way conflict. H100, session 16, 2^26 keys in segments of 2^16: 0.714 ms on iota
  // keys against 0.487 on random ones (CUB 0.72); the plain split's 6144-record tile (24 a bucket, 8-way) lost
  // nothing there.
  static constexpr bool kPadStaging = D >= 32 && (TILE / D) % 32 == 0;
  static constexpr int kStagedSlots = kPadStaging ? TILE + TILE / 32 : TILE;
  __device__ __forceinline__ static int staged_slot(int rank) { return kPadStaging ? rank + (rank >> 5) : rank; }
  static constexpr size_t kExchangeBytes = kStagedSlots * (kKeyBytes > kValueBytes ? kKeyBytes : kValueBytes);
  // A gather permutation stages one 32-bit word a record, the record's place in its tile above its digit, instead of
  // the index and a 16-bit digit beside it: one shared-memory store and load a record, one barrier and the digit
  // array fewer. H100, session 18, call a (2^26, 256 buckets): split_index gather 0.475-0.481 -> 0.460-0.465 ms.
  // buckets_and_gather_index stages the whole 16-bit bucket below the place instead (its low byte is the digit).
  static constexpr int kPackedPlaceShift = kBucketsOut ? 16 : 8;
  static constexpr bool kPackIndexStaging =
      kGatherIndex && sizeof(ValueT) >= 4 && D <= 256 && TILE <= (1 << (32 - kPackedPlaceShift));
  static_assert(!kBucketsOut || kPackIndexStaging, "buckets_and_gather_index stages packed words");
  static_assert(!kBucketsOut || IsBucketByteOrSink<BucketOp>::value,
                "buckets_and_gather_index splits by a bucket's low byte (BucketByteOrSink, shift 0)");
  static_assert(alignof(KeyT) <= 16 && (!kStageValues || alignof(ValueT) <= 16), "records aligned to <= 16 B");

  struct TempStorage {
    union Aliasable {
      typename Ranker::TempStorage rank;
      alignas(16) unsigned char exchange[kExchangeBytes > 0 ? kExchangeBytes : 16];
    } u;
    int64_t shift[D];         // global position of staged slot i of digit d: shift[d] + i
    // digit of each staged slot (bucket order). Keys only, the scatter asks the functor again and never reads it;
    // the one-sweep shape drops it (45.9 -> 31.3 KB a block for SplitSort's keys; session 13, call c: 1.518-1.527 ->
    // 1.508-1.511 ms at 2^26). The other keys-only kernels keep it: without it the plain split by a functor took
    // 0.579-0.581 ms against 0.560-0.564 (call i, 2^26 uniform keys, three rounds).
    uint16_t digit[(OUT == SplitOutput::keys && kOneSweepShape) || kPackIndexStaging ? 1 : kStagedSlots];
    int warp_sinks[Policy::WARPS];
    unsigned long long chunk_valid;
    uint32_t claimed_tile;  // look-back partitions: the tile the block claimed
  };

  // A load of the input: evict-first (load_streaming), or plain where the partition asks (kPlainLoads).
  template <class T>
  __device__ __forceinline__ static T load_input(const T* p) {
    if constexpr (PartitionChoices<Partition>::kPlainLoads) {
      return *p;
    } else {
      return load_streaming(p);
    }
  }

  // The clean tile's digit: the functor (every bucket is valid there).
  struct BucketDigit {
    BucketOp bucket_of;
    __device__ __forceinline__ uint32_t Digit(const KeyT& key) { return bucket_of(key); }
  };

  using KeysOut = SplitKeysOut<OUT, KeyT>;
  using Io = SplitIo<KeyT, ValueT, BucketOp, KeysOut>;

  __device__ __forceinline__ static void run(TempStorage& temp, const KeyT* __restrict__ keys_in,
                                             KeysOut* __restrict__ keys_out, const ValueT* __restrict__ values_in,
                                             ValueT* __restrict__ values_out, Partition part, uint32_t num_buckets,
                                             BucketOp bucket_of, const uint64_t* __restrict__ scanned,
                                             uint64_t* bucket_offsets) {
    const Io io{keys_in, keys_out, values_in, values_out, num_buckets, bucket_of};
    if constexpr (UsesLookback<Partition>::value) {
      run_claimed_tiles(temp, io, part, scanned, bucket_offsets);
    } else {
      run_chunk(temp, io, part, scanned, bucket_offsets);
    }
  }

  // A block walks its chunk of tiles with running bases (the segmented splits' partitions).
  __device__ __forceinline__ static void run_chunk(TempStorage& temp, const Io& io, Partition part,
                                                   const uint64_t* __restrict__ scanned, uint64_t* bucket_offsets) {
    const int tid = threadIdx.x;
    const uint32_t num_buckets = io.num_buckets;
    const BlockWork w = part.work(num_buckets);
    const int64_t bias = block_bias(scanned, w);
    write_bucket_offsets(scanned, w, bias, bucket_offsets);
    if (tid == 0) temp.chunk_valid = 0;
    __syncthreads();
    // Running output base of each bucket this thread tracks (digits tid*BINS .. tid*BINS+BINS-1), and the chunk's
    // valid records: the scan across the block's table_span entries of a bucket grows by the chunk's count of it.
    uint64_t base[BINS];
    unsigned long long my_valid = 0;
#pragma unroll
    for (int t = 0; t < BINS; ++t) {
      const uint32_t d = tid * BINS + t;
      base[t] = 0;
      if (d < num_buckets) {
        const int64_t entry = w.table_base + static_cast<int64_t>(d) * w.table_stride;
        base[t] = scanned[entry] + bias;
        my_valid += scanned[entry + w.table_span] - scanned[entry];
      }
    }
    if (my_valid) atomicAdd(&temp.chunk_valid, my_valid);
    __syncthreads();
    const bool chunk_clean = temp.chunk_valid == static_cast<unsigned long long>(w.end - w.begin);

    for (int64_t tile_base = w.begin; tile_base < w.end; tile_base += TILE) {
      split_tile_of_its_kind(temp, io, tile_base, w.end - tile_base, chunk_clean, base, RunningBases{});
    }
  }

  // A full tile of a run without out-of-range records is clean; a PadsWithAllOnes functor has no such records,
  // so its partial tile is padded and its kernel holds no general tile.
  template <class Bases>
  __device__ __forceinline__ static void split_tile_of_its_kind(TempStorage& temp, const Io& io, int64_t tile_base,
                                                                int64_t remaining, bool run_clean,
                                                                uint64_t (&base)[BINS], const Bases& bases) {
    constexpr TileChoice kChoice = PartitionChoices<Partition>::kTileChoice;
    if constexpr (kChoice == TileChoice::clean_only) {  // run_claimed_tiles passes a valid input's full tiles only
      split_tile<TileKind::clean>(temp, io, tile_base, TILE, base, bases);
    } else {
      if constexpr (kChoice == TileChoice::every) {
        if (run_clean && remaining >= TILE) {
          split_tile<TileKind::clean>(temp, io, tile_base, TILE, base, bases);
          return;
        }
      }
      const int in_tile = remaining < TILE ? static_cast<int>(remaining) : TILE;
      if constexpr (PadsWithAllOnes<BucketOp>::value) {
        split_tile<TileKind::padded>(temp, io, tile_base, in_tile, base, bases);
      } else {
        split_tile<TileKind::general>(temp, io, tile_base, in_tile, base, bases);
      }
    }
  }

  // A block claims tiles in input order until none is left, or claims one (kOneTilePerBlock) (the look-back
  // partitions). A tile is clean when it is full and its run has no invalid record.
  __device__ __forceinline__ static void run_claimed_tiles(TempStorage& temp, const Io& io, Partition part,
                                                           const uint64_t* __restrict__ scanned,
                                                           uint64_t* bucket_offsets) {
    const int tid = threadIdx.x;
    const uint32_t num_buckets = io.num_buckets;
    const int64_t count = resolve_count(part.n);
    const int64_t num_tiles = (count + TILE - 1) / TILE;
    write_bucket_offsets(scanned, part.offsets_work(num_buckets), 0, bucket_offsets);
    constexpr TileChoice kChoice = PartitionChoices<Partition>::kTileChoice;
    for (;;) {
      if (tid == 0) temp.claimed_tile = atomicAdd(part.next_tile + (kChoice == TileChoice::valid_less ? 1 : 0), 1u);
      __syncthreads();
      const int64_t tile = temp.claimed_tile;  // rewritten only after split_tile's last barrier
      if (tile >= num_tiles) break;
      const LookbackRun run = part.run_of(tile, num_tiles, count, scanned, num_buckets);
      if constexpr (kChoice == TileChoice::clean_only) {
        if (!run.valid) break;  // the valid_less kernel's input
      } else if constexpr (kChoice == TileChoice::valid_less) {
        if (run.valid) break;  // the clean_only kernel's input
      }
      if constexpr (PartitionChoices<Partition>::kCursorBases) {
        split_claimed_tile(temp, io, scanned, tile, count, run, CursorBases{part.lookback});
      } else {
        split_claimed_tile(temp, io, scanned, tile, count, run,
                           LookbackBases{{}, part.lookback + run.first_tile * num_buckets, tile - run.first_tile});
      }
      if constexpr (kOneSweepShape) break;
    }
  }

  // A claimed tile: the clean_only kernel's partial last tile out of line, any other in line.
  template <class Bases>
  __device__ __forceinline__ static void split_claimed_tile(TempStorage& temp, const Io& io,
                                                            const uint64_t* __restrict__ scanned, int64_t tile,
                                                            int64_t count, const LookbackRun& run,
                                                            const Bases& bases) {
    const int64_t tile_base = tile * TILE;
    if constexpr (PartitionChoices<Partition>::kTileChoice == TileChoice::clean_only) {
      if (count - tile_base < TILE) {
        split_general_tile_out_of_line(temp, io, tile_base, static_cast<int>(count - tile_base), scanned, run, bases);
        return;
      }
    }
    uint64_t base[BINS];
    run.load_bases(scanned, io.num_buckets, base);
    split_tile_of_its_kind(temp, io, tile_base, count - tile_base, run.valid, base, bases);
  }

  // A general tile called, not inlined: the clean_only kernel's partial last tile (TileChoice). Inlined, its code took
  // the clean tiles' registers: at 56 registers (three blocks an SM) ptxas spilled 92-248 bytes a thread, and a hash
  // split of 2^26 keys took 0.66 ms against 0.47 (session 17, call e, with the partial tile padded in line). Its bases
  // are loaded here, so that no array of the caller's needs an address.
  template <class Bases>
  __device__ __noinline__ static void split_general_tile_out_of_line(TempStorage& temp, const Io io, int64_t tile_base,
                                                                     int in_tile, const uint64_t* __restrict__ scanned,
                                                                     const LookbackRun run, const Bases bases) {
    uint64_t base[BINS];
    run.load_bases(scanned, io.num_buckets, base);
    split_tile<TileKind::general>(temp, io, tile_base, in_tile, base, bases);
  }

  // kCheckBuckets (clean tiles of a run whose validity no upsweep counted: the segmented split's cluster path) tests
  // the loaded keys' buckets first and, where one is out of range, splits nothing and returns false: the caller then
  // takes the general tile. Otherwise it returns true.
  template <TileKind kKind, bool kCheckBuckets = false, class Bases>
  __device__ __forceinline__ static bool split_tile(TempStorage& temp, const Io& io, int64_t tile_base, int in_tile,
                                                    uint64_t (&base)[BINS], const Bases& bases) {
    static_assert(!kCheckBuckets || kKind == TileKind::clean, "only a clean tile assumes its buckets valid");
    const int tid = threadIdx.x;
    const int lane = tid % Policy::WARP_THREADS;
    const int warp = tid / Policy::WARP_THREADS;
    const uint32_t lt = lanemask_lt();
    constexpr bool kClean = kKind == TileKind::clean;
    constexpr bool kKeepsKeys = kKind != TileKind::general;  // clean and padded tiles: the functor's digits
    // The sink digit is a real bucket only when every digit is a bucket. A padded tile's padding is in the last
    // bucket.
    const bool sink_is_bucket = io.num_buckets == static_cast<uint32_t>(D);
    const uint32_t sink_digit = kKind == TileKind::padded ? io.num_buckets - 1 : Policy::SINK_DIGIT;

    // ---- load keys (warp-striped: the ranker's stable order) ----
    // The clean tile keeps its keys; the general tile keeps digits and sink flags instead, and reads its keys
    // again for the staging (from L1/L2, and only on a chunk's last tile or one with invalid records).
    auto local_of = [&](int item) { return warp * Policy::WARP_ITEMS + item * Policy::WARP_THREADS + lane; };
    KeyT keys[IPT];           // clean and padded tiles only
    uint32_t digits[IPT];     // general tile only: the clean one asks the functor again
    uint32_t sink_bits = 0;   // general tile only: bit `item` = this thread's item is a sink
#pragma unroll
    for (int item = 0; item < IPT; ++item) {
      const int local = local_of(item);
      if constexpr (kClean) {
        keys[item] = load_input(&io.keys_in[tile_base + local]);
      } else if constexpr (kKeepsKeys) {
        keys[item] = local < in_tile ? load_input(&io.keys_in[tile_base + local]) : all_ones<KeyT>();
      } else {
        bool sink = true;
        if (local < in_tile) {
          const uint32_t b = io.bucket_of(load_input(&io.keys_in[tile_base + local]));
          sink = b >= io.num_buckets;
          digits[item] = sink ? Policy::SINK_DIGIT : b;
        } else {
          digits[item] = Policy::SINK_DIGIT;
        }
        sink_bits |= static_cast<uint32_t>(sink) << item;
      }
    }
    if constexpr (!kKeepsKeys) {
      int my_warp_sinks = 0;
#pragma unroll
      for (int item = 0; item < IPT; ++item) {
        my_warp_sinks += __popc(__ballot_sync(0xFFFFFFFFu, (sink_bits >> item) & 1u));
      }
      if (lane == 0) temp.warp_sinks[warp] = my_warp_sinks;
    }
    if constexpr (kCheckBuckets) {
      bool invalid = false;
#pragma unroll
      for (int item = 0; item < IPT; ++item) invalid |= io.bucket_of(keys[item]) >= io.num_buckets;
      if (__syncthreads_or(invalid)) return false;  // block-uniform; no shared memory touched yet
    }

    // ---- stable rank by digit (contains barriers; warp_sinks is visible after it) ----
    int ranks[IPT];
    int excl[BINS];
    int counts[BINS];
    using Capture = CaptureCounts<BINS, Policy::WARPS, Bases>;
    const int padding = kKind == TileKind::padded ? TILE - in_tile : 0;
    if constexpr (kKeepsKeys) {
      Ranker(temp.u.rank).RankKeys(keys, ranks, BucketDigit{io.bucket_of}, excl,
                                   Capture{counts, bases, nullptr, padding, sink_digit, io.num_buckets});
    } else {
      Ranker(temp.u.rank).RankKeys(digits, ranks, IdentityDigit{}, excl,
                                   Capture{counts, bases, temp.warp_sinks, 0, sink_digit, io.num_buckets});
    }

    int tile_sinks = padding;  // the padding ranks after every real record of its bucket: no rank to mend
    if constexpr (kKind == TileKind::general) {
      int sinks_before_warp = 0;
#pragma unroll
      for (int w = 0; w < Policy::WARPS; ++w) {
        const int s = temp.warp_sinks[w];
        sinks_before_warp += w < warp ? s : 0;
        tile_sinks += s;
      }
      // Dense slots for real records: subtract the sinks that precede a record of the sink-digit bucket (the
      // ranks of the sinks themselves are not used).
      if (sink_is_bucket) {
        int running = sinks_before_warp;
#pragma unroll
        for (int item = 0; item < IPT; ++item) {
          const uint32_t ballot = __ballot_sync(0xFFFFFFFFu, (sink_bits >> item) & 1u);
          const int before = running + __popc(ballot & lt);
          running += __popc(ballot);
          if (digits[item] == Policy::SINK_DIGIT) ranks[item] -= before;
        }
      }
    }
    const int valid_in_tile = TILE - tile_sinks;
    auto is_real = [&](int item) {
      if constexpr (kKind == TileKind::padded) return local_of(item) < in_tile;
      return kClean || !((sink_bits >> item) & 1u);
    };
    auto key_of = [&](int item) -> KeyT {
      if constexpr (kKeepsKeys) {
        return keys[item];
      } else {
        return io.keys_in[tile_base + local_of(item)];
      }
    };
    auto digit_of = [&](int item) -> uint32_t {
      if constexpr (kKeepsKeys) {
        return io.bucket_of(keys[item]);
      } else {  // general tile
        return digits[item];
      }
    };

    int real[BINS];  // the tile's records of each tracked bucket, sinks left out
#pragma unroll
    for (int t = 0; t < BINS; ++t) {
      const uint32_t d = tid * BINS + t;
      real[t] = d < io.num_buckets ? counts[t] - (d == sink_digit ? tile_sinks : 0) : 0;
    }
    bases.resolve(real, base, io.num_buckets);
#pragma unroll
    for (int t = 0; t < BINS; ++t) {
      const uint32_t d = tid * BINS + t;
      if (d < io.num_buckets) {
        temp.shift[d] = static_cast<int64_t>(base[t]) - excl[t];
        base[t] += static_cast<uint64_t>(real[t]);
      }
    }
    __syncthreads();  // ranker storage is dead from here on (the exchange aliases it); shift[] is visible

    if constexpr (OUT == SplitOutput::scatter_index) {
#pragma unroll
      for (int item = 0; item < IPT; ++item) {
        const int local = local_of(item);
        if (is_real(item)) {
          io.values_out[tile_base + local] = static_cast<ValueT>(temp.shift[digit_of(item)] + ranks[item]);
        }
      }
    } else if constexpr (kPackIndexStaging) {
      // The packed word's low bits: the digit, or buckets_and_gather_index's whole bucket (the pass's functor is
      // BucketByteOrSink with shift 0, so the bucket's low byte is the digit; a real record's bucket is in range).
      auto packed_low = [&](int item) -> uint32_t {
        if constexpr (kBucketsOut) {
          return io.bucket_of.in_range(key_of(item));
        } else {
          return digit_of(item);
        }
      };
      uint32_t* staged = reinterpret_cast<uint32_t*>(temp.u.exchange);
#pragma unroll
      for (int item = 0; item < IPT; ++item) {
        if (kKind == TileKind::padded || is_real(item)) {
          const uint32_t place = static_cast<uint32_t>(local_of(item));
          staged[staged_slot(ranks[item])] = place << kPackedPlaceShift | packed_low(item);
        }
      }
      __syncthreads();
#pragma unroll
      for (int k = 0; k < IPT; ++k) {
        const int i = k * THREADS + tid;
        if (kClean || i < valid_in_tile) {
          const uint32_t word = staged[staged_slot(i)];
          const int64_t at = temp.shift[word & 0xFFu] + i;
          io.values_out[at] = static_cast<ValueT>(tile_base + (word >> kPackedPlaceShift));
          if constexpr (kBucketsOut) io.keys_out[at] = static_cast<KeysOut>(word & 0xFFFFu);
        }
      }
    } else {
      // ---- stage digits (and keys) in bucket order ----
      // A padded tile stages its padding too, at ranks in_tile and up (after every real record): no bound to test.
#pragma unroll
      for (int item = 0; item < IPT; ++item) {
        if (kKind == TileKind::padded || is_real(item)) {
          const int slot = staged_slot(ranks[item]);
          if constexpr (OUT != SplitOutput::keys) temp.digit[slot] = static_cast<uint16_t>(digit_of(item));
          if constexpr (kStageKeys) reinterpret_cast<KeyT*>(temp.u.exchange)[slot] = key_of(item);
        }
      }
      __syncthreads();
      if constexpr (kStageKeys) {
        const KeyT* staged = reinterpret_cast<const KeyT*>(temp.u.exchange);
#pragma unroll
        for (int k = 0; k < IPT; ++k) {
          const int i = k * THREADS + tid;
          if (kClean || i < valid_in_tile) {
            const KeyT key = staged[staged_slot(i)];
            // Keys only: the staged key's bucket again, as CUB's one-sweep pass does, instead of a staged 16-bit
            // bucket (H100, 2^26 u32 keys, session 11: SplitSort 1.70 -> 1.62 ms; the functor split 0.559 -> 0.532
            // ms, its hash evaluated a third time). Pairs still stage the buckets: the values need them after the
            // keys' exchange buffer is reused. Values staged in a buffer of their own, with the keys, and scattered
            // by the key's bucket too: split pairs 0.760 -> 0.773 ms and SplitSort pairs 2.49 -> 2.56 ms with
            // uniform keys, 2-3% faster with low-entropy keys (session 11, call k); not kept.
            const uint32_t d = OUT == SplitOutput::keys ? io.bucket_of(key) : temp.digit[staged_slot(i)];
            io.keys_out[temp.shift[d] + i] = key;
          }
          if constexpr (kOneSweepShape) __syncwarp();
        }
      }
      if constexpr (kStageValues) {
        if constexpr (kStageKeys) __syncthreads();  // the keys' exchange buffer is reused for the values
        ValueT* staged = reinterpret_cast<ValueT*>(temp.u.exchange);
#pragma unroll
        for (int item = 0; item < IPT; ++item) {
          const int local = local_of(item);
          if (is_real(item)) {
            if constexpr (OUT == SplitOutput::gather_index) {
              staged[staged_slot(ranks[item])] = static_cast<ValueT>(tile_base + local);
            } else {
              staged[staged_slot(ranks[item])] = load_input(&io.values_in[tile_base + local]);
            }
          }
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < IPT; ++k) {
          const int i = k * THREADS + tid;
          if (kClean || i < valid_in_tile) {
            const int slot = staged_slot(i);
            io.values_out[temp.shift[temp.digit[slot]] + i] = staged[slot];
          }
        }
      }
    }
    if constexpr (!kOneSweepShape) {
      __syncthreads();  // the next tile reuses the ranker storage, shift[] and digit[]
    }
    return true;
  }
};

// A partition with `bool idle() const` may tell a whole launch to do nothing (the segmented split's large-segment
// path, when its plan found no large segment): every block of its kernels then leaves at once.
template <class Partition, class = void>
struct MayBeIdle : std::false_type {};
template <class Partition>
struct MayBeIdle<Partition, std::void_t<decltype(std::declval<const Partition&>().idle())>> : std::true_type {};

// One-line kernel shims. Dynamic shared memory holds the agents' TempStorage (the 11-bit ranker needs > 48 KiB).
template <class Policy, class KeyT, class BucketOp, class Partition>
__global__ void __launch_bounds__(Policy::BLOCK_THREADS)
    split_upsweep_kernel(const KeyT* keys, Partition part, uint32_t num_buckets, BucketOp bucket_of, uint64_t* counts,
                         uint64_t* num_invalid) {
  wait_for_earlier_kernels();  // first: overlapped_launch.cuh
  if constexpr (MayBeIdle<Partition>::value) {
    if (part.idle()) return;
  }
  using Agent = SplitUpsweepAgent<Policy, KeyT, BucketOp, Partition>;
  __shared__ typename Agent::TempStorage temp;
  Agent::run(temp, keys, part, num_buckets, bucket_of, counts, num_invalid);
}

template <class Policy, SplitOutput OUT, class KeyT, class ValueT, class BucketOp, class Partition>
__global__ void __launch_bounds__(Policy::BLOCK_THREADS, Policy::MIN_BLOCKS)
    split_downsweep_kernel(const KeyT* keys_in, SplitKeysOut<OUT, KeyT>* keys_out, const ValueT* values_in,
                           ValueT* values_out, Partition part, uint32_t num_buckets, BucketOp bucket_of,
                           const uint64_t* scanned, uint64_t* bucket_offsets) {
  wait_for_earlier_kernels();  // first: overlapped_launch.cuh
  if constexpr (MayBeIdle<Partition>::value) {
    if (part.idle()) return;
  }
  using Agent = SplitDownsweepAgent<Policy, OUT, KeyT, ValueT, BucketOp, Partition>;
  extern __shared__ __align__(16) unsigned char split_smem[];
  Agent::run(*reinterpret_cast<typename Agent::TempStorage*>(split_smem), keys_in, keys_out, values_in, values_out,
             part, num_buckets, bucket_of, scanned, bucket_offsets);
}

}  // namespace detail
}  // namespace prim
