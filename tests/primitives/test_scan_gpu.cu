// inclusive / exclusive scan on the GPU against the C++ reference (primitives/reference/scan_reference.h).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "prim/scan.h"
#include "primitives/test_scan_util.h"
#include "primitives/reference/scan_reference.h"

namespace {

using slabtest::DeviceBuffer;

// An associative but not commutative operator: composition of affine maps x -> a*x + b (mod 2^32).
// (f then g) = (g.a * f.a, g.a * f.b + g.b); a scan that reorders operands gets a different answer.
struct Affine {
  uint32_t a, b;
  bool operator==(const Affine& o) const { return a == o.a && b == o.b; }
};
struct Compose {
  __host__ __device__ Affine operator()(const Affine& f, const Affine& g) const { return {g.a * f.a, g.a * f.b + g.b}; }
};
std::ostream& operator<<(std::ostream& os, const Affine& f) { return os << "(" << f.a << "," << f.b << ")"; }

struct MaxOp {
  __host__ __device__ int32_t operator()(int32_t x, int32_t y) const { return x > y ? x : y; }
};

template <typename T>
std::vector<T> random_values(int64_t n, uint64_t seed, uint32_t modulo) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(rng() % modulo);
  return v;
}

TEST(Scan, ExclusiveAndInclusiveSumAtEdgeSizes) {
  for (int64_t n : slabtest::edge_sizes()) {
    SCOPED_TRACE(n);
    const auto in = random_values<uint32_t>(n, n, 1000);
    DeviceBuffer<uint32_t> d_in(in), d_ex(n), d_inc(n);
    prim::Workspace ws;
    ASSERT_EQ(cudaSuccess, prim::exclusive_sum(ws, d_in.get(), d_ex.get(), n));
    ASSERT_EQ(cudaSuccess, prim::inclusive_sum(ws, d_in.get(), d_inc.get(), n));
    EXPECT_EQ(d_ex.download(), (prim::reference::exclusive_scan<uint32_t>(in, std::plus<uint32_t>{}, 0u)));
    EXPECT_EQ(d_inc.download(), (prim::reference::inclusive_scan<uint32_t>(in, std::plus<uint32_t>{})));
    EXPECT_EQ(d_in.download(), in) << "input changed";
  }
}

TEST(Scan, EmptyInputWritesNothing) {
  DeviceBuffer<uint32_t> d_in(1), d_out(1);
  const uint32_t poison = d_out.download_one();
  size_t bytes = 0;
  ASSERT_EQ(cudaSuccess, prim::exclusive_sum(nullptr, bytes, d_in.get(), d_out.get(), 0));
  ASSERT_GE(bytes, 1u);
  DeviceBuffer<unsigned char> d_temp(bytes);
  ASSERT_EQ(cudaSuccess, prim::exclusive_sum(d_temp.get(), bytes, d_in.get(), d_out.get(), 0));
  ASSERT_EQ(cudaSuccess, prim::inclusive_sum(d_temp.get(), bytes, d_in.get(), d_out.get(), 0));
  ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
  EXPECT_EQ(d_out.download_one(), poison);
}

TEST(Scan, TooLittleScratchIsAnError) {
  const int64_t n = 100000;
  DeviceBuffer<uint32_t> d_in(n), d_out(n);
  size_t bytes = 0;
  ASSERT_EQ(cudaSuccess, prim::exclusive_sum(nullptr, bytes, d_in.get(), d_out.get(), n));
  DeviceBuffer<unsigned char> d_temp(bytes);
  size_t too_few = bytes > 1 ? bytes / 2 : 0;
  EXPECT_EQ(cudaErrorInvalidValue, prim::exclusive_sum(d_temp.get(), too_few, d_in.get(), d_out.get(), n));
  EXPECT_EQ(cudaErrorInvalidValue, prim::exclusive_sum(d_temp.get(), bytes, d_in.get(), d_out.get(), int64_t{-1}));
}

TEST(Scan, NarrowInputsIntoWideSums) {
  // uint8_t flags summed into uint64_t offsets: the accumulator is the output type, so 255 * n does not wrap.
  for (int64_t n : {int64_t(1), int64_t(1025), int64_t(300000)}) {
    const std::vector<uint8_t> in(n, 255);
    DeviceBuffer<uint8_t> d_in(in);
    DeviceBuffer<uint64_t> d_out(n);
    prim::Workspace ws;
    ASSERT_EQ(cudaSuccess, prim::exclusive_sum(ws, d_in.get(), d_out.get(), n));
    EXPECT_EQ(d_out.download(), (prim::reference::exclusive_scan<uint64_t>(in, std::plus<uint64_t>{}, uint64_t{0})));
    ASSERT_EQ(cudaSuccess, prim::inclusive_sum(ws, d_in.get(), d_out.get(), n));
    EXPECT_EQ(d_out.download(), (prim::reference::inclusive_scan<uint64_t>(in, std::plus<uint64_t>{})));
  }
}

TEST(Scan, NonCommutativeOperatorKeepsOperandOrder) {
  for (int64_t n : slabtest::edge_sizes()) {
    SCOPED_TRACE(n);
    std::mt19937_64 rng(n + 5);
    std::vector<Affine> in(n);
    for (auto& f : in) f = Affine{static_cast<uint32_t>(rng()) | 1u, static_cast<uint32_t>(rng())};
    DeviceBuffer<Affine> d_in(in), d_inc(n), d_ex(n);
    prim::Workspace ws;
    ASSERT_EQ(cudaSuccess, prim::inclusive_scan(ws, d_in.get(), d_inc.get(), n, Compose{}));
    ASSERT_EQ(cudaSuccess, prim::exclusive_scan(ws, d_in.get(), d_ex.get(), n, Compose{}, Affine{1, 0}));
    EXPECT_EQ(d_inc.download(), (prim::reference::inclusive_scan<Affine>(in, Compose{})));
    EXPECT_EQ(d_ex.download(), (prim::reference::exclusive_scan<Affine>(in, Compose{}, Affine{1, 0})));
  }
}

TEST(Scan, MaxScanWithNegativeValues) {
  const int64_t n = 70001;
  std::mt19937 rng(3);
  std::vector<int32_t> in(n);
  for (auto& x : in) x = static_cast<int32_t>(rng()) ;
  DeviceBuffer<int32_t> d_in(in), d_out(n);
  prim::Workspace ws;
  ASSERT_EQ(cudaSuccess, prim::inclusive_scan(ws, d_in.get(), d_out.get(), n, MaxOp{}));
  EXPECT_EQ(d_out.download(), (prim::reference::inclusive_scan<int32_t>(in, MaxOp{})));
}

TEST(Scan, InPlace) {
  const int64_t n = 4097;
  const auto in = random_values<uint64_t>(n, 8, 1u << 30);
  DeviceBuffer<uint64_t> d_data(in);
  prim::Workspace ws;
  ASSERT_EQ(cudaSuccess, prim::exclusive_sum(ws, d_data.get(), d_data.get(), n));
  EXPECT_EQ(d_data.download(), (prim::reference::exclusive_scan<uint64_t>(in, std::plus<uint64_t>{}, uint64_t{0})));
}

TEST(Scan, InsideCudaGraphCapture) {
  const int64_t n = 123457;
  const auto in = random_values<uint32_t>(n, 77, 100);
  DeviceBuffer<uint32_t> d_in(in), d_out(n);
  size_t bytes = 0;
  ASSERT_EQ(cudaSuccess, prim::exclusive_sum(nullptr, bytes, d_in.get(), d_out.get(), n));
  DeviceBuffer<unsigned char> d_temp(bytes);
  cudaStream_t stream;
  ASSERT_EQ(cudaSuccess, cudaStreamCreate(&stream));
  cudaGraph_t graph;
  ASSERT_EQ(cudaSuccess, cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  ASSERT_EQ(cudaSuccess, prim::exclusive_sum(d_temp.get(), bytes, d_in.get(), d_out.get(), n, stream));
  ASSERT_EQ(cudaSuccess, cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec;
  ASSERT_EQ(cudaSuccess, cudaGraphInstantiate(&exec, graph, 0));
  ASSERT_EQ(cudaSuccess, cudaGraphLaunch(exec, stream));
  ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(stream));
  EXPECT_EQ(d_out.download(), (prim::reference::exclusive_scan<uint32_t>(in, std::plus<uint32_t>{}, 0u)));
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
}

}  // namespace
