// detail/bits.h: the number of bits to split on, unit-tested (style guide item 8).
#include <gtest/gtest.h>

#include "prim/detail/core/bits.h"

namespace {

TEST(Bits, BitsForBuckets) {
  using prim::detail::bits_for_buckets;
  EXPECT_EQ(bits_for_buckets(0), 0);
  EXPECT_EQ(bits_for_buckets(1), 0);
  EXPECT_EQ(bits_for_buckets(2), 1);
  EXPECT_EQ(bits_for_buckets(3), 2);
  EXPECT_EQ(bits_for_buckets(4), 2);
  EXPECT_EQ(bits_for_buckets(5), 3);
  EXPECT_EQ(bits_for_buckets(7), 3);
  EXPECT_EQ(bits_for_buckets(255), 8);
  EXPECT_EQ(bits_for_buckets(256), 8);
  EXPECT_EQ(bits_for_buckets(257), 9);
  EXPECT_EQ(bits_for_buckets(1000), 10);
  EXPECT_EQ(bits_for_buckets(2048), 11);
  EXPECT_EQ(bits_for_buckets(2049), 12);
  EXPECT_EQ(bits_for_buckets(0x80000000u), 31);
  EXPECT_EQ(bits_for_buckets(0x80000001u), 32);
  EXPECT_EQ(bits_for_buckets(0xFFFFFFFFu), 32);
  static_assert(prim::bits_for_buckets(256) == 8, "usable in constant expressions");
}

TEST(Bits, BitsForBucketsIsCeilLog2) {
  for (uint32_t b = 1; b < 70000; ++b) {
    const int bits = prim::detail::bits_for_buckets(b);
    ASSERT_GE(uint64_t{1} << bits, b) << b;
    if (bits > 0) {
      ASSERT_LT(uint64_t{1} << (bits - 1), b) << b;
    }
  }
}

TEST(Bits, PassesForBits) {
  using prim::detail::passes_for_bits;
  EXPECT_EQ(passes_for_bits(0, 8), 0);
  EXPECT_EQ(passes_for_bits(1, 8), 1);
  EXPECT_EQ(passes_for_bits(8, 8), 1);
  EXPECT_EQ(passes_for_bits(9, 8), 2);
  EXPECT_EQ(passes_for_bits(32, 8), 4);
  EXPECT_EQ(passes_for_bits(64, 8), 8);
  EXPECT_EQ(passes_for_bits(128, 8), 16);
  EXPECT_EQ(passes_for_bits(22, 11), 2);
}

TEST(Bits, CeilDiv) {
  using prim::detail::ceil_div;
  EXPECT_EQ(ceil_div(0, 4096), 0);
  EXPECT_EQ(ceil_div(1, 4096), 1);
  EXPECT_EQ(ceil_div(4096, 4096), 1);
  EXPECT_EQ(ceil_div(4097, 4096), 2);
  EXPECT_EQ(ceil_div((int64_t{1} << 31) + 7, 4096), (int64_t{1} << 19) + 1);
}

}  // namespace
