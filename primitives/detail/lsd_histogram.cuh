// The one histogram of the LSD one-sweep route (split_lsd.cuh): every pass's digit counts over the whole input, from
// one read of the keys, then one exclusive scan per pass. CUB's one-sweep radix sort counts its passes the same way
// (a histogram kernel, then a scan per pass); it replaces one upsweep and one spine scan per pass.
//
// Why the counts of all passes can come first: a pass's digit counts do not depend on the order of its input, so
// pass p's bucket starts are known before pass p-1 has run. What depends on the order, each tile's counts, the
// passes find by look-back over the whole input (GlobalLookbackPartition, split_agent.cuh).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <cub/block/block_scan.cuh>

#include "detail/split_agent.cuh"
#include "prim/item_count.h"

namespace prim {
namespace detail {

// Widest digit of one LSD pass. 8 bits keep the ranker's shared memory small (several blocks per SM); the
// 11-bit ranker would save a pass on 32-bit keys (3 instead of 4) but runs at roughly half the occupancy.
constexpr int kLsdDigitBits = 8;
constexpr int kLsdDigits = 1 << kLsdDigitBits;

// Digit width of LSD pass `pass` over `total_bits` bits: kLsdDigitBits, the last pass narrower, 0 past the end.
__host__ __device__ constexpr int lsd_pass_bits(int total_bits, int pass) {
  const int rest = total_bits - pass * kLsdDigitBits;
  return rest < 0 ? 0 : (rest > kLsdDigitBits ? kLsdDigitBits : rest);
}

// The passes' digits: pass p's functor is make_op(p, first_bit + 8p, its width), as the passes themselves build it
// (split_lsd.cuh). A record is counted only if pass 0 finds it valid (digit < 2^width of pass 0): pass 0 drops the
// others, so no later pass sees them.
template <class MakeOp>
struct LsdPassDigits {
  MakeOp make_op;
  int first_bit;
  int total_bits;
  int passes;
  __device__ __forceinline__ int bits_of(int pass) const { return lsd_pass_bits(total_bits, pass); }
  template <class KeyT>
  __device__ __forceinline__ uint32_t digit(int pass, const KeyT& key) const {
    return make_op(pass, first_bit + pass * kLsdDigitBits, bits_of(pass))(key);
  }
};

template <int MAX_PASSES, class KeyT>
struct LsdHistogramPolicy {
  static constexpr int kThreads = 384;
  static constexpr int kItems = split_items_per_thread(kThreads, sizeof(KeyT), 16);
  static constexpr int kTile = kThreads * kItems;
  static constexpr int kWarps = kThreads / 32;
  // Copies of the histogram, a warp's atomics going to copy warp % kCopies: fewer collisions between warps on a
  // frequent digit, within 16 KiB of shared memory (4 copies for 32-bit keys, 1 for 128-bit ones).
  static constexpr int kCopies = MAX_PASSES >= 16 ? 1 : 16 / MAX_PASSES;
};

// bins[p * 256 + d] += the valid records whose pass-p digit is d (bins zeroed by the caller); num_invalid (if
// non-null) += the records pass 0 finds invalid, and every record of a device count above n.max.
template <int MAX_PASSES, class KeyT, class MakeOp>
__global__ void __launch_bounds__(LsdHistogramPolicy<MAX_PASSES, KeyT>::kThreads)
    lsd_histogram_kernel(const KeyT* __restrict__ keys, ItemCount n, LsdPassDigits<MakeOp> digits,
                         unsigned long long* bins, unsigned long long* num_invalid) {
  using P = LsdHistogramPolicy<MAX_PASSES, KeyT>;
  constexpr uint32_t kNotCounted = 0xFFFFFFFFu;
  __shared__ uint32_t hist[P::kCopies][MAX_PASSES][kLsdDigits];
  __shared__ unsigned long long block_invalid;
  const int tid = threadIdx.x;
  const int lane = tid % 32;
  for (int i = tid; i < P::kCopies * MAX_PASSES * kLsdDigits; i += P::kThreads) (&hist[0][0][0])[i] = 0;
  if (tid == 0) block_invalid = 0;
  __syncthreads();

  const int64_t count = resolve_count(n);
  const int64_t num_tiles = (count + P::kTile - 1) / P::kTile;
  uint32_t(*my_hist)[kLsdDigits] = hist[(tid / 32) % P::kCopies];
  uint32_t my_invalid = 0;
  // A warp whose 32 records share a digit (skewed keys) adds 32 once instead of colliding 32 times.
  auto add = [&](uint32_t* h, uint32_t digit) {
    const uint32_t first = __shfl_sync(0xFFFFFFFFu, digit, 0);
    if (__all_sync(0xFFFFFFFFu, digit == first)) {
      if (lane == 0 && first != kNotCounted) atomicAdd(&h[first], 32u);
    } else if (digit != kNotCounted) {
      atomicAdd(&h[digit], 1u);
    }
  };
  for (int64_t tile = blockIdx.x; tile < num_tiles; tile += gridDim.x) {
    const int64_t tile_base = tile * P::kTile;
    const int64_t in_tile = count - tile_base;
    KeyT k[P::kItems];
#pragma unroll
    for (int item = 0; item < P::kItems; ++item) {
      const int local = item * P::kThreads + tid;
      if (local < in_tile) k[item] = load_streaming(&keys[tile_base + local]);
    }
#pragma unroll
    for (int item = 0; item < P::kItems; ++item) {
      const bool exists = item * P::kThreads + tid < in_tile;
      uint32_t d0 = exists ? digits.digit(0, k[item]) : kNotCounted;
      const bool valid = d0 < (1u << digits.bits_of(0));
      my_invalid += exists && !valid;
      if (!valid) d0 = kNotCounted;
      add(my_hist[0], d0);
      for (int p = 1; p < digits.passes; ++p) add(my_hist[p], valid ? digits.digit(p, k[item]) : kNotCounted);
    }
  }
  if (my_invalid) atomicAdd(&block_invalid, static_cast<unsigned long long>(my_invalid));
  __syncthreads();

  for (int i = tid; i < digits.passes * kLsdDigits; i += P::kThreads) {
    uint32_t total = 0;
#pragma unroll
    for (int c = 0; c < P::kCopies; ++c) total += (&hist[c][0][0])[i];
    if (total) atomicAdd(&bins[i], static_cast<unsigned long long>(total));
  }
  if (tid == 0 && num_invalid != nullptr) {
    if (block_invalid) atomicAdd(num_invalid, block_invalid);
    if (blockIdx.x == 0 && n.device != nullptr && *n.device > static_cast<uint64_t>(n.max)) {
      atomicAdd(num_invalid, static_cast<unsigned long long>(*n.device));
    }
  }
}

// scanned[p * 257 + d] = the records of pass p with a digit below d (d <= 256: [256] = the valid records); one block
// of DIGITS (256) threads per pass.
template <int DIGITS>
__global__ void __launch_bounds__(DIGITS) lsd_scan_bins_kernel(const unsigned long long* bins, uint64_t* scanned) {
  using Scan = cub::BlockScan<unsigned long long, DIGITS>;
  __shared__ typename Scan::TempStorage temp;
  const unsigned long long v = bins[blockIdx.x * DIGITS + threadIdx.x];
  unsigned long long before = 0, total = 0;
  Scan(temp).ExclusiveSum(v, before, total);
  uint64_t* row = scanned + blockIdx.x * (DIGITS + 1);
  row[threadIdx.x] = before;
  if (threadIdx.x == 0) row[DIGITS] = total;
}

}  // namespace detail
}  // namespace prim
