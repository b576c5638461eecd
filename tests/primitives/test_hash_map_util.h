// Helpers of the hash map tests (cpu and gpu): key generators, keys built from chosen hashes (the hash inverted), the
// expected contents of a map, and the table invariants every layout must keep.
#pragma once
#include <algorithm>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "prim/detail/core/hash_map_types.h"

namespace slabtest {

// A bijection of 32 / 64-bit words that is not the map's hash (so generated keys do not line up with their homes).
inline uint32_t scramble(uint32_t x) {
  x = x * 0x9E3779B9u + 0x7F4A7C15u;
  x ^= x >> 15;
  x *= 0x2C1B3C6Du;
  x ^= x >> 12;
  return x;
}
inline uint64_t scramble(uint64_t x) {
  x = x * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  return x;
}

// count distinct keys, none of them the reserved key: scramble(first), scramble(first + 1), ... skipping the one
// index that maps to the reserved key. Two ranges of indices that do not overlap give disjoint key sets.
template <typename K>
std::vector<K> distinct_keys(uint64_t count, uint64_t first) {
  std::vector<K> keys;
  keys.reserve(count);
  for (uint64_t i = first; keys.size() < count; ++i) {
    const K k = scramble(static_cast<K>(i));
    if (k != prim::hash_map_empty_key<K>()) keys.push_back(k);
  }
  return keys;
}

template <typename V>
std::vector<V> random_values(uint64_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<V> v(count);
  for (auto& x : v) x = static_cast<V>(rng());
  return v;
}

// Skewed keys: n draws from `distinct` keys, key j drawn with probability ~ 1 / (j + 1) (Zipf), so a few keys repeat
// thousands of times.
template <typename K>
std::vector<K> zipf_keys(uint64_t n, uint64_t distinct, uint64_t seed) {
  const std::vector<K> pool = distinct_keys<K>(distinct, 1u << 20);
  std::vector<double> cdf(distinct);
  double sum = 0;
  for (uint64_t j = 0; j < distinct; ++j) cdf[j] = sum += 1.0 / double(j + 1);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, sum);
  std::vector<K> keys(n);
  for (auto& k : keys) {
    const uint64_t j = static_cast<uint64_t>(std::lower_bound(cdf.begin(), cdf.end(), u(rng)) - cdf.begin());
    k = pool[std::min(j, distinct - 1)];
  }
  return keys;
}

// ---- the hash inverted: keys whose hashes we choose ----
inline uint32_t odd_inverse(uint32_t c) {
  uint32_t x = c;
  for (int i = 0; i < 5; ++i) x *= 2u - c * x;
  return x;
}
inline uint64_t odd_inverse(uint64_t c) {
  uint64_t x = c;
  for (int i = 0; i < 6; ++i) x *= 2u - c * x;
  return x;
}
template <typename T>
T unxorshift(T y, int s) {
  T x = y;
  for (int shift = s; shift < int(8 * sizeof(T)); shift += s) x ^= y >> shift;
  return x;
}
// The key whose hash_mix is h.
inline uint32_t hash_unmix(uint32_t h) {
  h = unxorshift(h, 16);
  h *= odd_inverse(0xc2b2ae35u);
  h = unxorshift(h, 13);
  h *= odd_inverse(0x85ebca6bu);
  return unxorshift(h, 16);
}
inline uint64_t hash_unmix(uint64_t h) {
  h = unxorshift(h, 33);
  h *= odd_inverse(uint64_t{0xc4ceb9fe1a85ec53ull});
  h = unxorshift(h, 33);
  h *= odd_inverse(uint64_t{0xff51afd7ed558ccdull});
  return unxorshift(h, 33);
}

// count distinct keys whose hashes are consecutive from the hash `first_hash`: all of them share a home (the same
// window, or neighbouring slots) in any table of fewer than 2^32 / count slots. None is the reserved key.
template <typename K>
std::vector<K> colliding_keys(uint64_t count, K first_hash) {
  std::vector<K> keys;
  for (K h = first_hash; keys.size() < count; ++h) {
    const K k = hash_unmix(h);
    if (k != prim::hash_map_empty_key<K>()) keys.push_back(k);
  }
  return keys;
}

// What a map holds after inserting these pairs (values == nullptr: 0): the smallest value of every key but the
// reserved one. A sorted array, not a hash map, so that 2^26 keys cost seconds.
template <typename K, typename V>
class ExpectedMap {
 public:
  ExpectedMap(const std::vector<K>& keys, const V* values) {
    pairs_.reserve(keys.size());
    for (size_t i = 0; i < keys.size(); ++i) {
      if (keys[i] != prim::hash_map_empty_key<K>()) pairs_.emplace_back(keys[i], values ? values[i] : V{0});
    }
    std::sort(pairs_.begin(), pairs_.end());  // by key, then value: the first of each key has its smallest value
    pairs_.erase(std::unique(pairs_.begin(), pairs_.end(), [](const auto& a, const auto& b) { return a.first == b.first; }),
                 pairs_.end());
  }
  // The value of `key`, or null.
  const V* find(K key) const {
    const auto it = std::lower_bound(pairs_.begin(), pairs_.end(), key,
                                     [](const std::pair<K, V>& p, K k) { return p.first < k; });
    return it != pairs_.end() && it->first == key ? &it->second : nullptr;
  }
  size_t size() const { return pairs_.size(); }
  const std::vector<std::pair<K, V>>& pairs() const { return pairs_; }

 private:
  std::vector<std::pair<K, V>> pairs_;
};

template <typename K, typename V>
ExpectedMap<K, V> expected_contents(const std::vector<K>& keys, const V* values) {
  return ExpectedMap<K, V>(keys, values);
}

// The invariants of a table, "" when they hold (else the first broken one):
//   - every key appears once, with the value `expected` gives it (a key absent from `expected` is an error);
//   - all of `expected` is there, unless `subset` (a table that overflowed holds a part of it);
//   - linear: every slot before a key in its probe sequence (from the home window's first slot) is occupied;
//   - ordered: a key sits at or after its home, every slot from its home to it is occupied, and every run of
//     occupied slots is sorted by hash.
template <typename K, typename V>
std::string table_invariants(const std::vector<typename prim::HashMapView<K, V>::Slot>& slots, uint64_t capacity,
                             prim::HashMapProbing probing, const ExpectedMap<K, V>& expected, bool subset = false) {
  using View = prim::HashMapView<K, V>;
  constexpr K kEmpty = prim::hash_map_empty_key<K>();
  const uint64_t W = View::kWindowSlots;
  std::ostringstream err;
  if (slots.size() != View::slot_count(capacity, probing)) {
    err << "table of " << slots.size() << " slots, expected " << View::slot_count(capacity, probing);
    return err.str();
  }
  auto key = [&](uint64_t i) { return prim::detail::slot_key(slots[i]); };
  std::vector<std::pair<K, V>> held;  // what the table holds, sorted below to compare with `expected` in one pass
  for (uint64_t i = 0; i < slots.size(); ++i) {
    const K k = key(i);
    if (k == kEmpty) continue;
    held.emplace_back(k, static_cast<V>(prim::detail::slot_value(slots[i])));
    const uint64_t position = prim::detail::hash_position(k);
    if (probing == prim::HashMapProbing::linear) {
      const uint64_t windows = capacity / W;
      for (uint64_t s = prim::detail::home_of(position, windows) * W; s != i; s = s + 1 == capacity ? 0 : s + 1) {
        if (key(s) == kEmpty) {
          err << "key " << k << " in slot " << i << " but slot " << s << " of its probe sequence is empty";
          return err.str();
        }
      }
    } else {
      const uint64_t home = prim::detail::home_of(position, capacity);
      if (i < home) {
        err << "key " << k << " in slot " << i << " before its home " << home;
        return err.str();
      }
      for (uint64_t s = home; s < i; ++s) {
        if (key(s) == kEmpty) {
          err << "key " << k << " in slot " << i << " but slot " << s << " after its home " << home << " is empty";
          return err.str();
        }
      }
      if (i > 0 && key(i - 1) != kEmpty && prim::detail::hash_position(key(i - 1)) >= position) {
        err << "run not sorted by hash at slot " << i;
        return err.str();
      }
    }
  }
  std::sort(held.begin(), held.end());
  const auto& want = expected.pairs();
  size_t e = 0;
  for (size_t h = 0; h < held.size(); ++h) {
    if (h > 0 && held[h].first == held[h - 1].first) {
      err << "key " << held[h].first << " in two slots";
      return err.str();
    }
    while (e < want.size() && want[e].first < held[h].first) ++e;
    if (e == want.size() || want[e].first != held[h].first) {
      err << "key " << held[h].first << " was never inserted";
      return err.str();
    }
    if (want[e].second != held[h].second) {
      err << "key " << held[h].first << " has value " << held[h].second << ", expected " << want[e].second;
      return err.str();
    }
  }
  if (!subset && held.size() != expected.size()) {
    err << held.size() << " keys in the table, expected " << expected.size();
    return err.str();
  }
  return "";
}

}  // namespace slabtest
