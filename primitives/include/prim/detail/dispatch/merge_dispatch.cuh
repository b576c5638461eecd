// Host dispatch of the merge: carves the tile-boundary cuts from the caller's scratch, then launches the partition
// kernel and the tile kernel (overlapped with it) on the caller's stream.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "prim/detail/core/bits.h"
#include "prim/detail/core/error.h"
#include "prim/detail/core/item_count.h"
#include "prim/detail/core/overlapped_launch.cuh"
#include "prim/detail/core/temp_storage.h"
#include "prim/detail/kernels/merge_kernels.cuh"
#include "prim/detail/tuning.h"

namespace prim {
namespace detail {

// The largest count either input of a merge may have: the sum of two stays far inside int64_t.
constexpr int64_t kMaxMergeItems = int64_t{1} << 60;

// The merged order of one merge call: the tile shape of its records and its launch. PAIRS moves values too.
template <bool PAIRS, class K, class V, class TakeSecond,
          class Policy = typename MergePolicyFor<sizeof(K), PAIRS ? sizeof(V) : 0>::type>
struct MergeLaunch {
  using Agent = MergeAgent<Policy, PAIRS, K, V, TakeSecond>;
  static constexpr int kTile = Policy::TILE_ITEMS;
  static constexpr size_t kSmem = sizeof(typename Agent::TempStorage);

  static int64_t max_tiles(const ItemCount& n1, const ItemCount& n2) { return ceil_div(n1.max + n2.max, kTile); }

  // partitions: max_tiles + 1 entries of scratch.
  static cudaError_t launch(const MergeIo<K, V>& io, ItemCount n1, ItemCount n2, int64_t* partitions,
                            TakeSecond take_second, cudaStream_t stream, uint64_t* d_num_invalid) {
    const int64_t tiles = max_tiles(n1, n2);
    // ---- cuts: one merge-path search a tile boundary (also counts a device count above its bound) ----
    const int64_t boundaries = tiles + 1;
    const unsigned cut_blocks = static_cast<unsigned>(ceil_div(boundaries, kMergePartitionThreads));
    merge_partition_kernel<kTile><<<cut_blocks, kMergePartitionThreads, 0, stream>>>(
        io.keys1, n1, io.keys2, n2, partitions, take_second, d_num_invalid);
    PRIM_TRY_LAUNCH();
    if (tiles == 0) return cudaSuccess;
    // ---- tiles: one block each, set up while the cuts finish ----
    constexpr auto kKernel = merge_kernel<Policy, PAIRS, K, V, TakeSecond>;
    if (kSmem > 48 * 1024) {
      PRIM_TRY(cudaFuncSetAttribute(kKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kSmem)));
    }
    bool overlap = false;
    PRIM_TRY(kernel_waits_for_earlier_kernels<kKernel>(overlap));
    PRIM_TRY(launch_overlapped(overlap, kKernel, dim3(static_cast<unsigned>(tiles)), dim3(Policy::BLOCK_THREADS),
                               kSmem, stream, io, n1, n2, static_cast<const int64_t*>(partitions), take_second));
    PRIM_TRY_LAUNCH();
    return cudaSuccess;
  }
};

template <bool PAIRS, class K, class V, class Compare>
cudaError_t dispatch_merge(void* d_temp, size_t& temp_bytes, const MergeIo<K, V>& io, ItemCount n1, ItemCount n2,
                           Compare comp, cudaStream_t stream, uint64_t* d_num_invalid) {
  using TakeSecond = SecondIfLess<Compare>;
  using Launch = MergeLaunch<PAIRS, K, V, TakeSecond>;
  if (n1.max < 0 || n2.max < 0 || n1.max > kMaxMergeItems || n2.max > kMaxMergeItems) return cudaErrorInvalidValue;
  if (ceil_div(n1.max + n2.max, Launch::kTile) >= int64_t{1} << 31) return cudaErrorInvalidValue;  // grid.x
  TempCarver carver(d_temp);
  int64_t* partitions = carver.take<int64_t>(static_cast<size_t>(Launch::max_tiles(n1, n2) + 1));
  bool size_query = false;
  PRIM_TRY(carver.finish(temp_bytes, size_query));
  if (size_query) return cudaSuccess;
  if ((n1.max > 0 && io.keys1 == nullptr) || (n2.max > 0 && io.keys2 == nullptr) ||
      (n1.max + n2.max > 0 && io.keys_out == nullptr)) {
    return cudaErrorInvalidValue;
  }
  if constexpr (PAIRS) {
    if ((n1.max > 0 && io.values1 == nullptr) || (n2.max > 0 && io.values2 == nullptr) ||
        (n1.max + n2.max > 0 && io.values_out == nullptr)) {
      return cudaErrorInvalidValue;
    }
  }
  return Launch::launch(io, n1, n2, partitions, TakeSecond{comp}, stream, d_num_invalid);
}

}  // namespace detail
}  // namespace prim
