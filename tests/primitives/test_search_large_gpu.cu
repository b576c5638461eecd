// prim::lower_bound / prim::upper_bound of 2^26 needles in 2^26 u32 keys (the bench's size), sorted (the sweep) and in
// any order (the sampled search), against the C++ reference; labelled `large`, left out under SLABCAST_TEST_QUICK.
#include <prim/search.h>

#include "common/quick_mode.h"
#include "primitives/test_search_check.h"

namespace {
using namespace search_test;

TEST(SearchLarge, TwoPow26NeedlesInTwoPow26Keys) {
  if (slabtest::quick_mode()) GTEST_SKIP() << "SLABCAST_TEST_QUICK";
  const size_t n = size_t{1} << 26;
  const auto haystack = random_keys<uint32_t>(n, 0, 81, true);
  const auto needles = random_keys<uint32_t>(n, 0, 82, false);
  check_both_bounds_and_orders(haystack, needles, prim::Less{}, 83);
}

// A haystack of few distinct keys (long runs) and needles far fewer than the haystack.
TEST(SearchLarge, LongRunsAndFewNeedles) {
  if (slabtest::quick_mode()) GTEST_SKIP() << "SLABCAST_TEST_QUICK";
  const auto haystack = random_keys<uint32_t>((size_t{1} << 26) + 1, 5000, 84, true);
  check_both_bounds_and_orders(haystack, random_keys<uint32_t>((size_t{1} << 20) - 1, 5100, 85, false));
}

}  // namespace
