// A downsweep tile's output bases per bucket: running (a block walks its chunk), cursors (any order inside a
// bucket) or look-back (claimed tiles), and the ranker callback that hands the tile's counts to them.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <cuda/atomic>

#include "prim/detail/agent/split_partitions.cuh"

namespace prim {
namespace detail {

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

}  // namespace detail
}  // namespace prim
