// The one histogram of the LSD one-sweep route (split_lsd.cuh): every pass's digit counts over the whole input, from
// one read of the keys, then one exclusive scan per pass. CUB's one-sweep radix sort counts its passes the same way
// (a histogram kernel, then a scan per pass); it replaces one upsweep and one spine scan per pass.
//
// Why the counts of all passes can come first: a pass's digit counts do not depend on the order of its input, so
// pass p's bucket starts are known before pass p-1 has run. What depends on the order, each tile's counts, the
// passes find by look-back over the whole input (GlobalLookbackPartition, split_partitions.cuh).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>
#include <cub/block/block_scan.cuh>

#include "prim/detail/kernels/split_kernels.cuh"
#include "prim/detail/core/item_count.h"

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
  __device__ __forceinline__ auto op(int pass) const {
    return make_op(pass, first_bit + pass * kLsdDigitBits, bits_of(pass));
  }
};

// Shape (H100, 2^26 u32 keys, four passes): one histogram a block with plain shared atomics, as CUB's; 128 or 384
// threads the same; copies of the counters a lane or a warp slower; the full-tile path and plain loads instead of
// evict-first ones each faster (179 -> 146 us together; CUB's histogram kernel: 120 us).
template <int MAX_PASSES, class KeyT>
struct LsdHistogramPolicy {
  static constexpr int kThreads = 384;
  static constexpr int kItems = split_items_per_thread(kThreads, sizeof(KeyT), 16);
  static constexpr int kTile = kThreads * kItems;
  static_assert(kItems <= 32, "one bit an item");
};

// bins[p * 256 + d] += the valid records whose pass-p digit is d (bins zeroed by the caller); num_invalid (if
// non-null) += the records pass 0 finds invalid, and every record of a device count above n.max. Loop order as
// CUB's histogram: a pass's digits of all the thread's keys, then the next pass's, so the functor of a pass is
// built once a tile.
template <int MAX_PASSES, class KeyT, class MakeOp>
__global__ void __launch_bounds__(LsdHistogramPolicy<MAX_PASSES, KeyT>::kThreads)
    lsd_histogram_kernel(const KeyT* __restrict__ keys, ItemCount n, LsdPassDigits<MakeOp> digits,
                         unsigned long long* bins, unsigned long long* num_invalid) {
  using P = LsdHistogramPolicy<MAX_PASSES, KeyT>;
  __shared__ uint32_t hist[MAX_PASSES][kLsdDigits];
  __shared__ unsigned long long block_invalid;
  const int tid = threadIdx.x;
  for (int i = tid; i < MAX_PASSES * kLsdDigits; i += P::kThreads) (&hist[0][0])[i] = 0;
  if (tid == 0) block_invalid = 0;
  __syncthreads();

  const int64_t count = resolve_count(n);
  const int64_t num_tiles = (count + P::kTile - 1) / P::kTile;
  const uint32_t first_buckets = 1u << digits.bits_of(0);
  uint32_t my_invalid = 0;
  // One tile; a full one needs no bounds checks.
  auto count_tile = [&](auto full, int64_t tile_base, int64_t in_tile) {
    constexpr bool kFull = decltype(full)::value;
    KeyT k[P::kItems];
#pragma unroll
    for (int item = 0; item < P::kItems; ++item) {
      const int local = item * P::kThreads + tid;
      if (kFull || local < in_tile) k[item] = keys[tile_base + local];
    }
    // Pass 0 decides which records count: bit `item` of `counted`. Key digits are always in range
    // (PadsWithAllOnes): a full tile counts every record without the test.
    uint32_t counted = 0;
    const auto first_op = digits.op(0);
    constexpr bool kAllValid = PadsWithAllOnes<decltype(digits.op(0))>::value;
#pragma unroll
    for (int item = 0; item < P::kItems; ++item) {
      if (kFull || item * P::kThreads + tid < in_tile) {
        const uint32_t d = first_op(k[item]);
        if (kAllValid || d < first_buckets) {
          atomicAdd(&hist[0][d], 1u);
          counted |= 1u << item;
        } else {
          ++my_invalid;
        }
      }
    }
#pragma unroll
    for (int p = 1; p < MAX_PASSES; ++p) {
      if (p < digits.passes) {
        const auto op = digits.op(p);
#pragma unroll
        for (int item = 0; item < P::kItems; ++item) {
          if ((kFull && kAllValid) || ((counted >> item) & 1u)) atomicAdd(&hist[p][op(k[item])], 1u);
        }
      }
    }
  };
  for (int64_t tile = blockIdx.x; tile < num_tiles; tile += gridDim.x) {
    const int64_t tile_base = tile * P::kTile;
    const int64_t in_tile = count - tile_base;
    if (in_tile >= P::kTile) {
      count_tile(std::true_type{}, tile_base, in_tile);
    } else {
      count_tile(std::false_type{}, tile_base, in_tile);
    }
  }
  if (my_invalid) atomicAdd(&block_invalid, static_cast<unsigned long long>(my_invalid));
  __syncthreads();

  for (int i = tid; i < digits.passes * kLsdDigits; i += P::kThreads) {
    const uint32_t total = (&hist[0][0])[i];
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
  wait_for_earlier_kernels();  // first: overlapped_launch.cuh
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
