// Plain C++ references of the split family (split, split_pairs, split_index, iterative split), with exactly the
// device semantics: stable, packed by bucket, bucket offsets [num_buckets + 1], records whose bucket is out of
// range skipped and counted. They are the tests' oracle and the renderer cpu backend's implementation.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "prim/detail/core/split_types.h"

namespace prim {
namespace reference {

// The counting phase shared by split and split_index: every record's bucket, the exclusive bucket starts
// (num_buckets + 1 entries, copied to bucket_offsets when non-null) and the number of invalid records.
struct BucketCounts {
  std::vector<uint32_t> bucket;
  std::vector<uint64_t> start;
  uint64_t invalid = 0;
};

template <typename T, typename BucketOp>
BucketCounts count_buckets(const T* in, int64_t n, uint32_t num_buckets, BucketOp bucket_of, uint64_t* bucket_offsets) {
  BucketCounts c;
  c.bucket.resize(static_cast<size_t>(n));
  c.start.assign(static_cast<size_t>(num_buckets) + 1, 0);
  for (int64_t i = 0; i < n; ++i) {
    c.bucket[i] = bucket_of(in[i]);
    if (c.bucket[i] < num_buckets) {
      ++c.start[c.bucket[i] + 1];
    } else {
      ++c.invalid;
    }
  }
  for (uint32_t b = 0; b < num_buckets; ++b) c.start[b + 1] += c.start[b];
  if (bucket_offsets) {
    for (uint32_t b = 0; b <= num_buckets; ++b) bucket_offsets[b] = c.start[b];
  }
  return c;
}

// Stable counting split. Returns the number of invalid records (bucket >= num_buckets), which are not written.
// bucket_offsets (may be null) receives num_buckets + 1 entries.
template <typename T, typename BucketOp>
uint64_t split(const T* in, T* out, int64_t n, uint32_t num_buckets, BucketOp bucket_of, uint64_t* bucket_offsets) {
  BucketCounts counts = count_buckets(in, n, num_buckets, bucket_of, bucket_offsets);
  const std::vector<uint32_t>& bucket = counts.bucket;
  std::vector<uint64_t>& start = counts.start;
  const uint64_t invalid = counts.invalid;
  for (int64_t i = 0; i < n; ++i) {
    if (bucket[i] < num_buckets) out[start[bucket[i]]++] = in[i];
  }
  return invalid;
}

// The permutation of a stable split instead of the moved records (see PermutationKind). Returns the number of
// invalid records; *num_valid (optional) receives the number of valid ones.
template <typename T, typename BucketOp, typename Index>
uint64_t split_index(const T* in, int64_t n, uint32_t num_buckets, BucketOp bucket_of, Index* perm,
                     PermutationKind kind, uint64_t* bucket_offsets, uint64_t* num_valid = nullptr) {
  BucketCounts counts = count_buckets(in, n, num_buckets, bucket_of, bucket_offsets);
  const std::vector<uint32_t>& bucket = counts.bucket;
  std::vector<uint64_t>& start = counts.start;
  const uint64_t invalid = counts.invalid;
  if (num_valid) *num_valid = start[num_buckets];
  for (int64_t i = 0; i < n; ++i) {
    if (bucket[i] >= num_buckets) continue;
    const uint64_t pos = start[bucket[i]]++;
    if (kind == PermutationKind::gather) {
      perm[pos] = static_cast<Index>(i);
    } else {
      perm[i] = static_cast<Index>(pos);
    }
  }
  return invalid;
}

// Key-value split: the functor sees the key, values follow their keys.
template <typename K, typename V, typename BucketOp>
uint64_t split_pairs(const K* keys_in, K* keys_out, const V* values_in, V* values_out, int64_t n,
                     uint32_t num_buckets, BucketOp bucket_of, uint64_t* bucket_offsets) {
  std::vector<uint64_t> perm(static_cast<size_t>(n));
  uint64_t valid = 0;
  const uint64_t invalid = split_index(keys_in, n, num_buckets, bucket_of, perm.data(), PermutationKind::gather,
                                       bucket_offsets, &valid);
  for (uint64_t i = 0; i < valid; ++i) {
    keys_out[i] = keys_in[perm[i]];
    values_out[i] = values_in[perm[i]];
  }
  return invalid;
}

// Iterative split reference: stable order by a bucket id of any width (id_of returns uint64_t < 2^id_bits;
// id_bits in [0, 64]). Records with a larger id are invalid: skipped and counted.
template <typename T, typename IdOp>
uint64_t iterative_split(const T* in, T* out, int64_t n, int id_bits, IdOp id_of) {
  std::vector<uint64_t> perm;
  perm.reserve(static_cast<size_t>(n));
  std::vector<uint64_t> ids(static_cast<size_t>(n));
  uint64_t invalid = 0;
  for (int64_t i = 0; i < n; ++i) {
    ids[i] = id_of(in[i]);
    if (id_bits < 64 && (ids[i] >> id_bits) != 0) {
      ++invalid;
    } else {
      perm.push_back(static_cast<uint64_t>(i));
    }
  }
  // LSD by 8-bit digits with counting splits: the textbook definition the device variants must match.
  std::vector<uint64_t> next(perm.size());
  for (int shift = 0; shift < id_bits; shift += 8) {
    const int bits = id_bits - shift < 8 ? id_bits - shift : 8;
    const uint64_t mask = (uint64_t{1} << bits) - 1;
    std::vector<uint64_t> start((size_t{1} << bits) + 1, 0);
    for (uint64_t p : perm) ++start[((ids[p] >> shift) & mask) + 1];
    for (size_t b = 1; b < start.size(); ++b) start[b] += start[b - 1];
    for (uint64_t p : perm) next[start[(ids[p] >> shift) & mask]++] = p;
    perm.swap(next);
  }
  for (size_t i = 0; i < perm.size(); ++i) out[i] = in[perm[i]];
  return invalid;
}

}  // namespace reference
}  // namespace prim
