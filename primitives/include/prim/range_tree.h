// prim::range_tree_*: a static 2-D range tree of N points on the GPU, rebuilt every call, for batched box queries:
// count, sum of weights, and report (the points' indices).
//
//   size_t temp_bytes = 0, tree_bytes = 0;
//   prim::range_tree_build(nullptr, temp_bytes, nullptr, tree_bytes, d_x, d_y, d_w, n, true, tree);  // size query
//   ... d_temp, d_tree = <device memory, allocated once> ...
//   prim::range_tree_build(d_temp, temp_bytes, d_tree, tree_bytes, d_x, d_y, d_w, n, true, tree, stream);
//   prim::range_tree_count(tree, d_boxes, m, d_counts, stream);
//
// Overview. The structure of Maramreddy and Kothapalli (Euro-Par 2014) as Bharadwaj's report builds it on the GPU,
// pointer-free and layered: the points sorted by x are the leaves of a perfect binary tree (padded to a power of
// two, at least 32); level l lists each node's points sorted by y, which is the stable merge of its two children's
// lists, and every list item carries a went-left bit whose per-level prefix counts (rank words) take a y range of a
// node's list to its children's ranges in O(1) (the fractional cascading). A query searches x in the x order and y
// in the root's list once, then follows two root-to-leaf paths: O(log n). The layout is spelt out in
// prim/detail/core/range_tree_layout.h.
//
// Build. Two sorts (this library's sort_pairs: x keys, then y keys of the x order) and, a level from the root down,
// a stable two-way split of each node's list into its children's (a ballot a warp, a scan of the word counts): the
// split undoes the merge, so the arrays are exactly those of merging bottom-up (primitives/reference/
// range_tree_reference.h builds them that way; the gpu tests compare them word for word). Memory: the tree holds
// 8 bytes a point of x and root y keys, and per point and level 1/4 byte of rank words, 4 bytes of indices (report
// trees) and 8 bytes of prefix sums (weighted trees): O(n log n); at n = 2^24 (24 levels above the leaves) 14 bytes a
// point for counts, 114 with reports, 314 with reports and sums. The
// build's scratch is about 40 bytes a padded point (56 with weights) plus the sort's.
//
// Conventions. Boxes are closed (RangeBox: x_min <= x <= x_max and y_min <= y <= y_max); a box with a NaN bound or a
// min above its max is empty. A point with a NaN coordinate is in no box: the build adds it to *d_num_invalid (device
// uint64, when non-null) and never returns it. -0 and +0 are one value; infinities are ordinary values. Weights must
// be finite (a weight enters the prefix sums of every level); sums are accumulated in double.
//
// Counts: n is a host count (the tree's shape, its levels and its memory, is planned from it), 0 <= n <= 2^31. The
// queries take m as an ItemCount (a device count with a host bound works; a count above its bound answers nothing).
//
// Preconditions: the arrays do not overlap; the tree's memory stays untouched between the build and its queries.
// No allocation, no host synchronisation; safe inside CUDA graph capture.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "prim/detail/core/error.h"
#include "prim/detail/core/range_tree_layout.h"
#include "prim/detail/core/temp_storage.h"
#include "prim/detail/dispatch/range_tree_dispatch.cuh"
#include "prim/item_count.h"
#include "prim/scan.h"
#include "prim/sort.h"

namespace prim {

// A built tree: a view of the arrays in the caller's tree memory (valid while that memory is), passed by value to
// the queries.
using RangeTree = detail::RangeTreeView;

namespace detail {

// The build composes the public sort and scan, so it is planned here rather than under detail/.
// The build's scratch: per-item arrays of the padded size, the level's word counts, and room for the sorts' and the
// scans' own scratch (one region, used by one of them at a time).
struct RangeBuildScratch {
  uint32_t *xk, *yk, *seq, *order, *y_by_position, *positions[2], *counts, *befores;
  double* w[2];
  void* inner;
  size_t inner_bytes;
};

inline cudaError_t range_build_inner_bytes(int64_t padded, bool weights, size_t& bytes) {
  size_t sort_bytes = 0, count_scan = 0, weight_scan = 0;
  PRIM_TRY(prim::sort_pairs(nullptr, sort_bytes, static_cast<const uint32_t*>(nullptr), static_cast<uint32_t*>(nullptr),
                            static_cast<const uint32_t*>(nullptr), static_cast<uint32_t*>(nullptr), padded));
  PRIM_TRY(prim::exclusive_sum(nullptr, count_scan, static_cast<const uint32_t*>(nullptr),
                               static_cast<uint32_t*>(nullptr), padded / 32 + 1));
  if (weights) {
    PRIM_TRY(prim::inclusive_sum(nullptr, weight_scan, static_cast<const double*>(nullptr),
                                 static_cast<double*>(nullptr), padded));
  }
  bytes = std::max({sort_bytes, count_scan, weight_scan});
  return cudaSuccess;
}

inline cudaError_t dispatch_range_tree_build(void* d_temp, size_t& temp_bytes, void* d_tree, size_t& tree_bytes,
                                             const float* d_x, const float* d_y, const float* d_weights, int64_t n,
                                             bool report, RangeTreeView& tree, cudaStream_t stream,
                                             uint64_t* d_num_invalid) {
  if (n < 0 || n > kMaxRangeTreePoints) return cudaErrorInvalidValue;
  const RangeTreeShape shape = RangeTreeShape::of(n);
  const int64_t p = shape.padded;
  const bool weights = d_weights != nullptr;
  const RangeTreeBlob blob = RangeTreeBlob::of(shape, report, weights);

  RangeBuildScratch s{};
  TempCarver carver(d_temp);
  s.xk = carver.take<uint32_t>(static_cast<size_t>(p));
  s.yk = carver.take<uint32_t>(static_cast<size_t>(p));
  s.seq = carver.take<uint32_t>(static_cast<size_t>(p));
  s.order = carver.take<uint32_t>(static_cast<size_t>(p));
  s.y_by_position = carver.take<uint32_t>(static_cast<size_t>(p));
  s.positions[0] = carver.take<uint32_t>(static_cast<size_t>(p));
  s.positions[1] = carver.take<uint32_t>(static_cast<size_t>(p));
  s.counts = carver.take<uint32_t>(static_cast<size_t>(shape.rank_words()));
  s.befores = carver.take<uint32_t>(static_cast<size_t>(shape.rank_words()));
  s.w[0] = weights ? carver.take<double>(static_cast<size_t>(p)) : nullptr;
  s.w[1] = weights ? carver.take<double>(static_cast<size_t>(p)) : nullptr;
  PRIM_TRY(range_build_inner_bytes(p, weights, s.inner_bytes));
  s.inner = carver.take<unsigned char>(s.inner_bytes);
  bool size_query = false;
  PRIM_TRY(carver.finish(temp_bytes, size_query));
  if (size_query) {
    tree_bytes = blob.total;
    return cudaSuccess;
  }
  if (d_tree == nullptr || tree_bytes < blob.total) return cudaErrorInvalidValue;
  if (n > 0 && (d_x == nullptr || d_y == nullptr)) return cudaErrorInvalidValue;

  char* base = static_cast<char*>(d_tree);
  uint32_t* x_keys = reinterpret_cast<uint32_t*>(base + blob.x_keys);
  uint32_t* root_y = reinterpret_cast<uint32_t*>(base + blob.root_y);
  RangeRankWord* ranks = reinterpret_cast<RangeRankWord*>(base + blob.ranks);
  uint32_t* index = report ? reinterpret_cast<uint32_t*>(base + blob.index) : nullptr;
  double* prefix = weights ? reinterpret_cast<double*>(base + blob.weight_prefix) : nullptr;
  tree = RangeTreeView{};
  tree.shape = shape;
  tree.x_keys = x_keys;
  tree.root_y = root_y;
  tree.ranks = ranks;
  tree.index = index;
  tree.weight_prefix = prefix;

  constexpr int kThreads = RangeTreePolicy::kBuildThreads;
  const unsigned blocks = range_blocks(p, kThreads);
  // ---- keys, then the x order (stable: ties, NaN and padding keep input order) ----
  range_keys_kernel<<<blocks, kThreads, 0, stream>>>(d_x, d_y, n, p, s.xk, s.yk, s.seq, d_num_invalid);
  PRIM_TRY_LAUNCH();
  size_t inner = s.inner_bytes;
  PRIM_TRY(prim::sort_pairs(s.inner, inner, s.xk, x_keys, s.seq, s.order, p, 0, 32, stream));
  // ---- the root: x positions sorted by y (stable: ties by x position) ----
  range_y_by_position_kernel<<<blocks, kThreads, 0, stream>>>(s.order, s.yk, p, s.y_by_position);
  PRIM_TRY_LAUNCH();
  inner = s.inner_bytes;
  PRIM_TRY(prim::sort_pairs(s.inner, inner, s.y_by_position, root_y, s.seq, s.positions[0], p, 0, 32, stream));
  const int levels = shape.levels;
  range_root_kernel<<<blocks, kThreads, 0, stream>>>(s.positions[0], s.order, x_keys, root_y, d_weights, n, p,
                                                     report ? index + static_cast<size_t>(levels) * p : nullptr,
                                                     s.w[0]);
  PRIM_TRY_LAUNCH();
  PRIM_TRY(cudaMemsetAsync(s.counts + p / 32, 0, sizeof(uint32_t), stream));
  // The weights' prefix sums of a level: prefix[0] = 0, prefix[q + 1] = the sum of the list's first q + 1 weights.
  auto prefix_of_level = [&](int level, const double* w) -> cudaError_t {
    double* pre = prefix + static_cast<size_t>(level) * static_cast<size_t>(p + 1);
    PRIM_TRY(cudaMemsetAsync(pre, 0, sizeof(double), stream));
    size_t bytes = s.inner_bytes;
    return prim::inclusive_sum(s.inner, bytes, w, pre + 1, p, stream);
  };
  // ---- levels, root to leaves: each level's went-left bits, ranks, and the stable split into the level below ----
  int cur = 0;
  for (int level = levels; level >= 1; --level) {
    const int64_t half = int64_t{1} << (level - 1);
    if (weights) PRIM_TRY(prefix_of_level(level, s.w[cur]));
    range_level_counts_kernel<<<blocks, kThreads, 0, stream>>>(s.positions[cur], p, half, s.counts);
    PRIM_TRY_LAUNCH();
    size_t bytes = s.inner_bytes;
    PRIM_TRY(prim::exclusive_sum(s.inner, bytes, s.counts, s.befores, shape.rank_words(), stream));
    range_level_split_kernel<<<blocks, kThreads, 0, stream>>>(
        s.positions[cur], report ? index + static_cast<size_t>(level) * p : nullptr, s.w[cur], s.befores, p, half,
        ranks + static_cast<size_t>(level - 1) * static_cast<size_t>(shape.rank_words()), s.positions[1 - cur],
        report ? index + static_cast<size_t>(level - 1) * p : nullptr, s.w[1 - cur]);
    PRIM_TRY_LAUNCH();
    cur = 1 - cur;
  }
  if (weights) PRIM_TRY(prefix_of_level(0, s.w[cur]));
  return cudaSuccess;
}

}  // namespace detail

// Builds the tree of points (d_x[i], d_y[i]) with optional weights d_weights[i] (null: no sums) for count queries,
// sums (with weights) and reports (with `report`). d_temp == nullptr is a size query: it writes temp_bytes (the
// build's scratch) and tree_bytes (the tree's memory) and runs nothing. Less of either than the size query reported
// gives cudaErrorInvalidValue. `tree` receives the view to query.
inline cudaError_t range_tree_build(void* d_temp, size_t& temp_bytes, void* d_tree, size_t& tree_bytes,
                                    const float* d_x, const float* d_y, const float* d_weights, int64_t n,
                                    bool report, RangeTree& tree, cudaStream_t stream = 0,
                                    uint64_t* d_num_invalid = nullptr) {
  return detail::dispatch_range_tree_build(d_temp, temp_bytes, d_tree, tree_bytes, d_x, d_y, d_weights, n, report, tree,
                                           stream, d_num_invalid);
}

// d_counts[i] = the number of points in d_boxes[i], for i below the box count. No scratch.
inline cudaError_t range_tree_count(const RangeTree& tree, const RangeBox* d_boxes, ItemCount m, uint32_t* d_counts,
                                    cudaStream_t stream = 0) {
  PRIM_TRY(detail::check_range_query(tree, d_boxes, m, d_counts));
  if (m.max == 0) return cudaSuccess;
  constexpr int kThreads = detail::RangeTreePolicy::kQueryThreads;
  detail::range_count_query_kernel<uint32_t><<<detail::range_blocks(m.max, kThreads), kThreads, 0, stream>>>(
      tree, d_boxes, m, d_counts, false);
  PRIM_TRY_LAUNCH();
  return cudaSuccess;
}

// d_sums[i] = the sum of the weights of the points in d_boxes[i] (a tree built with weights). No scratch.
inline cudaError_t range_tree_sum(const RangeTree& tree, const RangeBox* d_boxes, ItemCount m, double* d_sums,
                                  cudaStream_t stream = 0) {
  PRIM_TRY(detail::check_range_query(tree, d_boxes, m, d_sums));
  if (m.max > 0 && tree.weight_prefix == nullptr) return cudaErrorInvalidValue;
  if (m.max == 0) return cudaSuccess;
  constexpr int kThreads = detail::RangeTreePolicy::kQueryThreads;
  detail::range_sum_query_kernel<<<detail::range_blocks(m.max, kThreads), kThreads, 0, stream>>>(tree, d_boxes, m,
                                                                                                 d_sums);
  PRIM_TRY_LAUNCH();
  return cudaSuccess;
}

// The points of every box (a tree built with `report`), in two passes through the same walk: counts, their exclusive
// sum into d_offsets[0, m.max + 1) (box i's points are d_points[d_offsets[i], d_offsets[i + 1]); d_offsets[count]
// is the total, also past a device count), then the indices. A box whose end lies beyond `capacity` writes nothing:
// compare d_offsets[m] with the capacity, grow and query again (the order of a box's points is the tree's, not
// ascending). d_temp == nullptr is a size query (the scan's scratch).
inline cudaError_t range_tree_report(void* d_temp, size_t& temp_bytes, const RangeTree& tree, const RangeBox* d_boxes,
                                     ItemCount m, uint64_t* d_offsets, uint32_t* d_points, int64_t capacity,
                                     cudaStream_t stream = 0) {
  if (m.max < 0) return cudaErrorInvalidValue;
  TempCarver carver(d_temp);
  size_t scan_bytes = 0;
  PRIM_TRY(prim::exclusive_sum(nullptr, scan_bytes, static_cast<const uint64_t*>(nullptr),
                               static_cast<uint64_t*>(nullptr), m.max + 1));
  void* scan_temp = carver.take<unsigned char>(scan_bytes);
  bool size_query = false;
  PRIM_TRY(carver.finish(temp_bytes, size_query));
  if (size_query) return cudaSuccess;
  PRIM_TRY(detail::check_range_query(tree, d_boxes, m, d_offsets));
  if (d_offsets == nullptr || capacity < 0 || (capacity > 0 && d_points == nullptr)) return cudaErrorInvalidValue;
  if (m.max > 0 && tree.index == nullptr) return cudaErrorInvalidValue;
  constexpr int kThreads = detail::RangeTreePolicy::kQueryThreads;
  // ---- counts (zero up to the bound and one past it) ----
  detail::range_count_query_kernel<uint64_t><<<detail::range_blocks(m.max + 1, kThreads), kThreads, 0, stream>>>(
      tree, d_boxes, m, d_offsets, true);
  PRIM_TRY_LAUNCH();
  // ---- offsets ----
  PRIM_TRY(prim::exclusive_sum(scan_temp, scan_bytes, d_offsets, d_offsets, m.max + 1, stream));
  if (m.max == 0) return cudaSuccess;
  // ---- indices ----
  detail::range_report_query_kernel<<<detail::range_blocks(m.max, kThreads), kThreads, 0, stream>>>(
      tree, d_boxes, m, d_offsets, d_points, capacity);
  PRIM_TRY_LAUNCH();
  return cudaSuccess;
}

}  // namespace prim
