// The hash map's C++ reference (primitives/reference/hash_map_reference.h) against std::unordered_map, and the
// layout properties the device map shares with it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <unordered_map>
#include <vector>

#include "primitives/reference/hash_map_reference.h"
#include "primitives/test_hash_map_util.h"

namespace {

using prim::HashMapProbing;

template <typename K, typename V>
std::vector<V> find_all(const prim::reference::HashMap<K, V>& map, const std::vector<K>& queries, V not_found,
                        uint64_t* invalid = nullptr) {
  std::vector<V> out(queries.size());
  const uint64_t bad = map.find(queries.data(), out.data(), static_cast<int64_t>(queries.size()), not_found);
  if (invalid) *invalid = bad;
  return out;
}

// Inserts keys -> values, then checks the invariants, that every key is found with its smallest value and that
// absent keys are not found.
template <typename K, typename V>
void check_against_unordered_map(const std::vector<K>& keys, const std::vector<V>& values, uint64_t capacity,
                                 HashMapProbing probing) {
  SCOPED_TRACE(testing::Message() << "n=" << keys.size() << " capacity=" << capacity << " ordered="
                                  << (probing == HashMapProbing::ordered));
  prim::reference::HashMap<K, V> map(capacity, probing);
  EXPECT_EQ(map.insert(keys.data(), values.data(), static_cast<int64_t>(keys.size())), 0u);
  EXPECT_EQ((slabtest::table_invariants<K, V>(map.slots(), map.capacity(), probing,
                                              slabtest::expected_contents(keys, values.data()))),
            "");
  std::unordered_map<K, V> truth;  // the smallest value of every key
  for (size_t i = 0; i < keys.size(); ++i) {
    auto [it, inserted] = truth.emplace(keys[i], values[i]);
    if (!inserted && values[i] < it->second) it->second = values[i];
  }
  std::vector<K> present;
  for (const auto& kv : truth) present.push_back(kv.first);
  const V not_found = prim::hash_map_not_found<V>();
  const std::vector<V> got = find_all(map, present, not_found);
  for (size_t i = 0; i < present.size(); ++i) ASSERT_EQ(got[i], truth.at(present[i])) << "key " << present[i];
  const std::vector<K> absent = slabtest::distinct_keys<K>(1000, uint64_t(1) << 31);
  for (K k : absent) ASSERT_EQ(truth.count(k), 0u);
  for (V v : find_all(map, absent, not_found)) ASSERT_EQ(v, not_found);
}

TEST(HashMapReference, HashInverseAndHomeMapping) {
  std::mt19937_64 rng(3);
  for (int i = 0; i < 10000; ++i) {
    const uint32_t h32 = static_cast<uint32_t>(rng());
    const uint64_t h64 = rng();
    ASSERT_EQ(prim::detail::hash_mix(slabtest::hash_unmix(h32)), h32);
    ASSERT_EQ(prim::detail::hash_mix(slabtest::hash_unmix(h64)), h64);
  }
  std::vector<uint64_t> positions(10000);
  for (auto& p : positions) p = rng();
  std::sort(positions.begin(), positions.end());
  for (uint64_t range : {uint64_t(1), uint64_t(7), uint64_t(1000003), uint64_t(1) << 33}) {
    uint64_t last = 0;
    for (uint64_t p : positions) {
      const uint64_t home = prim::detail::home_of(p, range);
      ASSERT_LT(home, range);
      ASSERT_GE(home, last) << "a larger hash has an earlier home";
      last = home;
    }
  }
  EXPECT_EQ(prim::detail::home_of(~uint64_t{0}, 10), 9u);
}

TEST(HashMapReference, CapacityAndLayoutHelpers) {
  using Packed = prim::HashMapView<uint32_t, uint32_t>;
  using Wide = prim::HashMapView<uint64_t, uint64_t>;
  static_assert(Packed::kWindowSlots == 4 && Wide::kWindowSlots == 2);
  static_assert(sizeof(Packed::Slot) == 8 && sizeof(Wide::Slot) == 16);
  static_assert(sizeof(prim::HashMapView<uint32_t, uint64_t>::Slot) == 16);
  static_assert(sizeof(prim::HashMapView<uint64_t, uint32_t>::Slot) == 16);
  EXPECT_EQ(Packed::capacity_for(100, 0.8), 128u);
  EXPECT_EQ(Packed::capacity_for(0, 0.8), 4u);
  EXPECT_EQ(Wide::capacity_for(9, 0.9), 10u);
  EXPECT_EQ(Packed::capacity_for(uint64_t(1) << 26, 0.8), 83886080u);
  EXPECT_EQ(Packed::round_capacity(5), 8u);
  EXPECT_EQ(Packed::tail_slots(1 << 20, HashMapProbing::linear), 0u);
  EXPECT_EQ(Packed::tail_slots(1 << 20, HashMapProbing::ordered), 1024u + (1u << 14));
  EXPECT_EQ(Packed::slot_count(8, HashMapProbing::ordered), 8u + 1024u);
}

TEST(HashMapReference, EveryKeyFoundWithItsSmallestValueAtEveryLoad) {
  for (HashMapProbing probing : {HashMapProbing::linear, HashMapProbing::ordered}) {
    for (uint64_t n : {uint64_t(1), uint64_t(31), uint64_t(1000), uint64_t(100000)}) {
      const auto keys = slabtest::distinct_keys<uint32_t>(n, 7);
      const auto values = slabtest::random_values<uint32_t>(n, n);
      for (double load : {0.5, 0.8, 0.9, 1.0}) {
        const uint64_t capacity = prim::HashMapView<uint32_t, uint32_t>::capacity_for(n, load);
        check_against_unordered_map(keys, values, capacity, probing);
      }
    }
  }
}

TEST(HashMapReference, SkewedDuplicatesKeepTheSmallestValue) {
  const uint64_t n = 200000;
  const auto keys = slabtest::zipf_keys<uint32_t>(n, 5000, 11);
  const auto values = slabtest::random_values<uint32_t>(n, 12);
  for (HashMapProbing probing : {HashMapProbing::linear, HashMapProbing::ordered}) {
    check_against_unordered_map(keys, values, 5000 * 10 / 9 + 4, probing);  // load 0.9 of the distinct keys
  }
}

TEST(HashMapReference, WideSlots) {
  const uint64_t n = 20001;
  const auto k32 = slabtest::zipf_keys<uint32_t>(n, 15000, 1);
  const auto k64 = slabtest::zipf_keys<uint64_t>(n, 15000, 2);
  const uint64_t capacity = prim::HashMapView<uint64_t, uint64_t>::capacity_for(15000, 0.9);
  check_against_unordered_map(k32, slabtest::random_values<uint64_t>(n, 3), capacity, HashMapProbing::linear);
  check_against_unordered_map(k64, slabtest::random_values<uint32_t>(n, 4), capacity, HashMapProbing::linear);
  check_against_unordered_map(k64, slabtest::random_values<uint64_t>(n, 5), capacity, HashMapProbing::linear);
}

TEST(HashMapReference, OrderedLayoutDoesNotDependOnInsertionOrder) {
  const uint64_t n = 50000;
  auto keys = slabtest::zipf_keys<uint32_t>(n, 30000, 21);
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  const auto values = slabtest::random_values<uint32_t>(n, 22);
  // Full and overflowing too: the dropped pairs are the same whatever the order.
  for (uint64_t capacity : {uint64_t(40000), uint64_t(30000), uint64_t(20000)}) {
    prim::reference::HashMap<uint32_t, uint32_t> a(capacity, HashMapProbing::ordered);
    a.insert(keys.data(), values.data(), n);
    std::shuffle(order.begin(), order.end(), std::mt19937_64(capacity));
    std::vector<uint32_t> k2(n), v2(n);
    for (uint64_t i = 0; i < n; ++i) {
      k2[i] = keys[order[i]];
      v2[i] = values[order[i]];
    }
    prim::reference::HashMap<uint32_t, uint32_t> b(capacity, HashMapProbing::ordered);
    b.insert(k2.data(), v2.data(), n);
    EXPECT_EQ(a.slots(), b.slots()) << "capacity " << capacity;
  }
}

TEST(HashMapReference, ReservedKeyIsCountedAndNeverStored) {
  const uint32_t kEmpty = prim::hash_map_empty_key<uint32_t>();
  const std::vector<uint32_t> keys = {5, kEmpty, 6, kEmpty};
  const std::vector<uint32_t> values = {50, 1, 60, 2};
  for (HashMapProbing probing : {HashMapProbing::linear, HashMapProbing::ordered}) {
    prim::reference::HashMap<uint32_t, uint32_t> map(16, probing);
    EXPECT_EQ(map.insert(keys.data(), values.data(), 4), 2u);
    uint64_t invalid = 0;
    EXPECT_EQ(find_all(map, keys, 7u, &invalid), (std::vector<uint32_t>{50, 7, 60, 7}));
    EXPECT_EQ(invalid, 2u);
    bool present[4];
    EXPECT_EQ(map.contains(keys.data(), present, 4), 2u);
    EXPECT_TRUE(present[0] && !present[1] && present[2] && !present[3]);
  }
}

TEST(HashMapReference, NullValuesInsertZeros) {
  const auto keys = slabtest::distinct_keys<uint64_t>(100, 0);
  prim::reference::HashMap<uint64_t, uint32_t> map(128);
  EXPECT_EQ(map.insert(keys.data(), nullptr, 100), 0u);
  for (uint32_t v : find_all(map, keys, 9u)) ASSERT_EQ(v, 0u);
}

TEST(HashMapReference, FullTableCountsFailuresAndEnds) {
  const uint64_t capacity = 1000;
  const auto keys = slabtest::distinct_keys<uint32_t>(2500, 0);
  {
    prim::reference::HashMap<uint32_t, uint32_t> map(capacity, HashMapProbing::linear);
    EXPECT_EQ(map.insert(keys.data(), keys.data(), 2500), 1500u);
    const auto expected = slabtest::expected_contents(keys, keys.data());
    EXPECT_EQ((slabtest::table_invariants<uint32_t, uint32_t>(map.slots(), capacity, HashMapProbing::linear, expected,
                                                              true)),
              "");
    for (uint64_t i = 0; i < capacity; ++i) ASSERT_NE(map.key_at(i), prim::hash_map_empty_key<uint32_t>());
    // A key already present is found, not a failure; an absent query walks every window once and ends.
    EXPECT_EQ(map.insert(keys.data(), keys.data(), 10), 0u);
    const auto absent = slabtest::distinct_keys<uint32_t>(10, 1u << 30);
    for (uint32_t v : find_all(map, absent, 0u)) ASSERT_EQ(v, 0u);
  }
  {
    // The ordered table does not wrap: slots before the first home stay empty, so it drops every pair it cannot
    // hold from the first occupied slot on.
    prim::reference::HashMap<uint32_t, uint32_t> map(capacity, HashMapProbing::ordered);
    const uint64_t dropped = map.insert(keys.data(), keys.data(), 2500);
    uint64_t occupied = 0;
    for (uint64_t i = 0; i < map.slots().size(); ++i) occupied += map.key_at(i) != prim::hash_map_empty_key<uint32_t>();
    EXPECT_EQ(dropped, 2500u - occupied);
    EXPECT_GT(dropped, 0u);
    EXPECT_NE(map.key_at(map.slots().size() - 1), prim::hash_map_empty_key<uint32_t>());
    const auto expected = slabtest::expected_contents(keys, keys.data());
    EXPECT_EQ((slabtest::table_invariants<uint32_t, uint32_t>(map.slots(), capacity, HashMapProbing::ordered, expected,
                                                              true)),
              "");
  }
}

TEST(HashMapReference, CollidingKeysShareOneHome) {
  for (HashMapProbing probing : {HashMapProbing::linear, HashMapProbing::ordered}) {
    const auto keys = slabtest::colliding_keys<uint32_t>(600, 0x80000000u);
    const uint64_t capacity = 1 << 16;
    const uint64_t home = prim::detail::home_of(prim::detail::hash_position(keys[0]), capacity);
    EXPECT_EQ(prim::detail::home_of(prim::detail::hash_position(keys.back()), capacity), home);
    check_against_unordered_map(keys, slabtest::random_values<uint32_t>(600, 1), capacity, probing);
  }
  // Colliding at the very end of an ordered table: the run spills into the tail.
  const auto last = slabtest::colliding_keys<uint32_t>(300, 0xFFFFF000u);
  check_against_unordered_map(last, slabtest::random_values<uint32_t>(300, 2), 4096, HashMapProbing::ordered);
  const auto wide = slabtest::colliding_keys<uint64_t>(300, uint64_t(1) << 63);
  check_against_unordered_map(wide, slabtest::random_values<uint64_t>(300, 3), 4096, HashMapProbing::linear);
}

}  // namespace
