// 64-bit counts: a stable and an unstable 256-way split and a gather split-index of 2^31 + 7 one-byte records on
// the GPU.
// The checks run on the GPU too (a 2^31 CPU reference would take minutes), and they are real checks:
//   * bucket offsets equal an independent histogram (shared-memory counting kernel);
//   * every output record lies in the bucket its position says;
//   * the gather permutation (uint64 indices, values above 2^31) points at a record of the right bucket and
//     increases strictly inside every bucket: with the per-bucket totals this makes it a permutation, and stable.
#include <prim/split.h>
#include <prim/split_index.h>

#include "primitives/test_split_util.h"

namespace {
using namespace split_test;

constexpr int64_t kHugeCount = (int64_t{1} << 31) + 7;
constexpr int kCheckThreads = 256;

__host__ __device__ inline uint8_t key_at(uint64_t i) {
  uint64_t x = i * 0x9E3779B97F4A7C15ull;  // a fixed hash: a uniform-looking byte per position
  x ^= x >> 29;
  x *= 0xBF58476D1CE4E5B9ull;
  return static_cast<uint8_t>(x >> 56);
}

struct ByteBucket {
  __host__ __device__ uint32_t operator()(const uint8_t& k) const { return k; }
};

__global__ void fill_keys(uint8_t* keys, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += int64_t{gridDim.x} * blockDim.x) {
    keys[i] = key_at(static_cast<uint64_t>(i));
  }
}

__global__ void histogram_keys(const uint8_t* keys, int64_t n, unsigned long long* hist) {
  __shared__ unsigned long long local[256];
  for (int d = threadIdx.x; d < 256; d += blockDim.x) local[d] = 0;
  __syncthreads();
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += int64_t{gridDim.x} * blockDim.x) {
    atomicAdd(&local[keys[i]], 1ull);
  }
  __syncthreads();
  for (int d = threadIdx.x; d < 256; d += blockDim.x) atomicAdd(&hist[d], local[d]);
}

// Bucket of output position i from the offsets (binary search over 257 entries).
__device__ int bucket_of_position(const uint64_t* offsets, uint64_t i) {
  int lo = 0, hi = 256;
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (offsets[mid] <= i) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

__global__ void check_split_output(const uint8_t* out, const uint64_t* offsets, int64_t n,
                                   unsigned long long* violations) {
  __shared__ uint64_t off[257];
  for (int d = threadIdx.x; d <= 256; d += blockDim.x) off[d] = offsets[d];
  __syncthreads();
  unsigned long long bad = 0;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += int64_t{gridDim.x} * blockDim.x) {
    bad += out[i] != bucket_of_position(off, static_cast<uint64_t>(i));
  }
  if (bad) atomicAdd(violations, bad);
}

__global__ void check_gather(const uint64_t* perm, const uint64_t* offsets, int64_t n,
                             unsigned long long* violations) {
  __shared__ uint64_t off[257];
  for (int d = threadIdx.x; d <= 256; d += blockDim.x) off[d] = offsets[d];
  __syncthreads();
  unsigned long long bad = 0;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += int64_t{gridDim.x} * blockDim.x) {
    const int b = bucket_of_position(off, static_cast<uint64_t>(i));
    const uint64_t p = perm[i];
    bad += p >= static_cast<uint64_t>(n) || key_at(p) != b;
    if (static_cast<uint64_t>(i) > off[b]) bad += perm[i - 1] >= p;  // strictly increasing inside the bucket
  }
  if (bad) atomicAdd(violations, bad);
}

TEST(SplitHuge, TwoPow31Plus7Elements) {
  size_t free_bytes = 0, total_bytes = 0;
  ASSERT_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  const size_t need = size_t(kHugeCount) * (1 + 1 + 8) + (size_t{1} << 30);
  if (free_bytes < need) GTEST_SKIP() << "needs " << (need >> 20) << " MiB of device memory";

  DeviceBuffer<uint8_t> d_keys(kHugeCount), d_out(kHugeCount);
  DeviceBuffer<uint64_t> d_offsets(257), d_perm_offsets(257), d_invalid(1);
  DeviceBuffer<unsigned long long> d_hist(256), d_violations(1);
  d_hist.zero();
  d_violations.zero();
  d_invalid.zero();
  d_out.poison();
  const int grid = 132 * 8;
  fill_keys<<<grid, kCheckThreads>>>(d_keys.get(), kHugeCount);
  histogram_keys<<<grid, kCheckThreads>>>(d_keys.get(), kHugeCount, d_hist.get());
  ASSERT_CUDA(cudaGetLastError());

  {  // records
    prim::Workspace ws;
    ASSERT_CUDA(prim::split(ws, d_keys.get(), d_out.get(), kHugeCount, 256, ByteBucket{}, d_offsets.get()));
  }
  const std::vector<uint64_t> offsets = d_offsets.download();
  const std::vector<unsigned long long> hist = d_hist.download();
  ASSERT_EQ(offsets[0], 0u);
  for (int b = 0; b < 256; ++b) ASSERT_EQ(offsets[b + 1] - offsets[b], hist[b]) << "bucket " << b;
  ASSERT_EQ(offsets[256], static_cast<uint64_t>(kHugeCount));
  check_split_output<<<grid, kCheckThreads>>>(d_out.get(), d_offsets.get(), kHugeCount, d_violations.get());
  ASSERT_CUDA(cudaDeviceSynchronize());
  EXPECT_EQ(d_violations.download()[0], 0u) << "records outside their bucket";

  {  // the unstable order (the split's own route at this size): same offsets, every record in its bucket (for 1-byte
     // records that is the multiset)
    d_out.poison();
    DeviceBuffer<uint64_t> d_unstable_offsets(257);
    prim::Workspace ws;
    ASSERT_CUDA(prim::split(ws, d_keys.get(), d_out.get(), kHugeCount, 256, ByteBucket{}, d_unstable_offsets.get(), 0,
                            prim::SplitOrder::unstable));
    EXPECT_EQ(d_unstable_offsets.download(), offsets);
    d_violations.zero();
    check_split_output<<<grid, kCheckThreads>>>(d_out.get(), d_offsets.get(), kHugeCount, d_violations.get());
    ASSERT_CUDA(cudaDeviceSynchronize());
    EXPECT_EQ(d_violations.download()[0], 0u) << "unstable: records outside their bucket";
  }
  d_out.resize(0);

  {  // gather permutation with 64-bit indices
    DeviceBuffer<uint64_t> d_perm(kHugeCount);
    prim::Workspace ws;
    ASSERT_CUDA(prim::split_index(ws, d_keys.get(), kHugeCount, 256, ByteBucket{}, d_perm.get(),
                                  prim::PermutationKind::gather, d_perm_offsets.get()));
    EXPECT_EQ(d_perm_offsets.download(), offsets);
    d_violations.zero();
    check_gather<<<grid, kCheckThreads>>>(d_perm.get(), d_offsets.get(), kHugeCount, d_violations.get());
    ASSERT_CUDA(cudaDeviceSynchronize());
    EXPECT_EQ(d_violations.download()[0], 0u) << "gather permutation wrong or unstable";
  }
}

}  // namespace
