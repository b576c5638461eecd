// The merge's kernels: the tile-boundary cuts, and the one-line shim around the tile agent.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "prim/detail/agent/merge_agent.cuh"
#include "prim/detail/block/merge_path.cuh"
#include "prim/detail/core/device_count.cuh"
#include "prim/detail/core/item_count.h"
#include "prim/detail/core/overlapped_launch.cuh"

namespace prim {
namespace detail {

constexpr int kMergePartitionThreads = 256;

// partitions[t] = the first input's items among the merged output's first t * TILE_ITEMS (clipped to the end), for
// t <= the tiles of the real counts. A count above its bound makes both counts 0 (counts_on_device: the merge kernel
// then has no tile) and is counted invalid by thread 0.
template <int TILE_ITEMS, class K, class TakeSecond>
__global__ void __launch_bounds__(kMergePartitionThreads)
    merge_partition_kernel(const K* __restrict__ keys1, ItemCount n1, const K* __restrict__ keys2, ItemCount n2,
                           int64_t* __restrict__ partitions, TakeSecond take_second, uint64_t* num_invalid) {
  if (blockIdx.x == 0 && threadIdx.x == 0) add_invalid(num_invalid, count_above_bound(n1) + count_above_bound(n2));
  int64_t c1 = 0, c2 = 0;
  counts_on_device(n1, n2, c1, c2);
  const int64_t total = c1 + c2;
  const int64_t t = static_cast<int64_t>(blockIdx.x) * kMergePartitionThreads + threadIdx.x;
  if (t * TILE_ITEMS >= total + TILE_ITEMS) return;  // past the boundary after the last real tile
  const int64_t diag = min(t * TILE_ITEMS, total);
  partitions[t] = merge_path(keys1, c1, keys2, c2, diag, take_second);
}

// One block a tile; overlapped with the partition kernel (overlapped_launch.cuh). Dynamic shared memory holds the
// agent's TempStorage (wide records need more than 48 KiB).
template <class Policy, bool PAIRS, class K, class V, class TakeSecond>
__global__ void __launch_bounds__(Policy::BLOCK_THREADS, Policy::MIN_BLOCKS)
    merge_kernel(MergeIo<K, V> io, ItemCount n1, ItemCount n2, const int64_t* __restrict__ partitions,
                 TakeSecond take_second) {
  wait_for_earlier_kernels();  // first: the partitions are the previous kernel's
  using Agent = MergeAgent<Policy, PAIRS, K, V, TakeSecond>;
  extern __shared__ __align__(16) unsigned char merge_smem[];
  int64_t c1 = 0, c2 = 0;
  counts_on_device(n1, n2, c1, c2);
  Agent::run(*reinterpret_cast<typename Agent::TempStorage*>(merge_smem), io, partitions, c1, c2, take_second);
}

}  // namespace detail
}  // namespace prim
