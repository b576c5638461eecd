// The split engine's upsweep agent: per-chunk bucket counts into the bucket-major spine table.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "prim/detail/agent/split_partitions.cuh"
#include "prim/detail/tuning.h"

namespace prim {
namespace detail {

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

}  // namespace detail
}  // namespace prim
