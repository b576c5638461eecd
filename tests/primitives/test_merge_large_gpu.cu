// prim::merge / prim::merge_pairs of 2^26 + 2^26 u32 items (the bench's size) against the C++ reference; labelled
// `large` (tests/primitives/CMakeLists.txt), left out under SLABCAST_TEST_QUICK.
#include <prim/merge.h>

#include "common/quick_mode.h"
#include "primitives/test_merge_check.h"

namespace {
using namespace merge_test;

TEST(MergeLarge, TwoPow26PlusTwoPow26) {
  if (slabtest::quick_mode()) GTEST_SKIP() << "SLABCAST_TEST_QUICK";
  const size_t n = size_t{1} << 26;
  const auto a = sorted_keys<uint32_t>(n, 0, 71);
  const auto b = sorted_keys<uint32_t>(n, 0, 72);
  check_merge<false>(a, b);
  check_merge<true>(a, b);
}

// Uneven and skewed at size: 2^26 + 1 keys of a small range against 2^24 - 1 keys of a wide one.
TEST(MergeLarge, UnevenAndSkewed) {
  if (slabtest::quick_mode()) GTEST_SKIP() << "SLABCAST_TEST_QUICK";
  check_merge<true>(sorted_keys<uint32_t>((size_t{1} << 26) + 1, 1000, 73),
                    sorted_keys<uint32_t>((size_t{1} << 24) - 1, 0, 74));
}

}  // namespace
