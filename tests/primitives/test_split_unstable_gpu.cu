// prim::split / prim::split_pairs with SplitOrder::unstable (up to 256 buckets: the one-sweep pass with cursor bases) on
// the GPU, by named property, for both bucket ranges (<= 256 buckets: one pass; 257..2048: two 8-bit passes), keys and
// pairs.
// check_split / check_split_pairs compare each bucket's contents as a multiset with the reference, and the bucket
// offsets, the invalid count, the untouched input and the untouched output tail exactly; IsPermutationOfInput
// checks the same without the reference. Record sizes other than 4 bytes: test_split_records_gpu.cu; 2^31 + 7
// records: test_split_huge_gpu.cu.
#include <prim/split.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/quick_mode.h"
#include "primitives/test_split_check.h"

namespace {
using namespace split_test;

constexpr uint32_t kSeed = 20260611;
// Tiles of 4-byte records (keys, and u32 + u32 pairs: the policy sizes a tile by the larger of the two).
using Policy8 = prim::detail::SplitPolicyFor<8, sizeof(uint32_t)>::type;
using Policy11 = prim::detail::SplitPolicyFor<11, sizeof(uint32_t)>::type;
constexpr int64_t kTile8 = Policy8::TILE_ITEMS;
constexpr int64_t kTile11 = Policy11::TILE_ITEMS;
// 8-bit and 11-bit widths, each with a bucket count below and at its radix.
constexpr uint32_t kBucketCounts[] = {2u, 256u, 1000u, 2048u};

SplitOptions unstable() {
  SplitOptions opt;
  opt.order = prim::SplitOrder::unstable;
  return opt;
}

std::vector<uint32_t> uniform_keys(size_t n, uint32_t num_buckets, uint32_t seed = kSeed) {
  return make_bucket_keys(n, num_buckets, Distribution::uniform, seed);
}

class SplitUnstableSizes : public ::testing::TestWithParam<int64_t> {};

TEST_P(SplitUnstableSizes, KeysMatchReference) {
  const int64_t n = GetParam();
  if (n > (1 << 20) + 1 && slabtest::quick_mode()) GTEST_SKIP() << "SLABCAST_TEST_QUICK: size " << n;
  for (uint32_t b : kBucketCounts) {
    SCOPED_TRACE(b);
    check_split(uniform_keys(static_cast<size_t>(n), b, kSeed + static_cast<uint32_t>(n)), b, BucketByKeyMod{b},
                unstable());
  }
}

TEST_P(SplitUnstableSizes, PairsMatchReference) {
  const int64_t n = GetParam();
  if (n > (1 << 20) + 1 && slabtest::quick_mode()) GTEST_SKIP() << "SLABCAST_TEST_QUICK: size " << n;
  for (uint32_t b : kBucketCounts) {
    SCOPED_TRACE(b);
    check_split_pairs(uniform_keys(static_cast<size_t>(n), b, kSeed + 1 + static_cast<uint32_t>(n)), b,
                      BucketByKeyMod{b}, unstable());
  }
}

INSTANTIATE_TEST_SUITE_P(SplitUnstable, SplitUnstableSizes,
                         ::testing::Values(0, 1, 31, 32, 33, kTile11 - 1, kTile11, kTile11 + 1, kTile8 - 1, kTile8,
                                           kTile8 + 1, 3 * kTile8 + 1, (1 << 16) - 1, 1 << 16, (1 << 16) + 1,
                                           (1 << 20) + 1, (1 << 22) + 1));

TEST(SplitUnstable, ManyTilesPerBlock) {
  // The downsweep carries its counters and output bases from tile to tile with no barrier between tiles; the grid
  // is at most SMs x BLOCKS_PER_SM, so twice that many tiles gives every block at least two (the last one partial).
  // Also in quick mode: this is a code path, not a size.
  int device = 0, sms = 0;
  ASSERT_CUDA(cudaGetDevice(&device));
  ASSERT_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const int64_t n8 = 2 * int64_t{sms} * Policy8::BLOCKS_PER_SM * kTile8 + 123;
  const int64_t n11 = 2 * int64_t{sms} * Policy11::BLOCKS_PER_SM * kTile11 + 123;
  // Keys up to 9/8 of the bucket count: about 1 record in 9 is out of range, in every tile.
  check_split(uniform_keys(static_cast<size_t>(n8), 256 + 32, kSeed + 3), 256, BucketIsKey{}, unstable());
  check_split_pairs(uniform_keys(static_cast<size_t>(n8), 256 + 32, kSeed + 4), 256, BucketIsKey{}, unstable());
  check_split(uniform_keys(static_cast<size_t>(n11), 2048 + 256, kSeed + 5), 2048, BucketIsKey{}, unstable());
  check_split_pairs(uniform_keys(static_cast<size_t>(n11), 2048 + 256, kSeed + 6), 2048, BucketIsKey{},
                    unstable());
}

TEST(SplitUnstable, AllInOneBucket) {
  // Every warp's 32 lanes match: one atomic per (warp, item), all blocks on one counter.
  for (uint32_t b : {1u, 2u, 256u, 1000u, 2048u}) {
    SCOPED_TRACE(b);
    const std::vector<uint32_t> keys = make_bucket_keys(100003, b, Distribution::one_bucket, kSeed);
    check_split(keys, b, BucketByKeyMod{b}, unstable());
    check_split_pairs(keys, b, BucketByKeyMod{b}, unstable());
  }
}

TEST(SplitUnstable, SkewedZipfBuckets) {
  for (uint32_t b : {7u, 256u, 2048u}) {
    SCOPED_TRACE(b);
    const std::vector<uint32_t> keys = make_bucket_keys(300001, b, Distribution::zipf, kSeed + b);
    check_split(keys, b, BucketByKeyMod{b}, unstable());
    check_split_pairs(keys, b, BucketByKeyMod{b}, unstable());
  }
}

TEST(SplitUnstable, EveryBucketUsed) {
  for (uint32_t b : {1u, 7u, 255u, 256u, 257u, 2047u, 2048u}) {
    SCOPED_TRACE(b);
    std::vector<uint32_t> keys = uniform_keys(200000, b, kSeed + b);
    for (uint32_t i = 0; i < b; ++i) keys[i * 97 % keys.size()] = i;
    check_split(keys, b, BucketByKeyMod{b}, unstable());
  }
}

TEST(SplitUnstable, OutOfRangeBucketIsReportedNotWritten) {
  for (uint32_t b : {7u, 256u, 1000u, 2048u}) {
    SCOPED_TRACE(b);
    // Keys up to 2b: about half out of range, spread through every tile (for 256 / 2048, in the last digit too).
    const std::vector<uint32_t> keys = uniform_keys(3 * kTile8 + 123, 2 * b, kSeed + 7);
    check_split(keys, b, BucketIsKey{}, unstable());
    check_split_pairs(keys, b, BucketIsKey{}, unstable());
  }
  // All invalid: nothing written (check_split: the whole output still holds its poison), offsets all zero.
  check_split(std::vector<uint32_t>(5000, 999u), 256, BucketIsKey{}, unstable());
  check_split_pairs(std::vector<uint32_t>(5000, 4000u), 2048, BucketIsKey{}, unstable());
}

TEST(SplitUnstable, WorkspaceReportsInvalidAsErrorAndWritesOnlyValidRecords) {
  const std::vector<uint32_t> keys{1, 2, 300, 4};
  DeviceBuffer<uint32_t> d_in, d_out(keys.size()), d_values, d_values_out(keys.size());
  d_in.upload(keys);
  d_values.upload(std::vector<uint32_t>{10, 20, 30, 40});
  d_out.poison();
  d_values_out.poison();
  const int64_t n = static_cast<int64_t>(keys.size());
  prim::Workspace ws;
  EXPECT_EQ(cudaErrorInvalidValue, prim::split(ws, d_in.get(), d_out.get(), n, 256, BucketIsKey{}, nullptr, 0,
                                               prim::SplitOrder::unstable));
  EXPECT_EQ(cudaErrorInvalidValue,
            prim::split_pairs(ws, d_in.get(), d_out.get(), d_values.get(), d_values_out.get(), n, 256, BucketIsKey{},
                              nullptr, 0, prim::SplitOrder::unstable));
  // The three valid records are written (one per bucket, so their order is fixed); the fourth slot is untouched.
  EXPECT_EQ(d_out.download(3), (std::vector<uint32_t>{1, 2, 4}));
  EXPECT_EQ(d_values_out.download(3), (std::vector<uint32_t>{10, 20, 40}));
  expect_poison_after(d_out.download(), 3);
  expect_poison_after(d_values_out.download(), 3);
  EXPECT_EQ(cudaSuccess, prim::split(ws, d_in.get(), d_out.get(), n, 512, BucketIsKey{}, nullptr, 0,
                                     prim::SplitOrder::unstable));
  EXPECT_EQ(d_out.download(), (std::vector<uint32_t>{1, 2, 4, 300}));
}

// Without the reference: the output holds every valid input record exactly once (records carry their input
// position), each inside the bucket range its offsets give, the offsets are the histogram of the valid records,
// and nothing is written past them.
void expect_permutation_of_input(uint32_t num_buckets, int64_t n, uint32_t seed) {
  SCOPED_TRACE(num_buckets);
  // Keys up to 9/8 of the bucket count: about 1 record in 9 is out of range and must not appear.
  const uint32_t key_range = num_buckets + num_buckets / 8 + 1;
  const std::vector<Rec8> in = make_records<Rec8>(uniform_keys(static_cast<size_t>(n), key_range, seed));
  DeviceBuffer<Rec8> d_in, d_out(in.size());
  d_in.upload(in);
  d_out.poison();
  DeviceBuffer<uint64_t> d_offsets(num_buckets + 1), d_invalid(1);
  d_offsets.poison();
  d_invalid.zero();
  size_t bytes = 0;
  ASSERT_CUDA(prim::split(nullptr, bytes, d_in.get(), d_out.get(), n, num_buckets, BucketIsKey{}, d_offsets.get(), 0,
                          prim::SplitOrder::unstable, d_invalid.get()));
  DeviceBuffer<unsigned char> d_temp(bytes);
  ASSERT_CUDA(prim::split(d_temp.get(), bytes, d_in.get(), d_out.get(), n, num_buckets, BucketIsKey{},
                          d_offsets.get(), 0, prim::SplitOrder::unstable, d_invalid.get()));
  ASSERT_CUDA(cudaDeviceSynchronize());

  std::vector<uint64_t> histogram(num_buckets + 1, 0);  // [b + 1]: count of bucket b
  uint64_t invalid = 0;
  for (const Rec8& r : in) {
    if (r.key < num_buckets) {
      ++histogram[r.key + 1];
    } else {
      ++invalid;
    }
  }
  std::vector<uint64_t> want_offsets(num_buckets + 1, 0);
  for (uint32_t b = 0; b < num_buckets; ++b) want_offsets[b + 1] = want_offsets[b] + histogram[b + 1];
  ASSERT_EQ(d_offsets.download(), want_offsets);
  EXPECT_EQ(d_invalid.download()[0], invalid);
  ASSERT_GT(invalid, 0u);

  const std::vector<Rec8> out = d_out.download();
  const uint64_t valid = want_offsets[num_buckets];
  std::vector<char> seen(in.size(), 0);
  uint32_t bucket = 0;
  for (uint64_t i = 0; i < valid; ++i) {
    while (want_offsets[bucket + 1] <= i) ++bucket;
    const Rec8& r = out[i];
    ASSERT_LT(r.id, in.size()) << "position " << i;
    ASSERT_TRUE(same_bytes(r, in[r.id])) << "position " << i << " is not an input record";
    ASSERT_EQ(r.key, bucket) << "position " << i << " outside its bucket";
    ASSERT_FALSE(seen[r.id]) << "input record " << r.id << " written twice";
    seen[r.id] = 1;
  }
  expect_poison_after(out, valid);  // with `valid` distinct valid ids seen, each valid record appeared once
}

TEST(SplitUnstable, IsPermutationOfInput) {
  expect_permutation_of_input(256, 5 * kTile8 + 77, kSeed + 11);
  expect_permutation_of_input(2048, 9 * kTile11 + 77, kSeed + 12);
}

TEST(SplitUnstable, DeviceResidentCount) {
  for (int64_t n : {int64_t{0}, int64_t{1}, kTile8 + 1, int64_t{100000}}) {
    SCOPED_TRACE(n);
    SplitOptions opt = unstable();
    opt.device_count = true;
    opt.slack = 5 * kTile8 + 3;
    check_split(uniform_keys(static_cast<size_t>(n), 256), 256, BucketByKeyMod{256}, opt);
    check_split(uniform_keys(static_cast<size_t>(n), 2048), 2048, BucketByKeyMod{2048}, opt);
  }
}

TEST(SplitUnstable, UnderCudaGraphCapture) {
  check_split_in_cuda_graph(uniform_keys(300000, 2048), 2048, BucketByKeyMod{2048}, prim::SplitOrder::unstable);
}

}  // namespace
