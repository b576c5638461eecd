// The gather / scatter references against plain indexed loops over typed records.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "primitives/reference/gather_scatter_reference.h"

namespace {

struct Rec {
  uint64_t w[8];
  bool operator==(const Rec& o) const { return std::equal(w, w + 8, o.w); }
};

std::vector<Rec> records(size_t n) {
  std::vector<Rec> v(n);
  for (size_t i = 0; i < n; ++i) std::fill(v[i].w, v[i].w + 8, i * 1000 + 1);
  return v;
}

TEST(GatherScatterReference, GatherMatchesIndexedLoop) {
  const size_t n = 1000;
  const auto in = records(n);
  std::vector<uint32_t> map(n);
  std::iota(map.begin(), map.end(), 0u);
  std::shuffle(map.begin(), map.end(), std::mt19937_64(1));
  std::vector<Rec> out(n), expected(n);
  for (size_t i = 0; i < n; ++i) expected[i] = in[map[i]];
  EXPECT_EQ(prim::reference::gather(in.data(), out.data(), map.data(), n, n), 0u);
  EXPECT_EQ(out, expected);
}

TEST(GatherScatterReference, ScatterInvertsGather) {
  const size_t n = 777;
  const auto in = records(n);
  std::vector<int64_t> map(n);
  std::iota(map.begin(), map.end(), int64_t{0});
  std::shuffle(map.begin(), map.end(), std::mt19937_64(2));
  std::vector<Rec> mid(n), back(n);
  prim::reference::gather(in.data(), mid.data(), map.data(), n, n);
  prim::reference::scatter(mid.data(), back.data(), map.data(), n, n);
  EXPECT_EQ(back, in);
}

TEST(GatherScatterReference, InvalidEntriesAreSkippedAndCounted) {
  const std::vector<uint32_t> in = {10, 20, 30};
  const std::vector<int32_t> map = {2, -1, 3, 0};
  std::vector<uint32_t> out(4, 99);
  EXPECT_EQ(prim::reference::gather(in.data(), out.data(), map.data(), 4, 3), 2u);
  EXPECT_EQ(out, (std::vector<uint32_t>{30, 99, 99, 10}));
  std::vector<uint32_t> sc(3, 99);
  const std::vector<uint64_t> smap = {2, ~uint64_t{0}, 0};
  EXPECT_EQ(prim::reference::scatter(in.data(), sc.data(), smap.data(), 3, 3), 1u);
  EXPECT_EQ(sc, (std::vector<uint32_t>{30, 99, 10}));
}

TEST(GatherScatterReference, OddRecordSizeInBytes) {
  const size_t rb = 260, n = 5;
  std::vector<unsigned char> in(rb * n), out(rb * n, 0);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<unsigned char>(i * 7);
  const std::vector<uint32_t> map = {4, 3, 2, 1, 0};
  EXPECT_EQ(prim::reference::gather_bytes(in.data(), out.data(), map.data(), n, n, rb), 0u);
  for (size_t i = 0; i < n; ++i) {
    EXPECT_TRUE(std::equal(out.begin() + i * rb, out.begin() + (i + 1) * rb, in.begin() + (n - 1 - i) * rb));
  }
}

}  // namespace
