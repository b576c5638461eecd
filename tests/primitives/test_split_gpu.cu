// prim::split on the GPU vs the C++ reference, by named property (keys of 4 bytes; other record sizes and pairs in
// test_split_records_gpu.cu, the unstable order in test_split_unstable_gpu.cu, 2^31 + 7 elements in
// test_split_huge_gpu.cu).
#include <prim/split.h>

#include "common/quick_mode.h"
#include "primitives/test_split_check.h"

namespace {
using namespace split_test;

constexpr uint32_t kSeed = 20260123;
// The 8-bit split's tile of 4-byte records, from the policy (a literal went stale when the policy changed).
constexpr int64_t kTile = prim::detail::SplitPolicyFor<8, sizeof(uint32_t)>::type::TILE_ITEMS;

std::vector<uint32_t> uniform_keys(size_t n, uint32_t num_buckets, uint32_t seed = kSeed) {
  return make_bucket_keys(n, num_buckets, Distribution::uniform, seed);
}

TEST(Split, EmptyInput) { check_split(std::vector<uint32_t>{}, 7, BucketByKeyMod{7}); }

TEST(Split, OneElement) {
  check_split(std::vector<uint32_t>{5}, 7, BucketByKeyMod{7});
  check_split(std::vector<uint32_t>{255}, 256, BucketByKeyMod{256});
}

TEST(Split, AllInOneBucket) {
  for (uint32_t b : {1u, 2u, 256u, 2048u}) {
    SCOPED_TRACE(b);
    check_split(make_bucket_keys(100003, b, Distribution::one_bucket, kSeed), b, BucketByKeyMod{b});
  }
}

TEST(Split, EveryBucketUsed) {
  for (uint32_t b : {1u, 2u, 7u, 256u, 1000u, 2048u}) {
    SCOPED_TRACE(b);
    std::vector<uint32_t> keys = uniform_keys(200000, b);
    for (uint32_t i = 0; i < b; ++i) keys[i * 97 % keys.size()] = i;  // make sure each bucket occurs
    check_split(keys, b, BucketByKeyMod{b});
  }
}

TEST(Split, SkewedZipfBuckets) {
  for (uint32_t b : {7u, 256u, 2048u}) {
    SCOPED_TRACE(b);
    check_split(make_bucket_keys(300001, b, Distribution::zipf, kSeed + b), b, BucketByKeyMod{b});
  }
}

TEST(Split, IsStable) {
  // Few buckets, many equal bucket ids: records carry their input position; the reference comparison is exact,
  // and here the ids inside each bucket are checked to increase as well.
  const uint32_t b = 3;
  const std::vector<Rec8> in = make_records<Rec8>(uniform_keys(50000, b));
  check_split(in, b, BucketByKeyMod{b});
  DeviceBuffer<Rec8> d_in, d_out(in.size());
  d_in.upload(in);
  prim::Workspace ws;
  ASSERT_CUDA(prim::split(ws, d_in.get(), d_out.get(), static_cast<int64_t>(in.size()), b, BucketByKeyMod{b},
                          nullptr));
  const std::vector<Rec8> out = d_out.download();
  for (size_t i = 1; i < out.size(); ++i) {
    if (out[i].key % b == out[i - 1].key % b) {
      ASSERT_LT(out[i - 1].id, out[i].id) << "at " << i;
    }
  }
}

TEST(Split, InputUnchanged) {
  // check_split compares the input after the call with the original; this one uses the largest radix too.
  check_split(uniform_keys(77777, 2048), 2048, BucketByKeyMod{2048});
}

TEST(Split, OutOfRangeBucketIsReportedNotWritten) {
  for (uint32_t b : {7u, 256u, 1000u, 2048u}) {
    SCOPED_TRACE(b);
    // Keys up to 2b: about half out of range, spread through every tile, including in front of the sink bucket.
    std::vector<uint32_t> keys = uniform_keys(3 * kTile + 123, 2 * b, kSeed + 7);
    check_split(keys, b, BucketIsKey{});
    check_split(keys, b, BucketIsKey{}, {prim::SplitOrder::unstable});
  }
  // All invalid.
  check_split(std::vector<uint32_t>(5000, 999u), 256, BucketIsKey{});
  // The Workspace overload turns invalid records into an error.
  const std::vector<uint32_t> keys{1, 2, 300, 4};
  DeviceBuffer<uint32_t> d_in, d_out(keys.size());
  d_in.upload(keys);
  prim::Workspace ws;
  EXPECT_EQ(cudaErrorInvalidValue,
            prim::split(ws, d_in.get(), d_out.get(), static_cast<int64_t>(keys.size()), 256, BucketIsKey{}, nullptr));
  EXPECT_EQ(cudaSuccess,
            prim::split(ws, d_in.get(), d_out.get(), static_cast<int64_t>(keys.size()), 512, BucketIsKey{}, nullptr));
}

// Up to 256 buckets the split is one pass with 2^bits_for_buckets(b) digits (split_lsd.cuh): buckets from b up to that
// power of two are out of range as well, and the offsets hold b + 1 entries, not the pass's 2^bits + 1. Keys below
// twice the power of two: some out of range under the power, some above it.
TEST(Split, OutOfRangeBucketsBelowThePassPowerOfTwo) {
  for (uint32_t b : {1u, 3u, 129u, 255u}) {
    SCOPED_TRACE(b);
    const uint32_t power = uint32_t{1} << prim::bits_for_buckets(b);
    const std::vector<uint32_t> keys = uniform_keys(2 * kTile + 77, 2 * power, kSeed + 17 + b);
    check_split(keys, b, BucketIsKey{});
    check_split_pairs(keys, b, BucketIsKey{});
  }
}

// A large input with a few out-of-range records. The out-of-range keys sit at a tile's first record, in the middle,
// in front of records of the last bucket, and in the last, partial tile. With up to 256 buckets the downsweep's
// claimed tiles are clean only when the whole input is valid, so here every tile takes the general path (sinks);
// with more buckets the records go through two 8-bit passes, the first of which drops the out-of-range ones. (The
// split engine's chunk-walking path, where clean and general tiles mix in one call, serves splits of 2^30 records or
// more, SplitOwnRoute below, and the segmented splits.)
TEST(Split, FewOutOfRangeBucketsInALargeInput) {
  // Under SLABCAST_TEST_QUICK (the sanitizers) 2^18 records: 44 tiles of 6144 at 256 buckets.
  const size_t n = (size_t{1} << (slabtest::quick_mode() ? 18 : 22)) + 4321;
  for (uint32_t b : {7u, 256u, 2048u}) {
    SCOPED_TRACE(b);
    std::vector<uint32_t> keys = uniform_keys(n, b, kSeed + 11);
    for (size_t i : {size_t{0}, n / 3, n / 3 + 1, n / 2 + 5, n - 2}) keys[i] = b + static_cast<uint32_t>(i % 5);
    keys[n / 2 + 6] = b - 1;  // a record of the last bucket right behind an out-of-range one
    check_split(keys, b, BucketIsKey{});
    check_split_pairs(keys, b, BucketIsKey{});
  }
}

// More than 256 buckets from 2^23 records on: the bucket offsets come from a binary search of the sorted output
// (searched_bucket_offsets_kernel) instead of a read of every record. Once with 2^23 + 77 records (not under
// SLABCAST_TEST_QUICK), and once with 5001 records and a device-resident count whose bound is 2^23 + 77 (the search
// reads the count on the device).
TEST(Split, MoreThan256BucketsFromTwoPow23Records) {
  const int64_t big = (int64_t{1} << 23) + 77;
  for (uint32_t b : {257u, 1000u, 2048u}) {
    SCOPED_TRACE(b);
    if (!slabtest::quick_mode()) {
      const std::vector<uint32_t> keys = uniform_keys(static_cast<size_t>(big), b + b / 64, kSeed + 31 + b);
      check_split(keys, b, BucketIsKey{});
      check_split_pairs(keys, b, BucketIsKey{});
    }
    SplitOptions opt;
    opt.device_count = true;
    opt.slack = big - 5001;
    check_split(uniform_keys(5001, b + b / 64, kSeed + 37 + b), b, BucketIsKey{}, opt);
  }
}

// The split's own route (an upsweep a chunk, a spine scan, a chunked downsweep with look-back inside each chunk; two
// such passes above 256 buckets), which prim::split takes only from 2^30 records on: called directly on small inputs
// with out-of-range records, keys and pairs, one bucket to 2048.
TEST(SplitOwnRoute, MatchesReference) {
  SplitOptions own;
  own.own_route = true;
  for (uint32_t b : {1u, 3u, 256u, 257u, 1000u, 2048u}) {
    SCOPED_TRACE(b);
    for (size_t n : {size_t{0}, size_t{1}, size_t{33}, size_t{kTile - 1}, size_t{kTile + 1}, size_t{300001}}) {
      SCOPED_TRACE(n);
      const std::vector<uint32_t> keys = uniform_keys(n, b + b / 8 + 1, kSeed + 23 + b);
      check_split(keys, b, BucketIsKey{}, own);
      check_split_pairs(keys, b, BucketIsKey{}, own);
    }
    check_split(make_bucket_keys(200001, b, Distribution::zipf, kSeed + 29), b, BucketByKeyMod{b}, own);
  }
}

// Inputs that start 4 or 8 bytes past a 16-byte boundary (a caller's sub-array): nothing may assume more than the
// records' own alignment.
TEST(Split, InputsNotSixteenByteAligned) {
  const std::vector<uint32_t> keys = uniform_keys((size_t{1} << 20) + 5, 256, kSeed + 13);
  for (int offset : {1, 2, 3}) {
    SCOPED_TRACE(offset);
    SplitOptions opt;
    opt.input_offset = offset;
    check_split(keys, 256, BucketByKeyMod{256}, opt);
    check_split_pairs(keys, 256, BucketByKeyMod{256}, opt);
  }
}

TEST(Split, RejectsBadBucketCounts) {
  size_t bytes = 0;
  uint32_t* none = nullptr;
  EXPECT_EQ(cudaErrorInvalidValue, prim::split(nullptr, bytes, none, none, 10, 0, BucketIsKey{}, nullptr));
  EXPECT_EQ(cudaErrorInvalidValue, prim::split(nullptr, bytes, none, none, 10, 2049, BucketIsKey{}, nullptr));
}

class SplitSizes : public ::testing::TestWithParam<int64_t> {};

TEST_P(SplitSizes, MatchesReference) {
  const int64_t n = GetParam();
  if (n > (1 << 20) + 1 && slabtest::quick_mode()) GTEST_SKIP() << "SLABCAST_TEST_QUICK: size " << n;
  for (uint32_t b : {2u, 256u}) {
    SCOPED_TRACE(b);
    check_split(uniform_keys(static_cast<size_t>(n), b, kSeed + static_cast<uint32_t>(n)), b, BucketByKeyMod{b});
  }
}

INSTANTIATE_TEST_SUITE_P(Split, SplitSizes,
                         ::testing::Values(0, 1, 31, 32, 33, kTile - 1, kTile, kTile + 1, (1 << 16) - 1, 1 << 16,
                                           (1 << 16) + 1, (1 << 20) + 1, int64_t{1} << 26));

TEST(Split, Unstable) {
  for (uint32_t b : {1u, 7u, 256u, 2048u}) {
    SCOPED_TRACE(b);
    check_split(make_records<Rec8>(uniform_keys(123457, b)), b, BucketByKeyMod{b}, {prim::SplitOrder::unstable});
  }
}

TEST(Split, DeviceResidentCount) {
  // n is read on the device; max is larger (grids and scratch sized for max, work done for n). One pass and two.
  for (uint32_t b : {256u, 2048u}) {
    SCOPED_TRACE(b);
    for (int64_t n : {int64_t{0}, int64_t{1}, kTile + 1, int64_t{100000}}) {
      SCOPED_TRACE(n);
      SplitOptions opt;
      opt.device_count = true;
      opt.slack = 5 * kTile + 3;
      check_split(uniform_keys(static_cast<size_t>(n), b), b, BucketByKeyMod{b}, opt);
      check_split_pairs(uniform_keys(static_cast<size_t>(n), b), b, BucketByKeyMod{b}, opt);
    }
  }
}

TEST(Split, DeviceCountAboveMaxWritesNothing) {
  check_device_count_above_max_writes_nothing(7, BucketByKeyMod{7});
}

TEST(Split, UnderCudaGraphCapture) {
  for (uint32_t b : {256u, 2048u}) {  // one pass and two
    SCOPED_TRACE(b);
    check_split_in_cuda_graph(uniform_keys(300000, b), b, BucketByKeyMod{b}, prim::SplitOrder::stable);
  }
}

}  // namespace
