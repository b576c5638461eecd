// The gpu hash map tests' check: one table built on the device and in the C++ reference from the same insert calls,
// then compared: the invalid counts, the table (ordered probing: byte for byte; linear probing: its invariants and
// contents), and find / contains of every inserted key, of absent keys and of the reserved key. Every output starts
// poisoned (slabtest::DeviceBuffer), so an answer the device failed to write cannot pass.
#pragma once
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "prim/hash_map.h"
#include "primitives/reference/hash_map_reference.h"
#include "primitives/test_hash_map_util.h"
#include "primitives/test_scan_util.h"

namespace slabtest {

// One insert call: keys, and values unless `with_values` is false (the call then passes null values: zeros).
template <typename K, typename V>
struct InsertBatch {
  std::vector<K> keys;
  std::vector<V> values;
  bool with_values = true;
};

template <typename K, typename V>
std::vector<typename prim::HashMapView<K, V>::Slot> download_slots(const prim::HashMapView<K, V>& view) {
  std::vector<typename prim::HashMapView<K, V>::Slot> slots(view.slot_count());
  EXPECT_EQ(cudaSuccess, cudaMemcpy(slots.data(), view.slots, view.bytes(), cudaMemcpyDeviceToHost));
  return slots;
}

template <typename T>
bool same_bytes(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

// `overflow`: the inserts may not all fit (distinct keys only: then the device and the reference count the same
// failures). Linear probing then keeps a timing-dependent part of the keys, so its answers are checked against the
// device table's own contents instead of the reference's.
template <typename K, typename V>
void check_map(const std::vector<InsertBatch<K, V>>& batches, uint64_t capacity, prim::HashMapProbing probing,
               bool overflow = false, cudaStream_t stream = 0) {
  SCOPED_TRACE(testing::Message() << "K=" << 8 * sizeof(K) << " V=" << 8 * sizeof(V) << " capacity=" << capacity
                                  << " batches=" << batches.size() << " first n=" << batches[0].keys.size()
                                  << (probing == prim::HashMapProbing::ordered ? " ordered" : " linear"));
  using View = prim::HashMapView<K, V>;
  constexpr K kEmpty = prim::hash_map_empty_key<K>();
  prim::reference::HashMap<K, V> ref(capacity, probing);
  prim::HashMap<K, V> map;
  ASSERT_EQ(cudaSuccess, map.allocate(capacity, probing, stream));
  ASSERT_EQ(map.capacity(), ref.capacity());
  const View view = map.view();
  DeviceBuffer<uint64_t> d_invalid(std::vector<uint64_t>{1000});  // the calls add to it

  // ---- inserts ----
  uint64_t ref_invalid = 0;
  std::vector<K> all_keys;
  std::vector<V> all_values;
  for (const InsertBatch<K, V>& b : batches) {
    const int64_t n = static_cast<int64_t>(b.keys.size());
    DeviceBuffer<K> d_keys(b.keys);
    DeviceBuffer<V> d_values(b.with_values ? b.values : std::vector<V>{});
    ASSERT_EQ(cudaSuccess, prim::hash_map_insert(view, d_keys.get(), b.with_values ? d_values.get() : nullptr, n,
                                                 stream, d_invalid.get()));
    ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(stream));
    EXPECT_EQ(d_keys.download(), b.keys) << "insert changed its keys";
    ref_invalid += ref.insert(b.keys.data(), b.with_values ? b.values.data() : nullptr, n);
    all_keys.insert(all_keys.end(), b.keys.begin(), b.keys.end());
    for (size_t i = 0; i < b.keys.size(); ++i) all_values.push_back(b.with_values ? b.values[i] : V{0});
  }
  EXPECT_EQ(d_invalid.download_one(), 1000 + ref_invalid) << "insert's invalid count";

  // ---- the table ----
  const auto slots = download_slots(view);
  const auto expected = expected_contents(all_keys, all_values.data());
  if (probing == prim::HashMapProbing::ordered) {
    EXPECT_TRUE(same_bytes(slots, ref.slots())) << "the ordered table differs from the reference's";
  }
  EXPECT_EQ((table_invariants<K, V>(slots, ref.capacity(), probing, expected, overflow)), "");

  // ---- find and contains: every inserted key, absent keys, the reserved key ----
  std::vector<K> queries = all_keys;
  for (K k : distinct_keys<K>(500, uint64_t(3) << 30)) {
    if (expected.find(k) == nullptr) queries.push_back(k);
  }
  queries.push_back(kEmpty);
  queries.push_back(kEmpty);
  const int64_t m = static_cast<int64_t>(queries.size());
  const V not_found = static_cast<V>(0x5EED5EEDu);
  // What the answers must be: the reference's; where linear probing overflowed, the device table's own contents.
  const bool own_contents = overflow && probing == prim::HashMapProbing::linear;
  std::vector<K> held_keys;
  std::vector<V> held_values;
  for (const auto& s : slots) {
    if (own_contents && prim::detail::slot_key(s) != kEmpty) {
      held_keys.push_back(prim::detail::slot_key(s));
      held_values.push_back(static_cast<V>(prim::detail::slot_value(s)));
    }
  }
  const ExpectedMap<K, V> held(held_keys, held_values.data());
  std::vector<V> want(m);
  std::vector<uint8_t> want_present(m);
  uint64_t reserved = 0;
  for (int64_t i = 0; i < m; ++i) {
    reserved += queries[i] == kEmpty;
    if (own_contents) {
      const V* v = held.find(queries[i]);
      want[i] = v ? *v : not_found;
      want_present[i] = v != nullptr;
    } else {
      const int64_t s = ref.slot_of(queries[i]);
      want[i] = s >= 0 ? ref.value_at(static_cast<uint64_t>(s)) : not_found;
      want_present[i] = s >= 0;
    }
  }
  DeviceBuffer<K> d_queries(queries);
  DeviceBuffer<V> d_found(m);
  DeviceBuffer<uint8_t> d_present(m);  // bools, read back as bytes
  DeviceBuffer<uint64_t> d_find_invalid(std::vector<uint64_t>{0});
  ASSERT_EQ(cudaSuccess, prim::hash_map_find(view, d_queries.get(), d_found.get(), m, not_found, stream,
                                             d_find_invalid.get()));
  ASSERT_EQ(cudaSuccess, map.contains(d_queries.get(), reinterpret_cast<bool*>(d_present.get()), m, stream,
                                      d_find_invalid.get()));
  ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(stream));
  EXPECT_EQ(d_find_invalid.download_one(), 2 * reserved) << "find's and contains' invalid counts";
  const std::vector<V> got = d_found.download();
  const std::vector<uint8_t> got_present = d_present.download();
  for (int64_t i = 0; i < m; ++i) {
    ASSERT_EQ(got[i], want[i]) << "find of query " << i << " (key " << queries[i] << ")";
    ASSERT_EQ(got_present[i], want_present[i]) << "contains of query " << i;
  }
  EXPECT_EQ(d_queries.download(), queries) << "find changed its queries";
  EXPECT_TRUE(same_bytes(download_slots(view), slots)) << "find or contains changed the table";
}

template <typename K, typename V>
void check_map(const std::vector<K>& keys, const std::vector<V>& values, uint64_t capacity,
               prim::HashMapProbing probing, bool overflow = false) {
  check_map<K, V>(std::vector<InsertBatch<K, V>>{{keys, values, true}}, capacity, probing, overflow);
}

}  // namespace slabtest
