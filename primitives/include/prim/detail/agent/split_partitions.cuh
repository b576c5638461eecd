// Partitions of the split engine: which records a block owns, where its counts live in the spine table, and how
// claimed tiles find their run (chunk or whole input) and its look-back words.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <cuda/atomic>
#include <type_traits>
#include <utility>

#include "prim/detail/agent/split_tile.cuh"

namespace prim {
namespace detail {

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
// share of the chunk's tiles: a grid of two blocks an SM left the upsweep at 60% of DRAM bandwidth, and the counting
// between a block's tiles is then the only overlap. The table is bucket-major, counts[d * G*K + b*K + j]
// (K = kUpsweepBlocksPerChunk, j the part), so one exclusive scan orders bucket 0 of all blocks, then bucket 1, ...
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
// half sector back: 30% more DRAM bytes). A run is a chunk: its bases come from the scanned table, and the look-back
// stays inside it.
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
// general tile, whose registers the clean tile pays for (split_lsd.cuh, GlobalSplitPass):
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
  // Plain loads of the input, not evict-first ones (load_streaming): SplitSort keys 1.52 -> 1.47 ms and pairs
  // 2.49 -> 2.44 ms at 2^26.
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

// A partition with `bool idle() const` may tell a whole launch to do nothing (the segmented split's large-segment
// path, when its plan found no large segment): every block of its kernels then leaves at once.
template <class Partition, class = void>
struct MayBeIdle : std::false_type {};
template <class Partition>
struct MayBeIdle<Partition, std::void_t<decltype(std::declval<const Partition&>().idle())>> : std::true_type {};

}  // namespace detail
}  // namespace prim
