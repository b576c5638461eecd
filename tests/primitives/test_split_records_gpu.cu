// prim::split over record types of 4, 8, 16 and 64 bytes (and 256 for the unstable pairs' staging) and
// prim::split_pairs, stable and unstable, vs the C++ reference.
#include <prim/split.h>

#include "primitives/test_split_check.h"

namespace {
using namespace split_test;

constexpr uint32_t kSeed = 777;

template <typename R>
class SplitRecords : public ::testing::Test {};
using RecordTypes = ::testing::Types<Rec4, Rec8, Rec16, Rec64>;
TYPED_TEST_SUITE(SplitRecords, RecordTypes);

TYPED_TEST(SplitRecords, EveryBucketCountMatchesReference) {
  for (uint32_t b : {1u, 2u, 7u, 256u, 1000u, 2048u}) {
    SCOPED_TRACE(b);
    check_split(make_records<TypeParam>(make_bucket_keys(70001, b, Distribution::uniform, kSeed + b)), b,
                BucketByKeyMod{b});
  }
}

TYPED_TEST(SplitRecords, EdgeSizes) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{31}, size_t{32}, size_t{33}, size_t{255}, size_t{256}, size_t{257},
                   size_t{511}, size_t{512}, size_t{513}, size_t{2047}, size_t{2048}, size_t{2049}, size_t{4095},
                   size_t{4096}, size_t{4097}}) {
    SCOPED_TRACE(n);
    check_split(make_records<TypeParam>(make_bucket_keys(n, 256, Distribution::uniform, kSeed)), 256,
                BucketByKeyMod{256});
  }
}

TYPED_TEST(SplitRecords, SkewedAndOneBucket) {
  check_split(make_records<TypeParam>(make_bucket_keys(100000, 256, Distribution::zipf, kSeed)), 256,
              BucketByKeyMod{256});
  check_split(make_records<TypeParam>(make_bucket_keys(100000, 1000, Distribution::one_bucket, kSeed)), 1000,
              BucketByKeyMod{1000});
}

TYPED_TEST(SplitRecords, OutOfRangeBucketIsReportedNotWritten) {
  check_split(make_records<TypeParam>(make_bucket_keys(50000, 512, Distribution::uniform, kSeed)), 256,
              BucketIsKey{});
}

TYPED_TEST(SplitRecords, Unstable) {
  check_split(make_records<TypeParam>(make_bucket_keys(60000, 7, Distribution::uniform, kSeed)), 7,
              BucketByKeyMod{7}, {prim::SplitOrder::unstable});
}

TYPED_TEST(SplitRecords, UnstableEdgeSizesBothWidths) {
  // Tiles depend on the record size; sizes around one tile of each radix width, and every bucket count kind.
  const int64_t tile8 = prim::detail::SplitPolicyFor<8, sizeof(TypeParam)>::type::TILE_ITEMS;
  const int64_t tile11 = prim::detail::SplitPolicyFor<11, sizeof(TypeParam)>::type::TILE_ITEMS;
  for (uint32_t b : {256u, 2048u}) {
    const int64_t tile = b <= 256 ? tile8 : tile11;
    for (int64_t n : {int64_t{0}, int64_t{1}, int64_t{31}, int64_t{32}, int64_t{33}, tile - 1, tile, tile + 1,
                      3 * tile + 1}) {
      SCOPED_TRACE(testing::Message() << b << " buckets, n = " << n);
      check_split(make_records<TypeParam>(make_bucket_keys(static_cast<size_t>(n), b, Distribution::uniform, kSeed)),
                  b, BucketByKeyMod{b}, {prim::SplitOrder::unstable});
    }
  }
  check_split(make_records<TypeParam>(make_bucket_keys(100000, 2048, Distribution::zipf, kSeed)), 2048,
              BucketByKeyMod{2048}, {prim::SplitOrder::unstable});
  check_split(make_records<TypeParam>(make_bucket_keys(100000, 256, Distribution::one_bucket, kSeed)), 256,
              BucketByKeyMod{256}, {prim::SplitOrder::unstable});
  check_split(make_records<TypeParam>(make_bucket_keys(50000, 4096, Distribution::uniform, kSeed)), 2048,
              BucketIsKey{}, {prim::SplitOrder::unstable});
}

TYPED_TEST(SplitRecords, UnstablePairsFollowTheirKeys) {
  for (uint32_t b : {2u, 256u, 2048u}) {
    SCOPED_TRACE(b);
    check_split_pairs(make_records<TypeParam>(make_bucket_keys(90001, b, Distribution::uniform, kSeed)), b,
                      BucketByKeyMod{b}, {prim::SplitOrder::unstable});
  }
  check_split_pairs(make_records<TypeParam>(make_bucket_keys(30001, 512, Distribution::uniform, kSeed)), 256,
                    BucketIsKey{}, {prim::SplitOrder::unstable});
  check_split_pairs(std::vector<TypeParam>{}, 5, BucketByKeyMod{5}, {prim::SplitOrder::unstable});
}

// Keys of 256 bytes with 4-byte values in the unstable order: with 256 buckets the one-sweep pass with cursor bases,
// whose tile holds one record a thread; with 2048 buckets the two stable 8-bit passes.
struct Rec256 {
  uint32_t key;
  uint32_t id;
  uint32_t payload[62];
};
static_assert(sizeof(Rec256) == 256, "size");

TEST(SplitLargeRecords, UnstablePairsOf256ByteKeys) {
  for (uint32_t b : {256u, 2048u}) {
    SCOPED_TRACE(b);
    for (size_t n : {size_t{1}, size_t{383}, size_t{385}, size_t{40001}}) {
      SCOPED_TRACE(n);
      check_split_pairs(make_records<Rec256>(make_bucket_keys(n, b + b / 4, Distribution::uniform, kSeed)), b,
                        BucketIsKey{}, {prim::SplitOrder::unstable});
    }
    check_split(make_records<Rec256>(make_bucket_keys(20001, b, Distribution::zipf, kSeed)), b, BucketByKeyMod{b},
                {prim::SplitOrder::unstable});
  }
}

// Two-byte keys with four-byte values take the u32 pairs' shape (a block a tile of 20 records at two blocks an SM):
// split_index above 256 buckets sends its (bucket, index) pairs that way. Keys and pairs, in and out of range, one
// pass and two.
TEST(SplitSmallKeys, TwoByteKeysWithFourByteValues) {
  for (uint32_t b : {3u, 256u, 1000u}) {
    SCOPED_TRACE(b);
    for (size_t n : {size_t{1}, size_t{33}, size_t{7297}, size_t{100001}}) {
      SCOPED_TRACE(n);
      const std::vector<uint32_t> wide = make_bucket_keys(n, b + b / 8 + 1, Distribution::uniform, kSeed + b);
      const std::vector<uint16_t> keys(wide.begin(), wide.end());
      check_split(keys, b, BucketIsKey{});
      check_split_pairs(keys, b, BucketIsKey{});
    }
  }
}

TYPED_TEST(SplitRecords, PairsFollowTheirKeys) {
  for (uint32_t b : {2u, 256u, 2048u}) {
    SCOPED_TRACE(b);
    check_split_pairs(make_records<TypeParam>(make_bucket_keys(90001, b, Distribution::uniform, kSeed)), b,
                      BucketByKeyMod{b});
  }
  check_split_pairs(make_records<TypeParam>(make_bucket_keys(30001, 600, Distribution::uniform, kSeed)), 300,
                    BucketIsKey{});
  check_split_pairs(make_records<TypeParam>(make_bucket_keys(30001, 300, Distribution::zipf, kSeed)), 300,
                    BucketIsKey{}, {prim::SplitOrder::unstable});
  check_split_pairs(std::vector<TypeParam>{}, 5, BucketByKeyMod{5});
}

}  // namespace
