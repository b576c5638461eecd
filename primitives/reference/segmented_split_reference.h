// Plain C++ reference of prim::segmented_split / segmented_split_pairs, with exactly the device semantics. It is
// the tests' oracle and the renderer cpu backend's L2 / L3.
//
// Semantics: segment s holds items [offsets[s], offsets[s+1]); each segment is split independently and stably by
// bucket_of into the same range of the output.
//   bucket_offsets[s * num_buckets + b] (may be null; num_segments * num_buckets + 1 entries): start of bucket b
//   of segment s; the last entry is the total item count (offsets[num_segments]).
//   An item whose bucket is >= num_buckets is not written; the valid items of its segment stay packed from the
//   segment's start (its last slots are left untouched) and it is counted in the return value.
//   If offsets[0] != 0 or the total exceeds max_items, nothing is written and the whole total is counted as invalid
//   (the device call cannot report an error otherwise without a host synchronisation).
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

namespace prim {
namespace reference {

// Stable split of every segment by the permutation it induces; `move(src, dst)` moves one record.
template <typename BucketAt, typename Move>
uint64_t segmented_split_by(int64_t max_items, const uint64_t* offsets, int64_t num_segments, uint32_t num_buckets,
                            BucketAt bucket_at, Move move, uint64_t* bucket_offsets) {
  const uint64_t total = offsets[num_segments];
  if (offsets[0] != 0 || total > static_cast<uint64_t>(max_items < 0 ? 0 : max_items)) return total;
  uint64_t invalid = 0;
  std::vector<uint64_t> cursor(static_cast<size_t>(num_buckets) + 1);
  for (int64_t s = 0; s < num_segments; ++s) {
    const uint64_t begin = offsets[s];
    const uint64_t end = offsets[s + 1];
    std::fill(cursor.begin(), cursor.end(), 0);
    for (uint64_t i = begin; i < end; ++i) {
      const uint32_t b = bucket_at(i);
      if (b < num_buckets) {
        ++cursor[b + 1];
      } else {
        ++invalid;
      }
    }
    cursor[0] = begin;
    for (uint32_t b = 0; b < num_buckets; ++b) cursor[b + 1] += cursor[b];
    if (bucket_offsets) {
      for (uint32_t b = 0; b < num_buckets; ++b) bucket_offsets[static_cast<uint64_t>(s) * num_buckets + b] = cursor[b];
    }
    for (uint64_t i = begin; i < end; ++i) {
      const uint32_t b = bucket_at(i);
      if (b < num_buckets) move(i, cursor[b]++);
    }
  }
  if (bucket_offsets) bucket_offsets[static_cast<uint64_t>(num_segments) * num_buckets] = total;
  return invalid;
}

// Returns the number of invalid items (see above).
template <typename T, typename BucketOp>
uint64_t segmented_split(const T* in, T* out, int64_t max_items, const uint64_t* offsets, int64_t num_segments,
                         uint32_t num_buckets, BucketOp bucket_of, uint64_t* bucket_offsets) {
  return segmented_split_by(
      max_items, offsets, num_segments, num_buckets, [&](uint64_t i) { return static_cast<uint32_t>(bucket_of(in[i])); },
      [&](uint64_t src, uint64_t dst) { out[dst] = in[src]; }, bucket_offsets);
}

// Key-value variant: the functor sees the key; values follow their keys.
template <typename K, typename V, typename BucketOp>
uint64_t segmented_split_pairs(const K* keys_in, K* keys_out, const V* values_in, V* values_out, int64_t max_items,
                               const uint64_t* offsets, int64_t num_segments, uint32_t num_buckets, BucketOp bucket_of,
                               uint64_t* bucket_offsets) {
  return segmented_split_by(
      max_items, offsets, num_segments, num_buckets,
      [&](uint64_t i) { return static_cast<uint32_t>(bucket_of(keys_in[i])); },
      [&](uint64_t src, uint64_t dst) {
        keys_out[dst] = keys_in[src];
        values_out[dst] = values_in[src];
      },
      bucket_offsets);
}

}  // namespace reference
}  // namespace prim
