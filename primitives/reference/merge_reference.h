// Plain C++ reference of prim::merge / prim::merge_pairs (prim/merge.h), with the device semantics: a stable merge,
// equivalent items of the first input before those of the second. No CUDA.
#pragma once
#include <cstdint>
#include <functional>

namespace prim {
namespace reference {

// out[0, na + nb) = the merge of a[0, na) and b[0, nb) in the order of comp ("a before b").
template <typename K, typename Compare = std::less<>>
void merge(const K* a, int64_t na, const K* b, int64_t nb, K* out, Compare comp = {}) {
  int64_t i = 0, j = 0, o = 0;
  while (i < na && j < nb) out[o++] = comp(b[j], a[i]) ? b[j++] : a[i++];  // the second only when strictly before
  while (i < na) out[o++] = a[i++];
  while (j < nb) out[o++] = b[j++];
}

// The same for key-value pairs: the comparator sees the keys, each value follows its key.
template <typename K, typename V, typename Compare = std::less<>>
void merge_pairs(const K* keys_a, const V* values_a, int64_t na, const K* keys_b, const V* values_b, int64_t nb,
                 K* keys_out, V* values_out, Compare comp = {}) {
  int64_t i = 0, j = 0, o = 0;
  for (; i < na || j < nb; ++o) {
    const bool second = j < nb && (i >= na || comp(keys_b[j], keys_a[i]));
    if (second) {
      keys_out[o] = keys_b[j];
      values_out[o] = values_b[j++];
    } else {
      keys_out[o] = keys_a[i];
      values_out[o] = values_a[i++];
    }
  }
}

}  // namespace reference
}  // namespace prim
