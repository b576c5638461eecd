// The segmented split reference against the standard library: per segment, std::stable_partition drops the
// invalid records and std::stable_sort orders the rest by bucket.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "primitives/reference/segmented_split_reference.h"

namespace {

struct Rec {
  uint32_t key;
  uint32_t id;
};
bool operator==(const Rec& a, const Rec& b) { return a.key == b.key && a.id == b.id; }

struct KeyMod {
  uint32_t num_buckets;
  uint32_t operator()(const Rec& r) const { return r.key % num_buckets; }
};
struct KeyIsBucket {
  uint32_t operator()(const Rec& r) const { return r.key; }
};

std::vector<uint64_t> offsets_from_sizes(const std::vector<uint64_t>& sizes) {
  std::vector<uint64_t> off(sizes.size() + 1, 0);
  for (size_t s = 0; s < sizes.size(); ++s) off[s + 1] = off[s] + sizes[s];
  return off;
}

std::vector<Rec> random_records(size_t n, uint32_t key_range, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<uint32_t> u(0, key_range - 1);
  std::vector<Rec> recs(n);
  for (size_t i = 0; i < n; ++i) recs[i] = Rec{u(rng), static_cast<uint32_t>(i)};
  return recs;
}

// Expected output (poison where nothing is written), offsets and invalid count from the standard library.
template <typename Op>
void check_against_std(const std::vector<Rec>& in, const std::vector<uint64_t>& off, uint32_t num_buckets, Op op) {
  const Rec poison{0xABABABABu, 0xABABABABu};
  std::vector<Rec> want(in.size(), poison);
  std::vector<uint64_t> want_offsets;
  uint64_t want_invalid = 0;
  const int64_t num_segments = static_cast<int64_t>(off.size()) - 1;
  for (int64_t s = 0; s < num_segments; ++s) {
    std::vector<Rec> seg(in.begin() + off[s], in.begin() + off[s + 1]);
    auto valid_end = std::stable_partition(seg.begin(), seg.end(), [&](const Rec& r) { return op(r) < num_buckets; });
    want_invalid += static_cast<uint64_t>(seg.end() - valid_end);
    seg.erase(valid_end, seg.end());
    std::stable_sort(seg.begin(), seg.end(), [&](const Rec& a, const Rec& b) { return op(a) < op(b); });
    std::copy(seg.begin(), seg.end(), want.begin() + off[s]);
    for (uint32_t b = 0; b < num_buckets; ++b) {
      const auto first = std::lower_bound(seg.begin(), seg.end(), b, [&](const Rec& r, uint32_t v) { return op(r) < v; });
      want_offsets.push_back(off[s] + static_cast<uint64_t>(first - seg.begin()));
    }
  }
  want_offsets.push_back(off.back());

  std::vector<Rec> got(in.size(), poison);
  std::vector<uint64_t> got_offsets(static_cast<size_t>(num_segments) * num_buckets + 1, ~uint64_t{0});
  const uint64_t invalid = prim::reference::segmented_split(in.data(), got.data(), static_cast<int64_t>(in.size()),
                                                            off.data(), num_segments, num_buckets, op,
                                                            got_offsets.data());
  EXPECT_EQ(want_invalid, invalid);
  EXPECT_EQ(want_offsets, got_offsets);
  ASSERT_EQ(want.size(), got.size());
  for (size_t i = 0; i < want.size(); ++i) ASSERT_TRUE(want[i] == got[i]) << "position " << i;
}

TEST(SegmentedSplitReference, EmptyInput) {
  check_against_std({}, {0}, 4, KeyMod{4});
  check_against_std({}, {0, 0, 0, 0}, 4, KeyMod{4});
}

TEST(SegmentedSplitReference, OneElement) { check_against_std(random_records(1, 100, 1), {0, 1}, 16, KeyMod{16}); }

TEST(SegmentedSplitReference, MixedSegmentSizes) {
  const std::vector<uint64_t> sizes{0, 1, 31, 32, 33, 0, 0, 511, 512, 513, 4095, 4096, 4097, 1, 0, 20000};
  const auto off = offsets_from_sizes(sizes);
  for (uint32_t b : {1u, 16u, 256u, 480u}) check_against_std(random_records(off.back(), 1u << 20, b), off, b, KeyMod{b});
}

TEST(SegmentedSplitReference, ManyTinySegments) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<uint64_t> size(0, 9);
  std::vector<uint64_t> sizes(5000);
  for (auto& s : sizes) s = size(rng);
  const auto off = offsets_from_sizes(sizes);
  check_against_std(random_records(off.back(), 1000, 3), off, 16, KeyMod{16});
}

TEST(SegmentedSplitReference, IsStable) {
  // Few keys, many equal: the ids must stay increasing inside every (segment, bucket).
  const auto off = offsets_from_sizes({300, 1000, 7});
  check_against_std(random_records(off.back(), 3, 5), off, 3, KeyMod{3});
}

TEST(SegmentedSplitReference, OutOfRangeBucket) {
  const auto off = offsets_from_sizes({10, 0, 100, 1000});
  check_against_std(random_records(off.back(), 20, 9), off, 16, KeyIsBucket{});
}

TEST(SegmentedSplitReference, CountAboveMaxWritesNothing) {
  const auto in = random_records(100, 50, 2);
  const std::vector<uint64_t> off{0, 60, 100};
  std::vector<Rec> out(100, Rec{7, 7});
  std::vector<uint64_t> offsets(2 * 4 + 1, 99);
  EXPECT_EQ(100u, prim::reference::segmented_split(in.data(), out.data(), 99, off.data(), 2, 4, KeyMod{4},
                                                   offsets.data()));
  for (const Rec& r : out) EXPECT_TRUE(r == (Rec{7, 7}));
  for (uint64_t o : offsets) EXPECT_EQ(99u, o);
}

TEST(SegmentedSplitReference, PairsFollowTheirKeys) {
  const auto off = offsets_from_sizes({5, 0, 300, 64});
  const auto recs = random_records(off.back(), 40, 11);
  std::vector<uint32_t> keys, values;
  for (const Rec& r : recs) {
    keys.push_back(r.key);
    values.push_back(r.id);
  }
  std::vector<uint32_t> keys_out(keys.size()), values_out(keys.size());
  std::vector<Rec> out(recs.size());
  const auto by_key = [](uint32_t k) { return k % 8; };
  prim::reference::segmented_split_pairs(keys.data(), keys_out.data(), values.data(), values_out.data(),
                                         static_cast<int64_t>(keys.size()), off.data(), 4, 8, by_key, nullptr);
  prim::reference::segmented_split(recs.data(), out.data(), static_cast<int64_t>(recs.size()), off.data(), 4, 8,
                                   KeyMod{8}, nullptr);
  for (size_t i = 0; i < out.size(); ++i) {
    EXPECT_EQ(out[i].key, keys_out[i]);
    EXPECT_EQ(out[i].id, values_out[i]);
  }
}

}  // namespace
