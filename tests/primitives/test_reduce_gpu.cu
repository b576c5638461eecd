// reduce (sum / min / max / custom) on the GPU against the C++ reference.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "prim/reduce.h"
#include "primitives/test_scan_util.h"
#include "primitives/reference/scan_reference.h"

namespace {

using slabtest::DeviceBuffer;

struct BitOr {
  __host__ __device__ uint32_t operator()(uint32_t a, uint32_t b) const { return a | b; }
};
struct Min {
  __host__ __device__ int64_t operator()(int64_t a, int64_t b) const { return a < b ? a : b; }
};
struct Max {
  __host__ __device__ int64_t operator()(int64_t a, int64_t b) const { return a > b ? a : b; }
};

TEST(Reduce, SumMinMaxAtEdgeSizes) {
  for (int64_t n : slabtest::edge_sizes()) {
    if (n == 0) continue;  // see EmptyInput
    SCOPED_TRACE(n);
    std::mt19937_64 rng(n);
    std::vector<int64_t> in(n);
    for (auto& x : in) x = static_cast<int64_t>(rng() % 2000001) - 1000000;
    DeviceBuffer<int64_t> d_in(in), d_sum(1), d_min(1), d_max(1);
    prim::Workspace ws;
    ASSERT_EQ(cudaSuccess, prim::reduce_sum(ws, d_in.get(), d_sum.get(), n));
    ASSERT_EQ(cudaSuccess, prim::reduce_min(ws, d_in.get(), d_min.get(), n));
    ASSERT_EQ(cudaSuccess, prim::reduce_max(ws, d_in.get(), d_max.get(), n));
    EXPECT_EQ(d_sum.download_one(), (prim::reference::reduce<int64_t>(in, std::plus<int64_t>{}, int64_t{0})));
    EXPECT_EQ(d_min.download_one(), (prim::reference::reduce<int64_t>(in, Min{}, std::numeric_limits<int64_t>::max())));
    EXPECT_EQ(d_max.download_one(), (prim::reference::reduce<int64_t>(in, Max{}, std::numeric_limits<int64_t>::lowest())));
    EXPECT_EQ(d_in.download(), in) << "input changed";
  }
}

TEST(Reduce, EmptyInputGivesTheIdentityOrInit) {
  DeviceBuffer<int64_t> d_in(1), d_out(1);
  prim::Workspace ws;
  ASSERT_EQ(cudaSuccess, prim::reduce_sum(ws, d_in.get(), d_out.get(), 0));
  EXPECT_EQ(d_out.download_one(), 0);
  ASSERT_EQ(cudaSuccess, prim::reduce_min(ws, d_in.get(), d_out.get(), 0));
  EXPECT_EQ(d_out.download_one(), std::numeric_limits<int64_t>::max());
  ASSERT_EQ(cudaSuccess, prim::reduce_max(ws, d_in.get(), d_out.get(), 0));
  EXPECT_EQ(d_out.download_one(), std::numeric_limits<int64_t>::lowest());
  ASSERT_EQ(cudaSuccess, prim::reduce(ws, d_in.get(), d_out.get(), 0, Max{}, int64_t{42}));
  EXPECT_EQ(d_out.download_one(), 42);
}

TEST(Reduce, CustomOperatorAndInit) {
  const int64_t n = 100003;
  std::mt19937 rng(9);
  std::vector<uint32_t> in(n);
  for (auto& x : in) x = 1u << (rng() % 31);
  DeviceBuffer<uint32_t> d_in(in), d_out(1);
  prim::Workspace ws;
  ASSERT_EQ(cudaSuccess, prim::reduce(ws, d_in.get(), d_out.get(), n, BitOr{}, 0x80000000u));
  EXPECT_EQ(d_out.download_one(), (prim::reference::reduce<uint32_t>(in, BitOr{}, 0x80000000u)));
}

TEST(Reduce, NarrowInputsIntoAWideSum) {
  const int64_t n = 1000003;
  const std::vector<uint8_t> in(n, 200);
  DeviceBuffer<uint8_t> d_in(in);
  DeviceBuffer<uint64_t> d_out(1);
  prim::Workspace ws;
  ASSERT_EQ(cudaSuccess, prim::reduce_sum(ws, d_in.get(), d_out.get(), n));
  EXPECT_EQ(d_out.download_one(), uint64_t{200} * n);
}

TEST(Reduce, InsideCudaGraphCapture) {
  const int64_t n = 65537;
  std::vector<uint32_t> in(n);
  for (int64_t i = 0; i < n; ++i) in[i] = static_cast<uint32_t>(i * 7);
  DeviceBuffer<uint32_t> d_in(in), d_out(1);
  size_t bytes = 0;
  ASSERT_EQ(cudaSuccess, prim::reduce_sum(nullptr, bytes, d_in.get(), d_out.get(), n));
  DeviceBuffer<unsigned char> d_temp(bytes);
  cudaStream_t stream;
  ASSERT_EQ(cudaSuccess, cudaStreamCreate(&stream));
  cudaGraph_t graph;
  ASSERT_EQ(cudaSuccess, cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  ASSERT_EQ(cudaSuccess, prim::reduce_sum(d_temp.get(), bytes, d_in.get(), d_out.get(), n, stream));
  ASSERT_EQ(cudaSuccess, cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec;
  ASSERT_EQ(cudaSuccess, cudaGraphInstantiate(&exec, graph, 0));
  ASSERT_EQ(cudaSuccess, cudaGraphLaunch(exec, stream));
  ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(stream));
  EXPECT_EQ(d_out.download_one(), (prim::reference::reduce<uint32_t>(in, std::plus<uint32_t>{}, 0u)));
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
}

}  // namespace
