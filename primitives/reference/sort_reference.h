// Plain C++ reference of SplitSort (prim/sort.h): stable sort by the key bits [begin_bit, end_bit) only.
#pragma once
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "prim/uint128.h"

namespace prim {
namespace reference {

// The key's bits [begin_bit, end_bit) as an unsigned number (the sort's ordering key).
inline uint64_t key_bits(uint64_t key, int begin_bit, int end_bit) {
  const int width = end_bit - begin_bit;
  if (width <= 0) return 0;
  const uint64_t shifted = begin_bit >= 64 ? 0 : key >> begin_bit;
  return width >= 64 ? shifted : shifted & ((uint64_t{1} << width) - 1);
}
inline uint64_t key_bits(uint32_t key, int begin_bit, int end_bit) {
  return key_bits(static_cast<uint64_t>(key), begin_bit, end_bit);
}
inline uint128 key_bits(const uint128& key, int begin_bit, int end_bit) {
  uint128 r;
  // Shift right by begin_bit.
  if (begin_bit >= 128) return r;
  if (begin_bit >= 64) {
    r.lo = key.hi >> (begin_bit - 64);
  } else if (begin_bit > 0) {
    r.lo = (key.lo >> begin_bit) | (key.hi << (64 - begin_bit));
    r.hi = key.hi >> begin_bit;
  } else {
    r = key;
  }
  const int width = end_bit - begin_bit;
  if (width <= 0) return uint128{};
  if (width < 64) {
    r.lo &= (uint64_t{1} << width) - 1;
    r.hi = 0;
  } else if (width < 128) {
    r.hi &= width == 64 ? 0 : ((uint64_t{1} << (width - 64)) - 1);
  }
  return r;
}

// Stable order of the indices by key bits.
template <typename Key>
std::vector<size_t> sort_order(const Key* keys, size_t n, int begin_bit, int end_bit) {
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return key_bits(keys[a], begin_bit, end_bit) < key_bits(keys[b], begin_bit, end_bit);
  });
  return order;
}

template <typename Key>
void sort_keys(const Key* keys_in, Key* keys_out, size_t n, int begin_bit, int end_bit) {
  const std::vector<size_t> order = sort_order(keys_in, n, begin_bit, end_bit);
  for (size_t i = 0; i < n; ++i) keys_out[i] = keys_in[order[i]];
}

template <typename Key, typename Value>
void sort_pairs(const Key* keys_in, Key* keys_out, const Value* values_in, Value* values_out, size_t n, int begin_bit,
                int end_bit) {
  const std::vector<size_t> order = sort_order(keys_in, n, begin_bit, end_bit);
  for (size_t i = 0; i < n; ++i) {
    keys_out[i] = keys_in[order[i]];
    values_out[i] = values_in[order[i]];
  }
}

}  // namespace reference
}  // namespace prim
