// Shared helpers of the split / sort gpu tests: the tests' device buffer, record types of 4, 8, 16 and 64 bytes,
// bucket functors, fixed-seed input generators (uniform, one bucket, Zipf-like).
#pragma once
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "common/device_buffer.h"

#define ASSERT_CUDA(expr) ASSERT_EQ(cudaSuccess, (expr)) << #expr
#define EXPECT_CUDA(expr) EXPECT_EQ(cudaSuccess, (expr)) << #expr

namespace split_test {

// The tests' device array: poisoned on every allocation (common/device_buffer.h).
using slabtest::DeviceBuffer;

// A value whose every byte is the poison byte: what a DeviceBuffer element holds until something writes it.
template <typename T>
T poisoned() {
  T value;
  std::memset(static_cast<void*>(&value), slabtest::kPoisonByte, sizeof(T));
  return value;
}

// Records: `key` drives the bucket, `id` is the input position (checks stability), the rest is payload.
struct Rec4 {
  uint32_t key;
};
struct Rec8 {
  uint32_t key;
  uint32_t id;
};
struct Rec16 {
  uint32_t key;
  uint32_t id;
  uint64_t payload;
};
struct Rec64 {
  uint32_t key;
  uint32_t id;
  uint32_t payload[14];
};
static_assert(sizeof(Rec4) == 4 && sizeof(Rec8) == 8 && sizeof(Rec16) == 16 && sizeof(Rec64) == 64, "sizes");

__host__ __device__ inline uint32_t key_of(uint32_t k) { return k; }
__host__ __device__ inline uint32_t key_of(uint16_t k) { return k; }
template <typename R>
__host__ __device__ inline uint32_t key_of(const R& r) {
  return r.key;
}

template <typename R>
bool same_bytes(const R& a, const R& b) {
  return std::memcmp(&a, &b, sizeof(R)) == 0;
}

template <typename R>
R make_record(uint32_t key, uint32_t id) {
  R r;
  std::memset(&r, 0, sizeof(R));
  std::memcpy(&r, &key, sizeof(key));  // every record type starts with its key
  if constexpr (sizeof(R) >= 8) {
    std::memcpy(reinterpret_cast<char*>(&r) + 4, &id, sizeof(id));
    for (size_t b = 8; b < sizeof(R); ++b) reinterpret_cast<unsigned char*>(&r)[b] = static_cast<unsigned char>(id * 31 + b);
  }
  return r;
}

// Bucket functors.
struct BucketByKeyMod {  // key % num_buckets: always valid
  uint32_t num_buckets;
  template <typename R>
  __host__ __device__ uint32_t operator()(const R& r) const {
    return key_of(r) % num_buckets;
  }
  __host__ __device__ uint32_t operator()(const uint32_t& k) const { return k % num_buckets; }
};
struct BucketIsKey {  // the key itself: out of range where the key is >= num_buckets
  template <typename R>
  __host__ __device__ uint32_t operator()(const R& r) const {
    return key_of(r);
  }
  __host__ __device__ uint32_t operator()(const uint32_t& k) const { return k; }
};

enum class Distribution { uniform, one_bucket, zipf };

// Keys in [0, num_buckets) with the given distribution (fixed seed).
inline std::vector<uint32_t> make_bucket_keys(size_t n, uint32_t num_buckets, Distribution dist, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint32_t> keys(n);
  if (dist == Distribution::uniform) {
    std::uniform_int_distribution<uint32_t> u(0, num_buckets - 1);
    for (auto& k : keys) k = u(rng);
  } else if (dist == Distribution::one_bucket) {
    const uint32_t b = num_buckets / 2;
    for (auto& k : keys) k = b;
  } else {
    // Zipf-like, exponent 1: P(bucket i) ~ 1 / (i + 1), sampled through the cumulative weights.
    std::vector<double> cdf(num_buckets);
    double sum = 0;
    for (uint32_t i = 0; i < num_buckets; ++i) cdf[i] = (sum += 1.0 / (i + 1));
    std::uniform_real_distribution<double> u(0, sum);
    for (auto& k : keys) {
      const double x = u(rng);
      k = static_cast<uint32_t>(std::lower_bound(cdf.begin(), cdf.end(), x) - cdf.begin());
      if (k >= num_buckets) k = num_buckets - 1;
    }
  }
  return keys;
}

template <typename R>
std::vector<R> make_records(const std::vector<uint32_t>& keys) {
  std::vector<R> recs(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) recs[i] = make_record<R>(keys[i], static_cast<uint32_t>(i));
  return recs;
}

}  // namespace split_test
