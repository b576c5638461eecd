// Plain C++ references of prim::lower_bound / prim::upper_bound (prim/search.h): each needle's count of haystack
// items before it, by a binary search of its own. No CUDA.
#pragma once
#include <cstdint>
#include <functional>

namespace prim {
namespace reference {

// out[i] = the number of items x of haystack[0, h) with comp(x, needles[i]).
template <typename K, typename Index, typename Compare = std::less<>>
void lower_bound(const K* haystack, int64_t h, const K* needles, int64_t n, Index* out, Compare comp = {}) {
  for (int64_t i = 0; i < n; ++i) {
    int64_t lo = 0, len = h;  // the answer lies in [lo, lo + len]
    while (len > 0) {
      const int64_t half = len / 2;
      if (comp(haystack[lo + half], needles[i])) {
        lo += half + 1;
        len -= half + 1;
      } else {
        len = half;
      }
    }
    out[i] = static_cast<Index>(lo);
  }
}

// out[i] = the number of items x of haystack[0, h) with !comp(needles[i], x).
template <typename K, typename Index, typename Compare = std::less<>>
void upper_bound(const K* haystack, int64_t h, const K* needles, int64_t n, Index* out, Compare comp = {}) {
  lower_bound(haystack, h, needles, n, out, [&comp](const K& x, const K& needle) { return !comp(needle, x); });
}

}  // namespace reference
}  // namespace prim
