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

// The device build's top-down split, emulated warp by warp with the kernel's own arithmetic (a warp's ballot is the
// word's bits; the node's and the item's went-left counts from the word's `before` and a popcount), starting from the
// root's list: every level's index array and rank words equal the bottom-up merges'.
TEST(RangeTreeReference, TopDownSplitEqualsBottomUpMerge) {
  for (int64_t n : {1, 31, 33, 100, 1000, 4097}) {
    for (Layout layout : {Layout::uniform, Layout::grid, Layout::with_nan}) {
      const Points p = make_points(n, layout, 31 + static_cast<uint64_t>(n));
      const ref::RangeTreeHost tree(p.x.data(), p.y.data(), p.w.data(), p.size(), true);
      const auto v = tree.view();
      const int64_t P = v.shape.padded;
      // Level L's list as x positions: recover them from the index arrays through the x order of level 0.
      std::vector<uint32_t> position_of_index(static_cast<size_t>(P), 0);
      const uint32_t* leaves = v.level_index(0);
      for (int64_t q = 0; q < P; ++q) {
        if (leaves[q] != prim::detail::kRangeNoIndex) position_of_index[leaves[q]] = static_cast<uint32_t>(q);
      }
      std::vector<uint32_t> positions(static_cast<size_t>(P)), index(v.level_index(v.shape.levels),
                                                                      v.level_index(v.shape.levels) + P);
      for (int64_t q = 0; q < P; ++q) {
        // Padding items keep their own x positions (they are the last positions, in order, in every list).
        positions[static_cast<size_t>(q)] =
            index[static_cast<size_t>(q)] == prim::detail::kRangeNoIndex ? static_cast<uint32_t>(q)
                                                                         : position_of_index[index[static_cast<size_t>(q)]];
      }
      for (int level = v.shape.levels; level >= 1; --level) {
        const int64_t half = int64_t{1} << (level - 1);
        const int64_t words = P / 32;
        std::vector<uint32_t> bits(static_cast<size_t>(words), 0), befores(static_cast<size_t>(words) + 1, 0);
        for (int64_t q = 0; q < P; ++q) {
          if ((positions[static_cast<size_t>(q)] & static_cast<uint32_t>(half)) == 0) bits[q >> 5] |= 1u << (q & 31);
        }
        for (int64_t w = 0; w < words; ++w) befores[w + 1] = befores[w] + prim::detail::range_popc(bits[w]);
        const prim::detail::RangeRankWord* want_ranks = v.level_ranks(level);
        for (int64_t w = 0; w < words; ++w) {
          ASSERT_EQ(befores[w], want_ranks[w].before) << "level " << level << " word " << w;
          ASSERT_EQ(bits[w], want_ranks[w].bits) << "level " << level << " word " << w;
        }
        std::vector<uint32_t> next_positions(static_cast<size_t>(P)), next_index(static_cast<size_t>(P));
        for (int64_t q = 0; q < P; ++q) {
          const uint32_t word_bits = bits[q >> 5];
          const uint32_t lane = static_cast<uint32_t>(q & 31);
          const bool left = (word_bits >> lane & 1u) != 0;
          const uint32_t before_word = befores[q >> 5];
          const int64_t o = q & ~(2 * half - 1);
          const uint32_t before_node =
              2 * half >= 32 ? befores[o >> 5]
                             : before_word + prim::detail::range_popc(word_bits & ((1u << (o & 31)) - 1u));
          const uint32_t before_item = before_word + prim::detail::range_popc(word_bits & ((1u << lane) - 1u));
          const int64_t dest =
              prim::detail::range_child_position(q, half, left, static_cast<int64_t>(before_item - before_node));
          ASSERT_GE(dest, o);
          ASSERT_LT(dest, o + 2 * half);
          next_positions[static_cast<size_t>(dest)] = positions[static_cast<size_t>(q)];
          next_index[static_cast<size_t>(dest)] = index[static_cast<size_t>(q)];
        }
        positions.swap(next_positions);
        index.swap(next_index);
        ASSERT_EQ(index, std::vector<uint32_t>(v.level_index(level - 1), v.level_index(level - 1) + P))
            << "n " << n << " level " << level - 1;
      }
    }
  }
}

}  // namespace
