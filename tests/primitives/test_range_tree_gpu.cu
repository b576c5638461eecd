// prim/range_tree.h on the GPU: the built arrays against the host-built tree (word for word), and count / sum /
// report against the brute force, by named property. Sizes: 0, 1, the warp and the block +- 1, 2^k +- 1, large.
#include <prim/range_tree.h>

#include <algorithm>
#include <cstring>

#include "common/quick_mode.h"
#include "primitives/reference/range_tree_reference.h"
#include "primitives/test_range_tree_util.h"
#include "primitives/test_split_util.h"

namespace {
using namespace range_tree_test;
namespace ref = prim::reference;
using split_test::DeviceBuffer;

struct GpuTree {
  DeviceBuffer<unsigned char> temp, memory;
  prim::RangeTree tree;
  uint64_t invalid = 0;
};

// Builds on the device (size query, then the call); `weights`, `report` as the tree's parts.
void build(const Points& p, bool weights, bool report, DeviceBuffer<float>& dx, DeviceBuffer<float>& dy,
           DeviceBuffer<float>& dw, GpuTree& g, cudaStream_t stream = 0) {
  dx.upload(p.x.empty() ? std::vector<float>{0} : p.x);
  dy.upload(p.y.empty() ? std::vector<float>{0} : p.y);
  dw.upload(p.w.empty() ? std::vector<float>{0} : p.w);
  DeviceBuffer<uint64_t> d_invalid(std::vector<uint64_t>{0});
  size_t temp_bytes = 0, tree_bytes = 0;
  ASSERT_CUDA(prim::range_tree_build(nullptr, temp_bytes, nullptr, tree_bytes, dx.get(), dy.get(),
                                     weights ? dw.get() : nullptr, p.size(), report, g.tree));
  ASSERT_GE(temp_bytes, 1u);
  g.temp.resize(temp_bytes);
  g.memory.resize(tree_bytes);
  ASSERT_CUDA(prim::range_tree_build(g.temp.get(), temp_bytes, g.memory.get(), tree_bytes, dx.get(), dy.get(),
                                     weights ? dw.get() : nullptr, p.size(), report, g.tree, stream,
                                     d_invalid.get()));
  ASSERT_CUDA(cudaStreamSynchronize(stream));
  g.invalid = d_invalid.download_one(0);
}

template <class T>
std::vector<T> download(const T* d, size_t count) {
  std::vector<T> h(count);
  if (count > 0) EXPECT_EQ(cudaSuccess, cudaMemcpy(h.data(), d, count * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

// The device's arrays equal the host tree's: the levels are the bottom-up merges.
void check_arrays(const GpuTree& g, const ref::RangeTreeHost& host, bool weights, bool report) {
  const auto& s = host.shape;
  ASSERT_EQ(g.tree.shape.padded, s.padded);
  ASSERT_EQ(g.tree.shape.levels, s.levels);
  EXPECT_EQ(download(g.tree.x_keys, host.x_keys.size()), host.x_keys) << "x keys";
  EXPECT_EQ(download(g.tree.root_y, host.root_y.size()), host.root_y) << "root y keys";
  const auto ranks = download(g.tree.ranks, host.ranks.size());
  for (size_t i = 0; i < ranks.size(); ++i) {
    ASSERT_EQ(ranks[i].before, host.ranks[i].before) << "rank word " << i;
    ASSERT_EQ(ranks[i].bits, host.ranks[i].bits) << "rank word " << i;
  }
  if (report) EXPECT_EQ(download(g.tree.index, host.index.size()), host.index) << "index arrays";
  if (weights) {
    const auto pre = download(g.tree.weight_prefix, host.weight_prefix.size());
    for (size_t i = 0; i < pre.size(); ++i) {
      ASSERT_NEAR(pre[i], host.weight_prefix[i], 1e-9 * (1 + std::abs(host.weight_prefix[i]))) << "prefix " << i;
    }
  }
}

// Count, sum and report of `boxes` against the brute force.
void check_queries(const Points& p, const GpuTree& g, const std::vector<prim::RangeBox>& boxes) {
  const int64_t m = static_cast<int64_t>(boxes.size());
  DeviceBuffer<prim::RangeBox> d_boxes(boxes.empty() ? std::vector<prim::RangeBox>{{0, 0, 0, 0}} : boxes);
  DeviceBuffer<uint32_t> d_counts(static_cast<size_t>(std::max<int64_t>(m, 1)));
  DeviceBuffer<double> d_sums(static_cast<size_t>(std::max<int64_t>(m, 1)));
  DeviceBuffer<uint64_t> d_offsets(static_cast<size_t>(m + 1));
  ASSERT_CUDA(prim::range_tree_count(g.tree, d_boxes.get(), m, d_counts.get()));
  ASSERT_CUDA(prim::range_tree_sum(g.tree, d_boxes.get(), m, d_sums.get()));
  size_t bytes = 0;
  ASSERT_CUDA(prim::range_tree_report(nullptr, bytes, g.tree, d_boxes.get(), m, d_offsets.get(), nullptr, 0));
  DeviceBuffer<unsigned char> d_temp(bytes);
  // First with no room: the offsets still come back, nothing is written.
  ASSERT_CUDA(prim::range_tree_report(d_temp.get(), bytes, g.tree, d_boxes.get(), m, d_offsets.get(), nullptr, 0));
  ASSERT_CUDA(cudaDeviceSynchronize());
  const auto offsets = d_offsets.download();
  const uint64_t total = offsets[static_cast<size_t>(m)];
  DeviceBuffer<uint32_t> d_points(static_cast<size_t>(std::max<uint64_t>(total, 1)) + 7);
  ASSERT_CUDA(prim::range_tree_report(d_temp.get(), bytes, g.tree, d_boxes.get(), m, d_offsets.get(), d_points.get(),
                                      static_cast<int64_t>(total)));
  ASSERT_CUDA(cudaDeviceSynchronize());
  const auto counts = d_counts.download();
  const auto sums = d_sums.download();
  const auto points = d_points.download();
  for (int64_t i = 0; i < m; ++i) {
    const prim::RangeBox& b = boxes[static_cast<size_t>(i)];
    SCOPED_TRACE(testing::Message() << "box " << i << " [" << b.x_min << ", " << b.x_max << "] x [" << b.y_min << ", "
                                    << b.y_max << "]");
    const auto want = ref::range_report(p.x.data(), p.y.data(), p.size(), b);
    ASSERT_EQ(counts[static_cast<size_t>(i)], want.size()) << "count";
    const double want_sum = ref::range_sum(p.x.data(), p.y.data(), p.w.data(), p.size(), b);
    ASSERT_NEAR(sums[static_cast<size_t>(i)], want_sum, 1e-6 * (1 + std::abs(want_sum))) << "sum";
    ASSERT_EQ(offsets[static_cast<size_t>(i) + 1] - offsets[static_cast<size_t>(i)], want.size()) << "offsets";
    std::vector<uint32_t> got(points.begin() + static_cast<std::ptrdiff_t>(offsets[static_cast<size_t>(i)]),
                              points.begin() + static_cast<std::ptrdiff_t>(offsets[static_cast<size_t>(i) + 1]));
    std::sort(got.begin(), got.end());
    ASSERT_EQ(got, want) << "report";
  }
  for (size_t i = total; i < points.size(); ++i) {
    ASSERT_EQ(points[i], split_test::poisoned<uint32_t>()) << "written past the total at " << i;
  }
}

void check_everything(const Points& p, int64_t m, uint64_t seed) {
  SCOPED_TRACE(testing::Message() << "n=" << p.size() << " m=" << m);
  DeviceBuffer<float> dx, dy, dw;
  GpuTree g;
  build(p, true, true, dx, dy, dw, g);
  EXPECT_EQ(g.invalid, ref::range_invalid_points(p.x.data(), p.y.data(), p.size())) << "invalid points";
  const ref::RangeTreeHost host(p.x.data(), p.y.data(), p.w.data(), p.size(), true);
  check_arrays(g, host, true, true);
  check_queries(p, g, make_boxes(p, m, seed));
}

TEST(RangeTree, NoPoints) { check_everything(make_points(0, Layout::uniform, 1), 20, 1); }
TEST(RangeTree, OnePoint) {
  check_everything(make_points(1, Layout::uniform, 2), 40, 2);
  check_everything(make_points(1, Layout::with_nan, 2), 40, 2);
}

class RangeTreeSizes : public ::testing::TestWithParam<int64_t> {};
TEST_P(RangeTreeSizes, MatchesReference) {
  const int64_t n = GetParam();
  if (n > (int64_t{1} << 18) && slabtest::quick_mode()) GTEST_SKIP() << "SLABCAST_TEST_QUICK: size " << n;
  const int64_t m = n > 100000 ? 300 : 200;  // the brute force checks m x n
  check_everything(make_points(n, Layout::uniform, 10 + static_cast<uint64_t>(n)), m, 3);
}
INSTANTIATE_TEST_SUITE_P(RangeTree, RangeTreeSizes,
                         ::testing::Values(2, 31, 32, 33, 127, 128, 129, 255, 256, 257, 1023, 1024, 1025,
                                           (1 << 16) - 1, 1 << 16, (1 << 16) + 1, (1 << 20) + 1));

TEST(RangeTree, DuplicatesInXAndY) {
  for (int64_t n : {33, 1000, 70001}) check_everything(make_points(n, Layout::grid, 20), 150, 4);
  check_everything(make_points(5000, Layout::one_value, 21), 40, 5);
}

TEST(RangeTree, NanPointsAreInvalidAndNeverReturned) {
  for (int64_t n : {1, 257, 40000}) check_everything(make_points(n, Layout::with_nan, 22), 150, 6);
}

// Trees without weights or without reports: less memory, the same counts; the missing query refuses.
TEST(RangeTree, PartsOfATree) {
  const Points p = make_points(5000, Layout::uniform, 23);
  DeviceBuffer<float> dx, dy, dw;
  GpuTree g;
  build(p, false, false, dx, dy, dw, g);
  EXPECT_EQ(g.tree.index, nullptr);
  EXPECT_EQ(g.tree.weight_prefix, nullptr);
  const auto boxes = make_boxes(p, 100, 7);
  DeviceBuffer<prim::RangeBox> d_boxes(boxes);
  DeviceBuffer<uint32_t> d_counts(boxes.size());
  DeviceBuffer<double> d_sums(boxes.size());
  ASSERT_CUDA(prim::range_tree_count(g.tree, d_boxes.get(), static_cast<int64_t>(boxes.size()), d_counts.get()));
  EXPECT_EQ(cudaErrorInvalidValue,
            prim::range_tree_sum(g.tree, d_boxes.get(), static_cast<int64_t>(boxes.size()), d_sums.get()));
  const auto counts = d_counts.download();
  for (size_t i = 0; i < boxes.size(); ++i) {
    ASSERT_EQ(counts[i], ref::range_count(p.x.data(), p.y.data(), p.size(), boxes[i])) << i;
  }
}

// A device box count: boxes past it are not answered; the report's offsets past it hold the total.
TEST(RangeTree, DeviceBoxCount) {
  const Points p = make_points(3000, Layout::uniform, 24);
  DeviceBuffer<float> dx, dy, dw;
  GpuTree g;
  build(p, true, true, dx, dy, dw, g);
  const auto boxes = make_boxes(p, 50, 8);
  DeviceBuffer<prim::RangeBox> d_boxes(boxes);
  DeviceBuffer<uint64_t> d_m(std::vector<uint64_t>{30});
  const prim::ItemCount m(50, d_m.get());
  DeviceBuffer<uint32_t> d_counts(50);
  DeviceBuffer<uint64_t> d_offsets(51);
  ASSERT_CUDA(prim::range_tree_count(g.tree, d_boxes.get(), m, d_counts.get()));
  size_t bytes = 0;
  ASSERT_CUDA(prim::range_tree_report(nullptr, bytes, g.tree, d_boxes.get(), m, d_offsets.get(), nullptr, 0));
  DeviceBuffer<unsigned char> d_temp(bytes);
  ASSERT_CUDA(prim::range_tree_report(d_temp.get(), bytes, g.tree, d_boxes.get(), m, d_offsets.get(), nullptr, 0));
  ASSERT_CUDA(cudaDeviceSynchronize());
  const auto counts = d_counts.download();
  const auto offsets = d_offsets.download();
  uint64_t total = 0;
  for (size_t i = 0; i < 30; ++i) {
    ASSERT_EQ(counts[i], ref::range_count(p.x.data(), p.y.data(), p.size(), boxes[i])) << i;
    total += counts[i];
  }
  for (size_t i = 30; i < 50; ++i) ASSERT_EQ(counts[i], split_test::poisoned<uint32_t>()) << "answered past the count";
  for (size_t i = 30; i <= 50; ++i) ASSERT_EQ(offsets[i], total) << i;
}

// Moving points: a second build into the same memory answers for the new positions.
TEST(RangeTree, RebuildInPlace) {
  Points p = make_points(20000, Layout::uniform, 25);
  DeviceBuffer<float> dx, dy, dw;
  GpuTree g;
  build(p, true, true, dx, dy, dw, g);
  for (auto& x : p.x) x = 1.0f - x;
  for (auto& y : p.y) y = y * 0.5f;
  size_t temp_bytes = g.temp.size(), tree_bytes = g.memory.size();
  dx.upload(p.x);
  dy.upload(p.y);
  ASSERT_CUDA(prim::range_tree_build(g.temp.get(), temp_bytes, g.memory.get(), tree_bytes, dx.get(), dy.get(),
                                     dw.get(), p.size(), true, g.tree));
  ASSERT_CUDA(cudaDeviceSynchronize());
  check_queries(p, g, make_boxes(p, 100, 9));
}

TEST(RangeTree, RejectsBadArguments) {
  size_t temp_bytes = 0, tree_bytes = 0;
  prim::RangeTree tree;
  EXPECT_EQ(cudaErrorInvalidValue,
            prim::range_tree_build(nullptr, temp_bytes, nullptr, tree_bytes, nullptr, nullptr, nullptr, -1, false, tree));
  EXPECT_EQ(cudaErrorInvalidValue, prim::range_tree_build(nullptr, temp_bytes, nullptr, tree_bytes, nullptr, nullptr,
                                                          nullptr, (int64_t{1} << 31) + 1, false, tree));
  DeviceBuffer<float> d(std::vector<float>(100, 0.5f));
  ASSERT_CUDA(prim::range_tree_build(nullptr, temp_bytes, nullptr, tree_bytes, d.get(), d.get(), nullptr, 100, false,
                                     tree));
  DeviceBuffer<unsigned char> temp(temp_bytes), memory(tree_bytes);
  size_t fewer = temp_bytes - 1;
  EXPECT_EQ(cudaErrorInvalidValue, prim::range_tree_build(temp.get(), fewer, memory.get(), tree_bytes, d.get(), d.get(),
                                                          nullptr, 100, false, tree));
  size_t small_tree = tree_bytes - 1;
  EXPECT_EQ(cudaErrorInvalidValue, prim::range_tree_build(temp.get(), temp_bytes, memory.get(), small_tree, d.get(),
                                                          d.get(), nullptr, 100, false, tree));
}

TEST(RangeTree, UnderCudaGraphCapture) {
  const Points p = make_points(50000, Layout::grid, 26);
  DeviceBuffer<float> dx(p.x), dy(p.y), dw(p.w);
  const auto boxes = make_boxes(p, 200, 10);
  DeviceBuffer<prim::RangeBox> d_boxes(boxes);
  DeviceBuffer<uint32_t> d_counts(boxes.size());
  prim::RangeTree tree;
  size_t temp_bytes = 0, tree_bytes = 0;
  ASSERT_CUDA(prim::range_tree_build(nullptr, temp_bytes, nullptr, tree_bytes, dx.get(), dy.get(), dw.get(), p.size(),
                                     false, tree));
  DeviceBuffer<unsigned char> temp(temp_bytes), memory(tree_bytes);
  cudaStream_t stream;
  ASSERT_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph;
  ASSERT_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  cudaError_t call = prim::range_tree_build(temp.get(), temp_bytes, memory.get(), tree_bytes, dx.get(), dy.get(),
                                            dw.get(), p.size(), false, tree, stream);
  if (call == cudaSuccess) {
    call = prim::range_tree_count(tree, d_boxes.get(), static_cast<int64_t>(boxes.size()), d_counts.get(), stream);
  }
  ASSERT_CUDA(cudaStreamEndCapture(stream, &graph));
  ASSERT_CUDA(call);
  cudaGraphExec_t exec;
  ASSERT_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 2; ++replay) ASSERT_CUDA(cudaGraphLaunch(exec, stream));
  ASSERT_CUDA(cudaStreamSynchronize(stream));
  const auto counts = d_counts.download();
  for (size_t i = 0; i < boxes.size(); ++i) {
    ASSERT_EQ(counts[i], ref::range_count(p.x.data(), p.y.data(), p.size(), boxes[i])) << i;
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
}

}  // namespace
