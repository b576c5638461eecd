// Rows of the hash map (prim/hash_map.h) against what a user does without one: sort the pairs by key (CUB), then
// find a query with a vectorised binary search (thrust::lower_bound) and a look at the key it lands on. See
// bench_common.h for the method.
//
// Keys are distinct u32s (a bijection of the index, never the reserved key), values their indices. Present queries
// are the keys in another order, absent queries keys of indices n..2n-1. Both sides answer every query with its value
// or 0xFFFFFFFF, and the answers are compared before timing; the insert row compares the answers to the present
// queries of the table it built with the peer's. Insert is timed with the clear of the table (a build from empty).
// Rates are keys a second (the table's Gitems/s column); the 0.8 rows carry the issue's targets as rates.
#include <cub/device/device_radix_sort.cuh>
#include <string>
#include <thrust/binary_search.h>
#include <thrust/execution_policy.h>
#include <vector>

#include "bench_common.h"
#include "prim/hash_map.h"

namespace bench {
namespace {

constexpr uint32_t kNotFound = prim::hash_map_not_found<uint32_t>();
constexpr int kThreads = 256;

// A bijection of u32 other than the map's hash, so that key order says nothing about home order.
__host__ __device__ uint32_t scramble(uint32_t x) {
  x = x * 0x9E3779B9u + 0x7F4A7C15u;
  x ^= x >> 15;
  x *= 0x2C1B3C6Du;
  x ^= x >> 12;
  return x;
}
// The key of index i (< 2^32 - 1): the one index whose scramble is the reserved key takes scramble(2^32 - 1) instead,
// which no other index has.
__host__ __device__ uint32_t key_of_index(uint32_t i) {
  const uint32_t k = scramble(i);
  return k == prim::hash_map_empty_key<uint32_t>() ? scramble(0xFFFFFFFFu) : k;
}

// keys[i] = key_of_index(first + i); with `shuffle` (n a power of two), the index is first + (i * odd mod n) instead:
// the same keys in another order.
__global__ void __launch_bounds__(kThreads) hash_keys_kernel(uint32_t* keys, int64_t n, uint32_t first, bool shuffle) {
  const int64_t i = blockIdx.x * int64_t(kThreads) + threadIdx.x;
  if (i >= n) return;
  const uint32_t j = shuffle ? static_cast<uint32_t>((uint64_t(i) * 0x9E3779B1u) & uint64_t(n - 1)) : uint32_t(i);
  keys[i] = key_of_index(first + j);
}

// The peer's answer from lower_bound's positions: the value where the key was found, else kNotFound.
__global__ void __launch_bounds__(kThreads)
    sorted_lookup_kernel(const uint32_t* queries, const uint32_t* pos, const uint32_t* sorted_keys,
                         const uint32_t* sorted_values, uint32_t* out, int64_t n) {
  const int64_t i = blockIdx.x * int64_t(kThreads) + threadIdx.x;
  if (i >= n) return;
  const uint32_t p = pos[i];
  out[i] = p < n && sorted_keys[p] == queries[i] ? sorted_values[p] : kNotFound;
}

unsigned blocks_for(int64_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

bool wanted(const Context& ctx, const std::string& op) {
  return ctx.opt.filter.empty() || op.find(ctx.opt.filter) != std::string::npos;
}

std::string load_name(double load) { return load < 0.85 ? "0.8" : "0.9"; }

}  // namespace

void run_hash_map_rows(Context& ctx, int64_t n) {
  using Map = prim::HashMap<uint32_t, uint32_t>;
  using View = prim::HashMapView<uint32_t, uint32_t>;
  const double loads[] = {0.8, 0.9};
  const prim::HashMapProbing probings[] = {prim::HashMapProbing::linear, prim::HashMapProbing::ordered};
  auto op_name = [](const char* what, double load, prim::HashMapProbing p) {
    return std::string("hash map ") + what + " u32 @" + load_name(load) +
           (p == prim::HashMapProbing::ordered ? " ordered" : " linear");
  };
  bool any = false;
  for (double load : loads) {
    for (auto p : probings) {
      for (const char* what : {"insert", "find present", "find absent"}) any = any || wanted(ctx, op_name(what, load, p));
    }
  }
  if (!any || n >= (int64_t(1) << 31)) return;

  const cudaStream_t s = ctx.stream;
  const size_t kb = n * sizeof(uint32_t);
  Buffer keys(kb), values(kb), present(kb), absent(kb), out_a(kb), out_b(kb), pos(kb), sorted_keys(kb),
      sorted_values(kb), invalid(sizeof(uint64_t));
  for (const Buffer* b : {&keys, &values, &present, &absent, &out_a, &out_b, &pos, &sorted_keys, &sorted_values, &invalid}) {
    BENCH_TRY(ctx, b->status());
  }
  uint32_t* k = keys.as<uint32_t>();
  uint32_t* v = values.as<uint32_t>();
  uint32_t *sk = sorted_keys.as<uint32_t>(), *sv = sorted_values.as<uint32_t>();
  uint32_t *a = out_a.as<uint32_t>(), *b = out_b.as<uint32_t>();
  const bool power_of_two = (n & (n - 1)) == 0;
  hash_keys_kernel<<<blocks_for(n), kThreads, 0, s>>>(k, n, 0, false);
  hash_keys_kernel<<<blocks_for(n), kThreads, 0, s>>>(present.as<uint32_t>(), n, 0, power_of_two);
  hash_keys_kernel<<<blocks_for(n), kThreads, 0, s>>>(absent.as<uint32_t>(), n, static_cast<uint32_t>(n), false);
  BENCH_TRY(ctx, cudaGetLastError());
  fill_sequence(v, n, s);
  size_t sort_bytes = 0;
  BENCH_TRY(ctx, cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, k, sk, v, sv, n, 0, 32, s));
  Buffer sort_temp(sort_bytes);
  BENCH_TRY(ctx, sort_temp.status());

  // ---- the peer ----
  auto peer_build = [&] {
    size_t bytes = sort_bytes;
    return cub::DeviceRadixSort::SortPairs(sort_temp.get(), bytes, k, sk, v, sv, n, 0, 32, s);
  };
  auto peer_find = [&](const uint32_t* q, uint32_t* out) {
    thrust::lower_bound(thrust::cuda::par.on(s), sk, sk + n, q, q + n, pos.as<uint32_t>());
    sorted_lookup_kernel<<<blocks_for(n), kThreads, 0, s>>>(q, pos.as<uint32_t>(), sk, sv, out, n);
    return cudaGetLastError();
  };
  BENCH_TRY(ctx, peer_build());
  BENCH_TRY(ctx, cudaStreamSynchronize(s));

  for (double load : loads) {
    for (auto probing : probings) {
      bool row_wanted = false;
      for (const char* what : {"insert", "find present", "find absent"}) {
        row_wanted = row_wanted || wanted(ctx, op_name(what, load, probing));
      }
      if (!row_wanted) continue;
      Map map;
      BENCH_TRY(ctx, map.allocate(View::capacity_for(n, load), probing, s));
      uint64_t* d_invalid = invalid.as<uint64_t>();
      auto build = [&] {
        PRIM_TRY(map.clear(s));
        return map.insert(k, v, n, s, d_invalid);
      };
      // Answers of both sides to one set of queries, and no key counted invalid.
      auto same_answers = [&](const uint32_t* q) -> std::string {
        uint64_t h_invalid = 0;
        if (map.find(q, a, n, kNotFound, s) != cudaSuccess || peer_find(q, b) != cudaSuccess ||
            cudaMemcpyAsync(&h_invalid, d_invalid, sizeof(h_invalid), cudaMemcpyDeviceToHost, s) != cudaSuccess ||
            cudaStreamSynchronize(s) != cudaSuccess) {
          return "CUDA error in the check";
        }
        if (h_invalid != 0) return "MISMATCH: " + std::to_string(h_invalid) + " keys counted invalid";
        return device_equal(a, b, kb, s) ? "ok" : "MISMATCH: answers differ from the sorted array's";
      };
      BENCH_TRY(ctx, cudaMemsetAsync(d_invalid, 0, sizeof(uint64_t), s));
      const double gkeys_08 = load < 0.85 ? 1 : 0;  // the targets are for load 0.8
      measure(ctx, Row{op_name("insert", load, probing), "cub SortPairs of the pairs (sorted array)", "-", n, 0, 0, 0,
                       16.0 * n, 0, "", 4.0 * gkeys_08},
              [&] { return build(); }, peer_build, [&] {
                // Every timed call adds nothing when all keys fit: clear the counter, rebuild once, compare.
                if (cudaMemsetAsync(d_invalid, 0, sizeof(uint64_t), s) != cudaSuccess || build() != cudaSuccess) {
                  return std::string("CUDA error in the check");
                }
                return same_answers(present.as<uint32_t>());
              });
      // The finds read the table of one build, made here whatever rows the filter left.
      BENCH_TRY(ctx, cudaMemsetAsync(d_invalid, 0, sizeof(uint64_t), s));
      BENCH_TRY(ctx, build());
      BENCH_TRY(ctx, cudaStreamSynchronize(s));
      for (int kind = 0; kind < 2; ++kind) {
        const uint32_t* q = kind == 0 ? present.as<uint32_t>() : absent.as<uint32_t>();
        measure(ctx, Row{op_name(kind == 0 ? "find present" : "find absent", load, probing),
                         "thrust lower_bound on the sorted keys + look", "-", n, 0, 0, 0, 16.0 * n, 0, "",
                         (kind == 0 ? 8.0 : 4.0) * gkeys_08},
                [&] { return map.find(q, a, n, kNotFound, s); }, [&] { return peer_find(q, b); },
                [&] { return same_answers(q); });
      }
    }
  }
}

}  // namespace bench
