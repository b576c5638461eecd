// Multi-split kernels: the count pass, the finalize (bucket offsets and total) and the emit pass. The user's emitter
// runs in the count and the emit pass with a counting and a writing `emit`; both are the same function, so the two
// passes cannot disagree about how many pairs an element makes (gsplat's intersect-tile kernel).
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include "prim/detail/core/bits.h"
#include "prim/detail/core/item_count.h"
#include "prim/detail/tuning.h"

namespace prim {
namespace detail {


// The element count the kernels use: a device count above its bound counts as no elements (the finalize kernel
// reports it as invalid).
__device__ __forceinline__ int64_t multi_split_num_inputs(const ItemCount& n) {
  if (n.device == nullptr) return n.max;
  const uint64_t c = *n.device;
  return c <= static_cast<uint64_t>(n.max) ? static_cast<int64_t>(c) : 0;
}

// How the count pass keeps its bucket histogram: in shared memory (few buckets), in global memory, or not at all for
// a single bucket, whose count is the block's sum of the valid pairs (one atomic a block, where a per-pair atomic on
// one word would serialise the whole block).
enum class HistogramIn { shared, global, block_sum };

// `emit` of the count pass: per-bucket histogram, invalid pairs counted apart.
template <HistogramIn kHist>
struct CountingEmit {
  uint32_t num_buckets;
  uint32_t* shared_hist;               // HistogramIn::shared
  unsigned long long* global_hist;     // HistogramIn::global
  uint32_t valid = 0;
  uint32_t invalid = 0;
  template <typename P>
  __device__ __forceinline__ void operator()(uint32_t bucket, const P&) {
    if (bucket < num_buckets) {
      ++valid;
      if constexpr (kHist == HistogramIn::shared) {
        atomicAdd(&shared_hist[bucket], 1u);
      } else if constexpr (kHist == HistogramIn::global) {
        atomicAdd(&global_hist[bucket], 1ull);
      }
    } else {
      ++invalid;
    }
  }
};

// `emit` of the emit pass: valid pairs at consecutive places from the element's start (kBuckets false: the payloads
// only, for a single bucket).
template <typename Payload, bool kBuckets>
struct WritingEmit {
  uint32_t num_buckets;
  uint32_t* buckets;
  Payload* payloads;
  uint64_t pos;
  template <typename P>
  __device__ __forceinline__ void operator()(uint32_t bucket, const P& payload) {
    if (bucket < num_buckets) {
      if constexpr (kBuckets) buckets[pos] = bucket;
      payloads[pos] = static_cast<Payload>(payload);
      ++pos;
    }
  }
};

// ---- count pass: per-element counts (0 beyond the real count) and the bucket histogram ----
template <class Policy, HistogramIn kHist, class EmitOp>
__global__ __launch_bounds__(Policy::kCountThreads) void multi_split_count_kernel(
    EmitOp emitter, ItemCount num_inputs, uint32_t num_buckets, uint32_t* counts, unsigned long long* hist,
    uint64_t* d_num_invalid) {
  constexpr bool kShared = kHist == HistogramIn::shared;
  extern __shared__ uint32_t multi_split_hist[];
  if constexpr (kShared) {
    for (uint32_t b = threadIdx.x; b < num_buckets; b += blockDim.x) multi_split_hist[b] = 0;
    __syncthreads();
  }
  const int64_t n = multi_split_num_inputs(num_inputs);
  uint32_t invalid = 0;
  uint64_t valid = 0;  // HistogramIn::block_sum
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < num_inputs.max; i += stride) {
    uint32_t c = 0;
    if (i < n) {
      CountingEmit<kHist> emit{num_buckets, multi_split_hist, hist};
      emitter(i, emit);
      c = emit.valid;
      invalid += emit.invalid;
    }
    counts[i] = c;
    valid += c;
  }
  if constexpr (kHist == HistogramIn::block_sum) {
    using Reduce = cub::BlockReduce<uint64_t, Policy::kCountThreads>;
    __shared__ typename Reduce::TempStorage reduce;
    const uint64_t block_valid = Reduce(reduce).Sum(valid);
    if (threadIdx.x == 0 && block_valid > 0) atomicAdd(&hist[0], static_cast<unsigned long long>(block_valid));
  }
  if (invalid > 0 && d_num_invalid) {
    atomicAdd(reinterpret_cast<unsigned long long*>(d_num_invalid), static_cast<unsigned long long>(invalid));
  }
  if constexpr (kShared) {
    __syncthreads();
    for (uint32_t b = threadIdx.x; b < num_buckets; b += blockDim.x) {
      if (multi_split_hist[b]) atomicAdd(&hist[b], static_cast<unsigned long long>(multi_split_hist[b]));
    }
  }
}

// ---- finalize: bucket offsets, total, and the count the split may move (0 if the pairs do not fit) ----
template <class Policy>
__global__ __launch_bounds__(Policy::kFinalizeThreads) void multi_split_finalize_kernel(
    ItemCount num_inputs, uint32_t num_buckets, const unsigned long long* hist, int64_t out_capacity,
    uint64_t* d_bucket_offsets, uint64_t* d_total_emitted, uint64_t* d_split_count, uint64_t* d_num_invalid) {
  using Scan = cub::BlockScan<uint64_t, Policy::kFinalizeThreads>;
  __shared__ typename Scan::TempStorage scan;
  uint64_t running = 0;
  for (uint32_t chunk = 0; chunk < num_buckets; chunk += Policy::kFinalizeThreads) {
    const uint32_t b = chunk + threadIdx.x;
    const uint64_t count = b < num_buckets ? hist[b] : 0;
    uint64_t start = 0, chunk_total = 0;
    Scan(scan).ExclusiveSum(count, start, chunk_total);
    if (b < num_buckets) d_bucket_offsets[b] = running + start;
    running += chunk_total;
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    d_bucket_offsets[num_buckets] = running;
    *d_total_emitted = running;
    *d_split_count = running <= static_cast<uint64_t>(out_capacity) ? running : 0;
    if (num_inputs.device && *num_inputs.device > static_cast<uint64_t>(num_inputs.max) && d_num_invalid) {
      atomicAdd(reinterpret_cast<unsigned long long*>(d_num_invalid),
                static_cast<unsigned long long>(*num_inputs.device));
    }
  }
}

// ---- emit pass: each element writes its valid pairs in emission order from its start ----
template <class Policy, bool kBuckets, class EmitOp, class Payload>
__global__ __launch_bounds__(Policy::kCountThreads) void multi_split_emit_kernel(
    EmitOp emitter, ItemCount num_inputs, uint32_t num_buckets, const uint64_t* starts,
    const uint64_t* d_total_emitted, int64_t out_capacity, uint32_t* buckets, Payload* payloads) {
  if (*d_total_emitted > static_cast<uint64_t>(out_capacity)) return;  // overflow: write nothing
  const int64_t n = multi_split_num_inputs(num_inputs);
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) {
    WritingEmit<Payload, kBuckets> emit{num_buckets, buckets, payloads, starts[i]};
    emitter(i, emit);
  }
}

}  // namespace detail
}  // namespace prim
