// prim::split / prim::split_pairs by prim::KeyBits on the GPU vs the C++ reference. With 2^bits buckets of 32- or
// 64-bit keys the call is SplitSort's single pass (split_lsd.cuh, split_by_key_bits_one_sweep): these tests cover that
// route's sizes around its tiles, bit ranges, device counts, bucket offsets, alignment and graph capture, and that
// any other bucket count keeps the plain split (out-of-range buckets reported).
#include <prim/split.h>
#include <prim/workspace.h>

#include <random>

#include "primitives/test_split_check.h"

namespace {
using namespace split_test;
using prim::KeyBits;

// The single pass's tiles, from the library's policies (keys only; u32 keys with u32 values).
template <prim::detail::SplitOutput OUT, class K, class V>
constexpr int64_t pass_tile() {
  return prim::detail::LsdPassFor<OUT, K, V, prim::detail::MakeKeyDigit<K>>::Policy::TILE_ITEMS;
}
constexpr int64_t kKeysTile = pass_tile<prim::detail::SplitOutput::keys, uint32_t, prim::detail::NoValue>();
constexpr int64_t kPairsTile = pass_tile<prim::detail::SplitOutput::pairs, uint32_t, uint32_t>();

// Keys over the key type's whole range, with a few all-ones and all-zero keys (the last and the first bucket of every
// bit range).
template <class K>
std::vector<K> random_keys(size_t n, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<K> keys(n);
  for (auto& k : keys) k = static_cast<K>(rng());
  for (size_t i = 0; i < n; i += 97) keys[i] = static_cast<K>(~K{0});
  for (size_t i = 13; i < n; i += 101) keys[i] = K{0};
  return keys;
}

TEST(SplitKeyBits, TakesTheSinglePassOnlyWithTwoToTheBitsBuckets) {
  using prim::detail::splits_by_key_bits_in_one_sweep;
  EXPECT_TRUE(splits_by_key_bits_in_one_sweep<uint32_t>(KeyBits<uint32_t>{0, 8}, 1000, 256));
  EXPECT_TRUE(splits_by_key_bits_in_one_sweep<uint32_t>(KeyBits<uint32_t>{31, 1}, 1000, 2));
  EXPECT_TRUE(splits_by_key_bits_in_one_sweep<uint64_t>(KeyBits<uint64_t>{56, 8}, 1000, 256));
  EXPECT_FALSE(splits_by_key_bits_in_one_sweep<uint32_t>(KeyBits<uint32_t>{0, 8}, 1000, 255));
  EXPECT_FALSE(splits_by_key_bits_in_one_sweep<uint32_t>(KeyBits<uint32_t>{0, 8}, 1000, 512));
  EXPECT_FALSE(splits_by_key_bits_in_one_sweep<uint32_t>(KeyBits<uint32_t>{0, 9}, 1000, 512));  // two passes' bits
  EXPECT_FALSE(splits_by_key_bits_in_one_sweep<uint32_t>(KeyBits<uint32_t>{28, 8}, 1000, 256));  // past bit 31
  EXPECT_FALSE(splits_by_key_bits_in_one_sweep<uint8_t>(KeyBits<uint8_t>{0, 8}, 1000, 256));     // not SplitSort's
  EXPECT_FALSE(splits_by_key_bits_in_one_sweep<uint32_t>(BucketByKeyMod{256}, 1000, 256));
}

TEST(SplitKeyBits, KeysAroundThePassTile) {
  for (int64_t n : {int64_t{0}, int64_t{1}, int64_t{31}, int64_t{32}, int64_t{33}, kKeysTile - 1, kKeysTile,
                    kKeysTile + 1, 2 * kKeysTile + 7, int64_t{1} << 16, (int64_t{1} << 20) + 1}) {
    SCOPED_TRACE(n);
    const auto keys = random_keys<uint32_t>(static_cast<size_t>(n), static_cast<uint32_t>(n) + 1);
    check_split(keys, 256, KeyBits<uint32_t>{0, 8});
    check_split(keys, 256, KeyBits<uint32_t>{24, 8}, {prim::SplitOrder::unstable});
  }
}

TEST(SplitKeyBits, EveryBitRangeOfOnePass) {
  const auto keys = random_keys<uint32_t>(200003, 7);
  for (auto [shift, bits] : std::vector<std::pair<int, int>>{{0, 0}, {0, 1}, {31, 1}, {3, 5}, {9, 7}, {13, 8},
                                                              {24, 8}, {20, 4}}) {
    SCOPED_TRACE(testing::Message() << "shift " << shift << " bits " << bits);
    check_split(keys, uint32_t{1} << bits, KeyBits<uint32_t>{shift, bits});
  }
  const auto keys64 = random_keys<uint64_t>(100003, 8);
  for (int shift : {0, 29, 32, 56}) {
    SCOPED_TRACE(shift);
    check_split(keys64, 256, KeyBits<uint64_t>{shift, 8});
  }
}

TEST(SplitKeyBits, PairsFollowTheirKeys) {
  for (int64_t n : {int64_t{0}, int64_t{1}, kPairsTile - 1, kPairsTile, kPairsTile + 1, int64_t{300001}}) {
    SCOPED_TRACE(n);
    check_split_pairs(random_keys<uint32_t>(static_cast<size_t>(n), 11), 256, KeyBits<uint32_t>{0, 8});
    check_split_pairs(random_keys<uint32_t>(static_cast<size_t>(n), 12), 16, KeyBits<uint32_t>{28, 4},
                      {prim::SplitOrder::unstable});
    check_split_pairs(random_keys<uint64_t>(static_cast<size_t>(n), 13), 256, KeyBits<uint64_t>{40, 8});
  }
}

TEST(SplitKeyBits, DeviceResidentCountAndUnalignedInput) {
  for (int64_t n : {int64_t{0}, int64_t{1}, kKeysTile + 1, int64_t{100000}}) {
    SCOPED_TRACE(n);
    SplitOptions opt;
    opt.device_count = true;
    opt.slack = 3 * kKeysTile + 5;
    check_split(random_keys<uint32_t>(static_cast<size_t>(n), 21), 256, KeyBits<uint32_t>{8, 8}, opt);
  }
  for (int offset : {1, 2, 3}) {
    SCOPED_TRACE(offset);
    SplitOptions opt;
    opt.input_offset = offset;
    check_split(random_keys<uint32_t>(50001, 22), 256, KeyBits<uint32_t>{0, 8}, opt);
    check_split_pairs(random_keys<uint32_t>(50001, 23), 256, KeyBits<uint32_t>{0, 8}, opt);
  }
}

TEST(SplitKeyBits, DeviceCountAboveMaxWritesNothing) {
  check_device_count_above_max_writes_nothing(256, KeyBits<uint32_t>{});
}

TEST(SplitKeyBits, OtherBucketCountsKeepThePlainSplit) {
  const auto keys = random_keys<uint32_t>(120001, 31);
  check_split(keys, 200, KeyBits<uint32_t>{0, 8});   // buckets 200..255 out of range: reported, not written
  check_split(keys, 512, KeyBits<uint32_t>{0, 8});   // in range, the top half of the buckets empty
  check_split(keys, 2048, KeyBits<uint32_t>{5, 11});  // two passes of the plain split
  check_split_pairs(keys, 100, KeyBits<uint32_t>{4, 7});
}

TEST(SplitKeyBits, WorkspaceAndCudaGraphCapture) {
  const auto keys = random_keys<uint32_t>(262147, 41);
  const int64_t n = static_cast<int64_t>(keys.size());
  const KeyBits<uint32_t> bucket_of{16, 8};
  std::vector<uint32_t> want(keys.size());
  std::vector<uint64_t> want_offsets(257);
  prim::reference::split(keys.data(), want.data(), n, 256, bucket_of, want_offsets.data());
  {  // the Workspace overload
    DeviceBuffer<uint32_t> d_in, d_out(keys.size());
    d_in.upload(keys);
    d_out.poison();
    DeviceBuffer<uint64_t> d_offsets(257);
    d_offsets.poison();
    prim::Workspace ws;
    ASSERT_CUDA(prim::split(ws, d_in.get(), d_out.get(), n, 256, bucket_of, d_offsets.get()));
    EXPECT_EQ(d_out.download(), want);
    EXPECT_EQ(d_offsets.download(), want_offsets);
  }
  std::vector<uint32_t> got;
  std::vector<uint64_t> got_offsets;
  ASSERT_NO_FATAL_FAILURE(split_in_cuda_graph(keys, 256, bucket_of, prim::SplitOrder::stable, &got, &got_offsets));
  EXPECT_EQ(got, want);
  EXPECT_EQ(got_offsets, want_offsets);
}

}  // namespace
