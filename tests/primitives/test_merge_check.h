// Runs prim::merge / prim::merge_pairs on the GPU and compares with the C++ reference (the merge tests' harness).
#pragma once
#include <prim/merge.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "primitives/reference/merge_reference.h"
#include "primitives/test_split_util.h"

namespace merge_test {

using split_test::DeviceBuffer;
using split_test::poisoned;
using split_test::same_bytes;

// A comparator the library cannot see into: descending order.
struct Greater {
  template <class T>
  __host__ __device__ bool operator()(const T& a, const T& b) const {
    return b < a;
  }
};
// 64-bit keys ordered by their high 32 bits only: many keys are equivalent without being equal, so the order of
// equivalent keys (stability) shows in the output.
struct ByHighWord {
  __host__ __device__ bool operator()(uint64_t a, uint64_t b) const { return (a >> 32) < (b >> 32); }
};

// A 16-byte value: the pairs' payload (its bytes name its input and position).
struct Payload16 {
  uint32_t input, position, check, pad;
};

// n random keys below `range`, sorted by comp (fixed seed).
template <class K, class Compare = prim::Less>
std::vector<K> sorted_keys(size_t n, uint64_t range, uint64_t seed, Compare comp = {}) {
  std::mt19937_64 rng(seed);
  std::vector<K> keys(n);
  for (auto& k : keys) k = static_cast<K>(range == 0 ? rng() : rng() % range);
  std::stable_sort(keys.begin(), keys.end(), comp);
  return keys;
}

struct MergeOptions {
  bool device_counts = false;  // pass both counts on the device, each bound = count + slack
  int64_t slack = 0;
};

// Values of input `which`: a Payload16 naming the input and the position.
inline std::vector<Payload16> payloads(size_t n, uint32_t which) {
  std::vector<Payload16> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = Payload16{which, static_cast<uint32_t>(i), which * 7919u + static_cast<uint32_t>(i), 0};
  return v;
}

// Merges a and b (keys, or pairs with Payload16 values) on the device; checks the output against the reference,
// the untouched tail past the real count, the invalid counter and the untouched inputs.
template <bool PAIRS, class K, class Compare = prim::Less>
void check_merge(const std::vector<K>& a, const std::vector<K>& b, Compare comp = {}, MergeOptions opt = {}) {
  SCOPED_TRACE(testing::Message() << (PAIRS ? "pairs" : "keys") << " na=" << a.size() << " nb=" << b.size());
  const int64_t na = static_cast<int64_t>(a.size()), nb = static_cast<int64_t>(b.size());
  const int64_t cap_a = na + opt.slack, cap_b = nb + opt.slack;
  const int64_t capacity = cap_a + cap_b;
  const std::vector<Payload16> va = payloads(a.size(), 1), vb = payloads(b.size(), 2);
  DeviceBuffer<K> d_a(std::max<int64_t>(cap_a, 1)), d_b(std::max<int64_t>(cap_b, 1)), d_out(std::max<int64_t>(capacity, 1));
  DeviceBuffer<Payload16> d_va(std::max<int64_t>(cap_a, 1)), d_vb(std::max<int64_t>(cap_b, 1));
  DeviceBuffer<Payload16> d_vout(std::max<int64_t>(capacity, 1));
  ASSERT_CUDA(cudaMemcpy(d_a.get(), a.data(), sizeof(K) * a.size(), cudaMemcpyHostToDevice));
  ASSERT_CUDA(cudaMemcpy(d_b.get(), b.data(), sizeof(K) * b.size(), cudaMemcpyHostToDevice));
  ASSERT_CUDA(cudaMemcpy(d_va.get(), va.data(), sizeof(Payload16) * va.size(), cudaMemcpyHostToDevice));
  ASSERT_CUDA(cudaMemcpy(d_vb.get(), vb.data(), sizeof(Payload16) * vb.size(), cudaMemcpyHostToDevice));
  DeviceBuffer<uint64_t> d_scalars(std::vector<uint64_t>{0, static_cast<uint64_t>(na), static_cast<uint64_t>(nb)});
  const prim::ItemCount n1 = opt.device_counts ? prim::ItemCount(cap_a, d_scalars.get() + 1) : prim::ItemCount(na);
  const prim::ItemCount n2 = opt.device_counts ? prim::ItemCount(cap_b, d_scalars.get() + 2) : prim::ItemCount(nb);

  auto run = [&](void* d_temp, size_t& bytes) {
    if constexpr (PAIRS) {
      return prim::merge_pairs(d_temp, bytes, d_a.get(), d_va.get(), n1, d_b.get(), d_vb.get(), n2, d_out.get(),
                               d_vout.get(), comp, 0, d_scalars.get());
    } else {
      return prim::merge(d_temp, bytes, d_a.get(), n1, d_b.get(), n2, d_out.get(), comp, 0, d_scalars.get());
    }
  };
  size_t bytes = 0;
  ASSERT_CUDA(run(nullptr, bytes));
  ASSERT_GE(bytes, 1u);
  DeviceBuffer<unsigned char> d_temp(bytes);
  ASSERT_CUDA(run(d_temp.get(), bytes));
  ASSERT_CUDA(cudaGetLastError());
  ASSERT_CUDA(cudaDeviceSynchronize());

  const size_t total = a.size() + b.size();
  std::vector<K> want(total);
  std::vector<Payload16> want_values(total);
  prim::reference::merge_pairs(a.data(), va.data(), na, b.data(), vb.data(), nb, want.data(), want_values.data(), comp);
  EXPECT_EQ(d_scalars.download_one(0), 0u) << "invalid count";
  const std::vector<K> got = d_out.download(static_cast<size_t>(std::max<int64_t>(capacity, 1)));
  for (size_t i = 0; i < total; ++i) ASSERT_TRUE(same_bytes(got[i], want[i])) << "key at " << i;
  for (size_t i = total; i < static_cast<size_t>(capacity); ++i) {
    ASSERT_TRUE(same_bytes(got[i], poisoned<K>())) << "key written past the merged count at " << i;
  }
  if constexpr (PAIRS) {
    const std::vector<Payload16> got_values = d_vout.download(static_cast<size_t>(std::max<int64_t>(capacity, 1)));
    for (size_t i = 0; i < total; ++i) ASSERT_TRUE(same_bytes(got_values[i], want_values[i])) << "value at " << i;
    for (size_t i = total; i < static_cast<size_t>(capacity); ++i) {
      ASSERT_TRUE(same_bytes(got_values[i], poisoned<Payload16>())) << "value written past the merged count at " << i;
    }
  } else {
    for (const Payload16& v : d_vout.download()) ASSERT_TRUE(same_bytes(v, poisoned<Payload16>())) << "keys-only wrote values";
  }
  EXPECT_EQ(d_a.download(a.size()), a) << "first input changed";
  EXPECT_EQ(d_b.download(b.size()), b) << "second input changed";
}

}  // namespace merge_test
