// histogram_buckets / histogram_even on the GPU against the C++ reference.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "prim/histogram.h"
#include "primitives/test_scan_util.h"
#include "primitives/reference/scan_reference.h"

namespace {

using slabtest::DeviceBuffer;

struct LowBits {
  uint32_t mask;
  __host__ __device__ uint32_t operator()(uint32_t k) const { return k & mask; }
};
struct Modulo {  // bucket ids may exceed num_buckets: those are invalid
  uint32_t m;
  __host__ __device__ uint32_t operator()(uint32_t k) const { return k % m; }
};
struct Signed {  // negative ids are invalid, not wrapped
  __host__ __device__ int32_t operator()(int32_t k) const { return k; }
};

std::vector<uint32_t> random_keys(int64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint32_t> v(n);
  for (auto& x : v) x = static_cast<uint32_t>(rng());
  return v;
}

template <typename T, typename Op>
void check_buckets(const std::vector<T>& in, uint32_t num_buckets, Op op) {
  const int64_t n = static_cast<int64_t>(in.size());
  DeviceBuffer<T> d_in(in);
  DeviceBuffer<uint64_t> d_counts(num_buckets), d_invalid(std::vector<uint64_t>{0});
  size_t bytes = 0;
  ASSERT_EQ(cudaSuccess, prim::histogram_buckets(nullptr, bytes, d_in.get(), n, num_buckets, op, d_counts.get()));
  DeviceBuffer<unsigned char> d_temp(bytes);
  ASSERT_EQ(cudaSuccess, prim::histogram_buckets(d_temp.get(), bytes, d_in.get(), n, num_buckets, op, d_counts.get(),
                                                 0, d_invalid.get()));
  uint64_t invalid = 0;
  const auto expected = prim::reference::histogram_buckets(in, num_buckets, op, &invalid);
  EXPECT_EQ(d_counts.download(), expected);
  EXPECT_EQ(d_invalid.download_one(), invalid);
}

TEST(Histogram, BucketsAtEdgeSizes) {
  for (int64_t n : slabtest::edge_sizes()) {
    SCOPED_TRACE(n);
    check_buckets(random_keys(n, n), 256, LowBits{255});
  }
}

TEST(Histogram, AllInOneBucket) {
  check_buckets(std::vector<uint32_t>(100000, 7u << 8), 256, LowBits{255});
  check_buckets(random_keys(5000, 1), 1, LowBits{0});
}

TEST(Histogram, SkewedZipfLikeBuckets) {
  std::mt19937_64 rng(4);
  std::vector<uint32_t> in(200000);
  for (auto& x : in) {
    const double u = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
    x = static_cast<uint32_t>(std::pow(2048.0, u * u * u)) - 1;  // heavily skewed towards 0
  }
  check_buckets(in, 2048, LowBits{2047});
}

TEST(Histogram, ManyBucketsUseTheGlobalPath) {
  check_buckets(random_keys(300000, 2), 1u << 16, LowBits{(1u << 16) - 1});
}

TEST(Histogram, InvalidBucketIdsAreCountedNotStored) {
  check_buckets(random_keys(100001, 3), 200, Modulo{256});
  std::vector<int32_t> in = {0, -1, 3, 4, -100, 2, 5, 1};
  check_buckets(in, 5, Signed{});
  // The Workspace overload reports them as an error.
  DeviceBuffer<int32_t> d_in(in);
  DeviceBuffer<uint64_t> d_counts(5);
  prim::Workspace ws;
  EXPECT_EQ(cudaErrorInvalidValue, prim::histogram_buckets(ws, d_in.get(), 8, 5, Signed{}, d_counts.get()));
  EXPECT_EQ(cudaSuccess, prim::histogram_buckets(ws, d_in.get(), 1, 5, Signed{}, d_counts.get()));
}

TEST(Histogram, EmptyInputZeroesTheCounters) {
  check_buckets(std::vector<uint32_t>{}, 16, LowBits{15});
}

// The size query reports 1 byte; a call with fewer (0) returns cudaErrorInvalidValue and leaves the counters alone,
// as every call of the library does with less scratch than its query reported, although this one uses none.
TEST(Histogram, ScratchBelowTheReportedSizeIsRejected) {
  const auto in = random_keys(1000, 8);
  DeviceBuffer<uint32_t> d_in(in);
  DeviceBuffer<uint64_t> d_counts(16);
  size_t reported = 0;
  ASSERT_EQ(cudaSuccess, prim::histogram_buckets(nullptr, reported, d_in.get(), 1000, 16, LowBits{15}, d_counts.get()));
  EXPECT_EQ(reported, 1u);
  DeviceBuffer<unsigned char> d_temp(1);
  size_t too_few = 0;
  EXPECT_EQ(cudaErrorInvalidValue,
            prim::histogram_buckets(d_temp.get(), too_few, d_in.get(), 1000, 16, LowBits{15}, d_counts.get()));
  ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
  uint64_t poison;
  std::memset(&poison, slabtest::kPoisonByte, sizeof(poison));
  for (uint64_t c : d_counts.download()) ASSERT_EQ(c, poison) << "a rejected call wrote the counters";
  ASSERT_EQ(cudaSuccess,
            prim::histogram_buckets(d_temp.get(), reported, d_in.get(), 1000, 16, LowBits{15}, d_counts.get()));
  EXPECT_EQ(d_counts.download(), prim::reference::histogram_buckets(in, 16, LowBits{15}));
}

TEST(Histogram, EvenBinsOfIntegers) {
  for (int64_t n : {int64_t(0), int64_t(1), int64_t(1000), int64_t(100003)}) {
    std::mt19937 rng(n);
    std::vector<int32_t> in(n);
    for (auto& x : in) x = static_cast<int32_t>(rng() % 1200) - 100;  // some below and above the range
    DeviceBuffer<int32_t> d_in(in);
    DeviceBuffer<int32_t> d_hist(10);
    prim::Workspace ws;
    ASSERT_EQ(cudaSuccess, prim::histogram_even(ws, d_in.get(), n, d_hist.get(), 11, 0, 1000));
    EXPECT_EQ(d_hist.download(), (prim::reference::histogram_even<int32_t>(in, 11, 0, 1000)));
  }
}

TEST(Histogram, InsideCudaGraphCapture) {
  const auto in = random_keys(65537, 6);
  DeviceBuffer<uint32_t> d_in(in);
  DeviceBuffer<uint64_t> d_counts(64);
  size_t bytes = 0;
  ASSERT_EQ(cudaSuccess, prim::histogram_buckets(nullptr, bytes, d_in.get(), 65537, 64, LowBits{63}, d_counts.get()));
  DeviceBuffer<unsigned char> d_temp(bytes);
  cudaStream_t stream;
  ASSERT_EQ(cudaSuccess, cudaStreamCreate(&stream));
  cudaGraph_t graph;
  ASSERT_EQ(cudaSuccess, cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  ASSERT_EQ(cudaSuccess, prim::histogram_buckets(d_temp.get(), bytes, d_in.get(), 65537, 64, LowBits{63},
                                                 d_counts.get(), stream));
  ASSERT_EQ(cudaSuccess, cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec;
  ASSERT_EQ(cudaSuccess, cudaGraphInstantiate(&exec, graph, 0));
  ASSERT_EQ(cudaSuccess, cudaGraphLaunch(exec, stream));
  ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(stream));
  EXPECT_EQ(d_counts.download(), prim::reference::histogram_buckets(in, 64, LowBits{63}));
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
}

}  // namespace
