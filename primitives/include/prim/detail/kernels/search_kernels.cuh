// The searches' kernels: one-line shims around the sweep and sampled-search agents, and the sampling kernel.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "prim/detail/agent/search_agent.cuh"
#include "prim/detail/core/device_count.cuh"
#include "prim/detail/core/item_count.h"
#include "prim/detail/core/overlapped_launch.cuh"
#include "prim/detail/tuning.h"

namespace prim {
namespace detail {

// One block a tile of the merge of needles and haystack; overlapped with the cut kernel (merge_partition_kernel).
template <class Policy, bool NEEDLES_FIRST, class K, class Index, class TakeSecond>
__global__ void __launch_bounds__(Policy::BLOCK_THREADS)
    search_sweep_kernel(const K* needles, ItemCount num_needles, const K* haystack, ItemCount num_haystack,
                        Index* out, const int64_t* __restrict__ partitions, TakeSecond take_second) {
  wait_for_earlier_kernels();  // first: the partitions are the previous kernel's
  using Agent = SearchSweepAgent<Policy, NEEDLES_FIRST, K, Index, TakeSecond>;
  extern __shared__ __align__(16) unsigned char sweep_smem[];
  int64_t nn = 0, nh = 0;
  counts_on_device(num_needles, num_haystack, nn, nh);
  Agent::run(*reinterpret_cast<typename Agent::TempStorage*>(sweep_smem), needles, haystack, out, partitions,
             NEEDLES_FIRST ? nn : nh, NEEDLES_FIRST ? nh : nn, take_second);
}

// The levels of samples above the haystack (SampleLevels): scratch[offset[l] + j] = haystack[j * F^l] for levels
// 1..top, a grid-stride loop over the levels' items; thread 0 of block 0 counts a count above its bound as invalid (the
// sampled search then writes nothing).
template <class Levels, int MAX_TOP, class K>
__global__ void __launch_bounds__(SearchPolicy::kSampleThreads)
    search_samples_kernel(const K* __restrict__ haystack, ItemCount num_haystack, ItemCount num_needles,
                          K* __restrict__ scratch, uint64_t* num_invalid) {
  __shared__ Levels levels;
  if (threadIdx.x == 0) {
    if (blockIdx.x == 0) add_invalid(num_invalid, count_above_bound(num_haystack) + count_above_bound(num_needles));
    levels.compute(count_on_device(num_haystack), MAX_TOP);
  }
  __syncthreads();
  const int64_t step = static_cast<int64_t>(gridDim.x) * SearchPolicy::kSampleThreads;
  int64_t stride = 1;  // F^l
  for (int l = 1; l <= levels.top; ++l) {
    stride *= Levels::kFanout;
    K* level = scratch + levels.offset[l];
    for (int64_t j = static_cast<int64_t>(blockIdx.x) * SearchPolicy::kSampleThreads + threadIdx.x;
         j < levels.count[l]; j += step) {
      level[j] = haystack[j * stride];
    }
  }
}

// A resident grid of sampled searches; overlapped with the kernel that gathers the levels.
template <class Policy, class K, class Index, class Before>
__global__ void __launch_bounds__(Policy::kThreads, Policy::kMinBlocks)
    sampled_search_kernel(const K* __restrict__ haystack, const K* __restrict__ levels, const K* __restrict__ needles,
                          Index* __restrict__ out, ItemCount num_haystack, ItemCount num_needles, Before before) {
  wait_for_earlier_kernels();  // first: the levels are the previous kernel's
  using Agent = SampledSearchAgent<Policy, K, Index, Before>;
  __shared__ typename Agent::TempStorage temp;
  Agent::run(temp, haystack, levels, needles, out, num_haystack, num_needles, before);
}

}  // namespace detail
}  // namespace prim
