// The range tree's kernels (prim/range_tree.h): the build's per-item steps and the batched queries. Each is a thin
// loop over the items it owns; the arithmetic shared with the host (keys, child positions, ranks, the walk) lives in
// core/range_tree_layout.h.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "prim/detail/core/device_count.cuh"
#include "prim/detail/core/item_count.h"
#include "prim/detail/core/range_tree_layout.h"
#include "prim/detail/tuning.h"

namespace prim {
namespace detail {

// ---- build: keys. xk / yk of input i (padding: kRangeNoKey), seq[i] = i; a point with a NaN coordinate is counted
// invalid (a warp's count in one atomic) ----
static __global__ void __launch_bounds__(RangeTreePolicy::kBuildThreads)
    range_keys_kernel(const float* __restrict__ x, const float* __restrict__ y, int64_t n, int64_t padded,
                      uint32_t* __restrict__ xk, uint32_t* __restrict__ yk, uint32_t* __restrict__ seq,
                      uint64_t* num_invalid) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * RangeTreePolicy::kBuildThreads + threadIdx.x;
  if (i >= padded) return;  // padded is a multiple of 32 and blocks are whole warps: whole warps leave here
  const uint32_t kx = i < n ? range_key(x[i]) : kRangeNoKey;
  const uint32_t ky = i < n ? range_key(y[i]) : kRangeNoKey;
  xk[i] = kx;
  yk[i] = ky;
  seq[i] = static_cast<uint32_t>(i);
  const unsigned invalid = __ballot_sync(0xFFFFFFFFu, i < n && (kx == kRangeNoKey || ky == kRangeNoKey));
  if ((threadIdx.x & 31) == 0 && invalid != 0 && num_invalid != nullptr) {
    atomicAdd(reinterpret_cast<unsigned long long*>(num_invalid), static_cast<unsigned long long>(__popc(invalid)));
  }
}

// ---- build: the y key of each x position ----
static __global__ void __launch_bounds__(RangeTreePolicy::kBuildThreads)
    range_y_by_position_kernel(const uint32_t* __restrict__ order, const uint32_t* __restrict__ yk, int64_t padded,
                               uint32_t* __restrict__ y_by_position) {
  const int64_t p = static_cast<int64_t>(blockIdx.x) * RangeTreePolicy::kBuildThreads + threadIdx.x;
  if (p < padded) y_by_position[p] = yk[order[p]];
}

// ---- build: the root's list (x positions sorted by y) as input indices and weights. A padding or NaN point weighs
// 0, so that the prefix sums after it stay finite ----
static __global__ void __launch_bounds__(RangeTreePolicy::kBuildThreads)
    range_root_kernel(const uint32_t* __restrict__ positions, const uint32_t* __restrict__ order,
                      const uint32_t* __restrict__ x_keys, const uint32_t* __restrict__ root_y,
                      const float* __restrict__ weights, int64_t n, int64_t padded, uint32_t* __restrict__ index,
                      double* __restrict__ w) {
  const int64_t q = static_cast<int64_t>(blockIdx.x) * RangeTreePolicy::kBuildThreads + threadIdx.x;
  if (q >= padded) return;
  const uint32_t pos = positions[q];
  const uint32_t i = order[pos];
  const bool real = static_cast<int64_t>(i) < n;
  if (index != nullptr) index[q] = real ? i : kRangeNoIndex;
  if (w != nullptr) {
    const bool valid = real && x_keys[pos] != kRangeNoKey && root_y[q] != kRangeNoKey;
    w[q] = valid ? static_cast<double>(weights[i]) : 0.0;
  }
}

// ---- build, a level: went-left items a word of 32 list items (counts[P / 32] is the caller's 0) ----
static __global__ void __launch_bounds__(RangeTreePolicy::kBuildThreads)
    range_level_counts_kernel(const uint32_t* __restrict__ positions, int64_t padded, int64_t half,
                              uint32_t* __restrict__ counts) {
  const int64_t q = static_cast<int64_t>(blockIdx.x) * RangeTreePolicy::kBuildThreads + threadIdx.x;
  if (q >= padded) return;  // whole warps
  const unsigned left = __ballot_sync(0xFFFFFFFFu, (positions[q] & static_cast<uint32_t>(half)) == 0);
  if ((q & 31) == 0) counts[q >> 5] = static_cast<uint32_t>(__popc(left));
}

// ---- build, a level: the level's rank words, and every item moved to its child's list in the level below ----
// befores[w] = went-left items before word w in the level's array (the exclusive sum of the counts).
static __global__ void __launch_bounds__(RangeTreePolicy::kBuildThreads)
    range_level_split_kernel(const uint32_t* __restrict__ positions, const uint32_t* __restrict__ index,
                             const double* __restrict__ w, const uint32_t* __restrict__ befores, int64_t padded,
                             int64_t half, RangeRankWord* __restrict__ ranks, uint32_t* __restrict__ positions_out,
                             uint32_t* __restrict__ index_out, double* __restrict__ w_out) {
  const int64_t q = static_cast<int64_t>(blockIdx.x) * RangeTreePolicy::kBuildThreads + threadIdx.x;
  if (q >= padded) return;  // whole warps
  const uint32_t pos = positions[q];
  const bool left = (pos & static_cast<uint32_t>(half)) == 0;
  const unsigned bits = __ballot_sync(0xFFFFFFFFu, left);
  const uint32_t lane = static_cast<uint32_t>(q & 31);
  const uint32_t before_word = befores[q >> 5];
  if (lane == 0) ranks[q >> 5] = RangeRankWord{before_word, bits};
  if (q == 0) ranks[padded >> 5] = RangeRankWord{static_cast<uint32_t>(padded / 2), 0u};
  // The node's first item: in an earlier word when the node spans whole words, else in this word.
  const int64_t o = q & ~(2 * half - 1);
  const uint32_t before_node = 2 * half >= 32 ? befores[o >> 5]
                                              : before_word + static_cast<uint32_t>(__popc(bits & ((1u << (o & 31)) - 1u)));
  const uint32_t before_item = before_word + static_cast<uint32_t>(__popc(bits & ((1u << lane) - 1u)));
  const int64_t dest = range_child_position(q, half, left, static_cast<int64_t>(before_item - before_node));
  positions_out[dest] = pos;
  if (index != nullptr) index_out[dest] = index[q];
  if (w != nullptr) w_out[dest] = w[q];
}

// ---- queries: a thread a box ----
template <class Out>
static __global__ void __launch_bounds__(RangeTreePolicy::kQueryThreads)
    range_count_query_kernel(RangeTreeView tree, const RangeBox* __restrict__ boxes, ItemCount m,
                             Out* __restrict__ out, bool zero_to_bound) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * RangeTreePolicy::kQueryThreads + threadIdx.x;
  const int64_t count = count_on_device(m);
  if (i >= count) {
    // The report's counts run up to the bound (and one past): the scan over them then leaves the total everywhere
    // past the real count.
    if (zero_to_bound && i <= m.max) out[i] = 0;
    return;
  }
  uint64_t c = 0;
  range_tree_walk(tree, boxes[i], [&](int, int64_t first, int64_t last) { c += static_cast<uint64_t>(last - first); });
  out[i] = static_cast<Out>(c);
}

static __global__ void __launch_bounds__(RangeTreePolicy::kQueryThreads)
    range_sum_query_kernel(RangeTreeView tree, const RangeBox* __restrict__ boxes, ItemCount m,
                           double* __restrict__ out) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * RangeTreePolicy::kQueryThreads + threadIdx.x;
  if (i >= count_on_device(m)) return;
  double s = 0;
  range_tree_walk(tree, boxes[i], [&](int level, int64_t first, int64_t last) {
    const double* pre = tree.level_prefix(level);
    s += pre[last] - pre[first];
  });
  out[i] = s;
}

// Box i's points to points[offsets[i], offsets[i + 1]), where that end lies within the capacity.
static __global__ void __launch_bounds__(RangeTreePolicy::kQueryThreads)
    range_report_query_kernel(RangeTreeView tree, const RangeBox* __restrict__ boxes, ItemCount m,
                              const uint64_t* __restrict__ offsets, uint32_t* __restrict__ points, int64_t capacity) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * RangeTreePolicy::kQueryThreads + threadIdx.x;
  if (i >= count_on_device(m)) return;
  uint64_t at = offsets[i];
  if (offsets[i + 1] > static_cast<uint64_t>(capacity)) return;
  range_tree_walk(tree, boxes[i], [&](int level, int64_t first, int64_t last) {
    const uint32_t* idx = tree.level_index(level);
    for (int64_t q = first; q < last; ++q) points[at++] = idx[q];
  });
}

}  // namespace detail
}  // namespace prim
