// reference/sort_reference.h vs std::stable_sort, and prim::uint128's ordering.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "prim/uint128.h"
#include "primitives/reference/sort_reference.h"

namespace {

TEST(SortReference, Uint128Ordering) {
  const prim::uint128 a{5, 0}, b{0, 1}, c{6, 1}, d{5, 0};
  EXPECT_TRUE(a < b);
  EXPECT_TRUE(b < c);
  EXPECT_FALSE(b < a);
  EXPECT_TRUE(a == d);
  EXPECT_FALSE(a == b);
  EXPECT_EQ(c.bits(0, 8), 6u);
  EXPECT_EQ(c.bits(64, 8), 1u);
  EXPECT_EQ((prim::uint128{0x8000000000000000ull, 0x3}.bits(60, 8)), 0x38u);  // straddles the words
}

TEST(SortReference, FullKeysMatchStableSort) {
  std::mt19937_64 rng(1);
  std::vector<uint64_t> keys(10000);
  for (auto& k : keys) k = rng() >> (rng() % 64);
  std::vector<uint64_t> out(keys.size());
  prim::reference::sort_keys(keys.data(), out.data(), keys.size(), 0, 64);
  std::vector<uint64_t> want = keys;
  std::stable_sort(want.begin(), want.end());
  EXPECT_EQ(out, want);
}

TEST(SortReference, BitRangeIsStable) {
  std::mt19937 rng(2);
  std::vector<uint32_t> keys(5000), values(5000);
  for (size_t i = 0; i < keys.size(); ++i) {
    keys[i] = rng();
    values[i] = static_cast<uint32_t>(i);
  }
  std::vector<uint32_t> kout(keys.size()), vout(keys.size());
  prim::reference::sort_pairs(keys.data(), kout.data(), values.data(), vout.data(), keys.size(), 4, 12);
  for (size_t i = 1; i < kout.size(); ++i) {
    const uint32_t a = (kout[i - 1] >> 4) & 0xFF, b = (kout[i] >> 4) & 0xFF;
    ASSERT_LE(a, b);
    if (a == b) {
      ASSERT_LT(vout[i - 1], vout[i]) << "stable";
    }
    ASSERT_EQ(keys[vout[i]], kout[i]);
  }
}

TEST(SortReference, Uint128KeysMatchStableSort) {
  std::mt19937_64 rng(3);
  std::vector<prim::uint128> keys(4000);
  for (auto& k : keys) k = prim::uint128{rng(), rng() % 4};
  std::vector<prim::uint128> out(keys.size());
  prim::reference::sort_keys(keys.data(), out.data(), keys.size(), 0, 128);
  std::vector<prim::uint128> want = keys;
  std::stable_sort(want.begin(), want.end());
  EXPECT_TRUE(std::equal(want.begin(), want.end(), out.begin()));
  // A range straddling the two words: [60, 70).
  prim::reference::sort_keys(keys.data(), out.data(), keys.size(), 60, 70);
  for (size_t i = 1; i < out.size(); ++i) ASSERT_LE(out[i - 1].bits(60, 10), out[i].bits(60, 10));
}

TEST(SortReference, KeyBits) {
  EXPECT_EQ(prim::reference::key_bits(uint32_t{0xABCD1234u}, 8, 16), 0x12u);
  EXPECT_EQ(prim::reference::key_bits(uint64_t{0xFFFFFFFFFFFFFFFFull}, 0, 64), 0xFFFFFFFFFFFFFFFFull);
  EXPECT_EQ(prim::reference::key_bits(uint64_t{0xFFull}, 4, 4), 0u);
  const prim::uint128 k{0x0123456789ABCDEFull, 0xFEDCBA9876543210ull};
  EXPECT_TRUE(prim::reference::key_bits(k, 0, 128) == k);
  EXPECT_TRUE((prim::reference::key_bits(k, 64, 128) == prim::uint128{0xFEDCBA9876543210ull, 0}));
  EXPECT_TRUE((prim::reference::key_bits(k, 4, 72) == prim::uint128{0x00123456789ABCDEull, 0x1ull}));
  EXPECT_TRUE((prim::reference::key_bits(k, 56, 72) == prim::uint128{0x1001ull, 0}));
}

}  // namespace
