// prim::split_index (gather and scatter permutations, 32- and 64-bit indices) vs the C++ reference.
#include <prim/split_index.h>

#include "common/quick_mode.h"
#include "primitives/test_split_util.h"
#include "primitives/reference/split_reference.h"

namespace {
using namespace split_test;

template <typename Index, typename R, typename Op>
void check_split_index(const std::vector<R>& in, uint32_t num_buckets, Op op, prim::PermutationKind kind,
                       bool device_count = false, bool want_offsets_out = true, int64_t device_slack = 1000) {
  const int64_t n = static_cast<int64_t>(in.size());
  DeviceBuffer<R> d_in;
  d_in.upload(in);
  if (in.empty()) d_in.resize(1);
  DeviceBuffer<Index> d_perm(std::max<int64_t>(n, 1));
  d_perm.poison();
  DeviceBuffer<uint64_t> d_offsets(num_buckets + 1);
  d_offsets.poison();
  DeviceBuffer<uint64_t> d_scalars(2);
  const std::vector<uint64_t> h{0, static_cast<uint64_t>(n)};
  ASSERT_CUDA(cudaMemcpy(d_scalars.get(), h.data(), sizeof(uint64_t) * 2, cudaMemcpyHostToDevice));
  const prim::ItemCount count =
      device_count ? prim::ItemCount(n + device_slack, d_scalars.get() + 1) : prim::ItemCount(n);
  uint64_t* offsets_out = want_offsets_out ? d_offsets.get() : nullptr;
  size_t bytes = 0;
  ASSERT_CUDA(prim::split_index(nullptr, bytes, d_in.get(), count, num_buckets, op, d_perm.get(), kind, offsets_out,
                                0, d_scalars.get()));
  DeviceBuffer<unsigned char> d_temp(bytes);
  d_temp.poison();
  ASSERT_CUDA(prim::split_index(d_temp.get(), bytes, d_in.get(), count, num_buckets, op, d_perm.get(), kind,
                                offsets_out, 0, d_scalars.get()));
  ASSERT_CUDA(cudaDeviceSynchronize());

  const Index poison = poisoned<Index>();
  std::vector<Index> want(in.size(), poison);
  std::vector<uint64_t> want_offsets(num_buckets + 1);
  const uint64_t want_invalid =
      prim::reference::split_index(in.data(), n, num_buckets, op, want.data(), kind, want_offsets.data());
  EXPECT_EQ(d_scalars.download(1)[0], want_invalid);
  if (want_offsets_out) EXPECT_EQ(d_offsets.download(), want_offsets);
  const std::vector<Index> got = d_perm.download(in.size());
  EXPECT_EQ(got, want);  // gather: unwritten tail stays poisoned; scatter: invalid records' entries untouched
}

template <typename Index>
class SplitIndex : public ::testing::Test {};
using IndexTypes = ::testing::Types<uint32_t, uint64_t>;
TYPED_TEST_SUITE(SplitIndex, IndexTypes);

TYPED_TEST(SplitIndex, GatherMatchesReference) {
  for (uint32_t b : {1u, 2u, 7u, 256u, 1000u, 2048u}) {
    SCOPED_TRACE(b);
    check_split_index<TypeParam>(make_bucket_keys(100003, b, Distribution::uniform, b), b, BucketByKeyMod{b},
                                 prim::PermutationKind::gather);
  }
}

TYPED_TEST(SplitIndex, ScatterMatchesReference) {
  for (uint32_t b : {1u, 2u, 7u, 256u, 1000u, 2048u}) {
    SCOPED_TRACE(b);
    check_split_index<TypeParam>(make_bucket_keys(100003, b, Distribution::zipf, b), b, BucketByKeyMod{b},
                                 prim::PermutationKind::scatter);
  }
}

TYPED_TEST(SplitIndex, EmptyAndOneElement) {
  for (auto kind : {prim::PermutationKind::gather, prim::PermutationKind::scatter}) {
    check_split_index<TypeParam>(std::vector<uint32_t>{}, 4, BucketByKeyMod{4}, kind);
    check_split_index<TypeParam>(std::vector<uint32_t>{3}, 4, BucketByKeyMod{4}, kind);
  }
}

// Up to 256 buckets take one pass (of 2^bits_for_buckets(b) digits: 3 buckets make a pass of 4, whose last is out of
// range); 300 the two passes over (bucket, index) pairs.
TYPED_TEST(SplitIndex, OutOfRangeBucketIsReportedNotWritten) {
  for (auto kind : {prim::PermutationKind::gather, prim::PermutationKind::scatter}) {
    for (uint32_t b : {3u, 256u, 300u}) {
      SCOPED_TRACE(b);
      check_split_index<TypeParam>(make_bucket_keys(40000, 600, Distribution::uniform, 9), b, BucketIsKey{}, kind);
    }
  }
}

TYPED_TEST(SplitIndex, LargeRecordsAndDeviceCount) {
  for (uint32_t b : {256u, 1000u}) {
    SCOPED_TRACE(b);
    const std::vector<Rec64> recs = make_records<Rec64>(make_bucket_keys(20001, b, Distribution::uniform, 10));
    check_split_index<TypeParam>(recs, b, BucketByKeyMod{b}, prim::PermutationKind::gather, true);
    check_split_index<TypeParam>(recs, b, BucketByKeyMod{b}, prim::PermutationKind::scatter, true);
  }
}

// Without bucket offsets asked for: the scatter kind of more than 256 buckets still needs the valid records' count
// (it inverts the gather permutation), from offsets of its own in the scratch.
TYPED_TEST(SplitIndex, MoreThan256BucketsWithoutOffsets) {
  const std::vector<uint32_t> keys = make_bucket_keys(70001, 1200, Distribution::zipf, 11);
  for (auto kind : {prim::PermutationKind::gather, prim::PermutationKind::scatter}) {
    check_split_index<TypeParam>(keys, 1000, BucketIsKey{}, kind, false, false);
  }
}

// More than 256 buckets from 2^23 records on: the bucket offsets come from a binary search of the sorted buckets
// (searched_bucket_offsets_kernel) instead of a read of every one. Once with 2^23 + 77 records (not under
// SLABCAST_TEST_QUICK), and once with 5001 records and a device-resident count whose bound is 2^23 + 77 (the search
// reads the count on the device).
TYPED_TEST(SplitIndex, MoreThan256BucketsFromTwoPow23Records) {
  const int64_t big = (int64_t{1} << 23) + 77;
  if (!slabtest::quick_mode()) {
    const std::vector<uint32_t> keys = make_bucket_keys(static_cast<size_t>(big), 2100, Distribution::uniform, 12);
    check_split_index<TypeParam>(keys, 2048, BucketIsKey{}, prim::PermutationKind::gather);
  }
  const std::vector<uint32_t> few = make_bucket_keys(5001, 1100, Distribution::uniform, 13);
  for (auto kind : {prim::PermutationKind::gather, prim::PermutationKind::scatter}) {
    check_split_index<TypeParam>(few, 1000, BucketIsKey{}, kind, true, true, big - 5001);
  }
}

// More than 256 buckets, records of up to 4 bytes and u32 indices: the first pass splits the records and writes their
// (bucket, index) pairs (split_index_pairs_from_first_pass); wider records or indices make the pairs in a kernel of
// their own. Sizes around both passes' tiles (384 x 19 and 384 x 20 records), out-of-range buckets above and below
// 2^11 (the first pass's sink), and 16-bit records, whose buckets the functor spreads over the range.
TYPED_TEST(SplitIndex, MoreThan256BucketsAroundTheTiles) {
  for (int64_t n : {int64_t{1}, int64_t{33}, int64_t{7295}, int64_t{7296}, int64_t{7297}, int64_t{7680},
                    int64_t{7681}, int64_t{3 * 7296 + 5}}) {
    SCOPED_TRACE(n);
    const std::vector<uint32_t> keys = make_bucket_keys(static_cast<size_t>(n), 2300, Distribution::uniform, 14);
    for (auto kind : {prim::PermutationKind::gather, prim::PermutationKind::scatter}) {
      check_split_index<TypeParam>(keys, 1500, BucketIsKey{}, kind);
      check_split_index<TypeParam>(keys, 2048, BucketByKeyMod{2048}, kind, true);
    }
  }
}

struct SpreadSixteenBitKey {  // a 16-bit record's bucket: key * 7 + 3, out of range from 2048 up
  __host__ __device__ uint32_t operator()(const uint16_t& k) const { return (uint32_t{k} * 7u + 3u) & 4095u; }
};

TYPED_TEST(SplitIndex, MoreThan256BucketsOfSixteenBitRecords) {
  const std::vector<uint32_t> wide = make_bucket_keys(50021, 65536, Distribution::zipf, 15);
  const std::vector<uint16_t> keys(wide.begin(), wide.end());
  for (auto kind : {prim::PermutationKind::gather, prim::PermutationKind::scatter}) {
    check_split_index<TypeParam>(keys, 2048, SpreadSixteenBitKey{}, kind);
    check_split_index<TypeParam>(keys, 700, SpreadSixteenBitKey{}, kind, true);
  }
}

TEST(SplitIndex, WorkspaceOverloadReportsInvalid) {
  const std::vector<uint32_t> keys{1, 2, 3, 900};
  DeviceBuffer<uint32_t> d_in, d_perm(keys.size());
  d_in.upload(keys);
  prim::Workspace ws;
  EXPECT_EQ(cudaErrorInvalidValue, prim::split_index(ws, d_in.get(), int64_t{4}, 256, BucketIsKey{}, d_perm.get(),
                                                     prim::PermutationKind::gather, nullptr));
  EXPECT_EQ(cudaSuccess, prim::split_index(ws, d_in.get(), int64_t{3}, 256, BucketIsKey{}, d_perm.get(),
                                           prim::PermutationKind::gather, nullptr));
}

}  // namespace
