// SplitSort (prim::sort_keys / prim::sort_pairs) vs the C++ reference: 32-, 64- and 128-bit keys, bit ranges,
// stability, sizes, device-resident count, graph capture.
#include <prim/sort.h>

#include <random>

#include "primitives/test_split_util.h"
#include "primitives/reference/sort_reference.h"

namespace {
using namespace split_test;

template <typename Key>
Key random_key(std::mt19937_64& rng) {
  if constexpr (sizeof(Key) == 16) {
    return prim::uint128{rng(), rng()};
  } else {
    return static_cast<Key>(rng());
  }
}

// Keys drawn from a small set (many equal keys: stability matters) or the full range.
template <typename Key>
std::vector<Key> make_keys(size_t n, uint64_t seed, bool few_distinct) {
  std::mt19937_64 rng(seed);
  std::vector<Key> pool(64);
  for (auto& k : pool) k = random_key<Key>(rng);
  std::vector<Key> keys(n);
  for (auto& k : keys) k = few_distinct ? pool[rng() % pool.size()] : random_key<Key>(rng);
  return keys;
}

template <typename Key>
bool same_key(const Key& a, const Key& b) {
  return a == b;
}

// The count a check passes to the sort: n on the host, or n in device memory (d_count) under a bound 20,000
// records larger (more than two tiles of any pass), so that the sort's grid has tiles that do not exist.
prim::ItemCount sort_count(int64_t n, bool device_count, DeviceBuffer<uint64_t>& d_count) {
  if (!device_count) return prim::ItemCount(n);
  const uint64_t h_count = static_cast<uint64_t>(n);
  EXPECT_CUDA(cudaMemcpy(d_count.get(), &h_count, sizeof(h_count), cudaMemcpyHostToDevice));
  return prim::ItemCount(n + 20000, d_count.get());
}

template <typename Key>
void check_sort_pairs(const std::vector<Key>& keys, int begin_bit, int end_bit, bool device_count = false) {
  const int64_t n = static_cast<int64_t>(keys.size());
  std::vector<uint32_t> values(keys.size());
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<uint32_t>(i);
  DeviceBuffer<Key> d_keys, d_keys_out(std::max<int64_t>(n, 1));
  DeviceBuffer<uint32_t> d_values, d_values_out(std::max<int64_t>(n, 1));
  d_keys.upload(keys);
  d_values.upload(values);
  if (keys.empty()) {
    d_keys.resize(1);
    d_values.resize(1);
  }
  d_keys_out.poison();
  d_values_out.poison();
  DeviceBuffer<uint64_t> d_count(1);
  const prim::ItemCount count = sort_count(n, device_count, d_count);
  size_t bytes = 0;
  ASSERT_CUDA(prim::sort_pairs(nullptr, bytes, d_keys.get(), d_keys_out.get(), d_values.get(), d_values_out.get(),
                               count, begin_bit, end_bit));
  DeviceBuffer<unsigned char> d_temp(bytes);
  d_temp.poison();
  ASSERT_CUDA(prim::sort_pairs(d_temp.get(), bytes, d_keys.get(), d_keys_out.get(), d_values.get(),
                               d_values_out.get(), count, begin_bit, end_bit));
  ASSERT_CUDA(cudaDeviceSynchronize());
  std::vector<Key> want_keys(keys.size());
  std::vector<uint32_t> want_values(keys.size());
  prim::reference::sort_pairs(keys.data(), want_keys.data(), values.data(), want_values.data(), keys.size(),
                              begin_bit, end_bit);
  const std::vector<Key> got_keys = d_keys_out.download(keys.size());
  const std::vector<uint32_t> got_values = d_values_out.download(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    ASSERT_TRUE(same_key(got_keys[i], want_keys[i])) << "key at " << i;
    ASSERT_EQ(got_values[i], want_values[i]) << "value at " << i << " (stability)";
  }
  const std::vector<Key> in_after = d_keys.download(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) ASSERT_TRUE(same_key(in_after[i], keys[i])) << "input changed at " << i;
}

template <typename Key>
void check_sort_keys(const std::vector<Key>& keys, int begin_bit, int end_bit, bool device_count = false) {
  const int64_t n = static_cast<int64_t>(keys.size());
  DeviceBuffer<Key> d_keys, d_out(std::max<int64_t>(n, 1));
  d_keys.upload(keys);
  if (keys.empty()) d_keys.resize(1);
  d_out.poison();
  DeviceBuffer<uint64_t> d_count(1);
  const prim::ItemCount count = sort_count(n, device_count, d_count);
  prim::Workspace ws;
  ASSERT_CUDA(prim::sort_keys(ws, d_keys.get(), d_out.get(), count, begin_bit, end_bit));
  ASSERT_CUDA(cudaDeviceSynchronize());
  std::vector<Key> want(keys.size());
  prim::reference::sort_keys(keys.data(), want.data(), keys.size(), begin_bit, end_bit);
  const std::vector<Key> got = d_out.download(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) ASSERT_TRUE(same_key(got[i], want[i])) << "at " << i;
}

template <typename Key>
class SplitSort : public ::testing::Test {};
using KeyTypes = ::testing::Types<uint32_t, uint64_t, prim::uint128>;
TYPED_TEST_SUITE(SplitSort, KeyTypes);

TYPED_TEST(SplitSort, FullKeyRange) {
  constexpr int bits = static_cast<int>(sizeof(TypeParam) * 8);
  check_sort_pairs(make_keys<TypeParam>(100003, 1, false), 0, bits);
  check_sort_keys(make_keys<TypeParam>(100003, 2, false), 0, bits);
}

TYPED_TEST(SplitSort, IsStable) {
  constexpr int bits = static_cast<int>(sizeof(TypeParam) * 8);
  check_sort_pairs(make_keys<TypeParam>(200001, 3, true), 0, bits);
}

TYPED_TEST(SplitSort, BitRanges) {
  constexpr int bits = static_cast<int>(sizeof(TypeParam) * 8);
  const std::vector<TypeParam> keys = make_keys<TypeParam>(50001, 4, false);
  for (auto range : {std::pair<int, int>{0, 8}, {4, 12}, {3, 3}, {0, 1}, {bits - 5, bits}, {1, bits - 1},
                     {bits / 2 - 4, bits / 2 + 9}}) {
    SCOPED_TRACE(range.first);
    SCOPED_TRACE(range.second);
    check_sort_pairs(keys, range.first, range.second);
  }
}

TYPED_TEST(SplitSort, EdgeSizes) {
  constexpr int bits = static_cast<int>(sizeof(TypeParam) * 8);
  for (size_t n : {size_t{0}, size_t{1}, size_t{31}, size_t{32}, size_t{33}, size_t{4095}, size_t{4096},
                   size_t{4097}, size_t{65535}, size_t{65537}}) {
    SCOPED_TRACE(n);
    check_sort_pairs(make_keys<TypeParam>(n, 5 + n, n % 2 == 0), 0, bits);
  }
}

// The tile of a SplitSort one-sweep pass over Key (keys only, or with u32 values): the shape it takes
// (split_lsd.cuh, LsdPassFor) and the default one (GlobalSplitPass), read from the library so that the sizes below
// follow its tuning.
template <typename Key, prim::detail::SplitOutput OUT, typename Value>
struct PassTiles {
  using Digits = prim::detail::MakeKeyDigit<Key>;
  static constexpr int64_t taken = prim::detail::LsdPassFor<OUT, Key, Value, Digits>::Policy::TILE_ITEMS;
  static constexpr int64_t default_shape = prim::detail::GlobalSplitPass<OUT, Key, Value>::Policy::TILE_ITEMS;
};

// One tile less one record, one tile, one tile and one record (of both shapes), and a few tiles and a partial one.
std::vector<size_t> sizes_around(int64_t taken, int64_t default_shape) {
  std::vector<size_t> sizes;
  for (int64_t tile : {taken, default_shape}) {
    if (tile == default_shape && tile == taken && !sizes.empty()) break;
    for (int64_t d : {-1, 0, 1}) sizes.push_back(static_cast<size_t>(tile + d));
  }
  sizes.push_back(static_cast<size_t>(3 * taken + 5));
  return sizes;
}

// Around the one-sweep passes' tiles, where the last tile is padded with all-ones keys, with a host count and with a
// device count whose bound adds tiles that do not exist. For 32-bit keys: 384 x 19 = 7296 keys only and 384 x 20 =
// 7680 u32+u32 pairs (a block a tile), 384 x 24 = 9216 (the resident grid).
TYPED_TEST(SplitSort, AroundPassTiles) {
  using prim::detail::SplitOutput;
  constexpr int bits = static_cast<int>(sizeof(TypeParam) * 8);
  using KeysOnly = PassTiles<TypeParam, SplitOutput::keys, prim::detail::NoValue>;
  for (size_t n : sizes_around(KeysOnly::taken, KeysOnly::default_shape)) {
    SCOPED_TRACE(n);
    check_sort_keys(make_keys<TypeParam>(n, 40 + n, n % 2 == 0), 0, bits);
    check_sort_keys(make_keys<TypeParam>(n, 41 + n, false), 0, bits, true);
  }
  using Pairs = PassTiles<TypeParam, SplitOutput::pairs, uint32_t>;
  for (size_t n : sizes_around(Pairs::taken, Pairs::default_shape)) {
    SCOPED_TRACE(n);
    check_sort_pairs(make_keys<TypeParam>(n, 42 + n, n % 2 == 0), 0, bits);
    check_sort_pairs(make_keys<TypeParam>(n, 43 + n, false), 0, bits, true);
  }
}

TYPED_TEST(SplitSort, DeviceResidentCount) {
  check_sort_pairs(make_keys<TypeParam>(30000, 6, false), 0, 24, true);
}

TEST(SplitSort, RejectsBadBitRange) {
  size_t bytes = 0;
  uint32_t* none = nullptr;
  EXPECT_EQ(cudaErrorInvalidValue, prim::sort_keys(nullptr, bytes, none, none, 10, 0, 33));
  EXPECT_EQ(cudaErrorInvalidValue, prim::sort_keys(nullptr, bytes, none, none, 10, 9, 8));
}

TEST(SplitSort, UnderCudaGraphCapture) {
  const std::vector<uint64_t> keys = make_keys<uint64_t>(123457, 8, true);
  std::vector<uint32_t> values(keys.size());
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<uint32_t>(i);
  const int64_t n = static_cast<int64_t>(keys.size());
  DeviceBuffer<uint64_t> d_keys, d_keys_out(keys.size());
  DeviceBuffer<uint32_t> d_values, d_values_out(keys.size());
  d_keys.upload(keys);
  d_values.upload(values);
  size_t bytes = 0;
  ASSERT_CUDA(prim::sort_pairs(nullptr, bytes, d_keys.get(), d_keys_out.get(), d_values.get(), d_values_out.get(), n,
                               0, 40));
  DeviceBuffer<unsigned char> d_temp(bytes);
  cudaStream_t stream;
  ASSERT_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph;
  ASSERT_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  const cudaError_t call = prim::sort_pairs(d_temp.get(), bytes, d_keys.get(), d_keys_out.get(), d_values.get(),
                                            d_values_out.get(), n, 0, 40, stream);
  ASSERT_CUDA(cudaStreamEndCapture(stream, &graph));
  ASSERT_CUDA(call);
  cudaGraphExec_t exec;
  ASSERT_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  ASSERT_CUDA(cudaGraphLaunch(exec, stream));
  ASSERT_CUDA(cudaStreamSynchronize(stream));
  std::vector<uint64_t> want_keys(keys.size());
  std::vector<uint32_t> want_values(keys.size());
  prim::reference::sort_pairs(keys.data(), want_keys.data(), values.data(), want_values.data(), keys.size(), 0, 40);
  EXPECT_EQ(d_keys_out.download(), want_keys);
  EXPECT_EQ(d_values_out.download(), want_values);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
}

}  // namespace
