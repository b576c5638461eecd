// Plain C++ references of the compaction calls (prim/select.h): select_if, select_flagged, select_unique and
// partition_if, stable, returning the number of selected items. No CUDA.
#pragma once
#include <cstdint>
#include <functional>

namespace prim {
namespace reference {

// out[0, s) = the items with pred(item), in input order; returns s.
template <typename T, typename Pred>
uint64_t select_if(const T* in, int64_t n, T* out, Pred pred) {
  uint64_t s = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (pred(in[i])) out[s++] = in[i];
  }
  return s;
}

// out[0, s) = the items in[i] with flags[i] non-zero, in input order; returns s.
template <typename T, typename Flag>
uint64_t select_flagged(const T* in, const Flag* flags, int64_t n, T* out) {
  uint64_t s = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (static_cast<bool>(flags[i])) out[s++] = in[i];
  }
  return s;
}

// out[0, s) = in[0] and every in[i] with !equal(in[i - 1], in[i]); returns s.
template <typename T, typename Equal = std::equal_to<>>
uint64_t select_unique(const T* in, int64_t n, T* out, Equal equal = {}) {
  uint64_t s = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (i == 0 || !equal(in[i - 1], in[i])) out[s++] = in[i];
  }
  return s;
}

// selected_out[0, s) = the items with pred(item), rejected_out[0, n - s) = the others, both in input order; returns s.
template <typename T, typename Pred>
uint64_t partition_if(const T* in, int64_t n, T* selected_out, T* rejected_out, Pred pred) {
  uint64_t s = 0, r = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (pred(in[i])) {
      selected_out[s++] = in[i];
    } else {
      rejected_out[r++] = in[i];
    }
  }
  return s;
}

}  // namespace reference
}  // namespace prim
