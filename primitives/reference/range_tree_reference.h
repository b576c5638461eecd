// Plain C++ references of prim/range_tree.h. No CUDA runtime calls.
//
//   brute force   count / sum / report of every box against every point: the oracle
//   RangeTreeHost the same tree as the device builds, array for array (the layout of
//                 prim/detail/core/range_tree_layout.h), built by sorting and stable merges level by level: the gpu
//                 tests compare the device's arrays with it exactly, and its view answers queries on the host through
//                 the very walk the device runs
//
// Conventions as the device's: closed boxes; a box with a NaN bound or min > max is empty; a point with a NaN
// coordinate is in no box; -0 and +0 are one value.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "prim/detail/core/range_tree_layout.h"

namespace prim {
namespace reference {

inline bool range_box_holds(const RangeBox& b, float x, float y) {
  // NaN anywhere makes a comparison false, so NaN points and NaN boxes hold nothing.
  return b.x_min <= x && x <= b.x_max && b.y_min <= y && y <= b.y_max;
}

inline uint64_t range_count(const float* x, const float* y, int64_t n, const RangeBox& b) {
  uint64_t c = 0;
  for (int64_t i = 0; i < n; ++i) c += range_box_holds(b, x[i], y[i]) ? 1 : 0;
  return c;
}

inline double range_sum(const float* x, const float* y, const float* w, int64_t n, const RangeBox& b) {
  double s = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (range_box_holds(b, x[i], y[i])) s += static_cast<double>(w[i]);
  }
  return s;
}

// The input indices of the box's points, ascending.
inline std::vector<uint32_t> range_report(const float* x, const float* y, int64_t n, const RangeBox& b) {
  std::vector<uint32_t> out;
  for (int64_t i = 0; i < n; ++i) {
    if (range_box_holds(b, x[i], y[i])) out.push_back(static_cast<uint32_t>(i));
  }
  return out;
}

inline uint64_t range_invalid_points(const float* x, const float* y, int64_t n) {
  uint64_t c = 0;
  for (int64_t i = 0; i < n; ++i) c += (std::isnan(x[i]) || std::isnan(y[i])) ? 1 : 0;
  return c;
}

// The device's tree, built on the host bottom-up: level 0 is the x order, level l + 1 the stable merge by y (ties:
// the left child's first) of level l's sibling lists.
struct RangeTreeHost {
  detail::RangeTreeShape shape;
  std::vector<uint32_t> x_keys, root_y, index;
  std::vector<detail::RangeRankWord> ranks;
  std::vector<double> weight_prefix;

  RangeTreeHost(const float* x, const float* y, const float* w, int64_t n, bool report) {
    using namespace detail;
    shape = RangeTreeShape::of(n);
    const int64_t p = shape.padded;
    const int levels = shape.levels;
    std::vector<uint32_t> xk(static_cast<size_t>(p), kRangeNoKey), yk(static_cast<size_t>(p), kRangeNoKey);
    for (int64_t i = 0; i < n; ++i) {
      xk[static_cast<size_t>(i)] = range_key(x[i]);
      yk[static_cast<size_t>(i)] = range_key(y[i]);
    }
    // x order: stable by x key, so ties (and NaN, and padding last) keep input order.
    std::vector<uint32_t> order(static_cast<size_t>(p));
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return xk[a] < xk[b]; });
    x_keys.resize(static_cast<size_t>(p));
    for (int64_t q = 0; q < p; ++q) x_keys[static_cast<size_t>(q)] = xk[order[static_cast<size_t>(q)]];
    // Level lists as x positions; level 0 is the x order itself.
    std::vector<uint32_t> list(static_cast<size_t>(p));
    std::iota(list.begin(), list.end(), 0u);
    auto ykey_of = [&](uint32_t pos) { return yk[order[pos]]; };
    auto weight_of = [&](uint32_t pos) -> double {
      const uint32_t i = order[pos];
      if (static_cast<int64_t>(i) >= n || xk[i] == kRangeNoKey || yk[i] == kRangeNoKey) return 0.0;
      return static_cast<double>(w[i]);
    };
    ranks.assign(static_cast<size_t>(levels) * static_cast<size_t>(shape.rank_words()), RangeRankWord{0, 0});
    if (report) index.assign(static_cast<size_t>(levels + 1) * static_cast<size_t>(p), kRangeNoIndex);
    if (w != nullptr) weight_prefix.assign(static_cast<size_t>(levels + 1) * static_cast<size_t>(p + 1), 0.0);
    auto record_level = [&](int level) {
      if (report) {
        for (int64_t q = 0; q < p; ++q) {
          const uint32_t i = order[list[static_cast<size_t>(q)]];
          index[static_cast<size_t>(level) * static_cast<size_t>(p) + static_cast<size_t>(q)] =
              static_cast<int64_t>(i) < n ? i : kRangeNoIndex;
        }
      }
      if (w != nullptr) {
        double* pre = weight_prefix.data() + static_cast<size_t>(level) * static_cast<size_t>(p + 1);
        pre[0] = 0;
        for (int64_t q = 0; q < p; ++q) pre[q + 1] = pre[q] + weight_of(list[static_cast<size_t>(q)]);
      }
    };
    record_level(0);
    std::vector<uint32_t> next(static_cast<size_t>(p));
    for (int level = 1; level <= levels; ++level) {
      const int64_t size = int64_t{1} << level, half = size / 2;
      RangeRankWord* r = ranks.data() + static_cast<size_t>(level - 1) * static_cast<size_t>(shape.rank_words());
      uint32_t went_left = 0;
      for (int64_t o = 0; o < p; o += size) {
        // ---- stable merge of the two children's lists by y key, the left child's first on ties ----
        int64_t i = o, j = o + half, k = o;
        while (k < o + size) {
          const bool right = i >= o + half || (j < o + size && ykey_of(list[static_cast<size_t>(j)]) <
                                                                    ykey_of(list[static_cast<size_t>(i)]));
          next[static_cast<size_t>(k)] = right ? list[static_cast<size_t>(j++)] : list[static_cast<size_t>(i++)];
          if (!right) {
            r[k >> 5].bits |= 1u << (k & 31);
          }
          ++k;
        }
      }
      for (int64_t word = 0; word < p / 32; ++word) {
        r[word].before = went_left;
        went_left += detail::range_popc(r[word].bits);
      }
      r[p / 32] = RangeRankWord{went_left, 0};
      list.swap(next);
      record_level(level);
    }
    root_y.resize(static_cast<size_t>(p));
    for (int64_t q = 0; q < p; ++q) root_y[static_cast<size_t>(q)] = ykey_of(list[static_cast<size_t>(q)]);
  }

  detail::RangeTreeView view() const {
    detail::RangeTreeView v;
    v.shape = shape;
    v.x_keys = x_keys.data();
    v.root_y = root_y.data();
    v.ranks = ranks.data();
    v.index = index.empty() ? nullptr : index.data();
    v.weight_prefix = weight_prefix.empty() ? nullptr : weight_prefix.data();
    return v;
  }
};

// Queries through the walk over a host tree (the CPU range tree).
inline uint64_t range_tree_count(const detail::RangeTreeView& t, const RangeBox& b) {
  uint64_t c = 0;
  detail::range_tree_walk(t, b, [&](int, int64_t first, int64_t last) { c += static_cast<uint64_t>(last - first); });
  return c;
}

inline double range_tree_sum(const detail::RangeTreeView& t, const RangeBox& b) {
  double s = 0;
  detail::range_tree_walk(t, b, [&](int level, int64_t first, int64_t last) {
    const double* pre = t.level_prefix(level);
    s += pre[last] - pre[first];
  });
  return s;
}

inline std::vector<uint32_t> range_tree_report(const detail::RangeTreeView& t, const RangeBox& b) {
  std::vector<uint32_t> out;
  detail::range_tree_walk(t, b, [&](int level, int64_t first, int64_t last) {
    const uint32_t* idx = t.level_index(level);
    for (int64_t q = first; q < last; ++q) out.push_back(idx[q]);
  });
  return out;
}

}  // namespace reference
}  // namespace prim
