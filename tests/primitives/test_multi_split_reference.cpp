// The multi-split reference against the standard library: every (bucket, payload) pair listed in input and
// emission order, then std::stable_sort by bucket.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "primitives/reference/multi_split_reference.h"

namespace {

// Element i emits the pairs emits[first[i] .. first[i+1]) (bucket, payload).
struct TableEmitter {
  const uint64_t* first;
  const std::pair<uint32_t, uint32_t>* emits;
  template <typename Emit>
  void operator()(int64_t i, Emit& emit) const {
    for (uint64_t j = first[i]; j < first[i + 1]; ++j) emit(emits[j].first, emits[j].second);
  }
};

struct Table {
  std::vector<uint64_t> first{0};
  std::vector<std::pair<uint32_t, uint32_t>> emits;
  TableEmitter emitter() const { return TableEmitter{first.data(), emits.data()}; }
  int64_t size() const { return static_cast<int64_t>(first.size()) - 1; }
};

// counts[i] pairs for element i, buckets drawn from [0, bucket_range); the payload names (element, emission).
Table random_table(const std::vector<uint32_t>& counts, uint32_t bucket_range, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<uint32_t> u(0, bucket_range - 1);
  Table t;
  for (size_t i = 0; i < counts.size(); ++i) {
    for (uint32_t k = 0; k < counts[i]; ++k) t.emits.push_back({u(rng), static_cast<uint32_t>(i << 12 | k)});
    t.first.push_back(t.emits.size());
  }
  return t;
}

void check_against_std(const Table& t, uint32_t num_buckets, int64_t capacity) {
  std::vector<std::pair<uint32_t, uint32_t>> valid;
  uint64_t want_invalid = 0;
  for (const auto& e : t.emits) {
    if (e.first < num_buckets) {
      valid.push_back(e);
    } else {
      ++want_invalid;
    }
  }
  std::stable_sort(valid.begin(), valid.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<uint64_t> want_offsets(num_buckets + 1, 0);
  for (uint32_t b = 0; b <= num_buckets; ++b) {
    want_offsets[b] = static_cast<uint64_t>(
        std::lower_bound(valid.begin(), valid.end(), b, [](const auto& e, uint32_t v) { return e.first < v; }) -
        valid.begin());
  }
  const uint32_t poison = 0xABABABABu;
  std::vector<uint32_t> want(static_cast<size_t>(capacity), poison);
  if (static_cast<int64_t>(valid.size()) <= capacity) {
    for (size_t i = 0; i < valid.size(); ++i) want[i] = valid[i].second;
  }

  std::vector<uint32_t> got(static_cast<size_t>(capacity), poison);
  std::vector<uint64_t> got_offsets(num_buckets + 1, ~uint64_t{0});
  uint64_t total = 0;
  const uint64_t invalid = prim::reference::multi_split(t.size(), t.emitter(), num_buckets, got.data(), capacity,
                                                        got_offsets.data(), &total);
  EXPECT_EQ(want_invalid, invalid);
  EXPECT_EQ(valid.size(), total);
  EXPECT_EQ(want_offsets, got_offsets);
  EXPECT_EQ(want, got);
}

TEST(MultiSplitReference, EmptyInput) { check_against_std(Table{}, 16, 0); }

TEST(MultiSplitReference, ElementsEmittingNothing) { check_against_std(random_table({0, 0, 0, 0}, 16, 1), 16, 4); }

TEST(MultiSplitReference, OneElementEmittingManyBuckets) {
  check_against_std(random_table({30000}, 2048, 2), 2048, 30000);
}

TEST(MultiSplitReference, MixedCounts) {
  std::mt19937 rng(3);
  std::uniform_int_distribution<uint32_t> c(0, 4);
  std::vector<uint32_t> counts(3000);
  for (auto& x : counts) x = c(rng);
  counts[17] = 700;
  const Table t = random_table(counts, 480, 4);
  check_against_std(t, 480, static_cast<int64_t>(t.emits.size()) + 5);
}

TEST(MultiSplitReference, IsStable) {  // 2 buckets, many pairs each: payloads stay in (element, emission) order
  const Table t = random_table(std::vector<uint32_t>(500, 3), 2, 5);
  check_against_std(t, 2, 1500);
}

TEST(MultiSplitReference, CapacityOverflowWritesNothingAndReportsTotal) {
  const Table t = random_table(std::vector<uint32_t>(100, 2), 8, 6);
  check_against_std(t, 8, 199);
}

TEST(MultiSplitReference, OutOfRangeBucket) {
  const Table t = random_table(std::vector<uint32_t>(200, 3), 40, 7);
  check_against_std(t, 32, 600);
}

}  // namespace
