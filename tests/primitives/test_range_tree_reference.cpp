// reference/range_tree_reference.h: the host-built tree, queried through the walk the device runs, against the brute
// force; the tree's levels are the stable merges of their children (checked from the arrays themselves).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "primitives/reference/range_tree_reference.h"
#include "primitives/test_range_tree_util.h"

namespace {

using namespace range_tree_test;
namespace ref = prim::reference;

void check_all_queries(const Points& p, int64_t m, uint64_t seed) {
  SCOPED_TRACE(testing::Message() << "n=" << p.size());
  const ref::RangeTreeHost tree(p.x.data(), p.y.data(), p.w.data(), p.size(), true);
  const auto view = tree.view();
  for (const prim::RangeBox& b : make_boxes(p, m, seed)) {
    SCOPED_TRACE(testing::Message() << "box [" << b.x_min << ", " << b.x_max << "] x [" << b.y_min << ", " << b.y_max
                                    << "]");
    const auto want = ref::range_report(p.x.data(), p.y.data(), p.size(), b);
    EXPECT_EQ(ref::range_tree_count(view, b), want.size());
    EXPECT_EQ(ref::range_tree_sum(view, b), ref::range_sum(p.x.data(), p.y.data(), p.w.data(), p.size(), b));
    auto got = ref::range_tree_report(view, b);
    std::sort(got.begin(), got.end());
    ASSERT_EQ(got, want);
  }
}

TEST(RangeTreeReference, KeysKeepTheFloatOrder) {
  const float v[] = {-std::numeric_limits<float>::infinity(), -3.5f, -1e-30f, -0.0f, 0.0f, 1e-30f, 2.0f,
                     std::numeric_limits<float>::infinity()};
  for (size_t i = 0; i + 1 < std::size(v); ++i) {
    if (v[i] == v[i + 1]) {
      EXPECT_EQ(prim::detail::range_key(v[i]), prim::detail::range_key(v[i + 1]));
    } else {
      EXPECT_LT(prim::detail::range_key(v[i]), prim::detail::range_key(v[i + 1])) << v[i];
    }
  }
  EXPECT_EQ(prim::detail::range_key(std::numeric_limits<float>::quiet_NaN()), prim::detail::kRangeNoKey);
  EXPECT_EQ(prim::detail::range_key(-std::numeric_limits<float>::quiet_NaN()), prim::detail::kRangeNoKey);
  EXPECT_LT(prim::detail::range_key(std::numeric_limits<float>::infinity()), prim::detail::kRangeNoKey);
}

TEST(RangeTreeReference, EdgeSizes) {
  for (int64_t n : {0, 1, 2, 31, 32, 33, 63, 64, 65, 255, 256, 257, 1023, 1025}) {
    check_all_queries(make_points(n, Layout::uniform, 100 + static_cast<uint64_t>(n)), 60, 7);
  }
}

TEST(RangeTreeReference, DuplicatesNanAndOneValue) {
  for (int64_t n : {1, 33, 700, 4097}) {
    check_all_queries(make_points(n, Layout::grid, 1), 80, 2);
    check_all_queries(make_points(n, Layout::with_nan, 3), 80, 4);
    check_all_queries(make_points(n, Layout::one_value, 5), 20, 6);
  }
}

// Each level's node lists are the stable merges of the children's (the bottom-up definition), and the went-left bits
// name the child an item came from.
TEST(RangeTreeReference, LevelsAreMergesWithRanks) {
  const Points p = make_points(300, Layout::grid, 9);
  const ref::RangeTreeHost tree(p.x.data(), p.y.data(), p.w.data(), p.size(), true);
  const auto v = tree.view();
  const int64_t P = v.shape.padded;
  for (int level = 1; level <= v.shape.levels; ++level) {
    const uint32_t* idx = v.level_index(level);
    const uint32_t* below = v.level_index(level - 1);
    const int64_t size = int64_t{1} << level;
    for (int64_t o = 0; o < P; o += size) {
      std::vector<uint32_t> left, right;
      for (int64_t q = o; q < o + size; ++q) {
        const bool went_left = prim::detail::range_rank(v.level_ranks(level), q + 1) -
                                   prim::detail::range_rank(v.level_ranks(level), q) == 1;
        (went_left ? left : right).push_back(idx[q]);
      }
      ASSERT_EQ(left, std::vector<uint32_t>(below + o, below + o + size / 2)) << level << " " << o;
      ASSERT_EQ(right, std::vector<uint32_t>(below + o + size / 2, below + o + size)) << level << " " << o;
    }
  }
}

}  // namespace
