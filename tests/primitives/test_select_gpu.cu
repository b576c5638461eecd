// select_if / select_flagged / select_unique / partition_if on the GPU vs the C++ reference, by named property (2^26
// items in test_select_large_gpu.cu).
#include <prim/select.h>

#include "common/quick_mode.h"
#include "primitives/test_select_check.h"

namespace {
using namespace select_test;
using split_test::Rec16;
using split_test::Rec64;
using split_test::Rec8;

constexpr uint64_t kSeed = 20260303;
constexpr int64_t kTile = prim::detail::SelectPolicyFor<4>::TILE_ITEMS;
constexpr int64_t kWarpItems = prim::detail::SelectPolicyFor<4>::WARP_ITEMS;
constexpr int64_t kBlock = prim::detail::SelectPolicyFor<4>::BLOCK_THREADS;
// select_flagged's tiles have a shape of their own.
constexpr int64_t kFlagTile = prim::detail::SelectPolicyFor<4, true>::TILE_ITEMS;
constexpr int64_t kFlagWarpItems = prim::detail::SelectPolicyFor<4, true>::WARP_ITEMS;
constexpr int64_t kFlagBlock = prim::detail::SelectPolicyFor<4, true>::BLOCK_THREADS;
// select_unique's rows: 32 lanes of VEC consecutive items each.
constexpr int64_t kUniqueRow = 32 * prim::detail::SelectPolicyFor<4, false, true>::VEC;
static_assert(kUniqueRow > 32, "the sizes below cover rows of more than one item a lane");

TEST(Select, EmptyInput) { check_all_calls(std::vector<uint32_t>{}, std::vector<uint8_t>{}, 5); }

TEST(Select, OneItem) {
  for (uint32_t key : {0u, 9u}) check_all_calls(std::vector<uint32_t>{key}, std::vector<uint8_t>{key ? uint8_t(1) : uint8_t(0)}, 5);
}

// Sizes around the warp, a row of a lane's consecutive items, a warp's stretch, the block and the tile, and 2^k +- 1;
// half the items selected, runs of a few equal keys.
class SelectSizes : public ::testing::TestWithParam<int64_t> {};

TEST_P(SelectSizes, MatchesReference) {
  const int64_t n = GetParam();
  if (n > (int64_t{1} << 20) + 1 && slabtest::quick_mode()) GTEST_SKIP() << "SLABCAST_TEST_QUICK: size " << n;
  const uint64_t seed = kSeed + static_cast<uint64_t>(n);
  check_all_calls(random_keys(static_cast<size_t>(n), 4, seed), random_flags(static_cast<size_t>(n), 2, seed + 1), 2);
}

INSTANTIATE_TEST_SUITE_P(Select, SelectSizes,
                         ::testing::Values(2, 31, 32, 33, kUniqueRow - 1, kUniqueRow + 1, kUniqueRow + 3,
                                           2 * kUniqueRow + 1, kBlock - 1, kBlock, kBlock + 1, kWarpItems - 1,
                                           kWarpItems, kWarpItems + 1, kTile - 1, kTile, kTile + 1, 2 * kTile + 31,
                                           kFlagBlock - 1, kFlagBlock + 1, kFlagWarpItems - 1, kFlagWarpItems + 1,
                                           kFlagTile - 1, kFlagTile, kFlagTile + 1, 2 * kFlagTile + 31,
                                           (1 << 16) - 1, 1 << 16, (1 << 16) + 1, (1 << 20) + 1,
                                           (int64_t{1} << 22) - 1));

// Input and flags that start off the alignment of a lane's run of items: select_unique loads them one at a time,
// with the same answers (and so do the others).
TEST(Select, MisalignedInputs) {
  for (int64_t offset : {1, 2, 3}) {
    SCOPED_TRACE(offset);
    const size_t n = 3 * kTile + 77;
    SelectOptions opt;
    opt.in_offset = offset;
    check_all_calls(random_keys(n, 4, kSeed + 20 + offset), random_flags(n, 2, kSeed + 30 + offset), 2, opt);
    const std::vector<Rec8> records = split_test::make_records<Rec8>(random_keys(n, 6, kSeed + 40 + offset));
    check_select(Call::select_unique, records, random_flags(n, 3, kSeed + 50), KeyBelow{3}, SameKey{}, opt);
  }
}

// None selected, all selected, one at each end, one in the middle of a later tile.
TEST(Select, NoneAllAndSingleItems) {
  const size_t n = 5 * kTile + 123;
  const std::vector<uint32_t> ones(n, 1u);
  check_all_calls(ones, std::vector<uint8_t>(n, 0), 0);  // nothing selected (select_unique: one run)
  check_all_calls(ones, std::vector<uint8_t>(n, 1), 2);  // everything selected
  for (size_t at : {size_t{0}, n / 2 + 7, n - 1}) {
    SCOPED_TRACE(at);
    std::vector<uint32_t> keys(n, 7u);
    keys[at] = 1;
    std::vector<uint8_t> flags(n, 0);
    flags[at] = 1;
    check_all_calls(keys, flags, 5);
  }
}

// Skewed: selected items only in the last tile, long runs (sorted keys), every item its own run, and the selected
// fraction from 1/1000 to 999/1000.
TEST(Select, SkewedInputs) {
  const size_t n = 9 * kTile + 17;
  std::vector<uint32_t> keys(n, 100u);
  std::vector<uint8_t> flags(n, 0);
  for (size_t i = n - kTile / 2; i < n; i += 3) keys[i] = 1, flags[i] = 1;
  check_all_calls(keys, flags, 50);
  std::vector<uint32_t> sorted = random_keys(n, 300, kSeed + 1);
  std::sort(sorted.begin(), sorted.end());
  check_all_calls(sorted, random_flags(n, 97, kSeed + 2), 150);
  std::vector<uint32_t> distinct(n);
  for (size_t i = 0; i < n; ++i) distinct[i] = static_cast<uint32_t>(i);
  check_all_calls(distinct, random_flags(n, 1, kSeed + 3), static_cast<uint32_t>(n / 3));
  for (uint32_t threshold : {1u, 500u, 999u}) {
    SCOPED_TRACE(threshold);
    check_all_calls(random_keys(300001, 1000, kSeed + threshold), random_flags(300001, 1000 / threshold, kSeed + 4),
                    threshold);
  }
}

// Records of 8, 16 and 64 bytes carrying their input position: every output keeps input order (compared exactly with
// the reference); select_unique compares keys only, so a run's first record (its smallest id) must be the one kept.
template <class R>
void check_records(size_t n, uint64_t seed) {
  const std::vector<R> in = split_test::make_records<R>(random_keys(n, 6, seed));
  const std::vector<uint8_t> flags = random_flags(n, 3, seed + 1);
  for (Call call : {Call::select_if, Call::select_flagged, Call::select_unique, Call::partition_if}) {
    check_select(call, in, flags, KeyBelow{3}, SameKey{});
  }
}

TEST(Select, IsStableForRecordsOfAnySize) {
  check_records<Rec8>(100003, kSeed + 5);
  check_records<Rec16>(3 * kTile + 5, kSeed + 6);
  check_records<Rec64>(20011, kSeed + 7);
}

TEST(Select, FlagsOfOtherTypes) {
  const std::vector<uint32_t> keys = random_keys(70001, 1000, kSeed + 8);
  std::vector<int32_t> flags(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) flags[i] = keys[i] % 3 == 0 ? -static_cast<int32_t>(keys[i]) - 1 : 0;
  DeviceBuffer<uint32_t> d_in(keys), d_out(keys.size());
  DeviceBuffer<int32_t> d_flags(flags);
  DeviceBuffer<uint64_t> d_count(1);
  prim::Workspace ws;
  ASSERT_CUDA(prim::select_flagged(ws, d_in.get(), d_flags.get(), d_out.get(), d_count.get(),
                                   static_cast<int64_t>(keys.size())));
  std::vector<uint32_t> want(keys.size());
  const uint64_t s = prim::reference::select_flagged(keys.data(), flags.data(), static_cast<int64_t>(keys.size()),
                                                     want.data());
  ASSERT_EQ(d_count.download_one(), s);
  const std::vector<uint32_t> got = d_out.download(s);
  want.resize(s);
  EXPECT_EQ(got, want);
}

// An extended lambda as the predicate (a free function: a test body may not hold one).
void check_with_a_lambda(const std::vector<uint32_t>& keys) {
  auto odd = [] __host__ __device__(uint32_t x) { return (x & 1u) != 0; };
  check_select(Call::select_if, keys, std::vector<uint8_t>(keys.size(), 0), odd);
  check_select(Call::partition_if, keys, std::vector<uint8_t>(keys.size(), 0), odd);
}

TEST(Select, AnyPredicate) { check_with_a_lambda(random_keys(123457, 1u << 30, kSeed + 9)); }

TEST(Select, DeviceResidentCount) {
  for (int64_t n : {int64_t{0}, int64_t{1}, kTile + 1, int64_t{100000}}) {
    SCOPED_TRACE(n);
    SelectOptions opt;
    opt.device_count = true;
    opt.slack = 3 * kTile + 5;
    check_all_calls(random_keys(static_cast<size_t>(n), 4, kSeed + 10), random_flags(static_cast<size_t>(n), 2, kSeed),
                    2, opt);
  }
}

// A device count above its bound: nothing written, a count of 0, the count added to the invalid counter, and the
// Workspace overload's cudaErrorInvalidValue; for every call.
TEST(Select, DeviceCountAboveBoundWritesNothing) {
  const std::vector<uint32_t> keys = random_keys(5000, 4, kSeed + 11);
  DeviceBuffer<uint32_t> d_in(keys), d_sel(5000), d_rej(5000);
  DeviceBuffer<uint8_t> d_flags(std::vector<uint8_t>(5000, 1));
  for (Call call : {Call::select_if, Call::select_flagged, Call::select_unique, Call::partition_if}) {
    SCOPED_TRACE(call_name(call));
    DeviceBuffer<uint64_t> d_scalars(std::vector<uint64_t>{0, 6000, 77});  // invalid, the count (> 5000), selected
    const prim::ItemCount n(5000, d_scalars.get() + 1);
    uint64_t* selected = d_scalars.get() + 2;
    auto run = [&](void* d_temp, size_t& bytes, uint64_t* invalid) {
      switch (call) {
        case Call::select_if:
          return prim::select_if(d_temp, bytes, d_in.get(), d_sel.get(), selected, n, KeyBelow{2}, 0, invalid);
        case Call::select_flagged:
          return prim::select_flagged(d_temp, bytes, d_in.get(), d_flags.get(), d_sel.get(), selected, n, 0, invalid);
        case Call::select_unique:
          return prim::select_unique(d_temp, bytes, d_in.get(), d_sel.get(), selected, n, prim::EqualTo{}, 0, invalid);
        default:
          return prim::partition_if(d_temp, bytes, d_in.get(), d_sel.get(), d_rej.get(), selected, n, KeyBelow{2}, 0,
                                    invalid);
      }
    };
    size_t bytes = 0;
    ASSERT_CUDA(run(nullptr, bytes, nullptr));
    DeviceBuffer<unsigned char> d_temp(bytes);
    ASSERT_CUDA(run(d_temp.get(), bytes, d_scalars.get()));
    ASSERT_CUDA(cudaDeviceSynchronize());
    const std::vector<uint64_t> scalars = d_scalars.download();
    EXPECT_EQ(scalars[0], 6000u);
    EXPECT_EQ(scalars[2], 0u);
    for (uint32_t v : d_sel.download()) ASSERT_EQ(v, poisoned<uint32_t>()) << "written with an invalid count";
    for (uint32_t v : d_rej.download()) ASSERT_EQ(v, poisoned<uint32_t>()) << "written with an invalid count";
  }
  prim::Workspace ws;
  DeviceBuffer<uint64_t> d_scalars(std::vector<uint64_t>{6000, 0});
  EXPECT_EQ(cudaErrorInvalidValue, prim::select_if(ws, d_in.get(), d_sel.get(), d_scalars.get() + 1,
                                                   prim::ItemCount(5000, d_scalars.get()), KeyBelow{2}));
  EXPECT_EQ(cudaSuccess, prim::select_if(ws, d_in.get(), d_sel.get(), d_scalars.get() + 1, 5000, KeyBelow{2}));
}

TEST(Select, RejectsBadArguments) {
  size_t bytes = 0;
  uint32_t* none = nullptr;
  uint64_t* count = nullptr;
  EXPECT_EQ(cudaErrorInvalidValue, prim::select_if(nullptr, bytes, none, none, count, -1, KeyBelow{1}));
  const std::vector<uint32_t> keys = random_keys(1000, 4, kSeed + 12);
  DeviceBuffer<uint32_t> d_in(keys), d_out(1000);
  DeviceBuffer<uint64_t> d_count(1);
  ASSERT_CUDA(prim::partition_if(nullptr, bytes, d_in.get(), d_out.get(), d_out.get(), d_count.get(), 1000,
                                 KeyBelow{2}));
  DeviceBuffer<unsigned char> d_temp(bytes);
  size_t fewer = bytes - 1;
  EXPECT_EQ(cudaErrorInvalidValue, prim::partition_if(d_temp.get(), fewer, d_in.get(), d_out.get(), d_out.get(),
                                                      d_count.get(), 1000, KeyBelow{2}));
  EXPECT_EQ(cudaErrorInvalidValue, prim::partition_if(d_temp.get(), bytes, d_in.get(), d_out.get(), none,
                                                      d_count.get(), 1000, KeyBelow{2}));
  const uint8_t* no_flags = nullptr;
  EXPECT_EQ(cudaErrorInvalidValue, prim::select_flagged(d_temp.get(), bytes, d_in.get(), no_flags, d_out.get(),
                                                        d_count.get(), 1000));
}

// Captured in a graph and replayed twice: the look-back words and the claim counter are zeroed by the graph's memset
// node on each replay.
TEST(Select, UnderCudaGraphCapture) {
  const std::vector<uint32_t> keys = random_keys(300001, 4, kSeed + 13);
  const int64_t n = static_cast<int64_t>(keys.size());
  DeviceBuffer<uint32_t> d_in(keys), d_sel(keys.size()), d_rej(keys.size()), d_unique(keys.size());
  DeviceBuffer<uint64_t> d_counts(2);
  size_t b1 = 0, b2 = 0;
  ASSERT_CUDA(prim::partition_if(nullptr, b1, d_in.get(), d_sel.get(), d_rej.get(), d_counts.get(), n, KeyBelow{2}));
  ASSERT_CUDA(prim::select_unique(nullptr, b2, d_in.get(), d_unique.get(), d_counts.get() + 1, n));
  DeviceBuffer<unsigned char> d_temp1(b1), d_temp2(b2);
  cudaStream_t stream;
  ASSERT_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph;
  ASSERT_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  const cudaError_t first = prim::partition_if(d_temp1.get(), b1, d_in.get(), d_sel.get(), d_rej.get(), d_counts.get(),
                                               n, KeyBelow{2}, stream);
  const cudaError_t second = prim::select_unique(d_temp2.get(), b2, d_in.get(), d_unique.get(), d_counts.get() + 1, n,
                                                 prim::EqualTo{}, stream);
  ASSERT_CUDA(cudaStreamEndCapture(stream, &graph));
  ASSERT_CUDA(first);
  ASSERT_CUDA(second);
  cudaGraphExec_t exec;
  ASSERT_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 2; ++replay) ASSERT_CUDA(cudaGraphLaunch(exec, stream));
  ASSERT_CUDA(cudaStreamSynchronize(stream));
  std::vector<uint32_t> want_sel(keys.size()), want_rej(keys.size()), want_unique(keys.size());
  const uint64_t s = prim::reference::partition_if(keys.data(), n, want_sel.data(), want_rej.data(), KeyBelow{2});
  const uint64_t u = prim::reference::select_unique(keys.data(), n, want_unique.data());
  const std::vector<uint64_t> counts = d_counts.download();
  ASSERT_EQ(counts[0], s);
  ASSERT_EQ(counts[1], u);
  want_sel.resize(s);
  want_rej.resize(keys.size() - s);
  want_unique.resize(u);
  EXPECT_EQ(d_sel.download(s), want_sel);
  EXPECT_EQ(d_rej.download(keys.size() - s), want_rej);
  EXPECT_EQ(d_unique.download(u), want_unique);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
}

}  // namespace
