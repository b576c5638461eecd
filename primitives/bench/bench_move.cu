// Rows of gather / scatter (vs thrust), scan and reduce (vs CUB); see bench_common.h for the method.
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <string>
#include <thrust/execution_policy.h>
#include <thrust/gather.h>
#include <thrust/scatter.h>

#include "bench_common.h"
#include "prim/gather_scatter.h"
#include "prim/reduce.h"
#include "prim/scan.h"

namespace bench {
namespace {

// Records of kBytes as arrays of 32-bit words, declared with alignment kAlign. thrust copies a record with the
// widest loads its static alignment allows: word by word for kAlign = 4 (a plain struct of floats / ints), 16-byte
// vectors for kAlign = 16. Ours picks its vector width from the run-time alignment of the arrays, so it moves
// both kinds the same way. The target rows use the 16-byte-aligned peer (the stronger one).
template <int kBytes, int kAlign>
struct alignas(kAlign) Record {
  uint32_t w[kBytes / 4];
};

size_t free_device_bytes() {
  size_t free_b = 0, total_b = 0;
  cudaMemGetInfo(&free_b, &total_b);
  return free_b;
}

template <int kBytes, int kAlign>
void gather_scatter_rows(Context& ctx, int64_t n, const uint32_t* perm, double target) {
  using R = Record<kBytes, kAlign>;
  const cudaStream_t s = ctx.stream;
  const size_t rb = sizeof(R) * n;
  if (3 * rb + (size_t(1) << 30) > free_device_bytes()) {
    std::fprintf(stderr, "  gather/scatter %d B at n=%lld: skipped (does not fit in device memory)\n", kBytes, (long long)n);
    return;
  }
  Buffer src(rb), dst_a(rb), dst_b(rb);
  BENCH_TRY(ctx, src.status());
  BENCH_TRY(ctx, dst_a.status());
  BENCH_TRY(ctx, dst_b.status());
  fill_keys(src.as<uint32_t>(), n * (kBytes / 4), Dist::uniform, 7, s);
  const R* in = src.as<R>();
  R *a = dst_a.as<R>(), *b = dst_b.as<R>();
  size_t temp_bytes = 0;
  BENCH_TRY(ctx, prim::gather(nullptr, temp_bytes, in, a, perm, n, n));
  Buffer temp(temp_bytes);
  BENCH_TRY(ctx, temp.status());
  const double bytes = 2.0 * rb + 4.0 * n;
  const std::string rec = std::to_string(kBytes) + " B records";
  const std::string peer_rec = " (" + std::to_string(kAlign) + "-B aligned record)";
  auto check = [&] { return device_equal(a, b, rb, s) ? std::string("ok") : std::string("MISMATCH: records differ from thrust's"); };

  measure(ctx, Row{"gather " + rec + ", random permutation", "thrust::gather" + peer_rec, "-", n, 0, 0, 0, bytes, target, ""},
      [&] { size_t tb = temp_bytes; return prim::gather(temp.get(), tb, in, a, perm, n, n, s); },
      [&] { thrust::gather(thrust::cuda::par.on(s), perm, perm + n, in, b); return cudaGetLastError(); }, check);
  measure(ctx, Row{"scatter " + rec + ", random permutation", "thrust::scatter" + peer_rec, "-", n, 0, 0, 0, bytes, target, ""},
      [&] { size_t tb = temp_bytes; return prim::scatter(temp.get(), tb, in, a, perm, n, n, s); },
      [&] { thrust::scatter(thrust::cuda::par.on(s), in, in + n, perm, b); return cudaGetLastError(); }, check);
  if (kBytes < 32 && ctx.opt.sweep_passes) {
    // He et al.'s multi-pass scatter, forced, to find where (and whether) it wins over one pass.
    for (uint32_t passes : {1u, 2u, 4u, 8u, 16u, 32u}) {
      measure(ctx, Row{"scatter " + rec + ", " + std::to_string(passes) + " pass(es)", "thrust::scatter" + peer_rec, "-", n, 0, 0, 0, bytes, 0, ""},
          [&] { size_t tb = temp_bytes; return prim::scatter(temp.get(), tb, in, a, perm, n, n, s, nullptr, prim::ScatterOptions{passes}); },
          [&] { thrust::scatter(thrust::cuda::par.on(s), in, in + n, perm, b); return cudaGetLastError(); }, check);
    }
  }
}

}  // namespace

void run_move_rows(Context& ctx, int64_t n) {
  const cudaStream_t s = ctx.stream;
  Buffer perm(n * sizeof(uint32_t));
  BENCH_TRY(ctx, perm.status());
  fill_random_permutation(perm.as<uint32_t>(), n, 99, s);
  BENCH_TRY(ctx, cudaGetLastError());
  gather_scatter_rows<64, 16>(ctx, n, perm.as<uint32_t>(), 1.2);
  gather_scatter_rows<64, 4>(ctx, n, perm.as<uint32_t>(), 0);
  gather_scatter_rows<4, 4>(ctx, n, perm.as<uint32_t>(), 0);
  gather_scatter_rows<256, 16>(ctx, n, perm.as<uint32_t>(), 0);
  if (ctx.opt.sweep_passes) {
    gather_scatter_rows<8, 8>(ctx, n, perm.as<uint32_t>(), 0);
    gather_scatter_rows<16, 16>(ctx, n, perm.as<uint32_t>(), 0);
  }

  // ---- scan and reduce (ours wrap CUB: the target is parity) ----
  const size_t kb = n * sizeof(uint32_t);
  Buffer in(kb), out_a(kb), out_b(kb);
  BENCH_TRY(ctx, in.status());
  BENCH_TRY(ctx, out_a.status());
  BENCH_TRY(ctx, out_b.status());
  fill_keys(in.as<uint32_t>(), n, Dist::uniform, 5, s);
  const uint32_t* x = in.as<uint32_t>();
  uint32_t *a = out_a.as<uint32_t>(), *b = out_b.as<uint32_t>();
  size_t t1 = 0, t2 = 0, t3 = 0, t4 = 0;
  BENCH_TRY(ctx, prim::exclusive_sum(nullptr, t1, x, a, n));
  BENCH_TRY(ctx, cub::DeviceScan::ExclusiveSum(nullptr, t2, x, b, n));
  BENCH_TRY(ctx, prim::reduce_sum(nullptr, t3, x, a, n));
  BENCH_TRY(ctx, cub::DeviceReduce::Sum(nullptr, t4, x, b, n));
  const size_t tb = std::max({t1, t2, t3, t4});
  Buffer temp(tb);
  BENCH_TRY(ctx, temp.status());
  measure(ctx, Row{"exclusive scan u32 (sum)", "cub DeviceScan::ExclusiveSum", "-", n, 0, 0, 0, 8.0 * n, 0.95, ""},
      [&] { size_t b2 = tb; return prim::exclusive_sum(temp.get(), b2, x, a, n, s); },
      [&] { size_t b2 = tb; return cub::DeviceScan::ExclusiveSum(temp.get(), b2, x, b, n, s); },
      [&] { return device_equal(a, b, kb, s) ? std::string("ok") : std::string("MISMATCH: scan differs from CUB's"); });
  measure(ctx, Row{"reduce u32 (sum)", "cub DeviceReduce::Sum", "-", n, 0, 0, 0, 4.0 * n, 0.95, ""},
      [&] { size_t b2 = tb; return prim::reduce_sum(temp.get(), b2, x, a, n, s); },
      [&] { size_t b2 = tb; return cub::DeviceReduce::Sum(temp.get(), b2, x, b, n, s); },
      [&] { return device_equal(a, b, sizeof(uint32_t), s) ? std::string("ok") : std::string("MISMATCH: sum differs from CUB's"); });
}

}  // namespace bench
