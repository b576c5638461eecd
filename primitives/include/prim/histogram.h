// Device-wide histograms.
//
//   histogram_even / histogram_range   thin wrappers over cub::DeviceHistogram (samples binned by value)
//   histogram_buckets                  counts per bucket of a user bucket functor (the split family's view:
//                                      "how many elements go to bucket b"), 64-bit counters
//
// Conventions as in scan.h: d_temp == nullptr is a size query, 64-bit counts, stream-ordered, cudaError_t.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <cub/device/device_histogram.cuh>

#include "prim/detail/dispatch/cub_calls.cuh"
#include "prim/error.h"
#include "prim/workspace.h"

namespace prim {

// num_levels - 1 equal-width bins over [lower, upper); d_histogram has num_levels - 1 counters (CounterT is
// int, unsigned, or another type CUB accepts). Samples outside [lower, upper) are not counted.
template <typename SampleT, typename CounterT, typename LevelT>
cudaError_t histogram_even(void* d_temp, size_t& temp_bytes, const SampleT* d_samples, int64_t n,
                           CounterT* d_histogram, int num_levels, LevelT lower, LevelT upper,
                           cudaStream_t stream = 0) {
  if (n < 0 || num_levels < 2) return cudaErrorInvalidValue;
  return detail::cub_two_phase(d_temp, temp_bytes, [&](void* t, size_t& b) {
    return cub::DeviceHistogram::HistogramEven(t, b, d_samples, d_histogram, num_levels, lower, upper, n, stream);
  });
}

// Bins [d_levels[i], d_levels[i+1]) for i < num_levels - 1; d_levels (device) ascending.
template <typename SampleT, typename CounterT, typename LevelT>
cudaError_t histogram_range(void* d_temp, size_t& temp_bytes, const SampleT* d_samples, int64_t n,
                            CounterT* d_histogram, int num_levels, const LevelT* d_levels,
                            cudaStream_t stream = 0) {
  if (n < 0 || num_levels < 2) return cudaErrorInvalidValue;
  return detail::cub_two_phase(d_temp, temp_bytes, [&](void* t, size_t& b) {
    return cub::DeviceHistogram::HistogramRange(t, b, d_samples, d_histogram, num_levels, d_levels, n, stream);
  });
}

namespace detail {

// Tuning of histogram_buckets (data, not literals: see style.md).
struct HistogramBucketsPolicy {
  static constexpr int kBlockThreads = 256;
  static constexpr int kItemsPerThread = 8;     // per grid-stride step
  static constexpr int kBlocksPerSm = 4;        // a persistent-ish grid: privatised counters are flushed once
  static constexpr uint32_t kMaxSharedBuckets = 8192;  // 32 KiB of uint32 counters per block
};

// One block: privatised uint32 counters in shared memory, flushed to the 64-bit global counters once.
// The grid is sized so that no block sees 2^32 elements, hence uint32 shared counters cannot overflow.
template <typename T, typename BucketOp>
__global__ void __launch_bounds__(HistogramBucketsPolicy::kBlockThreads)
    histogram_buckets_kernel(const T* d_in, int64_t n, uint32_t num_buckets, BucketOp bucket_of,
                             uint64_t* d_counts, uint64_t* d_num_invalid, bool shared_counters) {
  using P = HistogramBucketsPolicy;
  extern __shared__ uint32_t s_counts[];
  if (shared_counters) {
    for (uint32_t b = threadIdx.x; b < num_buckets; b += P::kBlockThreads) s_counts[b] = 0;
    __syncthreads();
  }
  uint32_t invalid = 0;
  const int64_t stride = int64_t(gridDim.x) * P::kBlockThreads;
  for (int64_t i = int64_t(blockIdx.x) * P::kBlockThreads + threadIdx.x; i < n; i += stride) {
    // Widened before the range check, so a negative or > 32-bit id is invalid rather than wrapped.
    const uint64_t b = static_cast<uint64_t>(bucket_of(d_in[i]));
    if (b >= num_buckets) {
      ++invalid;
    } else if (shared_counters) {
      atomicAdd(&s_counts[b], 1u);
    } else {
      atomicAdd(reinterpret_cast<unsigned long long*>(&d_counts[b]), 1ull);
    }
  }
  if (d_num_invalid && invalid) atomicAdd(reinterpret_cast<unsigned long long*>(d_num_invalid), 1ull * invalid);
  if (shared_counters) {
    __syncthreads();
    for (uint32_t b = threadIdx.x; b < num_buckets; b += P::kBlockThreads) {
      if (s_counts[b]) atomicAdd(reinterpret_cast<unsigned long long*>(&d_counts[b]), 1ull * s_counts[b]);
    }
  }
}

}  // namespace detail

// d_counts[b] = number of i < n with bucket_of(d_in[i]) == b, for b < num_buckets (d_counts is overwritten).
// bucket_of: a __device__ callable T -> an unsigned integer; ids >= num_buckets are not counted in any bucket
// but added to *d_num_invalid (device uint64, the call adds to it, as in the split family) when it is non-null.
// No scratch is used; the size query reports 1 byte, and a call with a non-null d_temp and temp_bytes below it (0)
// returns cudaErrorInvalidValue, as every call of the library does with less than its query reported. The Workspace
// overload synchronises and returns cudaErrorInvalidValue if any id was invalid.
template <typename T, typename BucketOp>
cudaError_t histogram_buckets(void* d_temp, size_t& temp_bytes, const T* d_in, int64_t n, uint32_t num_buckets,
                              BucketOp bucket_of, uint64_t* d_counts, cudaStream_t stream = 0,
                              uint64_t* d_num_invalid = nullptr) {
  using P = detail::HistogramBucketsPolicy;
  if (n < 0 || num_buckets == 0) return cudaErrorInvalidValue;
  constexpr size_t kReportedTempBytes = 1;  // none is used; Workspace needs a non-zero size
  if (d_temp == nullptr) {
    temp_bytes = kReportedTempBytes;
    return cudaSuccess;
  }
  if (temp_bytes < kReportedTempBytes) return cudaErrorInvalidValue;
  PRIM_TRY(cudaMemsetAsync(d_counts, 0, sizeof(uint64_t) * num_buckets, stream));
  if (n == 0) return cudaSuccess;
  int device = 0, sms = 0;
  PRIM_TRY(cudaGetDevice(&device));
  PRIM_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const int64_t per_block_step = int64_t(P::kBlockThreads) * P::kItemsPerThread;
  int64_t blocks = (n + per_block_step - 1) / per_block_step;
  const int64_t persistent = int64_t(sms) * P::kBlocksPerSm;
  const int64_t min_blocks = n / (int64_t(1) << 31) + 1;  // keeps every block below 2^31 elements
  if (blocks > persistent) blocks = persistent > min_blocks ? persistent : min_blocks;
  const bool shared_counters = num_buckets <= P::kMaxSharedBuckets;
  const size_t smem = shared_counters ? sizeof(uint32_t) * num_buckets : 0;
  detail::histogram_buckets_kernel<<<static_cast<unsigned>(blocks), P::kBlockThreads, smem, stream>>>(
      d_in, n, num_buckets, bucket_of, d_counts, d_num_invalid, shared_counters);
  PRIM_TRY_LAUNCH();
  return cudaSuccess;
}

// ---- Workspace overloads ----

template <typename SampleT, typename CounterT, typename LevelT>
cudaError_t histogram_even(Workspace& ws, const SampleT* d_samples, int64_t n, CounterT* d_histogram,
                           int num_levels, LevelT lower, LevelT upper, cudaStream_t stream = 0) {
  return ws.run([&](void* t, size_t& b) {
    return histogram_even(t, b, d_samples, n, d_histogram, num_levels, lower, upper, stream);
  });
}
template <typename SampleT, typename CounterT, typename LevelT>
cudaError_t histogram_range(Workspace& ws, const SampleT* d_samples, int64_t n, CounterT* d_histogram,
                            int num_levels, const LevelT* d_levels, cudaStream_t stream = 0) {
  return ws.run([&](void* t, size_t& b) {
    return histogram_range(t, b, d_samples, n, d_histogram, num_levels, d_levels, stream);
  });
}
template <typename T, typename BucketOp>
cudaError_t histogram_buckets(Workspace& ws, const T* d_in, int64_t n, uint32_t num_buckets, BucketOp bucket_of,
                              uint64_t* d_counts, cudaStream_t stream = 0) {
  return detail::run_checking_invalid(ws, stream, [&](void* t, size_t& b, uint64_t* d_invalid) {
    return histogram_buckets(t, b, d_in, n, num_buckets, bucket_of, d_counts, stream, d_invalid);
  });
}

}  // namespace prim
