// Point sets and boxes of the range tree's tests (cpu and gpu): fixed seeds, duplicates, NaN, edge boxes.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "prim/detail/core/range_tree_layout.h"

namespace range_tree_test {

struct Points {
  std::vector<float> x, y, w;
  int64_t size() const { return static_cast<int64_t>(x.size()); }
};

enum class Layout {
  uniform,     // floats in [0, 1)
  grid,        // a coarse grid: many duplicates in x, in y and in both
  one_value,   // every point the same
  with_nan,    // uniform, with NaN in x, in y or both every few points, and +-0, +-inf
};

inline Points make_points(int64_t n, Layout layout, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  Points p;
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  for (int64_t i = 0; i < n; ++i) {
    float x = u(rng), y = u(rng);
    if (layout == Layout::grid) {
      x = static_cast<float>(rng() % 7) / 8.0f;
      y = static_cast<float>(rng() % 5) / 8.0f;
    } else if (layout == Layout::one_value) {
      x = 0.5f;
      y = 0.25f;
    } else if (layout == Layout::with_nan) {
      switch (rng() % 11) {
        case 0: x = nan; break;
        case 1: y = nan; break;
        case 2: x = y = nan; break;
        case 3: x = -0.0f; break;
        case 4: y = 0.0f; break;
        case 5: x = inf; break;
        case 6: y = -inf; break;
        default: break;
      }
    }
    p.x.push_back(x);
    p.y.push_back(y);
    p.w.push_back(static_cast<float>(rng() % 1000) / 16.0f - 20.0f);  // exact in float and double sums
  }
  return p;
}

// Boxes: random ones of several sizes, the whole plane, empty and inverted, NaN bounds, degenerate (a line, a point
// on a grid value), and boxes whose bounds are exactly points' coordinates (closed bounds).
inline std::vector<prim::RangeBox> make_boxes(const Points& p, int64_t m, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-0.1f, 1.1f);
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  std::vector<prim::RangeBox> boxes = {
      {-inf, inf, -inf, inf}, {0.0f, 0.0f, 0.0f, 0.0f}, {0.5f, 0.25f, 0.0f, 1.0f}, {0.0f, 1.0f, 0.7f, 0.2f},
      {nan, 1.0f, 0.0f, 1.0f}, {0.0f, 1.0f, 0.0f, nan}, {0.5f, 0.5f, -inf, inf}, {-inf, inf, 0.25f, 0.25f},
      {-0.0f, 0.0f, -1.0f, 2.0f}, {inf, inf, -inf, inf}, {0.125f, 0.375f, 0.125f, 0.5f}};
  while (static_cast<int64_t>(boxes.size()) < m) {
    prim::RangeBox b;
    if (p.size() > 0 && rng() % 3 == 0) {  // bounds on points' own coordinates
      const size_t i = rng() % p.x.size(), j = rng() % p.x.size();
      b = {std::fmin(p.x[i], p.x[j]), std::fmax(p.x[i], p.x[j]), std::fmin(p.y[i], p.y[j]), std::fmax(p.y[i], p.y[j])};
    } else {
      const float cx = u(rng), cy = u(rng);
      const float r = rng() % 2 == 0 ? 0.01f * u(rng) : 0.4f * u(rng);
      b = {cx - r, cx + r, cy - r, cy + r};
    }
    boxes.push_back(b);
  }
  boxes.resize(static_cast<size_t>(m));
  return boxes;
}

}  // namespace range_tree_test
