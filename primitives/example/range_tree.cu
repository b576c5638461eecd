// prim::range_tree_*: points on a plane (stars on a sky map, with a brightness each), and many rectangular windows
// over it: how many stars each window holds, their total brightness, and which they are. The tree is built once for
// the points (rebuilt whenever they move) and answers every window in O(log n). Prints a few windows and `ok` when
// every answer equals a brute-force loop; exits non-zero with the CUDA error where no usable GPU exists.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "prim/prim.h"

#define CHECK(call)                                                                                             \
  do {                                                                                                          \
    const cudaError_t status_ = (call);                                                                         \
    if (status_ != cudaSuccess) {                                                                               \
      std::fprintf(stderr, "prim_example_range_tree: %s failed: %s (%s)\n", #call, cudaGetErrorName(status_), \
                   cudaGetErrorString(status_));                                                                \
      return 1;                                                                                                 \
    }                                                                                                           \
  } while (0)

int main() {
  constexpr int64_t stars = 1 << 20, windows = 4096;
  std::vector<float> xs(stars), ys(stars), brightness(stars);
  uint32_t state = 12345u;
  const auto next = [&] {  // a small LCG: the example needs no <random>
    state = state * 1664525u + 1013904223u;
    return static_cast<float>(state >> 8) / 16777216.0f;
  };
  for (int64_t i = 0; i < stars; ++i) {
    xs[i] = 360.0f * next();
    ys[i] = 180.0f * next() - 90.0f;
    brightness[i] = next();
  }
  std::vector<prim::RangeBox> boxes(windows);
  for (int64_t b = 0; b < windows; ++b) {
    const float x = 350.0f * next(), y = 170.0f * next() - 85.0f;
    boxes[b] = prim::RangeBox{x, x + 2.0f + 8.0f * next(), y, y + 2.0f + 8.0f * next()};
  }

  prim::DeviceBuffer<float> d_x, d_y, d_w;
  prim::DeviceBuffer<prim::RangeBox> d_boxes;
  prim::DeviceBuffer<uint32_t> d_counts;
  prim::DeviceBuffer<double> d_sums;
  prim::DeviceBuffer<uint64_t> d_offsets;
  CHECK(d_x.allocate(stars));
  CHECK(d_y.allocate(stars));
  CHECK(d_w.allocate(stars));
  CHECK(d_boxes.allocate(windows));
  CHECK(d_counts.allocate(windows));
  CHECK(d_sums.allocate(windows));
  CHECK(d_offsets.allocate(windows + 1));
  CHECK(d_x.upload(xs.data(), stars));
  CHECK(d_y.upload(ys.data(), stars));
  CHECK(d_w.upload(brightness.data(), stars));
  CHECK(d_boxes.upload(boxes.data(), windows));

  // Size queries first, one allocation each (the build's scratch, the tree, the report's scratch), then
  // stream-ordered calls that allocate nothing.
  size_t build_bytes = 0, tree_bytes = 0, report_bytes = 0;
  prim::RangeTree tree;
  CHECK(prim::range_tree_build(nullptr, build_bytes, nullptr, tree_bytes, d_x.data(), d_y.data(), d_w.data(), stars,
                               /*report=*/true, tree));
  CHECK(prim::range_tree_report(nullptr, report_bytes, tree, d_boxes.data(), windows, d_offsets.data(), nullptr, 0));
  prim::DeviceBuffer<unsigned char> temp, tree_memory;
  CHECK(temp.allocate(std::max(build_bytes, report_bytes)));
  CHECK(tree_memory.allocate(tree_bytes));
  cudaStream_t stream = nullptr;
  CHECK(cudaStreamCreate(&stream));
  CHECK(prim::range_tree_build(temp.data(), build_bytes, tree_memory.data(), tree_bytes, d_x.data(), d_y.data(),
                               d_w.data(), stars, true, tree, stream));
  CHECK(prim::range_tree_count(tree, d_boxes.data(), windows, d_counts.data(), stream));
  CHECK(prim::range_tree_sum(tree, d_boxes.data(), windows, d_sums.data(), stream));
  // Reports: a first call with no room gives the offsets (the total at [windows]); then room for all, and again.
  CHECK(prim::range_tree_report(temp.data(), report_bytes, tree, d_boxes.data(), windows, d_offsets.data(), nullptr,
                                0, stream));
  uint64_t total = 0;
  CHECK(cudaMemcpyAsync(&total, d_offsets.data() + windows, sizeof total, cudaMemcpyDeviceToHost, stream));
  CHECK(cudaStreamSynchronize(stream));
  prim::DeviceBuffer<uint32_t> d_points;
  CHECK(d_points.allocate(static_cast<int64_t>(std::max<uint64_t>(total, 1))));
  CHECK(prim::range_tree_report(temp.data(), report_bytes, tree, d_boxes.data(), windows, d_offsets.data(),
                                d_points.data(), static_cast<int64_t>(total), stream));
  CHECK(cudaStreamSynchronize(stream));

  std::vector<uint32_t> counts(windows), points(total);
  std::vector<double> sums(windows);
  std::vector<uint64_t> offsets(windows + 1);
  CHECK(d_counts.download(counts.data(), windows));
  CHECK(d_sums.download(sums.data(), windows));
  CHECK(d_offsets.download(offsets.data(), windows + 1));
  if (total > 0) CHECK(d_points.download(points.data(), static_cast<int64_t>(total)));

  // Brute force: every window against every star.
  bool ok = true;
  for (int64_t b = 0; b < windows; ++b) {
    const prim::RangeBox& w = boxes[b];
    std::vector<uint32_t> inside;
    double sum = 0.0;
    for (int64_t i = 0; i < stars; ++i) {
      if (xs[i] >= w.x_min && xs[i] <= w.x_max && ys[i] >= w.y_min && ys[i] <= w.y_max) {
        inside.push_back(static_cast<uint32_t>(i));
        sum += brightness[i];
      }
    }
    std::vector<uint32_t> reported(points.begin() + static_cast<int64_t>(offsets[b]),
                                   points.begin() + static_cast<int64_t>(offsets[b + 1]));
    std::sort(reported.begin(), reported.end());  // the tree's order, not ascending
    ok = ok && counts[b] == inside.size() && reported == inside &&
         std::fabs(sums[b] - sum) <= 1e-9 * std::max(1.0, sum);
  }
  std::printf("%lld stars, %lld windows, %llu stars reported in all\n  window (degrees)                     stars  brightness\n",
              static_cast<long long>(stars), static_cast<long long>(windows), static_cast<unsigned long long>(total));
  for (int b = 0; b < 4; ++b) {
    std::printf("  [%6.1f, %6.1f] x [%5.1f, %5.1f]  %6u  %10.3f\n", boxes[b].x_min, boxes[b].x_max, boxes[b].y_min,
                boxes[b].y_max, counts[b], sums[b]);
  }
  std::printf("%s\n", ok ? "ok: every window's count, brightness and stars as a brute-force loop" : "MISMATCH");
  cudaStreamDestroy(stream);
  return ok ? 0 : 1;
}
