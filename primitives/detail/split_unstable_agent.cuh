// The unstable split's downsweep (SplitOrder::unstable): same upsweep, spine, tile policy and partition as the
// stable engine (split_agent.cuh), a different way of ranking a tile. Since session 17 it runs only for splits of
// 2^30 records or more into up to 256 buckets: below that the unstable order takes the one-sweep pass with cursor
// bases (split_lsd.cuh, CursorBases), which measured faster than this downsweep and than the stable pass.
//
// The stable downsweep must give every record its rank among the equal-bucket records *in input order*, so it
// keeps a counter per (bucket, warp), and after counting scans the whole bucket x warp table (2^8 x 13 padded
// counters for 8 bits, 2^11 x 5 for 11 bits: 9 resp. 81 counters per thread) before any record knows its slot.
// An unstable split only needs *some* dense numbering of each bucket's records inside the tile, so:
//
//   rank     — one 32-bit counter per bucket for the whole block. Per item, a warp groups its lanes by bucket
//              (__match_any_sync); the lowest lane of each group adds the group's size to the bucket's counter
//              with one shared-memory atomicAdd and broadcasts the old value; a lane's rank is that value plus
//              the number of its peers on lower lanes. Warps meet on the counters in whatever order the
//              hardware serialises their atomics: that order is the only thing that makes the split unstable.
//              Records of an out-of-range bucket and the unused tail of a partial tile take no part (no sink
//              digit, no ballots, nothing to subtract).
//   offsets  — the tile's bucket starts are an exclusive scan of just num_buckets <= 2^RADIX_BITS counters (one
//              per thread for 8 bits, 16 for 11 bits), which also yields the tile's number of valid records.
//   exchange — records are staged in shared memory in bucket order (slot = tile start of the bucket + rank) and
//              written with consecutive threads on consecutive slots: slot i of bucket d goes to shift[d] + i, so
//              a bucket's run of the tile lands on consecutive addresses (coalesced), exactly as in the stable
//              path. Keys and values are staged together (one barrier) when both fit in twice the per-tile
//              exchange budget, which holds for every record up to 128 bytes; larger ones share one buffer.
//   scatter  — output bases per bucket come from the same scanned upsweep table, through the same partition as the
//              stable split (look-back over claimed tiles; more than 256 buckets take the stable split's two
//              passes), so bucket offsets, invalid-record accounting (the upsweep's) and the error behaviour are
//              identical to the stable split; only the order inside a bucket differs.
//
// Barriers per tile: 4 (after the atomics; inside the block scan; after publishing the offsets; after staging), for
// keys and for pairs staged together (6 when they share a buffer). The stable downsweep has 7 for keys and 9 for
// pairs, 4 of them inside cub::BlockRadixRankMatch.
// Shared memory: the exchange, a 16-bit bucket per staged slot, and per bucket one counter, one tile start and one
// 64-bit output shift; no per-warp tables (the 11-bit stable ranker's alone is 40 KiB).
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cub/block/block_scan.cuh>

#include "detail/split_agent.cuh"

namespace prim {
namespace detail {

template <class Policy, SplitOutput OUT, class KeyT, class ValueT, class BucketOp, class Partition>
struct SplitUnstableDownsweepAgent {
  static_assert(OUT == SplitOutput::keys || OUT == SplitOutput::pairs,
                "the unstable split moves records; split_index is always stable");
  static constexpr int THREADS = Policy::BLOCK_THREADS;
  static constexpr int IPT = Policy::ITEMS_PER_THREAD;
  static constexpr int TILE = Policy::TILE_ITEMS;
  static constexpr int D = Policy::RADIX_DIGITS;
  static constexpr uint32_t kFullMask = 0xFFFFFFFFu;
  static constexpr uint32_t kSkip = 0xFFFFFFFFu;  // digit of a record that is not ranked (invalid, past the end)
  static_assert(TILE <= 0xFFFF && D <= 0x8000, "a record's tag packs bucket << 16 | rank; staged buckets are 16-bit");

  // Digits a thread owns for the scan, blocked: digits tid * BINS .. tid * BINS + BINS - 1.
  static constexpr int BINS = D > THREADS ? (D + THREADS - 1) / THREADS : 1;
  // Blocked ownership reads the per-bucket arrays with a stride of BINS elements, which would hit one bank (or
  // one bank pair for the 64-bit shifts) from every lane; one pad element per 16 digits makes a lane's index
  // 17 * lane + t, all banks distinct for both widths. With one digit per thread the reads are consecutive.
  static constexpr bool kPad = BINS > 1;
  static constexpr int kPaddedDigits = kPad ? D + D / 16 : D;
  __device__ __forceinline__ static uint32_t padded(uint32_t d) { return kPad ? d + (d >> 4) : d; }

  static constexpr bool kPairs = OUT == SplitOutput::pairs;
  static constexpr size_t kValueSize = kPairs ? sizeof(ValueT) : 0;
  // One staging pass for keys and values when both fit in twice the per-tile budget (the policy sizes a tile so
  // that max(key, value) fits once, so this holds unless one item per thread already exceeds the budget).
  static constexpr bool kStageTogether =
      kPairs && static_cast<size_t>(TILE) * (sizeof(KeyT) + kValueSize) <= 2 * size_t{kSplitExchangeBudgetBytes};
  static constexpr size_t kExchangeBytes =
      static_cast<size_t>(TILE) * (kStageTogether || sizeof(KeyT) >= kValueSize ? sizeof(KeyT) : kValueSize);
  static constexpr size_t kValueExchangeBytes = kStageTogether ? static_cast<size_t>(TILE) * kValueSize : 16;
  static_assert(alignof(KeyT) <= 16 && (!kPairs || alignof(ValueT) <= 16), "records aligned to <= 16 B");

  using BlockScan = cub::BlockScan<uint32_t, THREADS>;

  struct TempStorage {
    alignas(16) unsigned char exchange[kExchangeBytes];             // keys (then values, if not together)
    alignas(16) unsigned char value_exchange[kValueExchangeBytes];  // values staged with their keys
    int64_t shift[kPaddedDigits];   // global position of staged slot i of bucket d: shift[padded(d)] + i
    uint32_t count[kPaddedDigits];  // the tile's records per bucket (atomics); zero between tiles
    uint32_t start[kPaddedDigits];  // the tile's first staged slot of each bucket
    uint16_t digit[TILE];           // bucket of each staged slot (bucket order)
    typename BlockScan::TempStorage scan;
    uint32_t claimed_tile;          // look-back partitions: the tile the block claimed
  };

  TempStorage& temp;
  SplitIo<KeyT, ValueT, BucketOp> io;
  uint64_t base[BINS];  // running output position of each owned bucket (64-bit: n may exceed 2^32)

  __device__ __forceinline__ static void run(TempStorage& temp, const KeyT* __restrict__ keys_in,
                                             KeyT* __restrict__ keys_out, const ValueT* __restrict__ values_in,
                                             ValueT* __restrict__ values_out, Partition part, uint32_t num_buckets,
                                             BucketOp bucket_of, const uint64_t* __restrict__ scanned,
                                             uint64_t* bucket_offsets) {
    const int tid = threadIdx.x;
    // Zero the counters once; every tile's scan zeroes what it read, so they are zero again for the next one.
    for (int i = tid; i < kPaddedDigits; i += THREADS) temp.count[i] = 0;

    static_assert(UsesLookback<Partition>::value, "the unstable split claims tiles (more than 256 buckets: two "
                                                  "stable passes)");
    SplitUnstableDownsweepAgent agent{temp, {keys_in, keys_out, values_in, values_out, num_buckets, bucket_of}, {}};
    agent.run_claimed_tiles(part, scanned, bucket_offsets);  // its first barrier orders the zeroed counters
  }

  // Claimed tiles in input order with look-back bases (the look-back partitions; split_agent.cuh has the scheme).
  __device__ __forceinline__ void run_claimed_tiles(const Partition& part, const uint64_t* __restrict__ scanned,
                                                    uint64_t* bucket_offsets) {
    const int tid = threadIdx.x;
    const uint32_t num_buckets = io.num_buckets;
    const int64_t count = resolve_count(part.n);
    const int64_t num_tiles = (count + TILE - 1) / TILE;
    write_bucket_offsets(scanned, part.offsets_work(num_buckets), 0, bucket_offsets);
    for (;;) {
      // Every thread read the previous claim before the previous tile's first barrier, which tid 0 also passed.
      if (tid == 0) temp.claimed_tile = atomicAdd(part.next_tile, 1u);
      __syncthreads();
      const int64_t claimed = temp.claimed_tile;
      if (claimed >= num_tiles) break;
      const LookbackRun run = part.run_of(claimed, num_tiles, count, scanned, num_buckets);
      run.load_bases(scanned, num_buckets, base);
      const LookbackBases bases{{}, part.lookback + run.first_tile * num_buckets, claimed - run.first_tile};
      const int64_t tile_base = claimed * TILE;
      if (count - tile_base >= TILE) {
        tile<true>(tile_base, TILE, bases);
      } else {
        tile<false>(tile_base, static_cast<int>(count - tile_base), bases);
      }
    }
  }

  // One tile. Shared state written here is next written only after the following tile's first barrier, and every
  // thread reads it before reaching that barrier, so tiles need no barrier of their own between them.
  template <bool FULL_TILE, class Bases>
  __device__ __forceinline__ void tile(int64_t tile_base, int in_tile, const Bases& bases) {
    const int tid = threadIdx.x;
    const int lane = tid % Policy::WARP_THREADS;
    const int warp = tid / Policy::WARP_THREADS;
    const uint32_t lt = lanemask_lt();

    // One 32-bit tag per record carries it through the tile: its bucket after the load, (bucket << 16 | rank)
    // after the ranking, its staged slot after the staging; kSkip throughout for a record that is not written.
    // One register per record instead of three (bucket, rank, slot) keeps the 8-bit policy's 384 threads inside
    // their 80-register cap.
    // ---- load keys (warp-striped: one load instruction reads 32 consecutive records) and their buckets ----
    KeyT keys[IPT];
    uint32_t tag[IPT];
#pragma unroll
    for (int item = 0; item < IPT; ++item) {
      const int local = warp * Policy::WARP_ITEMS + item * Policy::WARP_THREADS + lane;
      tag[item] = kSkip;
      if (FULL_TILE || local < in_tile) {
        keys[item] = io.keys_in[tile_base + local];
        const uint32_t b = io.bucket_of(keys[item]);
        if (b < io.num_buckets) tag[item] = b;
      }
    }

    // ---- rank: warp-aggregated shared atomics, one per (warp, item, distinct bucket) ----
    // All 32 lanes run every item (skipped records included), so the full mask is exact.
#pragma unroll
    for (int item = 0; item < IPT; ++item) {
      const uint32_t d = tag[item];
      const uint32_t peers = __match_any_sync(kFullMask, d);
      const uint32_t below = __popc(peers & lt);
      uint32_t first = 0;
      if (below == 0 && d != kSkip) first = atomicAdd(&temp.count[padded(d)], static_cast<uint32_t>(__popc(peers)));
      const uint32_t rank = __shfl_sync(kFullMask, first, __ffs(peers) - 1) + below;
      if (d != kSkip) tag[item] = (d << 16) | rank;
    }
    __syncthreads();  // every atomic of the tile has landed

    // ---- tile offsets: exclusive scan of the bucket counters; advance the output bases ----
    uint32_t counts[BINS];
    uint32_t starts[BINS];
    int real[BINS];  // the same counts, for the bases' hooks
#pragma unroll
    for (int t = 0; t < BINS; ++t) {
      const uint32_t d = tid * BINS + t;
      counts[t] = 0;
      if (d < io.num_buckets) {
        counts[t] = temp.count[padded(d)];
        temp.count[padded(d)] = 0;  // ready for the next tile (its atomics follow two barriers later)
      }
      real[t] = static_cast<int>(counts[t]);
    }
    bases.publish(real, io.num_buckets);
    uint32_t valid_in_tile = 0;
    BlockScan(temp.scan).ExclusiveSum(counts, starts, valid_in_tile);  // one barrier inside
    bases.resolve(real, base, io.num_buckets);
#pragma unroll
    for (int t = 0; t < BINS; ++t) {
      const uint32_t d = tid * BINS + t;
      if (d < io.num_buckets) {
        temp.start[padded(d)] = starts[t];
        temp.shift[padded(d)] = static_cast<int64_t>(base[t]) - starts[t];
        base[t] += counts[t];
      }
    }
    __syncthreads();  // start[] and shift[] are visible

    // ---- stage in bucket order ----
    KeyT* staged_keys = reinterpret_cast<KeyT*>(temp.exchange);
#pragma unroll
    for (int item = 0; item < IPT; ++item) {
      if (tag[item] != kSkip) {
        const uint32_t d = tag[item] >> 16;
        const uint32_t slot = temp.start[padded(d)] + (tag[item] & 0xFFFFu);
        temp.digit[slot] = static_cast<uint16_t>(d);
        staged_keys[slot] = keys[item];
        tag[item] = slot;
      }
    }
    if constexpr (kStageTogether) stage_values(reinterpret_cast<ValueT*>(temp.value_exchange), tile_base, tag);
    __syncthreads();

    // ---- scatter: consecutive threads on consecutive slots, slot i of bucket d at shift[d] + i ----
#pragma unroll
    for (int k = 0; k < IPT; ++k) {
      const int i = k * THREADS + tid;
      if (i < static_cast<int>(valid_in_tile)) {  // even a full tile may hold invalid records
        const int64_t dst = temp.shift[padded(temp.digit[i])] + i;
        io.keys_out[dst] = staged_keys[i];
        if constexpr (kStageTogether) io.values_out[dst] = reinterpret_cast<const ValueT*>(temp.value_exchange)[i];
      }
    }
    if constexpr (kPairs && !kStageTogether) {
      __syncthreads();  // the keys' exchange buffer is reused for the values
      ValueT* staged_values = reinterpret_cast<ValueT*>(temp.exchange);
      stage_values(staged_values, tile_base, tag);
      __syncthreads();
#pragma unroll
      for (int k = 0; k < IPT; ++k) {
        const int i = k * THREADS + tid;
        if (i < static_cast<int>(valid_in_tile)) {
          io.values_out[temp.shift[padded(temp.digit[i])] + i] = staged_values[i];
        }
      }
    }
  }

  // Values are read only here, at their keys' staged slots (each warp's reads are still consecutive).
  __device__ __forceinline__ void stage_values(ValueT* staged, int64_t tile_base, const uint32_t (&slot)[IPT]) const {
    const int lane = threadIdx.x % Policy::WARP_THREADS;
    const int warp = threadIdx.x / Policy::WARP_THREADS;
#pragma unroll
    for (int item = 0; item < IPT; ++item) {
      const int local = warp * Policy::WARP_ITEMS + item * Policy::WARP_THREADS + lane;
      if (slot[item] != kSkip) staged[slot[item]] = io.values_in[tile_base + local];
    }
  }
};

// One-line kernel shim; dynamic shared memory holds the agent's TempStorage (over 48 KiB for pairs).
template <class Policy, SplitOutput OUT, class KeyT, class ValueT, class BucketOp, class Partition>
__global__ void __launch_bounds__(Policy::BLOCK_THREADS, Policy::MIN_BLOCKS)
    split_unstable_downsweep_kernel(const KeyT* keys_in, KeyT* keys_out, const ValueT* values_in, ValueT* values_out,
                                    Partition part, uint32_t num_buckets, BucketOp bucket_of, const uint64_t* scanned,
                                    uint64_t* bucket_offsets) {
  using Agent = SplitUnstableDownsweepAgent<Policy, OUT, KeyT, ValueT, BucketOp, Partition>;
  extern __shared__ __align__(16) unsigned char split_unstable_smem[];
  Agent::run(*reinterpret_cast<typename Agent::TempStorage*>(split_unstable_smem), keys_in, keys_out, values_in,
             values_out, part, num_buckets, bucket_of, scanned, bucket_offsets);
}

}  // namespace detail
}  // namespace prim
