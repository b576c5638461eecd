// The histogram references against plain counting with the standard library.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "primitives/reference/scan_reference.h"

namespace {

TEST(HistogramReference, BucketsMatchCountIf) {
  std::mt19937_64 rng(3);
  std::vector<uint32_t> in(5000);
  for (auto& x : in) x = static_cast<uint32_t>(rng() % 300);
  const auto bucket_of = [](uint32_t k) { return k; };
  uint64_t invalid = 0;
  const auto counts = prim::reference::histogram_buckets(in, 256, bucket_of, &invalid);
  for (uint32_t b = 0; b < 256; ++b) {
    EXPECT_EQ(counts[b], static_cast<uint64_t>(std::count(in.begin(), in.end(), b)));
  }
  EXPECT_EQ(invalid, static_cast<uint64_t>(std::count_if(in.begin(), in.end(), [](uint32_t k) { return k >= 256; })));
}

TEST(HistogramReference, NegativeIdsAreInvalid) {
  const std::vector<int> in = {-1, 0, 1, -7, 1};
  uint64_t invalid = 0;
  const auto counts = prim::reference::histogram_buckets(in, 2, [](int k) { return k; }, &invalid);
  EXPECT_EQ(counts, (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(invalid, 2u);
}

TEST(HistogramReference, EvenBins) {
  const std::vector<int> in = {-1, 0, 99, 100, 199, 999, 1000, 5000};
  // 10 bins of width 100 over [0, 1000).
  const auto h = prim::reference::histogram_even<int>(in, 11, 0, 1000);
  EXPECT_EQ(h, (std::vector<int>{2, 2, 0, 0, 0, 0, 0, 0, 0, 1}));
}

}  // namespace
