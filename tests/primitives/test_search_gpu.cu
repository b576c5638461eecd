// prim::lower_bound / prim::upper_bound on the GPU vs the C++ reference, by named property, on both routes: the sweep
// of sorted needles and the sampled search (2^26 needles in 2^26 keys in test_search_large_gpu.cu).
#include <prim/search.h>

#include "common/quick_mode.h"
#include "primitives/test_search_check.h"

namespace {
using namespace search_test;

constexpr uint64_t kSeed = 20260302;
constexpr int64_t kTile = prim::detail::MergePolicyFor<4, 4>::type::TILE_ITEMS;
using SearchAgent = prim::detail::SampledSearchAgent<prim::detail::SearchPolicy, uint32_t, uint32_t,
                                                     prim::detail::BeforeForLowerBound<prim::Less>>;
constexpr int64_t kSamples = SearchAgent::kMaxTop;  // the most top items: a longer haystack gets levels below the top
constexpr int64_t kFanout = SearchAgent::kFanout;
constexpr int64_t kChunk = int64_t{prim::detail::SearchPolicy::kThreads} * prim::detail::SearchPolicy::kNeedlesPerThread;

TEST(Search, EmptyInputs) {
  const std::vector<uint32_t> none, some{1, 2, 3, 5, 8};
  check_both_bounds_and_orders(none, none);
  check_both_bounds_and_orders(none, some);  // every result 0
  check_both_bounds_and_orders(some, none);
}

TEST(Search, OneItem) {
  for (uint32_t needle : {0u, 4u, 5u, 6u}) check_both_bounds_and_orders(std::vector<uint32_t>{5}, std::vector<uint32_t>{needle});
}

// Haystack sizes around the warp, the block, the sweep's tile, the most top items and their multiples by the fanout
// (where the sampled search gains a level), and 2^k +- 1; needles as many (the sweep) and far fewer (the sampled search even when sorted).
class SearchSizes : public ::testing::TestWithParam<int64_t> {};

TEST_P(SearchSizes, MatchesReference) {
  const int64_t h = GetParam();
  if (h > (int64_t{1} << 20) + 1 && slabtest::quick_mode()) GTEST_SKIP() << "SLABCAST_TEST_QUICK: size " << h;
  const uint64_t seed = kSeed + static_cast<uint64_t>(h);
  // Keys from a range of about 2h: some needles hit haystack items, some fall between them, some repeat.
  const uint64_t range = 2 * static_cast<uint64_t>(h) + 3;
  const auto haystack = random_keys<uint32_t>(static_cast<size_t>(h), range, seed, true);
  for (int64_t n : {h, h / 40 + 1, int64_t{33}}) {
    check_both_bounds_and_orders(haystack, random_keys<uint32_t>(static_cast<size_t>(n), range + 10, seed + 1, false),
                                 prim::Less{}, seed);
  }
}

INSTANTIATE_TEST_SUITE_P(Search, SearchSizes,
                         ::testing::Values(1, 2, 31, 32, 33, 255, 256, 257, kTile - 1, kTile, kTile + 1, kSamples - 1,
                                           kSamples, kSamples + 1, 2 * kSamples + 1, 3 * kSamples - 1, kChunk + 1,
                                           (1 << 16) - 1, 1 << 16, (1 << 16) + 1, kSamples * kFanout - 1,
                                           kSamples * kFanout, kSamples * kFanout + 1, (1 << 20) + 1,
                                           kSamples * kFanout * kFanout - 1, kSamples * kFanout * kFanout + 1,
                                           (int64_t{1} << 22) - 1));

// Needles below the smallest and above the largest item, on either side of runs of equal items, and a haystack of one
// repeated key: the bounds differ by the run's length.
TEST(Search, NeedlesOutsideAndAtRunsOfEqualItems) {
  std::vector<uint32_t> haystack;
  for (uint32_t k = 10; k < 60000; k += 10) haystack.insert(haystack.end(), 1 + k % 7, k);
  std::vector<uint32_t> needles;
  for (uint32_t k = 0; k < 60020; k += 3) needles.push_back(k);
  needles.push_back(0);
  needles.push_back(~0u);
  check_both_bounds_and_orders(haystack, needles);
  check_both_bounds_and_orders(std::vector<uint32_t>(100003, 42u), std::vector<uint32_t>{0, 41, 42, 43, ~0u, 42});
  check_both_bounds_and_orders(std::vector<uint32_t>(100003, 42u), random_keys<uint32_t>(300000, 100, kSeed + 1, false));
}

// Skewed needles: all in one stretch between two samples, all equal, and many needles for a few haystack items.
TEST(Search, SkewedNeedles) {
  const auto haystack = random_keys<uint32_t>(1000003, 0, kSeed + 2, true);
  std::vector<uint32_t> narrow = random_keys<uint32_t>(200000, 1000, kSeed + 3, false);
  for (auto& k : narrow) k += haystack[500000];
  check_both_bounds_and_orders(haystack, narrow);
  check_both_bounds_and_orders(haystack, std::vector<uint32_t>(50000, haystack[123456]));
  check_both_bounds_and_orders(random_keys<uint32_t>(100, 1000, kSeed + 4, true),
                               random_keys<uint32_t>(300001, 1100, kSeed + 5, false));
}

// Each route on its own: sorted needles far fewer than the haystack take the sampled search; as many, the sweep.
TEST(Search, BothRoutesOnSortedNeedles) {
  const auto haystack = random_keys<uint32_t>(1 << 20, 0, kSeed + 6, true);
  SearchOptions sorted;
  sorted.order = prim::NeedleOrder::sorted;
  const auto few = random_keys<uint32_t>(1000, 0, kSeed + 7, true);
  ASSERT_FALSE(prim::detail::search_sweeps(sorted.order, 1 << 20, 1000));
  check_search<Bound::lower>(haystack, few, sorted);
  const auto many = random_keys<uint32_t>(1 << 20, 0, kSeed + 8, true);
  ASSERT_TRUE(prim::detail::search_sweeps(sorted.order, 1 << 20, 1 << 20));
  check_search<Bound::upper>(haystack, many, sorted);
}

// An extended lambda as the comparator (a free function: a test body may not hold one).
void check_with_a_lambda(const std::vector<uint32_t>& haystack, const std::vector<uint32_t>& needles) {
  auto descending = [] __host__ __device__(uint32_t x, uint32_t y) { return x > y; };
  check_both_bounds_and_orders(haystack, needles, descending);
}

TEST(Search, AnyComparatorKeyAndIndexType) {
  const auto haystack = random_keys<uint32_t>(123457, 200000, kSeed + 9, true, Greater{});
  const auto needles = random_keys<uint32_t>(65537, 210000, kSeed + 10, false);
  check_both_bounds_and_orders(haystack, needles, Greater{});
  check_with_a_lambda(haystack, needles);
  const auto hay64 = random_keys<uint64_t>(300001, 0, kSeed + 11, true);
  auto needles64 = random_keys<uint64_t>(200001, 0, kSeed + 12, false);
  for (size_t i = 0; i < needles64.size(); i += 3) needles64[i] = hay64[i];  // some exact hits
  check_both_bounds_and_orders(hay64, needles64);
  check_search<Bound::lower, int32_t>(hay64, needles64);
  check_search<Bound::upper, uint64_t>(hay64, needles64);
  check_search<Bound::lower, int64_t>(haystack, needles, {}, Greater{});
}

TEST(Search, RejectsAnIndexTypeTooNarrowForTheHaystack) {
  size_t bytes = 0;
  uint32_t* none = nullptr;
  uint8_t* out = nullptr;
  EXPECT_EQ(cudaErrorInvalidValue, prim::lower_bound(nullptr, bytes, none, 256, none, 10, out));
  EXPECT_EQ(cudaSuccess, prim::lower_bound(nullptr, bytes, none, 255, none, 10, out));
  EXPECT_EQ(cudaErrorInvalidValue, prim::upper_bound(nullptr, bytes, none, -1, none, 10, out));
}

TEST(Search, DeviceResidentCounts) {
  for (int64_t n : {int64_t{0}, int64_t{1}, kTile + 1, int64_t{100000}}) {
    SCOPED_TRACE(n);
    const auto haystack = random_keys<uint32_t>(static_cast<size_t>(n) * 2 + 5, 0, kSeed + 13, true);
    const auto needles = random_keys<uint32_t>(static_cast<size_t>(n), 0, kSeed + 14, true);
    for (prim::NeedleOrder order : {prim::NeedleOrder::any, prim::NeedleOrder::sorted}) {
      SearchOptions opt;
      opt.order = order;
      opt.device_counts = true;
      opt.slack = 3 * kTile + 5;
      check_search<Bound::lower>(haystack, needles, opt);
      check_search<Bound::upper>(haystack, needles, opt);
    }
  }
}

// A device count far below its bound has fewer levels of samples than the bound, at other offsets in the scratch:
// the search must take its own levels, not the bound's. Haystacks whose top is the haystack itself, one level above
// it, and two, each under the bound of a haystack with levels more.
TEST(Search, DeviceCountsFarBelowTheBoundTakeTheirOwnLevels) {
  const auto needles = random_keys<uint32_t>(50000, 0, kSeed + 22, false);
  for (int64_t h : {kSamples, kSamples * kFanout - 1, kSamples * kFanout + 1}) {
    SCOPED_TRACE(h);
    const auto haystack = random_keys<uint32_t>(static_cast<size_t>(h), 0, kSeed + 21, true);
    SearchOptions opt;
    opt.device_counts = true;
    opt.slack = h * kFanout;
    check_search<Bound::lower>(haystack, needles, opt);
    check_search<Bound::upper>(haystack, needles, opt);
  }
}

// A haystack that does not start on a 16-byte boundary (its leaf nodes are read an item at a time), and keys of 12
// bytes (no node is whole 16-byte words), through levels of samples.
struct Key12 {
  uint32_t hi, mid, lo;
  __host__ __device__ bool operator==(const Key12& o) const { return hi == o.hi && mid == o.mid && lo == o.lo; }
};
struct Key12Less {
  __host__ __device__ bool operator()(const Key12& a, const Key12& b) const {
    if (a.hi != b.hi) return a.hi < b.hi;
    if (a.mid != b.mid) return a.mid < b.mid;
    return a.lo < b.lo;
  }
};

TEST(Search, UnalignedHaystackAndTwelveByteKeys) {
  const auto haystack = random_keys<uint32_t>(kSamples * kFanout * 3 + 7, 0, kSeed + 23, true);
  const auto needles = random_keys<uint32_t>(70001, 0, kSeed + 24, false);
  SearchOptions unaligned;
  unaligned.haystack_offset = 1;
  check_search<Bound::lower>(haystack, needles, unaligned);
  check_search<Bound::upper>(haystack, needles, unaligned);

  std::vector<Key12> hay12(300007), needles12(100003);
  std::mt19937_64 rng(kSeed + 25);
  for (auto& k : hay12) k = Key12{static_cast<uint32_t>(rng() % 50), static_cast<uint32_t>(rng() % 1000),
                                  static_cast<uint32_t>(rng())};
  std::sort(hay12.begin(), hay12.end(), Key12Less{});
  for (size_t i = 0; i < needles12.size(); ++i) {
    needles12[i] = i % 4 == 0 ? hay12[rng() % hay12.size()]  // exact hits, some in runs of equal hi and mid
                              : Key12{static_cast<uint32_t>(rng() % 52), static_cast<uint32_t>(rng() % 1000),
                                      static_cast<uint32_t>(rng())};
  }
  check_search<Bound::lower>(hay12, needles12, {}, Key12Less{});
  check_search<Bound::upper>(hay12, needles12, unaligned, Key12Less{});
}

// A device count above its bound: nothing is written, the count is added to the invalid counter, and the Workspace
// overload reports cudaErrorInvalidValue; on both routes.
TEST(Search, DeviceCountAboveBoundWritesNothing) {
  const auto keys = random_keys<uint32_t>(5000, 0, kSeed + 15, true);
  DeviceBuffer<uint32_t> d_hay(keys), d_needles(keys), d_out(5000);
  for (prim::NeedleOrder order : {prim::NeedleOrder::any, prim::NeedleOrder::sorted}) {
    DeviceBuffer<uint64_t> d_scalars(std::vector<uint64_t>{0, 7000, 4000});  // invalid, haystack (> 5000), needles
    const prim::ItemCount h(5000, d_scalars.get() + 1), n(5000, d_scalars.get() + 2);
    size_t bytes = 0;
    ASSERT_CUDA(prim::lower_bound(nullptr, bytes, d_hay.get(), h, d_needles.get(), n, d_out.get(), prim::Less{}, 0,
                                  order));
    DeviceBuffer<unsigned char> d_temp(bytes);
    ASSERT_CUDA(prim::lower_bound(d_temp.get(), bytes, d_hay.get(), h, d_needles.get(), n, d_out.get(), prim::Less{},
                                  0, order, d_scalars.get()));
    ASSERT_CUDA(cudaDeviceSynchronize());
    EXPECT_EQ(d_scalars.download_one(0), 7000u);
    for (uint32_t v : d_out.download()) ASSERT_EQ(v, poisoned<uint32_t>()) << "written with an invalid count";
    prim::Workspace ws;
    EXPECT_EQ(cudaErrorInvalidValue,
              prim::upper_bound(ws, d_hay.get(), h, d_needles.get(), n, d_out.get(), prim::Less{}, 0, order));
  }
}

// Needles claimed sorted but not: the results are unspecified, but the call must neither fail nor write past the
// needles' results.
TEST(Search, UnsortedNeedlesClaimedSortedStayInsideTheArrays) {
  const auto haystack = random_keys<uint32_t>(200001, 0, kSeed + 16, true);
  const auto needles = random_keys<uint32_t>(100003, 0, kSeed + 17, false);
  DeviceBuffer<uint32_t> d_hay(haystack), d_needles(needles), d_out(needles.size() + 1000);
  prim::Workspace ws;
  ASSERT_CUDA(prim::lower_bound(ws, d_hay.get(), static_cast<int64_t>(haystack.size()), d_needles.get(),
                                static_cast<int64_t>(needles.size()), d_out.get(), prim::Less{}, 0,
                                prim::NeedleOrder::sorted));
  ASSERT_CUDA(cudaDeviceSynchronize());
  const auto out = d_out.download();
  for (size_t i = needles.size(); i < out.size(); ++i) ASSERT_EQ(out[i], poisoned<uint32_t>()) << i;
}

TEST(Search, ScratchBelowTheReportedSizeIsRejected) {
  const auto keys = random_keys<uint32_t>(1000, 0, kSeed + 18, true);
  DeviceBuffer<uint32_t> d_keys(keys), d_out(1000);
  for (prim::NeedleOrder order : {prim::NeedleOrder::any, prim::NeedleOrder::sorted}) {
    size_t bytes = 0;
    ASSERT_CUDA(prim::lower_bound(nullptr, bytes, d_keys.get(), 1000, d_keys.get(), 1000, d_out.get(), prim::Less{},
                                  0, order));
    DeviceBuffer<unsigned char> d_temp(bytes);
    size_t fewer = bytes - 1;
    EXPECT_EQ(cudaErrorInvalidValue, prim::lower_bound(d_temp.get(), fewer, d_keys.get(), 1000, d_keys.get(), 1000,
                                                       d_out.get(), prim::Less{}, 0, order));
  }
}

TEST(Search, UnderCudaGraphCapture) {
  const auto haystack = random_keys<uint32_t>(300001, 0, kSeed + 19, true);
  const auto needles = random_keys<uint32_t>(200003, 0, kSeed + 20, true);
  const int64_t h = static_cast<int64_t>(haystack.size()), n = static_cast<int64_t>(needles.size());
  DeviceBuffer<uint32_t> d_hay(haystack), d_needles(needles), d_lower(needles.size()), d_upper(needles.size());
  size_t bytes_sweep = 0, bytes_sampled = 0;
  ASSERT_CUDA(prim::lower_bound(nullptr, bytes_sweep, d_hay.get(), h, d_needles.get(), n, d_lower.get(), prim::Less{},
                                0, prim::NeedleOrder::sorted));
  ASSERT_CUDA(prim::upper_bound(nullptr, bytes_sampled, d_hay.get(), h, d_needles.get(), n, d_upper.get()));
  DeviceBuffer<unsigned char> d_temp(std::max(bytes_sweep, bytes_sampled));
  cudaStream_t stream;
  ASSERT_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph;
  ASSERT_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  const cudaError_t lower = prim::lower_bound(d_temp.get(), bytes_sweep, d_hay.get(), h, d_needles.get(), n,
                                              d_lower.get(), prim::Less{}, stream, prim::NeedleOrder::sorted);
  const cudaError_t upper = prim::upper_bound(d_temp.get(), bytes_sampled, d_hay.get(), h, d_needles.get(), n,
                                              d_upper.get(), prim::Less{}, stream);
  ASSERT_CUDA(cudaStreamEndCapture(stream, &graph));
  ASSERT_CUDA(lower);
  ASSERT_CUDA(upper);
  cudaGraphExec_t exec;
  ASSERT_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 2; ++replay) ASSERT_CUDA(cudaGraphLaunch(exec, stream));
  ASSERT_CUDA(cudaStreamSynchronize(stream));
  std::vector<uint32_t> want_lower(needles.size()), want_upper(needles.size());
  prim::reference::lower_bound(haystack.data(), h, needles.data(), n, want_lower.data());
  prim::reference::upper_bound(haystack.data(), h, needles.data(), n, want_upper.data());
  EXPECT_EQ(d_lower.download(), want_lower);
  EXPECT_EQ(d_upper.download(), want_upper);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
}

}  // namespace
