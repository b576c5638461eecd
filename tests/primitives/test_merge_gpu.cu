// prim::merge / prim::merge_pairs on the GPU vs the C++ reference, by named property (2^26 + 2^26 items in
// test_merge_large_gpu.cu).
#include <prim/merge.h>

#include "common/quick_mode.h"
#include "primitives/test_merge_check.h"

namespace {
using namespace merge_test;

constexpr uint64_t kSeed = 20260301;
constexpr int64_t kTile = prim::detail::MergePolicyFor<4, 0>::type::TILE_ITEMS;
constexpr int64_t kPairsTile = prim::detail::MergePolicyFor<4, sizeof(Payload16)>::type::TILE_ITEMS;

TEST(Merge, EmptyInputs) {
  check_merge<false>(std::vector<uint32_t>{}, std::vector<uint32_t>{});
  check_merge<true>(std::vector<uint32_t>{}, std::vector<uint32_t>{});
}

TEST(Merge, OneInputEmpty) {
  for (size_t n : {size_t{1}, size_t{33}, size_t(kTile + 1), size_t{100003}}) {
    const auto keys = sorted_keys<uint32_t>(n, 0, kSeed + n);
    check_merge<false>(keys, std::vector<uint32_t>{});
    check_merge<false>(std::vector<uint32_t>{}, keys);
    check_merge<true>(keys, std::vector<uint32_t>{});
    check_merge<true>(std::vector<uint32_t>{}, keys);
  }
}

TEST(Merge, OneItemEach) {
  check_merge<false>(std::vector<uint32_t>{5}, std::vector<uint32_t>{3});
  check_merge<false>(std::vector<uint32_t>{3}, std::vector<uint32_t>{5});
  check_merge<true>(std::vector<uint32_t>{4}, std::vector<uint32_t>{4});  // equal: the first input's first
}

// Total sizes around the warp, the block and the tile (of keys and of pairs), and 2^k +- 1, split evenly and unevenly.
class MergeSizes : public ::testing::TestWithParam<int64_t> {};

TEST_P(MergeSizes, MatchesReference) {
  const int64_t n = GetParam();
  if (n > (int64_t{1} << 20) + 1 && slabtest::quick_mode()) GTEST_SKIP() << "SLABCAST_TEST_QUICK: size " << n;
  for (int64_t na : {n / 2, n / 5, n - 1}) {
    if (na < 0) continue;
    const int64_t nb = n - na;
    const auto a = sorted_keys<uint32_t>(static_cast<size_t>(na), 0, kSeed + static_cast<uint64_t>(n));
    const auto b = sorted_keys<uint32_t>(static_cast<size_t>(nb), 0, kSeed + static_cast<uint64_t>(n) + 1);
    check_merge<false>(a, b);
    check_merge<true>(a, b);
  }
}

INSTANTIATE_TEST_SUITE_P(Merge, MergeSizes,
                         ::testing::Values(1, 2, 31, 32, 33, 255, 256, 257, kTile - 1, kTile, kTile + 1, 2 * kTile + 1,
                                           kPairsTile - 1, kPairsTile, kPairsTile + 1, (1 << 16) - 1, 1 << 16,
                                           (1 << 16) + 1, (1 << 20) + 1, (int64_t{1} << 22) - 1));

// All of one input before all of the other, either way round, and one short input inside a long one: the cuts of
// most tiles sit at an end of an input.
TEST(Merge, SkewedInputs) {
  const size_t n = 300001;
  std::vector<uint32_t> low = sorted_keys<uint32_t>(n, 1u << 20, kSeed + 1);
  std::vector<uint32_t> high = low;
  for (auto& k : high) k += 1u << 20;
  check_merge<false>(low, high);
  check_merge<false>(high, low);
  check_merge<true>(low, high);
  check_merge<true>(high, low);
  const std::vector<uint32_t> few{0, 1u << 19, 1u << 19, (1u << 20) - 1, 1u << 21};
  check_merge<true>(few, low);
  check_merge<true>(low, few);
  const auto small = sorted_keys<uint32_t>(1000, 0, kSeed + 2);
  const auto big = sorted_keys<uint32_t>(1000000, 0, kSeed + 3);
  check_merge<false>(small, big);
  check_merge<true>(big, small);
}

// Every key equal, and keys from a range of 4: the output must keep the first input's items before the second's and
// each input's own order (the values name input and position).
TEST(Merge, IsStable) {
  check_merge<true>(std::vector<uint32_t>(20000, 7u), std::vector<uint32_t>(30001, 7u));
  for (size_t n : {size_t{1000}, size_t(3 * kTile + 7), size_t{200003}}) {
    check_merge<true>(sorted_keys<uint32_t>(n, 4, kSeed + 5), sorted_keys<uint32_t>(n + 17, 4, kSeed + 6));
  }
  // 64-bit keys compared by their high words (0..3): equivalent but unequal keys must come out in input order.
  auto few_high_words = [](size_t n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<uint64_t> keys(n);
    for (auto& k : keys) k = (rng() % 4) << 32 | (rng() & 0xFFFFFFFFull);
    std::stable_sort(keys.begin(), keys.end(), ByHighWord{});
    return keys;
  };
  const auto a = few_high_words(100000, kSeed + 7), b = few_high_words(77777, kSeed + 8);
  check_merge<false>(a, b, ByHighWord{});
  check_merge<true>(a, b, ByHighWord{});
}

// An extended lambda as the comparator (a free function: a test body may not hold one).
void check_merge_with_a_lambda(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
  auto descending = [] __host__ __device__(uint32_t x, uint32_t y) { return x > y; };
  check_merge<true>(a, b, descending);
}

TEST(Merge, AnyComparator) {
  const auto a = sorted_keys<uint32_t>(123457, 0, kSeed + 9, Greater{});
  const auto b = sorted_keys<uint32_t>(65537, 0, kSeed + 10, Greater{});
  check_merge<false>(a, b, Greater{});
  check_merge<true>(a, b, Greater{});
  check_merge_with_a_lambda(a, b);
  // 64-bit keys, the default comparator.
  check_merge<true>(sorted_keys<uint64_t>(70001, 0, kSeed + 11), sorted_keys<uint64_t>(90001, 0, kSeed + 12));
}

TEST(Merge, DeviceResidentCounts) {
  for (int64_t n : {int64_t{0}, int64_t{1}, kTile + 1, int64_t{100000}}) {
    SCOPED_TRACE(n);
    MergeOptions opt;
    opt.device_counts = true;
    opt.slack = 3 * kTile + 5;
    const auto a = sorted_keys<uint32_t>(static_cast<size_t>(n), 0, kSeed + 13);
    const auto b = sorted_keys<uint32_t>(static_cast<size_t>(n / 3), 0, kSeed + 14);
    check_merge<false>(a, b, prim::Less{}, opt);
    check_merge<true>(a, b, prim::Less{}, opt);
  }
}

// A device count above its bound: nothing is written, the count is added to the invalid counter, and the Workspace
// overload reports cudaErrorInvalidValue.
TEST(Merge, DeviceCountAboveBoundWritesNothing) {
  const auto a = sorted_keys<uint32_t>(5000, 0, kSeed + 15);
  DeviceBuffer<uint32_t> d_a(a), d_b(a), d_out(10000);
  DeviceBuffer<uint64_t> d_scalars(std::vector<uint64_t>{0, 4000, 6000});  // invalid, count 1 (ok), count 2 (> 5000)
  const prim::ItemCount n1(5000, d_scalars.get() + 1), n2(5000, d_scalars.get() + 2);
  size_t bytes = 0;
  ASSERT_CUDA(prim::merge(nullptr, bytes, d_a.get(), n1, d_b.get(), n2, d_out.get()));
  DeviceBuffer<unsigned char> d_temp(bytes);
  ASSERT_CUDA(prim::merge(d_temp.get(), bytes, d_a.get(), n1, d_b.get(), n2, d_out.get(), prim::Less{}, 0,
                          d_scalars.get()));
  ASSERT_CUDA(cudaDeviceSynchronize());
  EXPECT_EQ(d_scalars.download_one(0), 6000u);
  for (uint32_t v : d_out.download()) ASSERT_EQ(v, poisoned<uint32_t>()) << "written with an invalid count";
  prim::Workspace ws;
  EXPECT_EQ(cudaErrorInvalidValue, prim::merge(ws, d_a.get(), n1, d_b.get(), n2, d_out.get()));
  EXPECT_EQ(cudaSuccess, prim::merge(ws, d_a.get(), 5000, d_b.get(), 5000, d_out.get()));
}

// Unsorted inputs break the precondition: the order is unspecified, but the call must neither fail nor touch memory
// outside its arrays (the tail past the output stays poisoned; compute-sanitizer runs see the reads).
TEST(Merge, UnsortedInputStaysInsideItsArrays) {
  std::mt19937 rng(kSeed + 16);
  std::vector<uint32_t> a(100003), b(77777);
  for (auto& k : a) k = rng();
  for (auto& k : b) k = rng();
  DeviceBuffer<uint32_t> d_a(a), d_b(b), d_out(a.size() + b.size() + 1000);
  prim::Workspace ws;
  ASSERT_CUDA(prim::merge(ws, d_a.get(), static_cast<int64_t>(a.size()), d_b.get(), static_cast<int64_t>(b.size()),
                          d_out.get()));
  ASSERT_CUDA(cudaDeviceSynchronize());
  const auto out = d_out.download();
  for (size_t i = a.size() + b.size(); i < out.size(); ++i) ASSERT_EQ(out[i], poisoned<uint32_t>()) << i;
}

TEST(Merge, RejectsBadArguments) {
  size_t bytes = 0;
  uint32_t* none = nullptr;
  EXPECT_EQ(cudaErrorInvalidValue, prim::merge(nullptr, bytes, none, -1, none, 0, none));
  EXPECT_EQ(cudaErrorInvalidValue, prim::merge(nullptr, bytes, none, 0, none, int64_t{1} << 61, none));
  // Scratch below the reported size.
  DeviceBuffer<uint32_t> d_a(std::vector<uint32_t>{1, 2, 3}), d_out(6);
  ASSERT_CUDA(prim::merge(nullptr, bytes, d_a.get(), 3, d_a.get(), 3, d_out.get()));
  DeviceBuffer<unsigned char> d_temp(bytes);
  size_t fewer = bytes - 1;
  EXPECT_EQ(cudaErrorInvalidValue, prim::merge(d_temp.get(), fewer, d_a.get(), 3, d_a.get(), 3, d_out.get()));
  // A missing array.
  EXPECT_EQ(cudaErrorInvalidValue, prim::merge(d_temp.get(), bytes, d_a.get(), 3, none, 3, d_out.get()));
}

TEST(Merge, UnderCudaGraphCapture) {
  const auto a = sorted_keys<uint32_t>(300001, 0, kSeed + 17);
  const auto b = sorted_keys<uint32_t>(200003, 0, kSeed + 18);
  const std::vector<uint32_t> va(a.size(), 1u), vb(b.size(), 2u);
  DeviceBuffer<uint32_t> d_a(a), d_b(b), d_va(va), d_vb(vb), d_out(a.size() + b.size()), d_vout(a.size() + b.size());
  const int64_t na = static_cast<int64_t>(a.size()), nb = static_cast<int64_t>(b.size());
  size_t bytes = 0;
  ASSERT_CUDA(prim::merge_pairs(nullptr, bytes, d_a.get(), d_va.get(), na, d_b.get(), d_vb.get(), nb, d_out.get(),
                                d_vout.get()));
  DeviceBuffer<unsigned char> d_temp(bytes);
  cudaStream_t stream;
  ASSERT_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph;
  ASSERT_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  const cudaError_t call = prim::merge_pairs(d_temp.get(), bytes, d_a.get(), d_va.get(), na, d_b.get(), d_vb.get(),
                                             nb, d_out.get(), d_vout.get(), prim::Less{}, stream);
  ASSERT_CUDA(cudaStreamEndCapture(stream, &graph));
  ASSERT_CUDA(call);
  cudaGraphExec_t exec;
  ASSERT_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 2; ++replay) ASSERT_CUDA(cudaGraphLaunch(exec, stream));
  ASSERT_CUDA(cudaStreamSynchronize(stream));
  std::vector<uint32_t> want(a.size() + b.size()), want_values(a.size() + b.size());
  prim::reference::merge_pairs(a.data(), va.data(), na, b.data(), vb.data(), nb, want.data(), want_values.data());
  EXPECT_EQ(d_out.download(), want);
  EXPECT_EQ(d_vout.download(), want_values);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
}

}  // namespace
