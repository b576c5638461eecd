// prim/hash_map.h against its C++ reference at the benchmark's size, 2^26 u32 keys (linear probing at load 0.8,
// ordered at 0.9), and at 2^24 for skewed duplicates and u64 -> u64: the host-side check of a 2^26-key table takes
// about a minute (test_hash_map_gpu.cu has the named properties at smaller sizes).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "primitives/test_hash_map_check.h"

namespace {

using prim::HashMapProbing;

constexpr uint64_t kKeys = uint64_t(1) << 26;
constexpr uint64_t kSmallerKeys = uint64_t(1) << 24;

TEST(HashMapLarge, U32KeysAtLoads08And09) {
  if (slabtest::quick_mode()) GTEST_SKIP() << "SLABCAST_TEST_QUICK";
  const auto keys = slabtest::distinct_keys<uint32_t>(kKeys, 1);
  const auto values = slabtest::random_values<uint32_t>(kKeys, 2);
  slabtest::check_map(keys, values, prim::HashMapView<uint32_t, uint32_t>::capacity_for(kKeys, 0.8),
                      HashMapProbing::linear);
  slabtest::check_map(keys, values, prim::HashMapView<uint32_t, uint32_t>::capacity_for(kKeys, 0.9),
                      HashMapProbing::ordered);
}

TEST(HashMapLarge, U32SkewedDuplicates) {
  if (slabtest::quick_mode()) GTEST_SKIP() << "SLABCAST_TEST_QUICK";
  const uint64_t distinct = kSmallerKeys / 4;
  const auto keys = slabtest::zipf_keys<uint32_t>(kSmallerKeys, distinct, 3);
  const auto values = slabtest::random_values<uint32_t>(kSmallerKeys, 4);
  for (HashMapProbing probing : {HashMapProbing::linear, HashMapProbing::ordered}) {
    slabtest::check_map(keys, values, prim::HashMapView<uint32_t, uint32_t>::capacity_for(distinct, 0.9), probing);
  }
}

TEST(HashMapLarge, U64KeysAndValuesAtLoad09) {
  if (slabtest::quick_mode()) GTEST_SKIP() << "SLABCAST_TEST_QUICK";
  const auto keys = slabtest::distinct_keys<uint64_t>(kSmallerKeys, 5);
  const auto values = slabtest::random_values<uint64_t>(kSmallerKeys, 6);
  slabtest::check_map(keys, values, prim::HashMapView<uint64_t, uint64_t>::capacity_for(kSmallerKeys, 0.9),
                      HashMapProbing::linear);
}

}  // namespace
