// reference/merge_reference.h vs the standard library (std::merge, stable: equivalent items of the first range first).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <random>
#include <vector>

#include "primitives/reference/merge_reference.h"

namespace {

struct Rec {
  uint32_t key;
  uint32_t id;
  bool operator==(const Rec& o) const { return key == o.key && id == o.id; }
};
struct ByKey {
  bool operator()(const Rec& a, const Rec& b) const { return a.key < b.key; }
};

std::vector<Rec> sorted_records(size_t n, uint32_t key_range, uint32_t first_id, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<Rec> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = {static_cast<uint32_t>(rng() % key_range), first_id + static_cast<uint32_t>(i)};
  std::stable_sort(v.begin(), v.end(), ByKey{});
  return v;
}

std::vector<Rec> std_merge(const std::vector<Rec>& a, const std::vector<Rec>& b) {
  std::vector<Rec> out(a.size() + b.size());
  std::merge(a.begin(), a.end(), b.begin(), b.end(), out.begin(), ByKey{});
  return out;
}

TEST(MergeReference, EmptyAndOneSided) {
  const std::vector<Rec> none, some = sorted_records(100, 50, 0, 1);
  std::vector<Rec> out(100);
  prim::reference::merge(none.data(), 0, none.data(), 0, out.data(), ByKey{});
  prim::reference::merge(some.data(), 100, none.data(), 0, out.data(), ByKey{});
  EXPECT_EQ(out, some);
  prim::reference::merge(none.data(), 0, some.data(), 100, out.data(), ByKey{});
  EXPECT_EQ(out, some);
}

TEST(MergeReference, MatchesStdMergeIncludingTies) {
  for (uint32_t range : {1u, 4u, 1000u, 1u << 30}) {
    SCOPED_TRACE(range);
    const auto a = sorted_records(10007, range, 0, range), b = sorted_records(7919, range, 1u << 20, range + 1);
    std::vector<Rec> out(a.size() + b.size());
    prim::reference::merge(a.data(), static_cast<int64_t>(a.size()), b.data(), static_cast<int64_t>(b.size()),
                           out.data(), ByKey{});
    EXPECT_EQ(out, std_merge(a, b));
  }
}

TEST(MergeReference, PairsFollowTheirKeys) {
  const auto a = sorted_records(5000, 300, 0, 3), b = sorted_records(6001, 300, 1u << 20, 4);
  std::vector<uint32_t> ka, va, kb, vb;
  for (const Rec& r : a) ka.push_back(r.key), va.push_back(r.id);
  for (const Rec& r : b) kb.push_back(r.key), vb.push_back(r.id);
  std::vector<uint32_t> keys(a.size() + b.size()), values(keys.size());
  prim::reference::merge_pairs(ka.data(), va.data(), static_cast<int64_t>(a.size()), kb.data(), vb.data(),
                               static_cast<int64_t>(b.size()), keys.data(), values.data());
  const auto want = std_merge(a, b);
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(keys[i], want[i].key) << i;
    ASSERT_EQ(values[i], want[i].id) << i;
  }
}

TEST(MergeReference, AnyComparator) {
  std::mt19937 rng(5);
  std::vector<int> a(3000), b(4000);
  for (auto& x : a) x = static_cast<int>(rng() % 100) - 50;
  for (auto& x : b) x = static_cast<int>(rng() % 100) - 50;
  std::sort(a.begin(), a.end(), std::greater<>());
  std::sort(b.begin(), b.end(), std::greater<>());
  std::vector<int> out(7000), want(7000);
  prim::reference::merge(a.data(), 3000, b.data(), 4000, out.data(), std::greater<>());
  std::merge(a.begin(), a.end(), b.begin(), b.end(), want.begin(), std::greater<>());
  EXPECT_EQ(out, want);
}

}  // namespace
