// prim/hash_map.h at 2^26 keys (the benchmark's size) against its C++ reference: loads 0.8 and 0.9, both probings,
// u32 -> u32 and u64 -> u64 (test_hash_map_gpu.cu has the named properties at smaller sizes).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "primitives/test_hash_map_check.h"

namespace {

using prim::HashMapProbing;

constexpr uint64_t kKeys = uint64_t(1) << 26;

TEST(HashMapLarge, U32KeysAtLoads08And09) {
  if (slabtest::quick_mode()) GTEST_SKIP() << "SLABCAST_TEST_QUICK";
  const auto keys = slabtest::distinct_keys<uint32_t>(kKeys, 1);
  const auto values = slabtest::random_values<uint32_t>(kKeys, 2);
  for (HashMapProbing probing : {HashMapProbing::linear, HashMapProbing::ordered}) {
    for (double load : {0.8, 0.9}) {
      slabtest::check_map(keys, values, prim::HashMapView<uint32_t, uint32_t>::capacity_for(kKeys, load), probing);
    }
  }
}

TEST(HashMapLarge, U32SkewedDuplicates) {
  if (slabtest::quick_mode()) GTEST_SKIP() << "SLABCAST_TEST_QUICK";
  const uint64_t distinct = kKeys / 4;
  const auto keys = slabtest::zipf_keys<uint32_t>(kKeys, distinct, 3);
  const auto values = slabtest::random_values<uint32_t>(kKeys, 4);
  for (HashMapProbing probing : {HashMapProbing::linear, HashMapProbing::ordered}) {
    slabtest::check_map(keys, values, prim::HashMapView<uint32_t, uint32_t>::capacity_for(distinct, 0.9), probing);
  }
}

TEST(HashMapLarge, U64KeysAndValuesAtLoad09) {
  if (slabtest::quick_mode()) GTEST_SKIP() << "SLABCAST_TEST_QUICK";
  const auto keys = slabtest::distinct_keys<uint64_t>(kKeys, 5);
  const auto values = slabtest::random_values<uint64_t>(kKeys, 6);
  slabtest::check_map(keys, values, prim::HashMapView<uint64_t, uint64_t>::capacity_for(kKeys, 0.9),
                      HashMapProbing::linear);
}

}  // namespace
