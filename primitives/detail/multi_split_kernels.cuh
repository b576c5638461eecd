// Multi-split engine: count pass -> scan of per-element counts -> emit pass -> stable split of the pairs by bucket.
//
// The user's emitter runs twice per element, once with a counting `emit` and once with a writing one; both are
// the same function, so the two passes cannot disagree about how many pairs an element makes (gsplat's
// intersect-tile kernel). The emit pass lays the pairs out in input order (element i's pairs start at the
// exclusive sum of the counts), and prim::split_pairs then moves them stably into their buckets. The bucket
// offsets and the total come from the count pass, so they are right also when the total exceeds the capacity
// (then the emit pass and the split write nothing).
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cub/block/block_scan.cuh>

#include "detail/bits.h"
#include "prim/error.h"
#include "prim/item_count.h"
#include "prim/scan.h"
#include "prim/split.h"
#include "prim/temp_storage.h"

namespace prim {
namespace detail {

struct MultiSplitPolicy {
  static constexpr int kCountThreads = 256;       // count and emit passes: one thread per element
  static constexpr int kFinalizeThreads = 1024;   // one block scans the bucket histogram
  static constexpr uint32_t kMaxSharedHistogram = 8192;  // larger histograms are counted in global memory
  static constexpr int64_t kMaxGrid = int64_t{1} << 30;  // grid-stride beyond this many blocks
};

// The element count the kernels use: a device count above its bound counts as no elements (the finalize kernel
// reports it as invalid).
__device__ __forceinline__ int64_t multi_split_num_inputs(const ItemCount& n) {
  if (n.device == nullptr) return n.max;
  const uint64_t c = *n.device;
  return c <= static_cast<uint64_t>(n.max) ? static_cast<int64_t>(c) : 0;
}

// `emit` of the count pass: per-bucket histogram (shared or global), invalid pairs counted apart.
template <bool kShared>
struct CountingEmit {
  uint32_t num_buckets;
  uint32_t* shared_hist;               // kShared
  unsigned long long* global_hist;     // !kShared
  uint32_t valid = 0;
  uint32_t invalid = 0;
  template <typename P>
  __device__ __forceinline__ void operator()(uint32_t bucket, const P&) {
    if (bucket < num_buckets) {
      ++valid;
      if constexpr (kShared) {
        atomicAdd(&shared_hist[bucket], 1u);
      } else {
        atomicAdd(&global_hist[bucket], 1ull);
      }
    } else {
      ++invalid;
    }
  }
};

// `emit` of the emit pass: valid pairs at consecutive places from the element's start.
template <typename Payload>
struct WritingEmit {
  uint32_t num_buckets;
  uint32_t* buckets;
  Payload* payloads;
  uint64_t pos;
  template <typename P>
  __device__ __forceinline__ void operator()(uint32_t bucket, const P& payload) {
    if (bucket < num_buckets) {
      buckets[pos] = bucket;
      payloads[pos] = static_cast<Payload>(payload);
      ++pos;
    }
  }
};

// ---- count pass: per-element counts (0 beyond the real count) and the bucket histogram ----
template <class Policy, bool kShared, class EmitOp>
__global__ __launch_bounds__(Policy::kCountThreads) void multi_split_count_kernel(
    EmitOp emitter, ItemCount num_inputs, uint32_t num_buckets, uint32_t* counts, unsigned long long* hist,
    uint64_t* d_num_invalid) {
  extern __shared__ uint32_t multi_split_hist[];
  if constexpr (kShared) {
    for (uint32_t b = threadIdx.x; b < num_buckets; b += blockDim.x) multi_split_hist[b] = 0;
    __syncthreads();
  }
  const int64_t n = multi_split_num_inputs(num_inputs);
  uint32_t invalid = 0;
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < num_inputs.max; i += stride) {
    uint32_t c = 0;
    if (i < n) {
      CountingEmit<kShared> emit{num_buckets, multi_split_hist, hist};
      emitter(i, emit);
      c = emit.valid;
      invalid += emit.invalid;
    }
    counts[i] = c;
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
template <class Policy, class EmitOp, class Payload>
__global__ __launch_bounds__(Policy::kCountThreads) void multi_split_emit_kernel(
    EmitOp emitter, ItemCount num_inputs, uint32_t num_buckets, const uint64_t* starts,
    const uint64_t* d_total_emitted, int64_t out_capacity, uint32_t* buckets, Payload* payloads) {
  if (*d_total_emitted > static_cast<uint64_t>(out_capacity)) return;  // overflow: write nothing
  const int64_t n = multi_split_num_inputs(num_inputs);
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) {
    WritingEmit<Payload> emit{num_buckets, buckets, payloads, starts[i]};
    emitter(i, emit);
  }
}

struct IdentityBucket {
  __host__ __device__ uint32_t operator()(uint32_t bucket) const { return bucket; }
};

template <typename Payload, typename EmitOp>
cudaError_t multi_split_dispatch(void* d_temp, size_t& temp_bytes, ItemCount num_inputs, EmitOp emitter,
                                 uint32_t num_buckets, Payload* d_out, int64_t out_capacity,
                                 uint64_t* d_bucket_offsets, uint64_t* d_total_emitted, cudaStream_t stream,
                                 uint64_t* d_num_invalid) {
  using Policy = MultiSplitPolicy;
  if (num_inputs.max < 0 || out_capacity < 0 || num_buckets == 0 || num_buckets > kMaxSplitBuckets ||
      d_bucket_offsets == nullptr || d_total_emitted == nullptr) {
    return cudaErrorInvalidValue;
  }
  const int64_t n_max = num_inputs.max;
  const int64_t capacity = out_capacity;

  TempCarver carver(d_temp);
  uint32_t* counts = carver.take<uint32_t>(static_cast<size_t>(n_max));
  uint64_t* starts = carver.take<uint64_t>(static_cast<size_t>(n_max));
  unsigned long long* hist = carver.take<unsigned long long>(num_buckets);
  uint64_t* split_count = carver.take<uint64_t>(1);
  uint32_t* pair_buckets = carver.take<uint32_t>(static_cast<size_t>(capacity));
  uint32_t* sorted_buckets = carver.take<uint32_t>(static_cast<size_t>(capacity));
  Payload* pair_payloads = carver.take<Payload>(static_cast<size_t>(capacity));
  size_t scan_bytes = 0;
  PRIM_TRY(exclusive_sum(nullptr, scan_bytes, counts, starts, n_max, stream));
  void* scan_temp = carver.take<unsigned char>(scan_bytes);
  const ItemCount split_n(capacity, split_count);
  size_t split_bytes = 0;
  PRIM_TRY(split_pairs(nullptr, split_bytes, pair_buckets, sorted_buckets, pair_payloads, d_out, split_n, num_buckets,
                       IdentityBucket{}, nullptr, stream));
  void* split_temp = carver.take<unsigned char>(split_bytes);
  bool size_query = false;
  PRIM_TRY(carver.finish(temp_bytes, size_query));
  if (size_query) return cudaSuccess;

  const bool shared_hist = num_buckets <= Policy::kMaxSharedHistogram;
  const int64_t blocks = std::min<int64_t>(std::max<int64_t>(ceil_div(n_max, Policy::kCountThreads), 1), Policy::kMaxGrid);

  // ---- count pass ----
  PRIM_TRY(cudaMemsetAsync(hist, 0, num_buckets * sizeof(unsigned long long), stream));
  if (n_max > 0) {
    if (shared_hist) {
      multi_split_count_kernel<Policy, true><<<static_cast<unsigned>(blocks), Policy::kCountThreads,
                                               num_buckets * sizeof(uint32_t), stream>>>(
          emitter, num_inputs, num_buckets, counts, hist, d_num_invalid);
    } else {
      multi_split_count_kernel<Policy, false><<<static_cast<unsigned>(blocks), Policy::kCountThreads, 0, stream>>>(
          emitter, num_inputs, num_buckets, counts, hist, d_num_invalid);
    }
    PRIM_TRY_LAUNCH();
  }
  // ---- bucket offsets and total ----
  multi_split_finalize_kernel<Policy><<<1, Policy::kFinalizeThreads, 0, stream>>>(
      num_inputs, num_buckets, hist, capacity, d_bucket_offsets, d_total_emitted, split_count, d_num_invalid);
  PRIM_TRY_LAUNCH();
  if (n_max == 0) return cudaSuccess;
  // ---- where each element's pairs start ----
  PRIM_TRY(exclusive_sum(scan_temp, scan_bytes, counts, starts, n_max, stream));
  // ---- emit pass: pairs in input order ----
  multi_split_emit_kernel<Policy><<<static_cast<unsigned>(blocks), Policy::kCountThreads, 0, stream>>>(
      emitter, num_inputs, num_buckets, starts, d_total_emitted, capacity, pair_buckets, pair_payloads);
  PRIM_TRY_LAUNCH();
  // ---- stable split of the pairs by bucket (moves nothing when they did not fit) ----
  return split_pairs(split_temp, split_bytes, pair_buckets, sorted_buckets, pair_payloads, d_out, split_n,
                     num_buckets, IdentityBucket{}, nullptr, stream);
}

}  // namespace detail
}  // namespace prim
