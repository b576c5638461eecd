// prim::split over record types of 4, 8, 16 and 64 bytes and prim::split_pairs, vs the C++ reference.
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
