// Plain C++ reference of prim/hash_map.h: the same slot layout, hash, windows and probing, one key at a time.
//
// Inserted one after another, the keys take the slots that the device gives them when no two keys race for one, so:
//   - ordered probing: the table is the device's byte for byte, always (the ordered layout is a function of the set
//     of keys and their minimum values, whatever the order of insertion);
//   - linear probing: the keys, their values and every find / contains answer are the device's whenever every key
//     fits; which slot a key lands in may differ (the device's racing inserts order a window's keys by timing).
// Duplicate keys keep the smallest value; the reserved key and keys that find no slot are counted, as on the device.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "prim/detail/core/hash_map_types.h"

namespace prim {
namespace reference {

template <typename K, typename V>
class HashMap {
 public:
  using View = HashMapView<K, V>;
  using Slot = typename View::Slot;
  static constexpr uint64_t kWindowSlots = View::kWindowSlots;

  // capacity: the home range in slots, rounded up to whole windows as the device's HashMap does.
  explicit HashMap(uint64_t capacity, HashMapProbing probing = HashMapProbing::linear)
      : capacity_(View::round_capacity(capacity)), probing_(probing) {
    Slot empty;
    fill_empty(empty);
    slots_.assign(View::slot_count(capacity_, probing_), empty);
  }

  // Inserts keys[i] -> values[i] (values == nullptr: every value 0). Returns the number of inputs counted invalid:
  // the reserved key, and keys that found no slot (linear) or keys pushed out past the end of the tail (ordered).
  uint64_t insert(const K* keys, const V* values, int64_t n) {
    uint64_t invalid = 0;
    for (int64_t i = 0; i < n; ++i) {
      const K key = keys[i];
      const V value = values ? values[i] : V{0};
      if (key == hash_map_empty_key<K>()) {
        ++invalid;
      } else if (!(probing_ == HashMapProbing::ordered ? insert_ordered(key, value) : insert_linear(key, value))) {
        ++invalid;
      }
    }
    return invalid;
  }

  // out[i] = the value of queries[i], or not_found. Returns the number of reserved-key queries (not found).
  uint64_t find(const K* queries, V* out, int64_t n, V not_found) const {
    uint64_t invalid = 0;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t s = slot_of(queries[i]);
      out[i] = s >= 0 ? value_at(s) : not_found;
      invalid += queries[i] == hash_map_empty_key<K>();
    }
    return invalid;
  }

  // out[i] = whether queries[i] is in the map. Returns the number of reserved-key queries (false).
  uint64_t contains(const K* queries, bool* out, int64_t n) const {
    uint64_t invalid = 0;
    for (int64_t i = 0; i < n; ++i) {
      out[i] = slot_of(queries[i]) >= 0;
      invalid += queries[i] == hash_map_empty_key<K>();
    }
    return invalid;
  }

  // The slot holding `key`, or -1.
  int64_t slot_of(K key) const {
    if (key == hash_map_empty_key<K>() || capacity_ == 0) return -1;
    const uint64_t position = detail::hash_position(key);
    if (probing_ == HashMapProbing::ordered) {
      for (uint64_t i = detail::home_of(position, capacity_); i < slots_.size(); ++i) {
        const K k = key_at(i);
        if (k == key) return static_cast<int64_t>(i);
        if (k == hash_map_empty_key<K>() || detail::hash_position(k) > position) return -1;
      }
      return -1;
    }
    const uint64_t windows = capacity_ / kWindowSlots;
    uint64_t w = detail::home_of(position, windows);
    for (uint64_t step = 0; step < windows; ++step) {
      for (uint64_t j = 0; j < kWindowSlots; ++j) {
        const K k = key_at(w * kWindowSlots + j);
        if (k == key) return static_cast<int64_t>(w * kWindowSlots + j);
        if (k == hash_map_empty_key<K>()) return -1;
      }
      w = w + 1 == windows ? 0 : w + 1;
    }
    return -1;
  }

  K key_at(uint64_t i) const { return detail::slot_key(slots_[i]); }
  V value_at(uint64_t i) const { return static_cast<V>(detail::slot_value(slots_[i])); }
  const std::vector<Slot>& slots() const { return slots_; }
  uint64_t capacity() const { return capacity_; }
  HashMapProbing probing() const { return probing_; }

 private:
  static void fill_empty(Slot& s) {
    if constexpr (View::kPacked) {
      s = ~uint64_t{0};
    } else {
      s.key = hash_map_empty_key<K>();
      s.value = static_cast<V>(~V{0});
    }
  }
  void set(uint64_t i, K key, V value) {
    if constexpr (View::kPacked) {
      slots_[i] = detail::pack_slot(key, value);
    } else {
      slots_[i].key = key;
      slots_[i].value = value;
    }
  }
  void keep_smaller_value(uint64_t i, V value) {
    if (value < value_at(i)) set(i, key_at(i), value);
  }

  // First empty slot of the first window from the home window on that has one; a present key keeps the smaller
  // value. A full table: false.
  bool insert_linear(K key, V value) {
    const uint64_t windows = capacity_ / kWindowSlots;
    uint64_t w = detail::home_of(detail::hash_position(key), windows);
    for (uint64_t step = 0; step < windows; ++step) {
      for (uint64_t j = 0; j < kWindowSlots; ++j) {
        const uint64_t i = w * kWindowSlots + j;
        const K k = key_at(i);
        if (k == key) {
          keep_smaller_value(i, value);
          return true;
        }
        if (k == hash_map_empty_key<K>()) {
          set(i, key, value);
          return true;
        }
      }
      w = w + 1 == windows ? 0 : w + 1;
    }
    return false;
  }

  // From the home slot on, the carried pair takes the place of the first pair with a larger hash and carries that
  // one on, until an empty slot takes the carried pair. Past the end of the tail the carried pair is dropped: false.
  bool insert_ordered(K key, V value) {
    K carry_key = key;
    V carry_value = value;
    uint64_t carry_position = detail::hash_position(key);
    for (uint64_t i = detail::home_of(carry_position, capacity_); i < slots_.size(); ++i) {
      const K k = key_at(i);
      if (k == hash_map_empty_key<K>()) {
        set(i, carry_key, carry_value);
        return true;
      }
      if (k == carry_key) {
        keep_smaller_value(i, carry_value);
        return true;
      }
      const uint64_t position = detail::hash_position(k);
      if (position > carry_position) {
        const V v = value_at(i);
        set(i, carry_key, carry_value);
        carry_key = k;
        carry_value = v;
        carry_position = position;
      }
    }
    return false;
  }

  std::vector<Slot> slots_;
  uint64_t capacity_ = 0;
  HashMapProbing probing_ = HashMapProbing::linear;
};

}  // namespace reference
}  // namespace prim
