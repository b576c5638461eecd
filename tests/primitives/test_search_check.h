// Runs prim::lower_bound / prim::upper_bound on the GPU and compares with the C++ reference (the search tests'
// harness).
#pragma once
#include <prim/search.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "primitives/reference/search_reference.h"
#include "primitives/test_split_util.h"

namespace search_test {

using split_test::DeviceBuffer;
using split_test::poisoned;

enum class Bound { lower, upper };

// A comparator the library cannot see into: descending order.
struct Greater {
  template <class T>
  __host__ __device__ bool operator()(const T& a, const T& b) const {
    return b < a;
  }
};

// n random keys below `range` (0: any), sorted by comp when `sorted` (fixed seed).
template <class K, class Compare = prim::Less>
std::vector<K> random_keys(size_t n, uint64_t range, uint64_t seed, bool sorted, Compare comp = {}) {
  std::mt19937_64 rng(seed);
  std::vector<K> keys(n);
  for (auto& k : keys) k = static_cast<K>(range == 0 ? rng() : rng() % range);
  if (sorted) std::sort(keys.begin(), keys.end(), comp);
  return keys;
}

struct SearchOptions {
  prim::NeedleOrder order = prim::NeedleOrder::any;
  bool device_counts = false;  // both counts on the device, each bound = count + slack
  int64_t slack = 0;
  int64_t haystack_offset = 0;  // items the haystack starts after its buffer's (aligned) start
};

// Searches `needles` in `haystack` on the device; checks every result against the reference, the untouched tail past
// the needle count, the invalid counter and the untouched inputs.
template <Bound BOUND, class Index = uint32_t, class K, class Compare = prim::Less>
void check_search(const std::vector<K>& haystack, const std::vector<K>& needles, SearchOptions opt = {},
                  Compare comp = {}) {
  const int64_t h = static_cast<int64_t>(haystack.size()), n = static_cast<int64_t>(needles.size());
  const int64_t cap_h = h + opt.slack, cap_n = n + opt.slack;
  SCOPED_TRACE(testing::Message() << (BOUND == Bound::lower ? "lower_bound" : "upper_bound") << " h=" << h
                                  << " n=" << n << (opt.order == prim::NeedleOrder::sorted ? " sorted" : " any")
                                  << " route="
                                  << (prim::detail::search_sweeps(opt.order, cap_h, cap_n) ? "sweep" : "sampled"));
  DeviceBuffer<K> d_hay_buffer(std::max<int64_t>(cap_h + opt.haystack_offset, 1)),
      d_needles(std::max<int64_t>(cap_n, 1));
  K* const d_hay = d_hay_buffer.get() + opt.haystack_offset;
  DeviceBuffer<Index> d_out(std::max<int64_t>(cap_n, 1));
  ASSERT_CUDA(cudaMemcpy(d_hay, haystack.data(), sizeof(K) * haystack.size(), cudaMemcpyHostToDevice));
  ASSERT_CUDA(cudaMemcpy(d_needles.get(), needles.data(), sizeof(K) * needles.size(), cudaMemcpyHostToDevice));
  DeviceBuffer<uint64_t> d_scalars(std::vector<uint64_t>{0, static_cast<uint64_t>(h), static_cast<uint64_t>(n)});
  const prim::ItemCount hc = opt.device_counts ? prim::ItemCount(cap_h, d_scalars.get() + 1) : prim::ItemCount(h);
  const prim::ItemCount nc = opt.device_counts ? prim::ItemCount(cap_n, d_scalars.get() + 2) : prim::ItemCount(n);
  auto run = [&](void* d_temp, size_t& bytes) {
    if constexpr (BOUND == Bound::lower) {
      return prim::lower_bound(d_temp, bytes, d_hay, hc, d_needles.get(), nc, d_out.get(), comp, 0, opt.order,
                               d_scalars.get());
    } else {
      return prim::upper_bound(d_temp, bytes, d_hay, hc, d_needles.get(), nc, d_out.get(), comp, 0, opt.order,
                               d_scalars.get());
    }
  };
  size_t bytes = 0;
  ASSERT_CUDA(run(nullptr, bytes));
  ASSERT_GE(bytes, 1u);
  DeviceBuffer<unsigned char> d_temp(bytes);
  ASSERT_CUDA(run(d_temp.get(), bytes));
  ASSERT_CUDA(cudaGetLastError());
  ASSERT_CUDA(cudaDeviceSynchronize());

  std::vector<Index> want(needles.size());
  if constexpr (BOUND == Bound::lower) {
    prim::reference::lower_bound(haystack.data(), h, needles.data(), n, want.data(), comp);
  } else {
    prim::reference::upper_bound(haystack.data(), h, needles.data(), n, want.data(), comp);
  }
  EXPECT_EQ(d_scalars.download_one(0), 0u) << "invalid count";
  const std::vector<Index> got = d_out.download();
  for (size_t i = 0; i < needles.size(); ++i) ASSERT_EQ(got[i], want[i]) << "needle " << i;
  for (size_t i = needles.size(); i < got.size(); ++i) {
    ASSERT_EQ(got[i], poisoned<Index>()) << "written past the needle count at " << i;
  }
  const std::vector<K> hay_after = d_hay_buffer.download(haystack.size() + static_cast<size_t>(opt.haystack_offset));
  EXPECT_TRUE(std::equal(haystack.begin(), haystack.end(), hay_after.begin() + opt.haystack_offset))
      << "haystack changed";
  EXPECT_EQ(d_needles.download(needles.size()), needles) << "needles changed";
}

// Both bounds, needles sorted (the sweep where it reads less) and the same needles shuffled (the sampled search).
template <class K, class Compare = prim::Less>
void check_both_bounds_and_orders(const std::vector<K>& haystack, std::vector<K> needles, Compare comp = {},
                                  uint64_t seed = 1) {
  std::sort(needles.begin(), needles.end(), comp);
  SearchOptions sorted;
  sorted.order = prim::NeedleOrder::sorted;
  check_search<Bound::lower>(haystack, needles, sorted, comp);
  check_search<Bound::upper>(haystack, needles, sorted, comp);
  std::mt19937_64 rng(seed);
  std::shuffle(needles.begin(), needles.end(), rng);
  check_search<Bound::lower>(haystack, needles, {}, comp);
  check_search<Bound::upper>(haystack, needles, {}, comp);
}

}  // namespace search_test
