// prim::KeyBits (a key's bits as its bucket) and the declared bucket bound (prim/key_bits.h) on the host: the
// functor against shifts and masks written here in 64-bit arithmetic, its bound against 2^bits, and which functors
// the library treats as declaring their buckets in range.
#include <gtest/gtest.h>
#include <prim/key_bits.h>

#include <cstdint>
#include <random>


namespace {

// Bits [shift, shift + bits) of key, computed another way: a division's remainder instead of a mask.
uint64_t bits_of(uint64_t key, int shift, int bits) {
  return bits >= 64 ? key >> shift : (key >> shift) % (uint64_t{1} << bits);
}

TEST(KeyBits, TakesTheKeysBitsAsItsBucket) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 2000; ++trial) {
    const uint64_t key = rng();
    for (int shift : {0, 1, 7, 8, 13, 24, 31}) {
      for (int bits : {0, 1, 4, 8, 11}) {
        if (shift + bits > 32) continue;
        EXPECT_EQ(bits_of(static_cast<uint32_t>(key), shift, bits),
                  (prim::KeyBits<uint32_t>{shift, bits}(static_cast<uint32_t>(key))));
      }
    }
    for (int shift : {0, 20, 40, 56}) {
      EXPECT_EQ(bits_of(key, shift, 8), (prim::KeyBits<uint64_t>{shift, 8}(key)));
    }
    EXPECT_EQ(bits_of(key, 32, 32), (prim::KeyBits<uint64_t>{32, 32}(key)));
    EXPECT_EQ(static_cast<uint32_t>(key), (prim::KeyBits<uint32_t>{0, 32}(static_cast<uint32_t>(key))));
    EXPECT_EQ(bits_of(key & 0xFF, 4, 4), (prim::KeyBits<uint8_t>{4, 4}(static_cast<uint8_t>(key))));
  }
  EXPECT_EQ(0u, (prim::KeyBits<uint32_t>{}(0xFFFFFF00u)));  // default: the low byte
  EXPECT_EQ(0xABu, (prim::KeyBits<uint32_t>{}(0x123456ABu)));
}

TEST(KeyBits, DeclaresTwoToTheBitsBuckets) {
  EXPECT_EQ(1u, (prim::KeyBits<uint32_t>{0, 0}.bucket_bound()));
  EXPECT_EQ(256u, (prim::KeyBits<uint32_t>{}.bucket_bound()));
  EXPECT_EQ(2048u, (prim::KeyBits<uint32_t>{21, 11}.bucket_bound()));
  EXPECT_EQ(uint64_t{1} << 32, (prim::KeyBits<uint32_t>{0, 32}.bucket_bound()));
  EXPECT_EQ(uint64_t{1} << 32, (prim::KeyBits<uint64_t>{16, 32}.bucket_bound()));
}

struct PlainFunctor {
  uint32_t operator()(uint32_t key) const { return key & 0xFFu; }
};
struct BoundFunctor {
  uint32_t operator()(uint32_t key) const { return key % 100u; }
  uint64_t bucket_bound() const { return 100; }
};

TEST(KeyBits, BucketsDeclaredInRangeOnlyUnderTheCallsBucketCount) {
  using prim::detail::buckets_declared_in_range;
  static_assert(prim::detail::DeclaresBucketBound<prim::KeyBits<uint32_t>>::value, "KeyBits declares its bound");
  static_assert(prim::detail::DeclaresBucketBound<BoundFunctor>::value, "a user functor may declare one");
  static_assert(!prim::detail::DeclaresBucketBound<PlainFunctor>::value, "no declaration, no bound");
  EXPECT_TRUE(buckets_declared_in_range(prim::KeyBits<uint32_t>{0, 8}, 256));
  EXPECT_TRUE(buckets_declared_in_range(prim::KeyBits<uint32_t>{0, 8}, 2048));
  EXPECT_FALSE(buckets_declared_in_range(prim::KeyBits<uint32_t>{0, 8}, 255));
  EXPECT_FALSE(buckets_declared_in_range(prim::KeyBits<uint32_t>{0, 32}, 0xFFFFFFFFu));
  EXPECT_TRUE(buckets_declared_in_range(BoundFunctor{}, 100));
  EXPECT_FALSE(buckets_declared_in_range(BoundFunctor{}, 99));
  EXPECT_FALSE(buckets_declared_in_range(PlainFunctor{}, 0xFFFFFFFFu));
}

}  // namespace
