// Decoupled look-back of one 64-bit count (Merrill and Garland, "Single-pass Parallel Prefix Scan with Decoupled
// Look-back"): tiles claimed in order publish their own count as soon as they know it, and their inclusive prefix
// once they know that; a tile's exclusive prefix is the sum back to the nearest inclusive prefix, read by one warp
// 32 tiles at a time.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <cuda/atomic>

namespace prim {
namespace detail {

// One status word a tile: bits 63..62 its state (0 not yet published, 1 its count, 2 its inclusive prefix), bits
// 61..0 the value. The words start zeroed (one memset a call); the value alone travels in the word, so relaxed
// atomics suffice.
struct TileCountLookback {
  static constexpr unsigned long long kCount = 1ull << 62;
  static constexpr unsigned long long kInclusive = 2ull << 62;
  static constexpr unsigned long long kValueMask = (1ull << 62) - 1;
  static constexpr int kSpinNanoseconds = 64;  // back-off while a predecessor has published nothing

  unsigned long long* words;  // one a tile

  __device__ __forceinline__ void store(int64_t tile, unsigned long long state, uint64_t value) const {
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(words[tile]).store(
        state | static_cast<unsigned long long>(value), cuda::memory_order_relaxed);
  }
  __device__ __forceinline__ unsigned long long load(int64_t tile) const {
    return cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(words[tile]).load(
        cuda::memory_order_relaxed);
  }

  // The tile's own count, published early so that later tiles need not wait for its look-back (tile 0's count is
  // its inclusive prefix). One thread.
  __device__ __forceinline__ void publish_count(int64_t tile, uint64_t count) const {
    store(tile, tile == 0 ? kInclusive : kCount, count);
  }
  __device__ __forceinline__ void publish_inclusive(int64_t tile, uint64_t prefix) const {
    store(tile, kInclusive, prefix);
  }

  // The sum of the counts of tiles [0, tile), for tile > 0; called by all 32 lanes of one warp, which all return it.
  __device__ __forceinline__ uint64_t exclusive_prefix(int64_t tile) const {
    const int lane = threadIdx.x & 31;
    uint64_t prefix = 0;
    for (int64_t window_end = tile;; window_end -= 32) {
      // Lane l reads tile window_end - 1 - l; tiles before 0 read as an inclusive prefix of 0 (tile 0 is inclusive
      // anyway, so the walk never passes it).
      const int64_t t = window_end - 1 - lane;
      unsigned long long word = t >= 0 ? load(t) : kInclusive;
      while (__any_sync(0xFFFFFFFFu, (word >> 62) == 0)) {
        if ((word >> 62) == 0) {
          __nanosleep(kSpinNanoseconds);
          word = load(t);
        }
      }
      // Lanes up to the nearest inclusive prefix (the lowest such lane) add up; without one, all 32 do, and the
      // window moves back.
      const unsigned inclusive = __ballot_sync(0xFFFFFFFFu, (word >> 62) == 2);
      const int last = inclusive != 0 ? __ffs(inclusive) - 1 : 31;
      unsigned long long sum = lane <= last ? (word & kValueMask) : 0;
#pragma unroll
      for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xFFFFFFFFu, sum, offset);
      prefix += sum;
      if (inclusive != 0) return prefix;
    }
  }
};

}  // namespace detail
}  // namespace prim
