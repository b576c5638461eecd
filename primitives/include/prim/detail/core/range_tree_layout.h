// The range tree's layout and its query walk (prim/range_tree.h), as plain __host__ __device__ code: the device's
// query kernels, the C++ reference builder (primitives/reference/range_tree_reference.h) and the host tests all run
// these same functions over the same arrays.
//
// Shape. The valid points sorted by x (ties by input index) take x positions [0, n); the positions are padded with
// never-matching points up to P = max(32, 2^ceil(log2 n)), so the tree over them is perfect: level l (0..L, L =
// log2 P) has P / 2^l nodes of 2^l consecutive x positions each, and every node's left child holds exactly half of it.
// Level l's array lists each node's points sorted by y (ties by x position), nodes in x order: it is the stable merge
// of its children's lists, so each list item of level l >= 1 has a "went left" bit (its point lies in the left child).
//
// Arrays of a tree (one blob, carved in this order; P' = P / 32 + 1 words a level):
//   x_keys         P        u32     the x keys of x positions 0..P-1 (range_key; padding and NaN: kNoKey)
//   root_y         P        u32     the y keys of level L's list (the root's points by y)
//   ranks          L x P'   RankWord  level l (1..L) at (l - 1) * P': per 32 list items the went-left bits and the
//                                   count of went-left items before them in the level's array
//   index          (L+1) x P u32    (report trees) level l's list as input point indices (padding: kNoIndex)
//   weight_prefix  (L+1) x (P+1) f64 (weighted trees) level l's exclusive prefix sums of the list's weights
//
// Why ranks instead of searching every level: a y range [a, b) of a node's list (positions in the list) becomes the
// children's ranges by two rank lookups, [rank(a), rank(b)) in the left child and [a - rank(a), b - rank(b)) in the
// right (the fractional cascading of Maramreddy and Kothapalli, as a wavelet tree's rank arrays): a query searches y
// once, at the root, and then pays O(1) a level on two root-to-leaf paths.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace prim {

// A closed axis-aligned box: the points with x_min <= x <= x_max and y_min <= y <= y_max. A box with a NaN bound or
// x_min > x_max or y_min > y_max is empty.
struct RangeBox {
  float x_min, x_max, y_min, y_max;
};

namespace detail {

// 32 items of a level's list: bit i set when item i went left; `before` = went-left items before the first of them in
// the level's array (the array's last word: before = P / 2, bits 0).
struct RangeRankWord {
  uint32_t before;
  uint32_t bits;
};

constexpr uint32_t kRangeNoKey = 0xFFFFFFFFu;    // NaN and padding: above every finite or infinite key
constexpr uint32_t kRangeNoIndex = 0xFFFFFFFFu;  // padding in the index arrays

// The order-preserving key of a float: a < b (as floats) iff range_key(a) < range_key(b); -0 and +0 map to one key
// (they compare equal), +inf to 0xFF800000, NaN to kRangeNoKey (never inside a box: box bounds are not NaN).
__host__ __device__ __forceinline__ uint32_t range_key(float f) {
  if (f != f) return kRangeNoKey;
  if (f == 0.0f) f = 0.0f;
  uint32_t b;
  memcpy(&b, &f, sizeof(b));
  return (b & 0x80000000u) != 0 ? ~b : (b | 0x80000000u);
}

__host__ __device__ __forceinline__ uint32_t range_popc(uint32_t v) {
#if defined(__CUDA_ARCH__)
  return static_cast<uint32_t>(__popc(v));
#else
  return static_cast<uint32_t>(__builtin_popcount(v));
#endif
}

// The planned shape of a tree of n points.
struct RangeTreeShape {
  int64_t n = 0;
  int64_t padded = 32;  // P
  int levels = 5;       // L = log2(P)

  __host__ __device__ static RangeTreeShape of(int64_t n) {
    RangeTreeShape s;
    s.n = n;
    s.padded = 32;
    s.levels = 5;
    while (s.padded < n) {
      s.padded *= 2;
      ++s.levels;
    }
    return s;
  }
  __host__ __device__ int64_t rank_words() const { return padded / 32 + 1; }  // P' a level
};

// The arrays of one built tree (device arrays for the kernels, host arrays in the reference and the tests).
struct RangeTreeView {
  RangeTreeShape shape;
  const uint32_t* x_keys = nullptr;
  const uint32_t* root_y = nullptr;
  const RangeRankWord* ranks = nullptr;
  const uint32_t* index = nullptr;          // null unless built for reports
  const double* weight_prefix = nullptr;    // null unless built with weights

  __host__ __device__ const RangeRankWord* level_ranks(int level) const {
    return ranks + static_cast<size_t>(level - 1) * static_cast<size_t>(shape.rank_words());
  }
  __host__ __device__ const uint32_t* level_index(int level) const {
    return index + static_cast<size_t>(level) * static_cast<size_t>(shape.padded);
  }
  __host__ __device__ const double* level_prefix(int level) const {
    return weight_prefix + static_cast<size_t>(level) * static_cast<size_t>(shape.padded + 1);
  }
};

// Bytes of each array of a tree, and where each starts in the blob (256-byte aligned pieces).
struct RangeTreeBlob {
  size_t x_keys = 0, root_y = 0, ranks = 0, index = 0, weight_prefix = 0, total = 0;

  static size_t align(size_t b) { return (b + 255) / 256 * 256; }
  static RangeTreeBlob of(const RangeTreeShape& s, bool report, bool weights) {
    RangeTreeBlob b;
    const size_t p = static_cast<size_t>(s.padded);
    size_t at = 0;
    b.x_keys = at;
    at += align(p * sizeof(uint32_t));
    b.root_y = at;
    at += align(p * sizeof(uint32_t));
    b.ranks = at;
    at += align(static_cast<size_t>(s.levels) * static_cast<size_t>(s.rank_words()) * sizeof(RangeRankWord));
    b.index = at;
    if (report) at += align(static_cast<size_t>(s.levels + 1) * p * sizeof(uint32_t));
    b.weight_prefix = at;
    if (weights) at += align(static_cast<size_t>(s.levels + 1) * (p + 1) * sizeof(double));
    b.total = at;
    return b;
  }
};

// Where list item q of a level goes in the level below, built top-down: its node is [o, o + 2 half) (aligned),
// `left_before` of the node's items before it went left. The left child's list is the went-left items in order, the
// right child's the others: this is the stable split that undoes the stable merge by y, so the top-down build writes
// the same arrays as merging bottom-up.
__host__ __device__ __forceinline__ int64_t range_child_position(int64_t q, int64_t half, bool went_left,
                                                                  int64_t left_before) {
  const int64_t o = q & ~(2 * half - 1);
  return went_left ? o + left_before : o + half + ((q - o) - left_before);
}

// Went-left items among positions [0, q) of a level's array (0 <= q <= P).
__host__ __device__ __forceinline__ uint32_t range_rank(const RangeRankWord* ranks, int64_t q) {
  const RangeRankWord w = ranks[q >> 5];
  const uint32_t bit = static_cast<uint32_t>(q & 31);
  return w.before + (bit != 0 ? range_popc(w.bits & ((1u << bit) - 1u)) : 0u);
}

// The first position in keys[0, n) whose key is not below `key` (upper: above `key`).
template <bool UPPER>
__host__ __device__ __forceinline__ int64_t range_search(const uint32_t* keys, int64_t n, uint32_t key) {
  int64_t lo = 0, len = n;
  while (len > 0) {
    const int64_t half = len / 2;
    const uint32_t k = keys[lo + half];
    if (UPPER ? k <= key : k < key) {
      lo += half + 1;
      len -= half + 1;
    } else {
      len = half;
    }
  }
  return lo;
}

// A box's keys; false when the box is empty.
__host__ __device__ __forceinline__ bool range_box_keys(const RangeBox& box, uint32_t& x0, uint32_t& x1, uint32_t& y0,
                                                        uint32_t& y1) {
  x0 = range_key(box.x_min);
  x1 = range_key(box.x_max);
  y0 = range_key(box.y_min);
  y1 = range_key(box.y_max);
  return x0 != kRangeNoKey && x1 != kRangeNoKey && y0 != kRangeNoKey && y1 != kRangeNoKey && x0 <= x1 && y0 <= y1;
}

// One step down from a node of `level` starting at array position o, its list range [a, b): the left child's range
// [la, lb) (the right child's is [a - la, b - lb)).
__host__ __device__ __forceinline__ void range_split(const RangeTreeView& t, int level, int64_t o, int64_t a,
                                                     int64_t b, int64_t& la, int64_t& lb) {
  const RangeRankWord* r = t.level_ranks(level);
  const uint32_t base = range_rank(r, o);
  la = static_cast<int64_t>(range_rank(r, o + a) - base);
  lb = static_cast<int64_t>(range_rank(r, o + b) - base);
}

// Calls visit(level, first, last) for every canonical node of the box: the points at positions [first, last) of
// `level`'s array are exactly the box's points, each once over all calls (count, sum and report all go through this
// walk, so they cannot disagree). O(log n): a y search at the root, then two root-to-leaf paths.
template <class Visit>
__host__ __device__ void range_tree_walk(const RangeTreeView& t, const RangeBox& box, Visit&& visit) {
  uint32_t x0, x1, y0, y1;
  if (!range_box_keys(box, x0, x1, y0, y1)) return;
  const int64_t first = range_search<false>(t.x_keys, t.shape.n, x0);  // x positions [first, last]
  const int64_t last = range_search<true>(t.x_keys, t.shape.n, x1) - 1;
  if (first > last) return;
  int64_t a = range_search<false>(t.root_y, t.shape.padded, y0);
  int64_t b = range_search<true>(t.root_y, t.shape.padded, y1);
  int level = t.shape.levels;
  int64_t o = 0;
  // ---- common path: while first and last lie in one child ----
  while (level > 0 && a < b) {
    const int64_t half = int64_t{1} << (level - 1);
    int64_t la, lb;
    range_split(t, level, o, a, b, la, lb);
    const bool first_right = (first & half) != 0, last_right = (last & half) != 0;
    if (first_right != last_right) {
      // ---- left boundary: the left child's points at x positions >= first ----
      {
        int lv = level - 1;
        int64_t lo_ = o, ca = la, cb = lb;
        while (lv > 0 && ca < cb) {
          const int64_t h = int64_t{1} << (lv - 1);
          int64_t ra, rb;
          range_split(t, lv, lo_, ca, cb, ra, rb);
          if ((first & h) != 0) {
            ca -= ra;
            cb -= rb;
            lo_ += h;
          } else {
            if (ca - ra < cb - rb) visit(lv - 1, lo_ + h + (ca - ra), lo_ + h + (cb - rb));
            ca = ra;
            cb = rb;
          }
          --lv;
        }
        if (lv == 0 && ca < cb) visit(0, lo_ + ca, lo_ + cb);
      }
      // ---- right boundary: the right child's points at x positions <= last ----
      {
        int lv = level - 1;
        int64_t lo_ = o + half, ca = a - la, cb = b - lb;
        while (lv > 0 && ca < cb) {
          const int64_t h = int64_t{1} << (lv - 1);
          int64_t ra, rb;
          range_split(t, lv, lo_, ca, cb, ra, rb);
          if ((last & h) != 0) {
            if (ra < rb) visit(lv - 1, lo_ + ra, lo_ + rb);
            ca -= ra;
            cb -= rb;
            lo_ += h;
          } else {
            ca = ra;
            cb = rb;
          }
          --lv;
        }
        if (lv == 0 && ca < cb) visit(0, lo_ + ca, lo_ + cb);
      }
      return;
    }
    if (first_right) {
      a -= la;
      b -= lb;
      o += half;
    } else {
      a = la;
      b = lb;
    }
    --level;
  }
  // first == last: the leaf itself.
  if (level == 0 && a < b) visit(0, o + a, o + b);
}

}  // namespace detail
}  // namespace prim
