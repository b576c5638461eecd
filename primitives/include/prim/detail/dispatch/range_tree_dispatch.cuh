// Host side of the range tree's queries: argument checks and launch shapes. The build, which composes the public
// sort and scan, is planned in prim/range_tree.h itself (no detail file includes a public header).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "prim/detail/core/bits.h"
#include "prim/detail/core/item_count.h"
#include "prim/detail/core/range_tree_layout.h"
#include "prim/detail/kernels/range_tree_kernels.cuh"
#include "prim/detail/tuning.h"

namespace prim {
namespace detail {

// Points a tree may hold: x positions, list positions and counts stay in 32 bits.
constexpr int64_t kMaxRangeTreePoints = int64_t{1} << 31;

inline unsigned range_blocks(int64_t items, int threads) {
  return static_cast<unsigned>(ceil_div(items > 0 ? items : 1, threads));
}

inline cudaError_t check_range_query(const RangeTreeView& tree, const RangeBox* d_boxes, const ItemCount& m,
                                     const void* d_out) {
  if (m.max < 0 || m.max >= (int64_t{1} << 40)) return cudaErrorInvalidValue;
  if (m.max > 0 && (d_boxes == nullptr || d_out == nullptr || tree.x_keys == nullptr)) return cudaErrorInvalidValue;
  return cudaSuccess;
}

}  // namespace detail
}  // namespace prim
