// Rows of the range tree (prim/range_tree.h): the build, and count queries of boxes holding about 1,000 uniform
// points, against two peers timed in turns in the same process: a brute force (every box against every point) and
// sort-by-x with a scan of each box's x range (a block a box). The peers are far slower, so they answer a fraction of
// the boxes (kPeerShare) and their time is scaled to all of them; their counts are checked against ours on that
// fraction. The build's row names the tree's memory in bytes a point.
#include <cuda_runtime.h>

#include <cmath>
#include <string>

#include "bench_common.h"
#include "prim/range_tree.h"

namespace bench {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kBoxes = int64_t{1} << 20;       // boxes a count call answers
constexpr int64_t kPeerShare = 256;                // the scan peer answers kBoxes / kPeerShare of them
constexpr int64_t kBruteBoxes = 64;                // the brute force answers this many
constexpr double kPointsPerBox = 1000;
constexpr int kBruteChunks = 528;                  // point chunks a brute-force box is split into (4 a SM on an H100)

unsigned blocks_of(int64_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

__host__ __device__ float unit_hash(uint64_t i, uint64_t seed) {
  uint64_t z = i * 0x9E3779B97F4A7C15ull + seed;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<float>(z >> 40) * (1.0f / 16777216.0f);  // [0, 1)
}

__global__ void points_kernel(float* x, float* y, float* w, int64_t n) {
  const int64_t i = blockIdx.x * int64_t(kThreads) + threadIdx.x;
  if (i >= n) return;
  x[i] = unit_hash(i, 1);
  y[i] = unit_hash(i, 2);
  w[i] = unit_hash(i, 3);
}

__global__ void boxes_kernel(prim::RangeBox* boxes, int64_t m, float half) {
  const int64_t i = blockIdx.x * int64_t(kThreads) + threadIdx.x;
  if (i >= m) return;
  const float cx = half + (1 - 2 * half) * unit_hash(i, 4), cy = half + (1 - 2 * half) * unit_hash(i, 5);
  boxes[i] = prim::RangeBox{cx - half, cx + half, cy - half, cy + half};
}

// The scan peer's input: x keys sorted, each with its y.
__global__ void xy_keys_kernel(const float* x, const float* y, uint32_t* xk, uint32_t* yv, int64_t n) {
  const int64_t i = blockIdx.x * int64_t(kThreads) + threadIdx.x;
  if (i >= n) return;
  xk[i] = prim::detail::range_key(x[i]);
  yv[i] = prim::detail::range_key(y[i]);
}

// A block a box: the box's x range by two binary searches, then its points' y tested by the block.
__global__ void __launch_bounds__(kThreads) scan_peer_kernel(const uint32_t* xk, const uint32_t* yv, int64_t n,
                                                             const prim::RangeBox* boxes, uint32_t* counts) {
  const prim::RangeBox b = boxes[blockIdx.x];
  uint32_t x0, x1, y0, y1;
  uint32_t c = 0;
  if (prim::detail::range_box_keys(b, x0, x1, y0, y1)) {
    const int64_t first = prim::detail::range_search<false>(xk, n, x0);
    const int64_t end = prim::detail::range_search<true>(xk, n, x1);
    for (int64_t q = first + threadIdx.x; q < end; q += kThreads) c += (yv[q] >= y0 && yv[q] <= y1) ? 1u : 0u;
  }
  __shared__ uint32_t total;
  if (threadIdx.x == 0) total = 0;
  __syncthreads();
  atomicAdd(&total, c);
  __syncthreads();
  if (threadIdx.x == 0) counts[blockIdx.x] = total;
}

// Brute force: block (chunk, box) tests its chunk of the points against the box.
__global__ void __launch_bounds__(kThreads) brute_peer_kernel(const float* x, const float* y, int64_t n,
                                                              const prim::RangeBox* boxes, uint32_t* counts) {
  const prim::RangeBox b = boxes[blockIdx.y];
  const int64_t chunk = (n + gridDim.x - 1) / gridDim.x;
  const int64_t begin = blockIdx.x * chunk, end = begin + chunk < n ? begin + chunk : n;
  uint32_t c = 0;
  for (int64_t i = begin + threadIdx.x; i < end; i += kThreads) {
    c += (b.x_min <= x[i] && x[i] <= b.x_max && b.y_min <= y[i] && y[i] <= b.y_max) ? 1u : 0u;
  }
  for (int o = 16; o > 0; o /= 2) c += __shfl_down_sync(0xFFFFFFFFu, c, o);
  if ((threadIdx.x & 31) == 0 && c != 0) atomicAdd(&counts[blockIdx.y], c);
}

void add_row(Context& ctx, Row row, const std::vector<double>& ms, double peer_scale, const std::string& check) {
  if (ms.size() < 2) {
    row.check = "CUDA error";
    ctx.failed = true;
  } else {
    row.ours_ms = ms[0];
    row.peer_ms = ms[1] * peer_scale;
    row.check = check;
    if (check != "ok") ctx.failed = true;
  }
  ctx.rows.push_back(row);
}

bool wanted(const Context& ctx, const std::string& op) {
  return ctx.opt.filter.empty() || op.find(ctx.opt.filter) != std::string::npos;
}

}  // namespace

void run_range_tree_rows(Context& ctx, int64_t n) {
  if (!wanted(ctx, "range tree") || n > (int64_t{1} << 30)) return;
  const cudaStream_t s = ctx.stream;
  const size_t fb = n * sizeof(float);
  Buffer x(fb), y(fb), w(fb), xk(fb), yv(fb), xs(fb), ys(fb), boxes(kBoxes * sizeof(prim::RangeBox)),
      counts_a(kBoxes * sizeof(uint32_t)), counts_b(kBoxes * sizeof(uint32_t));
  for (const Buffer* b : {&x, &y, &w, &xk, &yv, &xs, &ys, &boxes, &counts_a, &counts_b}) BENCH_TRY(ctx, b->status());
  points_kernel<<<blocks_of(n), kThreads, 0, s>>>(x.as<float>(), y.as<float>(), w.as<float>(), n);
  const float half = 0.5f * static_cast<float>(std::sqrt(kPointsPerBox / static_cast<double>(n)));
  boxes_kernel<<<blocks_of(kBoxes), kThreads, 0, s>>>(boxes.as<prim::RangeBox>(), kBoxes, half);
  xy_keys_kernel<<<blocks_of(n), kThreads, 0, s>>>(x.as<float>(), y.as<float>(), xk.as<uint32_t>(), yv.as<uint32_t>(), n);
  BENCH_TRY(ctx, cudaGetLastError());

  // ---- the tree (count + sum + report parts) and the peer's sort by x ----
  prim::RangeTree tree;
  size_t temp_bytes = 0, tree_bytes = 0;
  BENCH_TRY(ctx, prim::range_tree_build(nullptr, temp_bytes, nullptr, tree_bytes, x.as<float>(), y.as<float>(),
                                        w.as<float>(), n, true, tree));
  size_t sort_bytes = 0;
  BENCH_TRY(ctx, prim::sort_pairs(nullptr, sort_bytes, xk.as<uint32_t>(), xs.as<uint32_t>(), yv.as<uint32_t>(),
                                  ys.as<uint32_t>(), n));
  Buffer temp(std::max(temp_bytes, sort_bytes)), memory(tree_bytes);
  BENCH_TRY(ctx, temp.status());
  BENCH_TRY(ctx, memory.status());
  auto build = [&] {
    size_t tb = temp.bytes(), mb = memory.bytes();
    return prim::range_tree_build(temp.get(), tb, memory.get(), mb, x.as<float>(), y.as<float>(), w.as<float>(), n,
                                  true, tree, s);
  };
  auto sort_x = [&] {
    size_t tb = temp.bytes();
    return prim::sort_pairs(temp.get(), tb, xk.as<uint32_t>(), xs.as<uint32_t>(), yv.as<uint32_t>(),
                            ys.as<uint32_t>(), n, 0, 32, s);
  };
  char build_op[96];
  std::snprintf(build_op, sizeof(build_op), "range tree build (count+sum+report, %.0f B/pt)",
                static_cast<double>(tree_bytes) / static_cast<double>(n));
  add_row(ctx, Row{build_op, "prim::sort_pairs by x (the scan peer's build)", "uniform", n, 0, 0, 0,
                   static_cast<double>(tree_bytes), 0, "", 0},
          time_interleaved_ms(ctx, {build, sort_x}), 1.0, "ok");
  // The count-only tree's memory, for the record.
  size_t count_temp = 0, count_tree = 0;
  BENCH_TRY(ctx, prim::range_tree_build(nullptr, count_temp, nullptr, count_tree, x.as<float>(), y.as<float>(), nullptr,
                                        n, false, tree));
  std::fprintf(stderr, "range tree at n = %lld: %.1f B/point with sums and reports, %.1f B/point for counts only\n",
               static_cast<long long>(n), static_cast<double>(tree_bytes) / n, static_cast<double>(count_tree) / n);
  BENCH_TRY(ctx, build());
  BENCH_TRY(ctx, sort_x());

  const prim::RangeBox* d_boxes = boxes.as<prim::RangeBox>();
  uint32_t* ca = counts_a.as<uint32_t>();
  uint32_t* cb = counts_b.as<uint32_t>();
  auto count = [&] { return prim::range_tree_count(tree, d_boxes, kBoxes, ca, s); };
  // ---- peer: sort by x, a block scans each box's x range ----
  const int64_t scan_boxes = kBoxes / kPeerShare;
  auto scan_peer = [&] {
    scan_peer_kernel<<<static_cast<unsigned>(scan_boxes), kThreads, 0, s>>>(xs.as<uint32_t>(), ys.as<uint32_t>(), n,
                                                                           d_boxes, cb);
    return cudaGetLastError();
  };
  BENCH_TRY(ctx, count());
  BENCH_TRY(ctx, scan_peer());
  BENCH_TRY(ctx, cudaStreamSynchronize(s));
  const std::string scan_check = device_equal(ca, cb, scan_boxes * sizeof(uint32_t), s)
                                     ? "ok"
                                     : std::string("MISMATCH: counts differ from the x-scan peer's");
  add_row(ctx, Row{"range tree count, ~1000-pt boxes", "sort by x + block x-range scan (m/256, scaled)", "uniform",
                   kBoxes, 0, 0, 0, kBoxes * (sizeof(prim::RangeBox) + sizeof(uint32_t)), 0, "", 0.2},
          time_interleaved_ms(ctx, {count, scan_peer}), static_cast<double>(kPeerShare), scan_check);
  // ---- peer: brute force ----
  auto brute_peer = [&] {
    PRIM_TRY(cudaMemsetAsync(cb, 0, kBruteBoxes * sizeof(uint32_t), s));
    brute_peer_kernel<<<dim3(kBruteChunks, kBruteBoxes), kThreads, 0, s>>>(x.as<float>(), y.as<float>(), n, d_boxes, cb);
    return cudaGetLastError();
  };
  BENCH_TRY(ctx, brute_peer());
  BENCH_TRY(ctx, cudaStreamSynchronize(s));
  const std::string brute_check = device_equal(ca, cb, kBruteBoxes * sizeof(uint32_t), s)
                                      ? "ok"
                                      : std::string("MISMATCH: counts differ from the brute force's");
  add_row(ctx, Row{"range tree count, ~1000-pt boxes", "brute force, every box x every point (m/16384, scaled)",
                   "uniform", kBoxes, 0, 0, 0, kBoxes * (sizeof(prim::RangeBox) + sizeof(uint32_t)), 0, "", 0.2},
          time_interleaved_ms(ctx, {count, brute_peer}), static_cast<double>(kBoxes) / kBruteBoxes, brute_check);
}

}  // namespace bench
