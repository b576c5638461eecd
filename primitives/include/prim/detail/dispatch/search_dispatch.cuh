// Host dispatch of lower_bound / upper_bound: picks the sweep (sorted needles, not far fewer than the haystack) or the
// sampled search, carves its scratch and launches its two kernels on the caller's stream.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "prim/detail/core/bits.h"
#include "prim/detail/core/error.h"
#include "prim/detail/core/item_count.h"
#include "prim/detail/core/overlapped_launch.cuh"
#include "prim/detail/core/search_types.h"
#include "prim/detail/core/temp_storage.h"
#include "prim/detail/kernels/merge_kernels.cuh"
#include "prim/detail/kernels/search_kernels.cuh"
#include "prim/detail/tuning.h"

namespace prim {
namespace detail {

// The largest haystack or needle count: merge-path offsets of both together stay far inside int64_t.
constexpr int64_t kMaxSearchItems = int64_t{1} << 60;

// Whether a call sweeps: sorted needles, with at most kSweepHaystackPerNeedle haystack items a needle (fewer needles
// are cheaper searched one by one than by reading the whole haystack).
inline bool search_sweeps(NeedleOrder order, const ItemCount& num_haystack, const ItemCount& num_needles) {
  return order == NeedleOrder::sorted && num_needles.max > 0 &&
         num_haystack.max / SearchPolicy::kSweepHaystackPerNeedle <= num_needles.max;
}

// ---- The sweep: the merge's cut kernel over (needles, haystack) or (haystack, needles), then a block a tile ----
template <bool UPPER, class K, class Index, class Compare>
struct SearchSweep {
  static constexpr bool kNeedlesFirst = !UPPER;  // ties: a needle before equal items (lower), after them (upper)
  using TakeSecond = SecondIfLess<Compare>;
  using Policy = typename MergePolicyFor<sizeof(K), sizeof(Index)>::type;
  using Agent = SearchSweepAgent<Policy, kNeedlesFirst, K, Index, TakeSecond>;
  static constexpr size_t kSmem = sizeof(typename Agent::TempStorage);

  static int64_t max_tiles(const ItemCount& num_haystack, const ItemCount& num_needles) {
    return ceil_div(num_haystack.max + num_needles.max, Policy::TILE_ITEMS);
  }

  static cudaError_t launch(const K* haystack, ItemCount num_haystack, const K* needles, ItemCount num_needles,
                            Index* out, int64_t* partitions, Compare comp, cudaStream_t stream,
                            uint64_t* d_num_invalid) {
    const TakeSecond take_second{comp};
    const int64_t tiles = max_tiles(num_haystack, num_needles);
    // ---- cuts (also counts a count above its bound as invalid) ----
    const unsigned cut_blocks = static_cast<unsigned>(ceil_div(tiles + 1, kMergePartitionThreads));
    if constexpr (kNeedlesFirst) {
      merge_partition_kernel<Policy::TILE_ITEMS><<<cut_blocks, kMergePartitionThreads, 0, stream>>>(
          needles, num_needles, haystack, num_haystack, partitions, take_second, d_num_invalid);
    } else {
      merge_partition_kernel<Policy::TILE_ITEMS><<<cut_blocks, kMergePartitionThreads, 0, stream>>>(
          haystack, num_haystack, needles, num_needles, partitions, take_second, d_num_invalid);
    }
    PRIM_TRY_LAUNCH();
    // ---- tiles ----
    constexpr auto kKernel = search_sweep_kernel<Policy, kNeedlesFirst, K, Index, TakeSecond>;
    if (kSmem > 48 * 1024) {
      PRIM_TRY(cudaFuncSetAttribute(kKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kSmem)));
    }
    bool overlap = false;
    PRIM_TRY(kernel_waits_for_earlier_kernels<kKernel>(overlap));
    PRIM_TRY(launch_overlapped(overlap, kKernel, dim3(static_cast<unsigned>(tiles)), dim3(Policy::BLOCK_THREADS),
                               kSmem, stream, needles, num_needles, haystack, num_haystack, out,
                               static_cast<const int64_t*>(partitions), take_second));
    PRIM_TRY_LAUNCH();
    return cudaSuccess;
  }
};

// ---- The sampled search: the kernel that gathers the levels of samples, then a resident grid of searches ----
template <bool UPPER, class K, class Index, class Compare, class Policy = SearchPolicy>
struct SampledSearch {
  using Before = std::conditional_t<UPPER, BeforeForUpperBound<Compare>, BeforeForLowerBound<Compare>>;
  using Agent = SampledSearchAgent<Policy, K, Index, Before>;
  using Levels = typename Agent::Levels;

  // The levels' scratch items for any haystack of up to max_haystack items (SampleLevels: a shorter one needs no
  // more).
  static int64_t scratch_items(const ItemCount& num_haystack) {
    Levels levels;
    levels.compute(num_haystack.max, Agent::kMaxTop);
    return levels.scratch_items;
  }

  static cudaError_t launch(const K* haystack, ItemCount num_haystack, const K* needles, ItemCount num_needles,
                            Index* out, K* scratch, Compare comp, cudaStream_t stream, uint64_t* d_num_invalid) {
    int device = 0, sms = 0;
    PRIM_TRY(cudaGetDevice(&device));
    PRIM_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    // ---- levels (also counts a count above its bound as invalid) ----
    const unsigned sample_blocks = static_cast<unsigned>(std::max<int64_t>(
        1, std::min<int64_t>(ceil_div(scratch_items(num_haystack), SearchPolicy::kSampleThreads), int64_t{sms} * 8)));
    search_samples_kernel<Levels, Agent::kMaxTop><<<sample_blocks, SearchPolicy::kSampleThreads, 0, stream>>>(
        haystack, num_haystack, num_needles, scratch, d_num_invalid);
    PRIM_TRY_LAUNCH();
    if (num_needles.max == 0) return cudaSuccess;
    // ---- searches: a resident grid walking chunks of kThreads x kNeedlesPerThread needles ----
    constexpr auto kKernel = sampled_search_kernel<Policy, K, Index, Before>;
    const int64_t chunks = ceil_div(num_needles.max, Agent::kChunk);
    const unsigned grid =
        static_cast<unsigned>(std::max<int64_t>(1, std::min<int64_t>(chunks, int64_t{sms} * Policy::kBlocksPerSm)));
    bool overlap = false;
    PRIM_TRY(kernel_waits_for_earlier_kernels<kKernel>(overlap));
    PRIM_TRY(launch_overlapped(overlap, kKernel, dim3(grid), dim3(Policy::kThreads), 0, stream, haystack,
                               static_cast<const K*>(scratch), needles, out, num_haystack, num_needles, Before{comp}));
    PRIM_TRY_LAUNCH();
    return cudaSuccess;
  }
};

template <bool UPPER, class K, class Index, class Compare>
cudaError_t dispatch_search(void* d_temp, size_t& temp_bytes, const K* haystack, ItemCount num_haystack,
                            const K* needles, ItemCount num_needles, Index* out, Compare comp, cudaStream_t stream,
                            NeedleOrder order, uint64_t* d_num_invalid) {
  static_assert(std::is_integral_v<Index>, "results are integer positions");
  if (num_haystack.max < 0 || num_needles.max < 0 || num_haystack.max > kMaxSearchItems ||
      num_needles.max > kMaxSearchItems) {
    return cudaErrorInvalidValue;
  }
  // Every result, up to the haystack's count, must fit the result type.
  if (static_cast<uint64_t>(num_haystack.max) > static_cast<uint64_t>(std::numeric_limits<Index>::max())) {
    return cudaErrorInvalidValue;
  }
  using Sweep = SearchSweep<UPPER, K, Index, Compare>;
  using Sampled = SampledSearch<UPPER, K, Index, Compare>;
  const bool sweep = search_sweeps(order, num_haystack, num_needles);
  if (sweep && Sweep::max_tiles(num_haystack, num_needles) >= int64_t{1} << 31) return cudaErrorInvalidValue;

  TempCarver carver(d_temp);
  int64_t* partitions = nullptr;
  K* levels = nullptr;
  if (sweep) {
    partitions = carver.take<int64_t>(static_cast<size_t>(Sweep::max_tiles(num_haystack, num_needles) + 1));
  } else {
    levels = carver.take<K>(static_cast<size_t>(Sampled::scratch_items(num_haystack)));
  }
  bool size_query = false;
  PRIM_TRY(carver.finish(temp_bytes, size_query));
  if (size_query) return cudaSuccess;
  if ((num_haystack.max > 0 && haystack == nullptr) || (num_needles.max > 0 && (needles == nullptr || out == nullptr))) {
    return cudaErrorInvalidValue;
  }
  if (sweep) {
    return Sweep::launch(haystack, num_haystack, needles, num_needles, out, partitions, comp, stream, d_num_invalid);
  }
  return Sampled::launch(haystack, num_haystack, needles, num_needles, out, levels, comp, stream, d_num_invalid);
}

}  // namespace detail
}  // namespace prim
