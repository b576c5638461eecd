// Tuning table of the primitives: block sizes, items per thread, tile sizes and residency, one configuration a line.
// Each value feeds __launch_bounds__ and the shared-memory layouts of its agent; a tag beside it names the measurement
// it rests on (H100, 2^26 records unless the tag says otherwise). Tuning constants private to one small kernel
// (gather / scatter, multi-split, the LSD histogram, the cluster path) sit beside that kernel as named constexprs.
//
//   configuration                          block  items/thread              tile (4 B records)  min blocks/SM
//   split's own route, <= 256 buckets      384    min(16, 48 KiB / record)  6144                2   SplitPolicyFor
//   split's own route, <= 2048 buckets     128    min(16, 48 KiB / record)  2048                1   SplitPolicyFor
//   one-sweep pass, resident grid          384    min(24, 48 KiB / record)  9216                2   OneSweepShape
//   one-sweep pass, 32-bit keys            384    19, a block a tile        7296                3   OneSweepShape
//   one-sweep pass, u32 + u32 pairs        384    20, a block a tile        7680                2   OneSweepShape
//   segmented tile engine                  256    16 / 8 / 4 / 2 by record  4096                2 (<= 4 B), 3
//   multi-split count / emit               256    1                         -                   -   MultiSplitPolicy
//   hash map insert / find / contains      256    1 key                     -                   -   HashMapPolicy
//   merge-path tile (merge, sorted search) 256    min(15, 60 B / record)    3840                8 (keys only), -
//                                                                                                 MergePolicyFor
//   unsorted search                        256    3 needles in lockstep     768 needles         4   SearchPolicy
//   select / partition tile                256    min(32, 128 B / item)     8192                4   SelectPolicyFor
//   select unique (4 items a lane a row)   256    min(32, 128 B / item)     8192                4   SelectPolicyFor
//   select by flags                        384    min(16, 64 B / item)      6144                4   SelectPolicyFor
//   range tree build / queries             256 / 128  1 list item / 1 box     -                   -   RangeTreePolicy
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace prim {
namespace detail {

// The split engine's policy: radix width, block size, items per thread, grid and register caps.
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

// RADIX_BITS 8 (<= 256 buckets): 384 threads x 16 items, __launch_bounds__(384, 2) so that two blocks share an SM.
//   384 x 16, two blocks an SM: 1.34 ms against 1.92 at 256 x 16 uncapped (u32+u32 pairs, 256 buckets);
//   18-20 items spill in some rows, 23 (CUB's one-sweep count) in all.
// RADIX_BITS 11 (<= 2048 buckets): 128 threads, because the match ranker keeps a counter per (digit, warp):
// 2048 x 5 x 4 B = 40 KiB of shared memory already.
template <int RADIX_BITS, size_t RECORD_BYTES>
struct SplitPolicyFor {
  static constexpr int kThreads = RADIX_BITS <= 8 ? 384 : 128;
  using type = SplitTilePolicy<RADIX_BITS, kThreads, split_items_per_thread(kThreads, RECORD_BYTES, 16),
                               RADIX_BITS <= 8 ? 4 : 2, RADIX_BITS <= 8 ? 2 : 1>;
};

// The one-sweep pass's shapes (GlobalSplitPass, dispatch/split_dispatch.cuh; chosen in dispatch/split_lsd.cuh):
// items a thread and the __launch_bounds__ residency.
struct OneSweepShape {
  // Resident grid of claimed tiles: fewer claims, look-backs and barriers a record than 16 items, although 21-24
  // spill 28-40 bytes (SplitSort keys at 2^26: 1.99 / 1.76 / 1.71 ms at 16 / 21 / 24 items; 28 and 32 no faster).
  static constexpr int kResidentItems = 24;
  static constexpr int kResidentMinBlocks = 2;
  // CUB's one-sweep shape, a block a tile, for 32-bit keys: 1.61 -> 1.55 ms against the resident grid (CUB 1.45).
  static constexpr int kKeysItems = 19;
  static constexpr int kKeysMinBlocks = 3;  // 56 registers
  // The same for u32 + u32 pairs: fastest of 17-24 records a thread (2.35 ms; resident grid 2.43, CUB 2.34).
  static constexpr int kPairsItems = 20;
  static constexpr int kPairsMinBlocks = 2;
};

// The segmented split's tile engine. A tile's records pass through shared memory twice (transpose, sort exchange), so
// wider records get fewer items per thread to keep the downsweep under the 48 KiB static limit. 1/8 of the capacity
// is reserved for small segments moved whole into a tile.
template <int kRecordBytes>
struct SegmentedSplitPolicy {
  static constexpr int kBlockThreads = 256;
  static constexpr int kItemsPerThread = kRecordBytes <= 4 ? 16 : kRecordBytes <= 8 ? 8 : kRecordBytes <= 16 ? 4 : 2;
  static constexpr int kTileCapacity = kBlockThreads * kItemsPerThread;      // items one block holds
  static constexpr int64_t kTileStride = kTileCapacity - kTileCapacity / 8;  // nominal tile spacing
  static constexpr int64_t kSmallSegment = kTileCapacity - kTileStride + 1;  // never split across tiles
  // Block radix sort digit: the renderer's L2 / L3 keys (segment ordinal x buckets + bucket) have 9-10 bits, two
  // passes instead of three with 4-bit digits.
  static constexpr int kRadixBits = 5;  // 5: two sort passes for 10-bit keys; downsweep issue-bound at 4
  // Downsweep blocks per SM: 3 caps registers at 80, so 8-byte records (90 uncapped) fit three blocks an SM;
  // 4-byte records (16 a thread) would spill under that cap, 2 caps them at 128.
  static constexpr int kDownsweepMinBlocks = kRecordBytes <= 4 ? 2 : 3;  // uncapped 4 B: 151 regs, 1.6x slower
  static constexpr int kUpsweepThreads = 256;
  static constexpr int kPlanWarpsPerBlock = 8;
  static_assert(kSmallSegment >= 1 && kSmallSegment <= kTileStride, "a small segment fits between two boundaries");
  static_assert(kTileCapacity < (1 << 16), "local counters are packed into 16 bits");
};

// The multi-split's count, finalize and emit passes.
struct MultiSplitPolicy {
  static constexpr int kCountThreads = 256;       // count and emit passes: one thread per element
  static constexpr int kFinalizeThreads = 1024;   // one block scans the bucket histogram
  static constexpr uint32_t kMaxSharedHistogram = 8192;  // larger histograms are counted in global memory
  static constexpr int64_t kMaxGrid = int64_t{1} << 30;  // grid-stride beyond this many blocks
};

// The hash map's bulk calls: one thread a key, a probe a 32-byte window (the window is part of the table's layout:
// core/hash_map_types.h). Untuned: a thread's state is a window and a key, so any block size keeps 2048 threads an SM.
struct HashMapPolicy {
  static constexpr int kBlockThreads = 256;
  static constexpr int64_t kMaxGrid = int64_t{1} << 30;  // grid-stride beyond this many blocks
};

// Merge-path tiles: a block merges TILE_ITEMS items of the output, both inputs' shares of them staged in shared
// memory (merge_agent.cuh; the sorted-needle sweep of search_agent.cuh takes the same shape).
template <int BLOCK_THREADS_, int ITEMS_PER_THREAD_, int MIN_BLOCKS_ = 0>
struct MergeTilePolicy {
  static constexpr int BLOCK_THREADS = BLOCK_THREADS_;
  static constexpr int ITEMS_PER_THREAD = ITEMS_PER_THREAD_;
  static constexpr int TILE_ITEMS = BLOCK_THREADS * ITEMS_PER_THREAD;
  static constexpr int MIN_BLOCKS = MIN_BLOCKS_;  // the merge kernel's residency (__launch_bounds__; 0: the compiler's)
  static_assert(BLOCK_THREADS % 32 == 0, "whole warps only");
};

// 15 items of 4 bytes a thread (an odd count keeps the blocked shared-memory writes free of bank conflicts), at 256
// threads so that pairs of u32 (45 KiB of staging a block) still fit four blocks an SM. A merge of keys alone is held
// to 32 registers, eight blocks an SM (the 45 it takes uncapped hold five): 7 % faster on the H200 at 2^26 + 2^26
// u32. Swept there: 6 or 7 blocks; 512 threads at 3 or 4 blocks; 128 at 16; 11, 13, 17, 19 and 21 items at 8 blocks
// were no faster (19: the same).
constexpr int kMergeKeysThreads = 256;
constexpr int kMergeKeysMinBlocks = 8;
template <size_t KEY_BYTES, size_t VALUE_BYTES>
struct MergePolicyFor {
  static constexpr size_t kRecordBytes = KEY_BYTES > VALUE_BYTES ? KEY_BYTES : VALUE_BYTES;
  static constexpr int kItems =
      kRecordBytes >= 60 ? 1 : (60 / kRecordBytes > 15 ? 15 : static_cast<int>(60 / kRecordBytes));
  using type = typename std::conditional<VALUE_BYTES == 0,
                                         MergeTilePolicy<kMergeKeysThreads, kItems, kMergeKeysMinBlocks>,
                                         MergeTilePolicy<256, kItems>>::type;
};

// The range tree (range_tree_kernels.cuh): a thread a list item per level of the build (whole warps: a warp's ballot
// is 32 went-left bits), a thread a box in the queries. First settings, not yet measured.
struct RangeTreePolicy {
  static constexpr int kBuildThreads = 256;
  static constexpr int kQueryThreads = 128;
};

// The searches (search_agent.cuh). Sorted needles are swept against the haystack with merge-path tiles when the
// haystack holds at most kSweepHaystackPerNeedle items a needle; otherwise, and for needles in any order, each needle
// is searched down levels of samples of the haystack: the top (at most kTopBytes, kMaxTopItems items) in shared
// memory, then a node of about kNodeBytes a level from global memory, kNeedlesPerThread needles a thread stepping in
// lockstep so that their nodes' loads are in flight together. Swept on an H200 (2^20, 2^24, 2^26 unsorted needles in
// as many u32, against thrust::lower_bound): 32-byte nodes (a sector) beat 64 (2.78 / 2.27x at 2^26) and 16 (1.9x);
// shared memory left to L1 beats a larger top (8 KiB, 16 KiB and 32 KiB tops lose up to 20 % at 2^20); 2 to 4 needles
// at 3 to 5 blocks an SM are within 5 % of each other, while a shape that spills (4 needles of 64-byte nodes under the
// 64-register cap) or 128-thread blocks lose a third.
struct SearchPolicy {
  static constexpr int kThreads = 256;
  static constexpr int kNeedlesPerThread = 3;
  static constexpr int kNodeBytes = 32;
  static constexpr int kTopBytes = 4 * 1024;
  static constexpr int kMaxTopItems = 4096;
  static constexpr int kBlocksPerSm = 4;             // the search's resident grid,
  static constexpr int kMinBlocks = kBlocksPerSm;     //   and its residency (__launch_bounds__: at most 64 registers)
  static constexpr int64_t kSweepHaystackPerNeedle = 32;
  static constexpr int kSampleThreads = 256;  // the kernel that gathers the levels
};

// Select and partition tiles (select_agent.cuh): a warp ranks a row of 32 x VEC consecutive items at a time with
// ballots, a lane holding VEC consecutive items of each row. The shape of a tile, the blocks an SM must hold (the
// register cap: 65536 / (BLOCK_THREADS * MIN_BLOCKS) a thread) and VEC.
template <int BLOCK_THREADS_, int ITEMS_PER_THREAD_, int MIN_BLOCKS_, int VEC_ = 1>
struct SelectTilePolicy {
  static constexpr int BLOCK_THREADS = BLOCK_THREADS_;
  static constexpr int ITEMS_PER_THREAD = ITEMS_PER_THREAD_;
  static constexpr int MIN_BLOCKS = MIN_BLOCKS_;
  static constexpr int VEC = VEC_;
  static constexpr int WARPS = BLOCK_THREADS / 32;
  static constexpr int WARP_ITEMS = 32 * ITEMS_PER_THREAD;
  static constexpr int TILE_ITEMS = BLOCK_THREADS * ITEMS_PER_THREAD;
  static_assert(BLOCK_THREADS % 32 == 0, "whole warps only");
  static_assert(ITEMS_PER_THREAD >= 1 && ITEMS_PER_THREAD <= 32, "a row's flags are a bit of a 32-bit mask");
  static_assert(VEC == 1 || VEC == 2 || VEC == 4 || VEC == 8, "a lane's items in a row");
  static_assert(ITEMS_PER_THREAD % VEC == 0, "whole rows only");
};

// A pass that reads each item once lives on the bytes each thread has in flight: 128 bytes of items a thread (32 of
// 4 bytes), 256 threads, 4 blocks an SM. With a flags array beside the items, 64 bytes of items (16 of 4 bytes) and
// their flags, 384 threads: at 32 items the flags' loads double the registers in flight and the pass slows down.
// Measured on an H200, 2^26 u32, against CUB (docs/bench): 384 x 16 at 3 blocks 0.79 / 0.81 / 0.69 / 0.86 (select_if,
// flagged, unique, partition); 256 x 24 at 4: 0.91 / 0.66 / 0.81 / 0.97; 256 x 32 at 4: 0.97 / 0.83 / 0.88 / 1.04;
// flagged at 384 x 16, 4 blocks: 0.94 with a flag a load, 1.06 with a lane's 16 flags in one load (SelectByFlags), which
// also leaves it no spills at its 40-register cap.
constexpr int select_items_per_thread(size_t item_bytes, bool with_flags) {
  const size_t bytes = with_flags ? 64 : 128;
  const int most = with_flags ? 16 : 32;
  if (item_bytes >= bytes) return 1;
  return bytes / item_bytes > static_cast<size_t>(most) ? most : static_cast<int>(bytes / item_bytes);
}
// VEC, the consecutive items a lane holds in a row (a load of up to 16 bytes each): select_unique gains from it, as
// all but a lane's first item find their predecessor in its registers (two shuffles a row of 32 VEC items, not of
// 32); the other selectors lose. Measured on an H200, 2^26 u32, ratio to CUB, VEC 1 / 4: select_if 0.96 / 0.89,
// select_flagged (384 x 16, its flags loaded four at a time with VEC 4) 0.94 / 0.92, select_unique 0.79 / 0.98
// (VEC 2: 0.97; one item a lane with the selector's earlier register use: 0.86), partition_if 1.03 / 0.91.
constexpr int select_row_vector(size_t item_bytes, int items) {
  for (int vec = 4; vec > 1; vec /= 2) {
    if ((item_bytes & (item_bytes - 1)) == 0 && item_bytes * vec <= 16 && items % vec == 0) return vec;
  }
  return 1;
}
template <size_t ITEM_BYTES, bool WITH_FLAGS = false, bool VECTOR_ROWS = false>
struct SelectPolicyFor
    : SelectTilePolicy<WITH_FLAGS ? 384 : 256, select_items_per_thread(ITEM_BYTES, WITH_FLAGS), 4,
                       VECTOR_ROWS ? select_row_vector(ITEM_BYTES, select_items_per_thread(ITEM_BYTES, WITH_FLAGS))
                                   : 1> {};

}  // namespace detail
}  // namespace prim
