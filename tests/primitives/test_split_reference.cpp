// reference/split_reference.h vs the standard library (std::stable_sort, std::stable_partition).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "primitives/reference/split_reference.h"

namespace {

struct Rec {
  uint32_t key;
  uint32_t id;
  bool operator==(const Rec& o) const { return key == o.key && id == o.id; }
};

struct ByMod {
  uint32_t b;
  uint32_t operator()(const Rec& r) const { return r.key % b; }
};
struct IsKey {
  uint32_t operator()(const Rec& r) const { return r.key; }
};

std::vector<Rec> random_records(size_t n, uint32_t key_range, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<uint32_t> u(0, key_range - 1);
  std::vector<Rec> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = {u(rng), static_cast<uint32_t>(i)};
  return v;
}

// What a stable split must produce: the valid records stable-sorted by bucket.
template <typename Op>
std::vector<Rec> expected_split(const std::vector<Rec>& in, uint32_t num_buckets, Op op) {
  std::vector<Rec> v;
  for (const Rec& r : in) {
    if (op(r) < num_buckets) v.push_back(r);
  }
  std::stable_sort(v.begin(), v.end(), [&](const Rec& a, const Rec& b) { return op(a) < op(b); });
  return v;
}

TEST(SplitReference, EmptyInput) {
  std::vector<Rec> in, out;
  std::vector<uint64_t> offsets(8, 99);
  EXPECT_EQ(prim::reference::split(in.data(), out.data(), 0, 7, ByMod{7}, offsets.data()), 0u);
  EXPECT_EQ(offsets, std::vector<uint64_t>(8, 0));
}

TEST(SplitReference, MatchesStableSort) {
  for (uint32_t b : {1u, 2u, 7u, 256u, 1000u, 2048u}) {
    SCOPED_TRACE(b);
    const std::vector<Rec> in = random_records(20000, 1u << 20, b);
    std::vector<Rec> out(in.size());
    std::vector<uint64_t> offsets(b + 1);
    EXPECT_EQ(prim::reference::split(in.data(), out.data(), static_cast<int64_t>(in.size()), b, ByMod{b},
                                     offsets.data()),
              0u);
    EXPECT_EQ(out, expected_split(in, b, ByMod{b}));
    for (uint32_t k = 0; k < b; ++k) {
      for (uint64_t i = offsets[k]; i < offsets[k + 1]; ++i) ASSERT_EQ(out[i].key % b, k);
    }
    EXPECT_EQ(offsets[b], in.size());
  }
}

TEST(SplitReference, TwoBucketsMatchStablePartition) {
  std::vector<Rec> in = random_records(10001, 100, 3);
  std::vector<Rec> out(in.size());
  std::vector<uint64_t> offsets(3);
  prim::reference::split(in.data(), out.data(), static_cast<int64_t>(in.size()), 2, ByMod{2}, offsets.data());
  std::vector<Rec> want = in;
  const auto mid = std::stable_partition(want.begin(), want.end(), [](const Rec& r) { return r.key % 2 == 0; });
  EXPECT_EQ(out, want);
  EXPECT_EQ(offsets[1], static_cast<uint64_t>(mid - want.begin()));
}

TEST(SplitReference, OutOfRangeBucketIsCountedNotWritten) {
  const std::vector<Rec> in = random_records(5000, 20, 4);
  std::vector<Rec> out(in.size(), Rec{0xDEAD, 0xBEEF});
  std::vector<uint64_t> offsets(11);
  const uint64_t invalid =
      prim::reference::split(in.data(), out.data(), static_cast<int64_t>(in.size()), 10, IsKey{}, offsets.data());
  const std::vector<Rec> want = expected_split(in, 10, IsKey{});
  EXPECT_EQ(invalid, in.size() - want.size());
  EXPECT_EQ(offsets[10], want.size());
  EXPECT_TRUE(std::equal(want.begin(), want.end(), out.begin()));
  for (size_t i = want.size(); i < out.size(); ++i) ASSERT_EQ(out[i], (Rec{0xDEAD, 0xBEEF}));
}

TEST(SplitReference, PairsFollowTheirKeys) {
  const std::vector<Rec> in = random_records(7777, 1000, 5);
  std::vector<uint32_t> keys(in.size()), values(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    keys[i] = in[i].key;
    values[i] = in[i].id;
  }
  std::vector<uint32_t> keys_out(in.size()), values_out(in.size());
  std::vector<uint64_t> offsets(257);
  auto op = [](uint32_t k) { return k % 300; };  // some out of range (256..299)
  const uint64_t invalid = prim::reference::split_pairs(keys.data(), keys_out.data(), values.data(),
                                                        values_out.data(), static_cast<int64_t>(in.size()), 256, op,
                                                        offsets.data());
  const std::vector<Rec> want = expected_split(in, 256, [](const Rec& r) { return r.key % 300; });
  EXPECT_EQ(invalid, in.size() - want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(keys_out[i], want[i].key);
    ASSERT_EQ(values_out[i], want[i].id);
  }
}

TEST(SplitReference, GatherAndScatterPermutationsAreInverse) {
  const std::vector<Rec> in = random_records(9999, 1u << 16, 6);
  const uint32_t b = 7;
  const int64_t n = static_cast<int64_t>(in.size());
  std::vector<uint64_t> gather(in.size()), scatter(in.size());
  std::vector<uint64_t> offsets_g(b + 1), offsets_s(b + 1);
  prim::reference::split_index(in.data(), n, b, ByMod{b}, gather.data(), prim::PermutationKind::gather,
                               offsets_g.data());
  prim::reference::split_index(in.data(), n, b, ByMod{b}, scatter.data(), prim::PermutationKind::scatter,
                               offsets_s.data());
  EXPECT_EQ(offsets_g, offsets_s);
  const std::vector<Rec> want = expected_split(in, b, ByMod{b});
  std::vector<Rec> via_scatter(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    ASSERT_EQ(in[gather[i]], want[i]);       // out[i] = in[perm[i]]
    via_scatter[scatter[i]] = in[i];         // out[perm[i]] = in[i]
    ASSERT_EQ(gather[scatter[i]], i);        // inverse permutations
  }
  EXPECT_EQ(via_scatter, want);
}

TEST(SplitReference, IterativeSplitMatchesStableSortById) {
  for (int id_bits : {0, 1, 8, 9, 13, 16, 24, 33, 64}) {
    SCOPED_TRACE(id_bits);
    std::mt19937_64 rng(id_bits);
    std::vector<Rec> in(3000);
    std::vector<uint64_t> ids(in.size());
    for (size_t i = 0; i < in.size(); ++i) {
      ids[i] = id_bits == 0 ? 0 : (id_bits == 64 ? rng() : rng() % (uint64_t{1} << id_bits));
      if (i % 10 == 3 && id_bits < 64) ids[i] = (uint64_t{1} << id_bits) + i;  // invalid
      in[i] = {static_cast<uint32_t>(i), static_cast<uint32_t>(i)};
    }
    auto id_of = [&](const Rec& r) { return ids[r.id]; };
    std::vector<Rec> out(in.size());
    const uint64_t invalid =
        prim::reference::iterative_split(in.data(), out.data(), static_cast<int64_t>(in.size()), id_bits, id_of);
    std::vector<Rec> want;
    for (const Rec& r : in) {
      if (id_bits == 64 || (id_of(r) >> id_bits) == 0) want.push_back(r);
    }
    std::stable_sort(want.begin(), want.end(), [&](const Rec& a, const Rec& b) { return id_of(a) < id_of(b); });
    EXPECT_EQ(invalid, in.size() - want.size());
    EXPECT_TRUE(std::equal(want.begin(), want.end(), out.begin()));
  }
}

}  // namespace
