// The example of primitives/README.md: count elements per bucket, turn the counts into bucket offsets with an
// exclusive scan, sum them with a reduction, and gather 64-byte records through a permutation.
// Prints the results; exits non-zero with the CUDA error where no usable GPU exists.
#include <cstdint>
#include <cstdio>
#include <algorithm>
#include <vector>

#include "prim/gather_scatter.h"
#include "prim/histogram.h"
#include "prim/reduce.h"
#include "prim/scan.h"

#define CHECK(call)                                                                                  \
  do {                                                                                               \
    const cudaError_t status_ = (call);                                                              \
    if (status_ != cudaSuccess) {                                                                    \
      std::fprintf(stderr, "prim_example: %s failed: %s (%s)\n", #call, cudaGetErrorName(status_),   \
                   cudaGetErrorString(status_));                                                     \
      return 1;                                                                                      \
    }                                                                                                \
  } while (0)

struct Record {  // a 64-byte record: what gather/scatter move as a unit
  uint32_t key;
  float payload[15];
};

int main() {
  constexpr int64_t n = 1 << 20;
  constexpr uint32_t num_buckets = 16;

  std::vector<uint32_t> keys(n);
  for (int64_t i = 0; i < n; ++i) keys[i] = static_cast<uint32_t>(i * 2654435761u);
  std::vector<Record> records(n);
  for (int64_t i = 0; i < n; ++i) records[i] = Record{keys[i], {float(i)}};
  std::vector<uint32_t> reverse(n);
  for (int64_t i = 0; i < n; ++i) reverse[i] = static_cast<uint32_t>(n - 1 - i);

  uint32_t* d_keys = nullptr;
  uint64_t *d_counts = nullptr, *d_offsets = nullptr, *d_total = nullptr;
  Record *d_records = nullptr, *d_gathered = nullptr;
  uint32_t* d_map = nullptr;
  CHECK(cudaMalloc(&d_keys, n * sizeof(uint32_t)));
  CHECK(cudaMalloc(&d_counts, num_buckets * sizeof(uint64_t)));
  CHECK(cudaMalloc(&d_offsets, num_buckets * sizeof(uint64_t)));
  CHECK(cudaMalloc(&d_total, sizeof(uint64_t)));
  CHECK(cudaMalloc(&d_records, n * sizeof(Record)));
  CHECK(cudaMalloc(&d_gathered, n * sizeof(Record)));
  CHECK(cudaMalloc(&d_map, n * sizeof(uint32_t)));
  CHECK(cudaMemcpy(d_keys, keys.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_records, records.data(), n * sizeof(Record), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_map, reverse.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));

  // Two-phase scratch: size queries first, one allocation, then stream-ordered calls with no allocation.
  const auto bucket_of = [] __device__(uint32_t key) { return key >> 28; };  // top 4 bits: 16 buckets
  size_t hist_bytes = 0, scan_bytes = 0, sum_bytes = 0, gather_bytes = 0;
  CHECK(prim::histogram_buckets(nullptr, hist_bytes, d_keys, n, num_buckets, bucket_of, d_counts));
  CHECK(prim::exclusive_sum(nullptr, scan_bytes, d_counts, d_offsets, num_buckets));
  CHECK(prim::reduce_sum(nullptr, sum_bytes, d_counts, d_total, num_buckets));
  CHECK(prim::gather(nullptr, gather_bytes, d_records, d_gathered, d_map, n, n));
  size_t temp_bytes = std::max({hist_bytes, scan_bytes, sum_bytes, gather_bytes});
  void* d_temp = nullptr;
  CHECK(cudaMalloc(&d_temp, temp_bytes));

  cudaStream_t stream = nullptr;
  CHECK(cudaStreamCreate(&stream));
  CHECK(prim::histogram_buckets(d_temp, temp_bytes, d_keys, n, num_buckets, bucket_of, d_counts, stream));
  CHECK(prim::exclusive_sum(d_temp, temp_bytes, d_counts, d_offsets, num_buckets, stream));
  CHECK(prim::reduce_sum(d_temp, temp_bytes, d_counts, d_total, num_buckets, stream));
  CHECK(prim::gather(d_temp, temp_bytes, d_records, d_gathered, d_map, n, n, stream));
  CHECK(cudaStreamSynchronize(stream));

  std::vector<uint64_t> counts(num_buckets), offsets(num_buckets);
  uint64_t total = 0;
  Record last{};
  CHECK(cudaMemcpy(counts.data(), d_counts, num_buckets * sizeof(uint64_t), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(offsets.data(), d_offsets, num_buckets * sizeof(uint64_t), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&total, d_total, sizeof(uint64_t), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&last, d_gathered + (n - 1), sizeof(Record), cudaMemcpyDeviceToHost));

  std::printf("%lld keys into %u buckets by their top 4 bits\n", static_cast<long long>(n), num_buckets);
  std::printf("bucket  count    offset\n");
  for (uint32_t b = 0; b < num_buckets; ++b) {
    std::printf("%6u %7llu %9llu\n", b, static_cast<unsigned long long>(counts[b]),
                static_cast<unsigned long long>(offsets[b]));
  }
  std::printf("total %llu (expected %lld)\n", static_cast<unsigned long long>(total), static_cast<long long>(n));
  std::printf("gathered record %lld through the reversed map: key %u (expected %u)\n",
              static_cast<long long>(n - 1), last.key, keys[0]);
  const bool ok = total == static_cast<uint64_t>(n) && last.key == keys[0];

  cudaFree(d_temp);
  cudaFree(d_map);
  cudaFree(d_gathered);
  cudaFree(d_records);
  cudaFree(d_total);
  cudaFree(d_offsets);
  cudaFree(d_counts);
  cudaFree(d_keys);
  cudaStreamDestroy(stream);
  std::printf("%s\n", ok ? "ok" : "MISMATCH");
  return ok ? 0 : 1;
}
