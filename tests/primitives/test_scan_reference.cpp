// The scan / reduce references against the standard library (they are the oracles of the gpu tests).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "primitives/reference/scan_reference.h"

namespace {

std::vector<uint32_t> random_values(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint32_t> v(n);
  for (auto& x : v) x = static_cast<uint32_t>(rng());
  return v;
}

TEST(ScanReference, SumsMatchTheStandardLibrary) {
  for (size_t n : {size_t(0), size_t(1), size_t(2), size_t(33), size_t(1000)}) {
    const auto in = random_values(n, n);
    std::vector<uint32_t> inc(n), ex(n);
    std::inclusive_scan(in.begin(), in.end(), inc.begin());
    std::exclusive_scan(in.begin(), in.end(), ex.begin(), 5u);
    EXPECT_EQ((prim::reference::inclusive_scan<uint32_t>(in, std::plus<uint32_t>{})), inc);
    EXPECT_EQ((prim::reference::exclusive_scan<uint32_t>(in, std::plus<uint32_t>{}, 5u)), ex);
  }
}

TEST(ScanReference, NonCommutativeOperatorIsAppliedLeftToRight) {
  // String concatenation: associative, not commutative.
  const std::vector<std::string> in = {"a", "b", "c", "d"};
  const auto concat = [](const std::string& x, const std::string& y) { return x + y; };
  EXPECT_EQ((prim::reference::inclusive_scan<std::string>(in, concat)), (std::vector<std::string>{"a", "ab", "abc", "abcd"}));
  EXPECT_EQ((prim::reference::exclusive_scan<std::string>(in, concat, std::string(">"))),
            (std::vector<std::string>{">", ">a", ">ab", ">abc"}));
  EXPECT_EQ((prim::reference::reduce<std::string>(in, concat, std::string(">"))), ">abcd");
}

TEST(ScanReference, WideAccumulator) {
  const std::vector<uint8_t> in(1000, 255);
  const auto out = prim::reference::exclusive_scan<uint64_t>(in, std::plus<uint64_t>{}, uint64_t{0});
  EXPECT_EQ(out.back(), uint64_t{255} * 999);
}

TEST(ReduceReference, MatchesAccumulateMinMax) {
  const auto in = random_values(12345, 1);
  EXPECT_EQ((prim::reference::reduce<uint64_t>(in, std::plus<uint64_t>{}, uint64_t{0})),
            std::accumulate(in.begin(), in.end(), uint64_t{0}));
  const auto mn = [](uint32_t a, uint32_t b) { return std::min(a, b); };
  const auto mx = [](uint32_t a, uint32_t b) { return std::max(a, b); };
  EXPECT_EQ((prim::reference::reduce<uint32_t>(in, mn, UINT32_MAX)), *std::min_element(in.begin(), in.end()));
  EXPECT_EQ((prim::reference::reduce<uint32_t>(in, mx, 0u)), *std::max_element(in.begin(), in.end()));
  EXPECT_EQ((prim::reference::reduce<uint32_t>(std::vector<uint32_t>{}, mx, 7u)), 7u);
}

}  // namespace
