// Rows of merge (vs cub::DeviceMerge and thrust::merge), lower_bound (vs thrust's vectorized lower_bound) and the
// compaction calls (vs cub::DeviceSelect / cub::DevicePartition); see bench_common.h for the method.
#include <algorithm>
#include <cub/device/device_merge.cuh>
#include <cub/device/device_partition.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>
#include <string>
#include <thrust/binary_search.h>
#include <thrust/execution_policy.h>
#include <thrust/merge.h>

#include "bench_common.h"
#include "prim/merge.h"
#include "prim/search.h"
#include "prim/select.h"

namespace bench {
namespace {

// select_if / partition_if keep about half the keys (uniform 32-bit keys).
struct LowerHalf {
  __host__ __device__ bool operator()(uint32_t key) const { return key < 0x80000000u; }
};

// select_flagged's flags: one byte a key, set for about half of them (a bit of the key that the predicate rows do not
// look at).
__global__ void __launch_bounds__(kIdThreads) flags_kernel(const uint32_t* keys, uint8_t* flags, int64_t n) {
  const int64_t i = blockIdx.x * int64_t(kIdThreads) + threadIdx.x;
  if (i < n) flags[i] = static_cast<uint8_t>((keys[i] >> 7) & 1u);
}

// select_unique's input: runs of 4 equal keys (runs[i] = keys[i / 4]).
__global__ void __launch_bounds__(kIdThreads) runs_kernel(const uint32_t* keys, uint32_t* runs, int64_t n) {
  const int64_t i = blockIdx.x * int64_t(kIdThreads) + threadIdx.x;
  if (i < n) runs[i] = keys[i / 4];
}

// Counts i < count with ours[i] != peer_end[-1 - i] (cub::DevicePartition::If writes the rejected items reversed
// after the selected ones; ours writes them in input order to an array of their own).
__global__ void __launch_bounds__(kIdThreads)
    reversed_mismatch_kernel(const uint32_t* ours, const uint32_t* peer_end, int64_t count, unsigned long long* errors) {
  const int64_t i = blockIdx.x * int64_t(kIdThreads) + threadIdx.x;
  if (i < count && ours[i] != peer_end[-1 - i]) atomicAdd(errors, 1ull);
}

unsigned id_blocks(int64_t n) { return static_cast<unsigned>((n + kIdThreads - 1) / kIdThreads); }

std::string equal_or(const char* what, const void* a, const void* b, size_t bytes, cudaStream_t s) {
  return device_equal(a, b, bytes, s) ? "ok" : std::string("MISMATCH: ") + what + " differ from the peer's";
}

// Both selected counts on the host (ours and the peer's); false on a CUDA error.
bool read_counts(const uint64_t* d_counts, uint64_t (&h)[2], cudaStream_t s) {
  return cudaMemcpyAsync(h, d_counts, sizeof(h), cudaMemcpyDeviceToHost, s) == cudaSuccess &&
         cudaStreamSynchronize(s) == cudaSuccess;
}

// The selected items and their count, against the peer's.
std::string selected_equal_or(const uint32_t* ours, const uint32_t* peer, const uint64_t* d_counts, cudaStream_t s) {
  uint64_t counts[2] = {};
  if (!read_counts(d_counts, counts, s)) return "CUDA error: reading the counts";
  if (counts[0] != counts[1]) {
    return "MISMATCH: " + std::to_string(counts[0]) + " selected, the peer " + std::to_string(counts[1]);
  }
  return equal_or("selected items", ours, peer, counts[0] * sizeof(uint32_t), s);
}

void merge_rows(Context& ctx, int64_t n) {
  const cudaStream_t s = ctx.stream;
  const size_t kb = n * sizeof(uint32_t);
  Buffer raw(2 * kb), keys(2 * kb), vals(2 * kb), out_a(2 * kb), out_b(2 * kb), vout_a(2 * kb), vout_b(2 * kb);
  for (const Buffer* b : {&raw, &keys, &vals, &out_a, &out_b, &vout_a, &vout_b}) BENCH_TRY(ctx, b->status());
  // Two sorted inputs of n keys each (one sort of 2n keys, halves sorted apart), values 0..2n-1.
  fill_keys(raw.as<uint32_t>(), 2 * n, Dist::uniform, 61, s);
  fill_sequence(vals.as<uint32_t>(), 2 * n, s);
  size_t sort_bytes = 0;
  BENCH_TRY(ctx, cub::DeviceRadixSort::SortKeys(nullptr, sort_bytes, raw.as<uint32_t>(), keys.as<uint32_t>(), n, 0, 32, s));
  {
    Buffer sort_temp(sort_bytes);
    BENCH_TRY(ctx, sort_temp.status());
    for (int half = 0; half < 2; ++half) {
      size_t b = sort_bytes;
      BENCH_TRY(ctx, cub::DeviceRadixSort::SortKeys(sort_temp.get(), b, raw.as<uint32_t>() + half * n,
                                                    keys.as<uint32_t>() + half * n, n, 0, 32, s));
    }
    BENCH_TRY(ctx, cudaStreamSynchronize(s));
  }
  const uint32_t *a = keys.as<uint32_t>(), *b = a + n, *va = vals.as<uint32_t>(), *vb = va + n;
  uint32_t *ka = out_a.as<uint32_t>(), *kb_ = out_b.as<uint32_t>(), *oa = vout_a.as<uint32_t>(), *ob = vout_b.as<uint32_t>();
  size_t t_keys = 0, t_pairs = 0, c_keys = 0, c_pairs = 0;
  BENCH_TRY(ctx, prim::merge(nullptr, t_keys, a, n, b, n, ka));
  BENCH_TRY(ctx, prim::merge_pairs(nullptr, t_pairs, a, va, n, b, vb, n, ka, oa));
  BENCH_TRY(ctx, cub::DeviceMerge::MergeKeys(nullptr, c_keys, a, n, b, n, kb_, cuda::std::less<>{}, s));
  BENCH_TRY(ctx, cub::DeviceMerge::MergePairs(nullptr, c_pairs, a, va, n, b, vb, n, kb_, ob, cuda::std::less<>{}, s));
  const size_t temp_bytes = std::max({t_keys, t_pairs, c_keys, c_pairs});
  Buffer temp(temp_bytes);
  BENCH_TRY(ctx, temp.status());
  void* t = temp.get();

  measure(ctx, Row{"merge u32 keys, n + n", "cub DeviceMerge::MergeKeys", "uniform", n, 0, 0, 0, 16.0 * n, 1.0, ""},
      [&] { size_t tb = temp_bytes; return prim::merge(t, tb, a, n, b, n, ka, prim::Less{}, s); },
      [&] { size_t tb = temp_bytes; return cub::DeviceMerge::MergeKeys(t, tb, a, n, b, n, kb_, cuda::std::less<>{}, s); },
      [&] { return equal_or("keys", ka, kb_, 2 * kb, s); });
  measure(ctx, Row{"merge u32+u32 pairs, n + n", "cub DeviceMerge::MergePairs", "uniform", n, 0, 0, 0, 32.0 * n, 1.0, ""},
      [&] { size_t tb = temp_bytes; return prim::merge_pairs(t, tb, a, va, n, b, vb, n, ka, oa, prim::Less{}, s); },
      [&] {
        size_t tb = temp_bytes;
        return cub::DeviceMerge::MergePairs(t, tb, a, va, n, b, vb, n, kb_, ob, cuda::std::less<>{}, s);
      },
      [&] {
        const std::string k = equal_or("keys", ka, kb_, 2 * kb, s);
        return k != "ok" ? k : equal_or("values", oa, ob, 2 * kb, s);
      });
  // thrust::merge, the other peer of the issue (no target of its own).
  measure(ctx, Row{"merge u32 keys, n + n (thrust peer)", "thrust::merge", "uniform", n, 0, 0, 0, 16.0 * n, 0, ""},
      [&] { size_t tb = temp_bytes; return prim::merge(t, tb, a, n, b, n, ka, prim::Less{}, s); },
      [&] { thrust::merge(thrust::cuda::par.on(s), a, a + n, b, b + n, kb_); return cudaGetLastError(); },
      [&] { return equal_or("keys", ka, kb_, 2 * kb, s); });
}

void search_rows(Context& ctx, int64_t n) {
  const cudaStream_t s = ctx.stream;
  const size_t kb = n * sizeof(uint32_t);
  Buffer raw(kb), haystack(kb), needles(kb), sorted_needles(kb), out_a(kb), out_b(kb);
  for (const Buffer* b : {&raw, &haystack, &needles, &sorted_needles, &out_a, &out_b}) BENCH_TRY(ctx, b->status());
  fill_keys(raw.as<uint32_t>(), n, Dist::uniform, 62, s);
  fill_keys(needles.as<uint32_t>(), n, Dist::uniform, 63, s);
  size_t sort_bytes = 0;
  BENCH_TRY(ctx, cub::DeviceRadixSort::SortKeys(nullptr, sort_bytes, raw.as<uint32_t>(), haystack.as<uint32_t>(), n, 0, 32, s));
  {
    Buffer sort_temp(sort_bytes);
    BENCH_TRY(ctx, sort_temp.status());
    size_t b = sort_bytes;
    BENCH_TRY(ctx, cub::DeviceRadixSort::SortKeys(sort_temp.get(), b, raw.as<uint32_t>(), haystack.as<uint32_t>(), n, 0, 32, s));
    b = sort_bytes;
    BENCH_TRY(ctx, cub::DeviceRadixSort::SortKeys(sort_temp.get(), b, needles.as<uint32_t>(),
                                                  sorted_needles.as<uint32_t>(), n, 0, 32, s));
    BENCH_TRY(ctx, cudaStreamSynchronize(s));
  }
  const uint32_t *hay = haystack.as<uint32_t>(), *any = needles.as<uint32_t>(), *sorted = sorted_needles.as<uint32_t>();
  uint32_t *oa = out_a.as<uint32_t>(), *ob = out_b.as<uint32_t>();
  size_t t_sorted = 0, t_any = 0;
  BENCH_TRY(ctx, prim::lower_bound(nullptr, t_sorted, hay, n, sorted, n, oa, prim::Less{}, s, prim::NeedleOrder::sorted));
  BENCH_TRY(ctx, prim::lower_bound(nullptr, t_any, hay, n, any, n, oa, prim::Less{}, s));
  const size_t temp_bytes = std::max(t_sorted, t_any);
  Buffer temp(temp_bytes);
  BENCH_TRY(ctx, temp.status());
  void* t = temp.get();
  const auto check = [&] { return equal_or("positions", oa, ob, kb, s); };

  measure(ctx, Row{"lower_bound u32, n sorted needles in n keys", "thrust::lower_bound (vectorized)", "uniform", n, 0, 0,
                   0, 12.0 * n, 2.0, ""},
      [&] {
        size_t tb = temp_bytes;
        return prim::lower_bound(t, tb, hay, n, sorted, n, oa, prim::Less{}, s, prim::NeedleOrder::sorted);
      },
      [&] { thrust::lower_bound(thrust::cuda::par.on(s), hay, hay + n, sorted, sorted + n, ob); return cudaGetLastError(); },
      check);
  measure(ctx, Row{"lower_bound u32, n unsorted needles in n keys", "thrust::lower_bound (vectorized)", "uniform", n, 0,
                   0, 0, 12.0 * n, 1.0, ""},
      [&] { size_t tb = temp_bytes; return prim::lower_bound(t, tb, hay, n, any, n, oa, prim::Less{}, s); },
      [&] { thrust::lower_bound(thrust::cuda::par.on(s), hay, hay + n, any, any + n, ob); return cudaGetLastError(); },
      check);
}

void select_rows(Context& ctx, int64_t n) {
  const cudaStream_t s = ctx.stream;
  const size_t kb = n * sizeof(uint32_t);
  Buffer keys(kb), runs(kb), flags(n), out_a(kb), out_b(kb), rejected(kb), counts(2 * sizeof(uint64_t));
  for (const Buffer* b : {&keys, &runs, &flags, &out_a, &out_b, &rejected, &counts}) BENCH_TRY(ctx, b->status());
  fill_keys(keys.as<uint32_t>(), n, Dist::uniform, 64, s);
  flags_kernel<<<id_blocks(n), kIdThreads, 0, s>>>(keys.as<uint32_t>(), flags.as<uint8_t>(), n);
  BENCH_TRY(ctx, cudaGetLastError());
  runs_kernel<<<id_blocks(n), kIdThreads, 0, s>>>(keys.as<uint32_t>(), runs.as<uint32_t>(), n);
  BENCH_TRY(ctx, cudaGetLastError());
  BENCH_TRY(ctx, cudaStreamSynchronize(s));
  const uint32_t *in = keys.as<uint32_t>(), *run_in = runs.as<uint32_t>();
  const uint8_t* f = flags.as<uint8_t>();
  uint32_t *oa = out_a.as<uint32_t>(), *ob = out_b.as<uint32_t>(), *rej = rejected.as<uint32_t>();
  uint64_t* c = counts.as<uint64_t>();  // [0] ours, [1] the peer's

  size_t sizes[8] = {};
  BENCH_TRY(ctx, prim::select_if(nullptr, sizes[0], in, oa, c, n, LowerHalf{}));
  BENCH_TRY(ctx, prim::select_flagged(nullptr, sizes[1], in, f, oa, c, n));
  BENCH_TRY(ctx, prim::select_unique(nullptr, sizes[2], run_in, oa, c, n));
  BENCH_TRY(ctx, prim::partition_if(nullptr, sizes[3], in, oa, rej, c, n, LowerHalf{}));
  BENCH_TRY(ctx, cub::DeviceSelect::If(nullptr, sizes[4], in, ob, c + 1, n, LowerHalf{}, s));
  BENCH_TRY(ctx, cub::DeviceSelect::Flagged(nullptr, sizes[5], in, f, ob, c + 1, n, s));
  BENCH_TRY(ctx, cub::DeviceSelect::Unique(nullptr, sizes[6], run_in, ob, c + 1, n, s));
  BENCH_TRY(ctx, cub::DevicePartition::If(nullptr, sizes[7], in, ob, c + 1, n, LowerHalf{}, s));
  const size_t temp_bytes = *std::max_element(sizes, sizes + 8);
  Buffer temp(temp_bytes);
  BENCH_TRY(ctx, temp.status());
  void* t = temp.get();
  const auto selected_check = [&] { return selected_equal_or(oa, ob, c, s); };

  measure(ctx, Row{"select_if u32 (half selected)", "cub DeviceSelect::If", "uniform", n, 0, 0, 0, 6.0 * n, 1.0, ""},
      [&] { size_t tb = temp_bytes; return prim::select_if(t, tb, in, oa, c, n, LowerHalf{}, s); },
      [&] { size_t tb = temp_bytes; return cub::DeviceSelect::If(t, tb, in, ob, c + 1, n, LowerHalf{}, s); },
      selected_check);
  measure(ctx, Row{"select_flagged u32 (half flagged, u8 flags)", "cub DeviceSelect::Flagged", "uniform", n, 0, 0, 0,
                   7.0 * n, 1.0, ""},
      [&] { size_t tb = temp_bytes; return prim::select_flagged(t, tb, in, f, oa, c, n, s); },
      [&] { size_t tb = temp_bytes; return cub::DeviceSelect::Flagged(t, tb, in, f, ob, c + 1, n, s); },
      selected_check);
  measure(ctx, Row{"select_unique u32 (runs of 4)", "cub DeviceSelect::Unique", "uniform", n, 0, 0, 0, 5.0 * n, 1.0, ""},
      [&] { size_t tb = temp_bytes; return prim::select_unique(t, tb, run_in, oa, c, n, prim::EqualTo{}, s); },
      [&] { size_t tb = temp_bytes; return cub::DeviceSelect::Unique(t, tb, run_in, ob, c + 1, n, s); },
      selected_check);
  // The peer writes one array, the rejected items reversed after the selected ones; ours writes the rejected items in
  // input order to an array of their own: the check compares the selected items as they are, the rejected reversed.
  measure(ctx, Row{"partition_if u32 (half selected, stable)", "cub DevicePartition::If", "uniform", n, 0, 0, 0, 8.0 * n,
                   1.0, ""},
      [&] { size_t tb = temp_bytes; return prim::partition_if(t, tb, in, oa, rej, c, n, LowerHalf{}, s); },
      [&] { size_t tb = temp_bytes; return cub::DevicePartition::If(t, tb, in, ob, c + 1, n, LowerHalf{}, s); },
      [&] {
        const std::string selected = selected_equal_or(oa, ob, c, s);
        if (selected != "ok") return selected;
        uint64_t h[2] = {};
        Buffer errors(sizeof(unsigned long long));
        if (!read_counts(c, h, s) || errors.status() != cudaSuccess ||
            cudaMemsetAsync(errors.get(), 0, errors.bytes(), s) != cudaSuccess) {
          return std::string("CUDA error: rejected check");
        }
        const int64_t rejected_count = n - static_cast<int64_t>(h[0]);
        if (rejected_count > 0) {
          reversed_mismatch_kernel<<<id_blocks(rejected_count), kIdThreads, 0, s>>>(rej, ob + n, rejected_count,
                                                                                   errors.as<unsigned long long>());
        }
        unsigned long long bad = 0;
        if (cudaGetLastError() != cudaSuccess ||
            cudaMemcpyAsync(&bad, errors.get(), sizeof(bad), cudaMemcpyDeviceToHost, s) != cudaSuccess ||
            cudaStreamSynchronize(s) != cudaSuccess) {
          return std::string("CUDA error: rejected check");
        }
        return bad == 0 ? std::string("ok")
                        : "MISMATCH: " + std::to_string(bad) + " rejected items differ from the peer's (reversed)";
      });
}

}  // namespace

void run_merge_search_select_rows(Context& ctx, int64_t n) {
  merge_rows(ctx, n);
  search_rows(ctx, n);
  select_rows(ctx, n);
}

}  // namespace bench
