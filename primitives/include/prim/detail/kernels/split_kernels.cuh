// The split engine's kernels: one-line shims around the upsweep and downsweep agents.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "prim/detail/agent/split_downsweep_agent.cuh"
#include "prim/detail/agent/split_upsweep_agent.cuh"
#include "prim/detail/core/overlapped_launch.cuh"

namespace prim {
namespace detail {

// One-line kernel shims. Dynamic shared memory holds the agents' TempStorage (the 11-bit ranker needs > 48 KiB).
template <class Policy, class KeyT, class BucketOp, class Partition>
__global__ void __launch_bounds__(Policy::BLOCK_THREADS)
    split_upsweep_kernel(const KeyT* keys, Partition part, uint32_t num_buckets, BucketOp bucket_of, uint64_t* counts,
                         uint64_t* num_invalid) {
  wait_for_earlier_kernels();  // first: overlapped_launch.cuh
  if constexpr (MayBeIdle<Partition>::value) {
    if (part.idle()) return;
  }
  using Agent = SplitUpsweepAgent<Policy, KeyT, BucketOp, Partition>;
  __shared__ typename Agent::TempStorage temp;
  Agent::run(temp, keys, part, num_buckets, bucket_of, counts, num_invalid);
}

template <class Policy, SplitOutput OUT, class KeyT, class ValueT, class BucketOp, class Partition>
__global__ void __launch_bounds__(Policy::BLOCK_THREADS, Policy::MIN_BLOCKS)
    split_downsweep_kernel(const KeyT* keys_in, SplitKeysOut<OUT, KeyT>* keys_out, const ValueT* values_in,
                           ValueT* values_out, Partition part, uint32_t num_buckets, BucketOp bucket_of,
                           const uint64_t* scanned, uint64_t* bucket_offsets) {
  wait_for_earlier_kernels();  // first: overlapped_launch.cuh
  if constexpr (MayBeIdle<Partition>::value) {
    if (part.idle()) return;
  }
  using Agent = SplitDownsweepAgent<Policy, OUT, KeyT, ValueT, BucketOp, Partition>;
  extern __shared__ __align__(16) unsigned char split_smem[];
  Agent::run(*reinterpret_cast<typename Agent::TempStorage*>(split_smem), keys_in, keys_out, values_in, values_out,
             part, num_buckets, bucket_of, scanned, bucket_offsets);
}

}  // namespace detail
}  // namespace prim
