// Host dispatch of the select / partition calls: carves the look-back words, zeroes them (one memset node) and
// launches a block a tile on the caller's stream.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "prim/detail/core/bits.h"
#include "prim/detail/core/error.h"
#include "prim/detail/core/item_count.h"
#include "prim/detail/core/temp_storage.h"
#include "prim/detail/kernels/select_kernels.cuh"
#include "prim/detail/tuning.h"

namespace prim {
namespace detail {

// Policy: the tile shape, by default SelectPolicyFor the item size and what the selector reads (a tuning sweep
// passes others).
template <SelectOutput OUT, class T, class Selector,
          class Policy = SelectPolicyFor<sizeof(T), kSelectorReadsFlags<Selector>, kSelectorVectorRows<Selector>>>
cudaError_t dispatch_select(void* d_temp, size_t& temp_bytes, const T* in, T* selected_out, T* rejected_out,
                            uint64_t* num_selected, ItemCount n, Selector selector, cudaStream_t stream,
                            uint64_t* d_num_invalid) {
  using Agent = SelectAgent<Policy, OUT, T, Selector>;
  constexpr size_t kSmem = sizeof(typename Agent::TempStorage);
  if (n.max < 0) return cudaErrorInvalidValue;
  const int64_t max_tiles = ceil_div(n.max, Policy::TILE_ITEMS);
  if (max_tiles >= int64_t{1} << 31) return cudaErrorInvalidValue;  // grid.x

  // A look-back word a tile (at least one, so that the carving is never empty).
  const size_t num_words = static_cast<size_t>(max_tiles > 0 ? max_tiles : 1);
  TempCarver carver(d_temp);
  unsigned long long* words = carver.take<unsigned long long>(num_words);
  bool size_query = false;
  PRIM_TRY(carver.finish(temp_bytes, size_query));
  if (size_query) return cudaSuccess;
  if (n.max > 0 && (in == nullptr || selected_out == nullptr ||
                    (OUT == SelectOutput::partition && rejected_out == nullptr))) {
    return cudaErrorInvalidValue;
  }

  PRIM_TRY(cudaMemsetAsync(words, 0, num_words * sizeof(unsigned long long), stream));
  typename Agent::Io io{in, selected_out, rejected_out, num_selected, TileCountLookback{words}};
  constexpr auto kKernel = select_kernel<Policy, OUT, T, Selector>;
  if (kSmem > 48 * 1024) {
    PRIM_TRY(cudaFuncSetAttribute(kKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kSmem)));
  }
  // At least one block: tile 0's block writes the count (0) and counts a device count above its bound.
  const unsigned grid = static_cast<unsigned>(max_tiles > 0 ? max_tiles : 1);
  kKernel<<<grid, Policy::BLOCK_THREADS, kSmem, stream>>>(io, n, selector, d_num_invalid);
  PRIM_TRY_LAUNCH();
  return cudaSuccess;
}

}  // namespace detail
}  // namespace prim
