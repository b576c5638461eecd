// reference/select_reference.h vs the standard library (std::copy_if, std::stable_partition, std::unique).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <iterator>
#include <random>
#include <vector>

#include "primitives/reference/select_reference.h"

namespace {

struct Rec {
  uint32_t key;
  uint32_t id;
  bool operator==(const Rec& o) const { return key == o.key && id == o.id; }
};

std::vector<Rec> random_records(size_t n, uint32_t key_range, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<Rec> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = {static_cast<uint32_t>(rng() % key_range), static_cast<uint32_t>(i)};
  return v;
}
auto key_below(uint32_t t) {
  return [t](const Rec& r) { return r.key < t; };
}

TEST(SelectReference, EmptyInput) {
  std::vector<Rec> none, out;
  EXPECT_EQ(prim::reference::select_if(none.data(), 0, out.data(), key_below(3)), 0u);
  EXPECT_EQ(prim::reference::select_unique(none.data(), 0, out.data()), 0u);
}

TEST(SelectReference, SelectIfMatchesCopyIf) {
  for (uint32_t t : {0u, 1u, 50u, 100u}) {
    const auto in = random_records(10007, 100, t);
    std::vector<Rec> out(in.size()), want;
    const uint64_t s = prim::reference::select_if(in.data(), static_cast<int64_t>(in.size()), out.data(), key_below(t));
    std::copy_if(in.begin(), in.end(), std::back_inserter(want), key_below(t));
    out.resize(s);
    EXPECT_EQ(out, want);
  }
}

TEST(SelectReference, FlaggedMatchesCopyIfOnFlags) {
  const auto in = random_records(5003, 1000, 1);
  std::vector<int> flags(in.size());
  std::mt19937 rng(2);
  for (auto& f : flags) f = static_cast<int>(rng() % 3) - 1;  // -1, 0, 1: non-zero selects
  std::vector<Rec> out(in.size()), want;
  const uint64_t s = prim::reference::select_flagged(in.data(), flags.data(), static_cast<int64_t>(in.size()), out.data());
  for (size_t i = 0; i < in.size(); ++i) {
    if (flags[i] != 0) want.push_back(in[i]);
  }
  out.resize(s);
  EXPECT_EQ(out, want);
}

TEST(SelectReference, UniqueMatchesStdUnique) {
  for (uint32_t range : {1u, 2u, 5u, 1u << 30}) {
    const auto in = random_records(8009, range, range);
    std::vector<Rec> out(in.size());
    auto same_key = [](const Rec& a, const Rec& b) { return a.key == b.key; };
    const uint64_t s = prim::reference::select_unique(in.data(), static_cast<int64_t>(in.size()), out.data(), same_key);
    std::vector<Rec> want = in;
    want.erase(std::unique(want.begin(), want.end(), same_key), want.end());  // keeps each run's first
    out.resize(s);
    EXPECT_EQ(out, want);
  }
}

TEST(SelectReference, PartitionMatchesStablePartition) {
  const auto in = random_records(9001, 10, 3);
  std::vector<Rec> selected(in.size()), rejected(in.size());
  const uint64_t s = prim::reference::partition_if(in.data(), static_cast<int64_t>(in.size()), selected.data(),
                                                   rejected.data(), key_below(4));
  std::vector<Rec> want = in;
  const auto mid = std::stable_partition(want.begin(), want.end(), key_below(4));
  ASSERT_EQ(s, static_cast<uint64_t>(mid - want.begin()));
  EXPECT_TRUE(std::equal(want.begin(), mid, selected.begin()));
  EXPECT_TRUE(std::equal(mid, want.end(), rejected.begin()));
}

}  // namespace
