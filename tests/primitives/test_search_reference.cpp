// reference/search_reference.h vs the standard library (std::lower_bound / std::upper_bound a needle at a time).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <random>
#include <vector>

#include "primitives/reference/search_reference.h"

namespace {

std::vector<uint32_t> random_keys(size_t n, uint32_t range, uint32_t seed, bool sorted) {
  std::mt19937 rng(seed);
  std::vector<uint32_t> v(n);
  for (auto& k : v) k = rng() % range;
  if (sorted) std::sort(v.begin(), v.end());
  return v;
}

template <class Compare = std::less<>>
void check(const std::vector<uint32_t>& haystack, const std::vector<uint32_t>& needles, Compare comp = {}) {
  std::vector<int64_t> lower(needles.size()), upper(needles.size());
  prim::reference::lower_bound(haystack.data(), static_cast<int64_t>(haystack.size()), needles.data(),
                               static_cast<int64_t>(needles.size()), lower.data(), comp);
  prim::reference::upper_bound(haystack.data(), static_cast<int64_t>(haystack.size()), needles.data(),
                               static_cast<int64_t>(needles.size()), upper.data(), comp);
  for (size_t i = 0; i < needles.size(); ++i) {
    ASSERT_EQ(lower[i], std::lower_bound(haystack.begin(), haystack.end(), needles[i], comp) - haystack.begin()) << i;
    ASSERT_EQ(upper[i], std::upper_bound(haystack.begin(), haystack.end(), needles[i], comp) - haystack.begin()) << i;
  }
}

TEST(SearchReference, EmptyHaystackAndNeedles) {
  check({}, {1, 2, 3});
  check({1, 2, 3}, {});
}

TEST(SearchReference, MatchesStdBounds) {
  for (uint32_t range : {1u, 3u, 100u, 1u << 30}) {
    SCOPED_TRACE(range);
    check(random_keys(10007, range, range, true), random_keys(5003, range + 2, range + 1, false));
  }
}

TEST(SearchReference, AnyComparator) {
  auto haystack = random_keys(4000, 500, 7, false);
  std::sort(haystack.begin(), haystack.end(), std::greater<>());
  check(haystack, random_keys(3000, 520, 8, false), std::greater<>());
}

}  // namespace
