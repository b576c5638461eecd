// prim::upper_bound / prim::lower_bound: which cell of a grid each point falls in, given the sorted start of every
// cell along a line (cell c holds [start[c], start[c + 1])): cell = upper_bound(starts, x) - 1. The points arrive in
// any order; a sorted copy of them finds the first point of each cell with lower_bound (NeedleOrder::sorted sweeps
// points and starts together). Prints a few points and `ok`; exits non-zero with the CUDA error where no usable GPU
// exists.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "prim/prim.h"

#define CHECK(call)                                                                                         \
  do {                                                                                                      \
    const cudaError_t status_ = (call);                                                                     \
    if (status_ != cudaSuccess) {                                                                           \
      std::fprintf(stderr, "prim_example_search: %s failed: %s (%s)\n", #call, cudaGetErrorName(status_),  \
                   cudaGetErrorString(status_));                                                            \
      return 1;                                                                                             \
    }                                                                                                       \
  } while (0)

int main() {
  constexpr int64_t cells = 100000, points = 1 << 20;
  std::vector<float> starts(cells), xs(points);
  for (int64_t c = 0; c < cells; ++c) starts[c] = static_cast<float>(c) * 1.5f + static_cast<float>(c % 7) * 0.1f;
  for (int64_t i = 0; i < points; ++i) xs[i] = static_cast<float>((i * 2654435761u) % 150000u);  // any order
  std::vector<float> sorted_xs = xs;
  std::sort(sorted_xs.begin(), sorted_xs.end());

  prim::DeviceBuffer<float> d_starts, d_xs, d_sorted;
  prim::DeviceBuffer<uint32_t> d_cell_end, d_first_point;
  CHECK(d_starts.allocate(cells));
  CHECK(d_xs.allocate(points));
  CHECK(d_sorted.allocate(points));
  CHECK(d_cell_end.allocate(points));
  CHECK(d_first_point.allocate(cells));
  CHECK(d_starts.upload(starts.data(), cells));
  CHECK(d_xs.upload(xs.data(), points));
  CHECK(d_sorted.upload(sorted_xs.data(), points));

  // Size queries first, one allocation, then stream-ordered calls.
  size_t sizes[2] = {};
  CHECK(prim::upper_bound(nullptr, sizes[0], d_starts.data(), cells, d_xs.data(), points, d_cell_end.data()));
  CHECK(prim::lower_bound(nullptr, sizes[1], d_sorted.data(), points, d_starts.data(), cells, d_first_point.data(),
                          prim::Less{}, 0, prim::NeedleOrder::sorted));
  size_t temp_bytes = std::max(sizes[0], sizes[1]);
  prim::DeviceBuffer<unsigned char> temp;
  CHECK(temp.allocate(temp_bytes));
  cudaStream_t stream = nullptr;
  CHECK(cudaStreamCreate(&stream));
  // For each point: the cells starting at or before it (its cell + 1).
  CHECK(prim::upper_bound(temp.data(), temp_bytes, d_starts.data(), cells, d_xs.data(), points, d_cell_end.data(),
                          prim::Less{}, stream));
  // For each cell (sorted needles): the first sorted point at or after its start.
  CHECK(prim::lower_bound(temp.data(), temp_bytes, d_sorted.data(), points, d_starts.data(), cells,
                          d_first_point.data(), prim::Less{}, stream, prim::NeedleOrder::sorted));
  CHECK(cudaStreamSynchronize(stream));

  std::vector<uint32_t> cell_end(points), first_point(cells);
  CHECK(d_cell_end.download(cell_end.data(), points));
  CHECK(d_first_point.download(first_point.data(), cells));
  bool ok = true;
  for (int64_t i = 0; i < points; ++i) {
    ok = ok && cell_end[i] == std::upper_bound(starts.begin(), starts.end(), xs[i]) - starts.begin();
  }
  for (int64_t c = 0; c < cells; ++c) {
    ok = ok && first_point[c] == std::lower_bound(sorted_xs.begin(), sorted_xs.end(), starts[c]) - sorted_xs.begin();
  }
  std::printf("%lld points in %lld cells\n       x    cell\n", static_cast<long long>(points),
              static_cast<long long>(cells));
  for (int i = 0; i < 5; ++i) std::printf("%8.1f  %6d\n", xs[i], static_cast<int>(cell_end[i]) - 1);
  std::printf("%s\n", ok ? "ok: every point's cell and every cell's first point as std::upper_bound / lower_bound"
                         : "MISMATCH");
  cudaStreamDestroy(stream);
  return ok ? 0 : 1;
}
