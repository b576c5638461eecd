// The unsorted search's levels of samples (prim/detail/core/search_levels.h), on the host: each level's count is
// ceil(h / F^l), the top is the first level that fits, the levels lie in scratch one after another in whole nodes, and
// the scratch sized for a haystack's bound holds the levels of every shorter haystack (a device count below its bound
// takes its own levels, at its own offsets, in the bound's scratch).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "prim/detail/core/search_levels.h"

namespace {

using prim::detail::SampleLevels;

template <int F>
SampleLevels<F> levels_of(int64_t h, int64_t max_top) {
  SampleLevels<F> s;
  s.compute(h, max_top);
  return s;
}

// The level's count by its definition: the smallest c with c * F^l >= h.
template <int F>
bool is_ceil_of_h_over_fanout_power(int64_t count, int64_t h, int level) {
  unsigned __int128 power = 1;
  for (int l = 0; l < level; ++l) power *= F;
  const unsigned __int128 c = static_cast<unsigned __int128>(count);
  return c * power >= static_cast<unsigned __int128>(h) &&
         (count == 0 || (c - 1) * power < static_cast<unsigned __int128>(h));
}

template <int F>
void check_levels(int64_t h, int64_t max_top) {
  SCOPED_TRACE(testing::Message() << "F=" << F << " h=" << h << " max_top=" << max_top);
  const SampleLevels<F> s = levels_of<F>(h, max_top);
  ASSERT_GE(s.top, 0);
  ASSERT_LE(s.top, SampleLevels<F>::kMaxLevels);
  EXPECT_EQ(s.count[0], h);
  EXPECT_LE(s.count[s.top], max_top) << "the top fits";
  if (s.top > 0) {
    EXPECT_GT(s.count[s.top - 1], max_top) << "the top is the first level that fits";
  }
  int64_t end = 0;
  for (int l = 1; l <= s.top; ++l) {
    EXPECT_TRUE(is_ceil_of_h_over_fanout_power<F>(s.count[l], h, l)) << "level " << l << ": " << s.count[l];
    EXPECT_EQ(s.offset[l], end) << "level " << l << " right after the one below";
    EXPECT_EQ(s.offset[l] % F, 0) << "level " << l << " starts on a whole node";
    end += (s.count[l] + F - 1) / F * F;
  }
  EXPECT_EQ(s.scratch_items, end);
}

// What the kernels rely on: every level of a haystack of h items, at its offset, lies inside the scratch sized for
// the bound.
template <int F>
void check_fits_bound(int64_t h, int64_t bound, int64_t max_top) {
  SCOPED_TRACE(testing::Message() << "F=" << F << " h=" << h << " bound=" << bound << " max_top=" << max_top);
  const SampleLevels<F> s = levels_of<F>(h, max_top);
  const SampleLevels<F> b = levels_of<F>(bound, max_top);
  EXPECT_LE(s.top, b.top);
  EXPECT_LE(s.scratch_items, b.scratch_items);
  for (int l = 1; l <= s.top; ++l) {
    ASSERT_LE(s.offset[l] + s.count[l], b.scratch_items) << "level " << l;
  }
}

const std::vector<int64_t> kMaxTops = {1, 7, 1024, 4096};

std::vector<int64_t> sizes_near_levels(int64_t f, int64_t max_top) {
  std::vector<int64_t> sizes = {0, 1, 2, 3};
  for (int64_t edge = max_top; edge < (int64_t{1} << 60) / f; edge *= f) {
    for (int64_t d : {int64_t{-1}, int64_t{0}, int64_t{1}}) sizes.push_back(edge + d);
  }
  sizes.push_back(int64_t{1} << 60);
  return sizes;
}

TEST(SearchLevels, CountsTopAndOffsetsAtLevelEdges) {
  for (int64_t max_top : kMaxTops) {
    for (int64_t h : sizes_near_levels(4, max_top)) check_levels<4>(h, max_top);
    for (int64_t h : sizes_near_levels(8, max_top)) check_levels<8>(h, max_top);
    for (int64_t h : sizes_near_levels(16, max_top)) check_levels<16>(h, max_top);
  }
}

TEST(SearchLevels, ShorterHaystacksFitTheBoundsScratch) {
  std::mt19937_64 rng(20261128);
  for (int64_t max_top : kMaxTops) {
    for (int64_t bound : sizes_near_levels(8, max_top)) {
      std::vector<int64_t> shorter = {0, 1, bound / 2, bound - 1, bound};
      for (int i = 0; i < 50 && bound > 0; ++i) shorter.push_back(static_cast<int64_t>(rng() % (bound + 1)));
      for (int64_t h : shorter) {
        if (h < 0) continue;
        check_fits_bound<4>(h, bound, max_top);
        check_fits_bound<8>(h, bound, max_top);
        check_fits_bound<16>(h, bound, max_top);
      }
    }
  }
}

}  // namespace
