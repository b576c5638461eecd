// The split engine's downsweep agent: stable rank by bucket, exchange through shared memory, coalesced scatter.
//
// The engine's shape (thesis ch. 3/4; CUB's radix passes, the one-sweep look-back among them):
//   * upsweep   — every downsweep block owns one contiguous chunk of tiles (an even share of the input); a few
//                 upsweep blocks count its records per bucket, a part of the chunk each; only the keys are read
//                 and only the bucket functor is evaluated (split_upsweep_agent.cuh).
//   * spine     — an exclusive scan of the bucket-major table counts[bucket][part] gives every (bucket, block)
//                 pair its first output position (cub::DeviceScan; the table is small: num_buckets x a few parts
//                 per SM).
//   * downsweep — the plain split (TileLookbackPartition; more than 256 buckets take two 8-bit passes): blocks
//                 claim tiles in input order, one at a time; a tile's output base for a bucket is its chunk's base
//                 from the spine plus the bucket's records in the chunk's earlier tiles, found by decoupled look-back
//                 inside the chunk. In the segmented splits every block walks its chunk again, tile by tile, keeping
//                 one running output base per bucket in registers. Either way a tile is loaded, ranked stably by
//                 bucket (warp match-any ranking), staged in shared memory in bucket order and written out with
//                 consecutive threads on consecutive addresses.
// Memory traffic per record: key read twice, value read once, both written once. The LSD passes of SplitSort and the
// iterative split skip upsweep and spine: one histogram counts every pass first, and each pass's look-back runs over
// the whole input (GlobalLookbackPartition).
//
// Records whose bucket is out of range, and the unused tail of a partial tile, are ranked under a "sink" digit
// (the last digit of the ranker). When num_buckets < 2^RADIX_BITS the sink digit is not a bucket, so sinks
// sort after every real record and are simply not written. When num_buckets == 2^RADIX_BITS the sink digit is
// the last real bucket; the sinks in front of a real record of that bucket are counted (one ballot per item)
// and subtracted from its rank, so real records still get dense, stable slots.
//
// Why claimed tiles: when a block walks a chunk, a bucket's run that ends inside a 32-byte sector is completed a tile
// time later, after the L2 has written the half sector back (30% more DRAM bytes than the records). Claimed in order,
// neighbouring tiles are in flight together, and the downsweep moves CUB's one-sweep bytes.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cub/block/block_radix_rank.cuh>
#include <type_traits>

#include "prim/detail/agent/split_bases.cuh"
#include "prim/detail/agent/split_partitions.cuh"
#include "prim/detail/agent/split_tile.cuh"
#include "prim/detail/block/split_block_utils.cuh"
#include "prim/detail/tuning.h"

namespace prim {
namespace detail {

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
  // CUB's scatter does): faster in that shape (SplitSort keys 1.52 -> 1.41 ms with plain loads and the smaller shared
  // memory), slower in the resident grid (pairs 2.49 -> 2.55-2.60 ms), so they are tied to the shape.
  static constexpr bool kOneSweepShape = PartitionChoices<Partition>::kOneTilePerBlock;
  // A gather permutation's ranker counts in two parts a warp (each lane's count in its part, lane % 2): split_index
  // gather 0.46 -> 0.44 ms (2^26 u32 keys, 256 buckets); four parts, two parts for every output, and CUB's
  // WARP_MATCH_ATOMIC_OR ranks were slower.
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
  // bucket, sat in one bank: a 32-way conflict (iota keys 0.71 ms against 0.49 on random ones, 2^26 keys in segments
  // of 2^16). The plain split's 6144-record tile (24 a bucket, 8-way) loses nothing without padding.
  static constexpr bool kPadStaging = D >= 32 && (TILE / D) % 32 == 0;
  static constexpr int kStagedSlots = kPadStaging ? TILE + TILE / 32 : TILE;
  __device__ __forceinline__ static int staged_slot(int rank) { return kPadStaging ? rank + (rank >> 5) : rank; }
  static constexpr size_t kExchangeBytes = kStagedSlots * (kKeyBytes > kValueBytes ? kKeyBytes : kValueBytes);
  // A gather permutation stages one 32-bit word a record, the record's place in its tile above its digit, instead of
  // the index and a 16-bit digit beside it: one shared-memory store and load a record, one barrier and the digit
  // array fewer (split_index gather 0.48 -> 0.46 ms, 2^26, 256 buckets).
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
    // the one-sweep shape drops it (45.9 -> 31.3 KB a block for SplitSort's keys, slightly faster). The other
    // keys-only kernels keep it: without it the plain split by a functor was 3% slower.
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
  // split of 2^26 keys took 0.66 ms against 0.47. Its bases are loaded here, so that no array of the caller's needs an
  // address.
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
            // bucket (SplitSort 1.70 -> 1.62 ms; the functor split 0.559 -> 0.532 ms, its hash evaluated a third
            // time). Pairs still stage the buckets: the values need them after the keys' exchange buffer is reused
            // (values scattered by the key's bucket from a buffer of their own were slower with uniform keys).
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

}  // namespace detail
}  // namespace prim
