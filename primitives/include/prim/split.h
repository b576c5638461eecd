// prim::split / prim::split_pairs: move records into num_buckets buckets chosen by a user functor.
//
//   size_t bytes = 0;
//   prim::split(nullptr, bytes, d_in, d_out, n, 256, ByLowByte{}, d_offsets);   // size query
//   ... d_temp = <bytes of device memory, allocated once> ...
//   prim::split(d_temp, bytes, d_in, d_out, n, 256, ByLowByte{}, d_offsets, stream);
//
// Overview. Bucket functor: `__host__ __device__ uint32_t operator()(const T& record) const`, returning a bucket in
// [0, num_buckets). It is evaluated several times per record (count pass and move pass; with more than 256 buckets
// each of two passes, and once more for the offsets), so it must be pure.
// Output: d_out holds the valid records packed by bucket (bucket 0 first).
// d_bucket_offsets (num_buckets + 1 device uint64, may be null): bucket b occupies [offsets[b], offsets[b+1]);
// offsets[num_buckets] is the number of valid records written.
//
// Stability. With SplitOrder::stable the records of one bucket keep their input order; SplitOrder::unstable allows
// any order inside a bucket (and may differ from run to run), which lets it skip the look-back. Offsets, invalid
// records and scratch rules are the same for both; the scratch size may differ between the orders, so query with the
// order you call with.
//
// Invalid records: a record whose bucket is >= num_buckets is not written anywhere (never out-of-bounds memory)
// and is added to *d_num_invalid (device uint64, the call adds to it) when that pointer is non-null. The valid
// records stay packed from position 0. The Workspace overloads synchronise and return cudaErrorInvalidValue if
// any record was invalid.
//
// Preconditions: 1 <= num_buckets <= 2048 (else cudaErrorInvalidValue); d_out must not overlap d_in; d_out holds
// n.max records. The input is not modified. No allocation, no host synchronisation (except the Workspace
// overloads); safe inside CUDA graph capture.
//
// Performance (measured tables: docs/bench/README.md).
//   Up to 256 buckets, n.max <= 2^30 - 1: one pass (prim/detail/dispatch/split_lsd.cuh). One histogram kernel counts
//   the buckets (and the out-of-range records), then one downsweep whose tiles find their bases by look-back over the
//   whole input, as CUB's one-sweep radix sort does; in the unstable order they take them from per-bucket cursors
//   instead (one atomicAdd a tile and bucket, no tile waits for another). Two kernels share the downsweep's tiles:
//   one for input without out-of-range records, which holds no code for them, and one for input with some. A key's
//   bits, prim::KeyBits<K>{shift, bits} (prim/key_bits.h) on 32- or 64-bit keys with num_buckets = 2^bits, cannot be
//   out of range: its pass is exactly one of SplitSort's. Memory traffic: keys read twice, records written once.
//   257..2048 buckets, n.max <= 2^30 - 1, either order: two stable LSD passes of the same route (the bucket's low
//   byte, then the rest) through a scratch copy of n.max records, after one histogram of both passes' digits; the
//   offsets come from the sorted output (a binary search a bucket from 2^23 records on). split_index sends
//   (bucket, index) pairs through the same two passes.
//   2^30 records or more (the split's own route; prim/detail/dispatch/split_dispatch.cuh), in either order (a stable
//   split is a valid unstable one): upsweep histogram per chunk of tiles, scan of the bucket-major table, downsweep
//   with a stable warp match-any block ranking and a shared-memory exchange so that the writes coalesce; the
//   downsweep's blocks claim tiles in input order and find a tile's output bases by decoupled look-back inside its
//   chunk (scratch: 4 bytes per bucket per tile of n.max; with 256 buckets and 4-byte records, tiles of 6144, 0.17
//   bytes a record). More than 256 buckets take two such passes.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "prim/detail/dispatch/split_dispatch.cuh"
#include "prim/detail/dispatch/split_lsd.cuh"
#include "prim/detail/core/split_types.h"
#include "prim/item_count.h"
#include "prim/key_bits.h"
#include "prim/workspace.h"

namespace prim {

// Largest num_buckets a single split call accepts.
constexpr uint32_t kMaxSplitBuckets = detail::kMaxSplitBuckets;

template <typename T, typename BucketOp>
cudaError_t split(void* d_temp, size_t& temp_bytes, const T* d_in, T* d_out, ItemCount n, uint32_t num_buckets,
                  BucketOp bucket_of, uint64_t* d_bucket_offsets, cudaStream_t stream = 0,
                  SplitOrder order = SplitOrder::stable, uint64_t* d_num_invalid = nullptr) {
  return detail::dispatch_split_of_any_functor<detail::SplitOutput::keys, T, detail::NoValue>(
      order, d_temp, temp_bytes, d_in, d_out, static_cast<const detail::NoValue*>(nullptr),
      static_cast<detail::NoValue*>(nullptr), n, num_buckets, bucket_of, d_bucket_offsets, stream, d_num_invalid);
}

// Key-value variant: the bucket functor sees the key; values follow their keys.
template <typename K, typename V, typename BucketOp>
cudaError_t split_pairs(void* d_temp, size_t& temp_bytes, const K* d_keys_in, K* d_keys_out, const V* d_values_in,
                        V* d_values_out, ItemCount n, uint32_t num_buckets, BucketOp bucket_of,
                        uint64_t* d_bucket_offsets, cudaStream_t stream = 0, SplitOrder order = SplitOrder::stable,
                        uint64_t* d_num_invalid = nullptr) {
  return detail::dispatch_split_of_any_functor<detail::SplitOutput::pairs, K, V>(
      order, d_temp, temp_bytes, d_keys_in, d_keys_out, d_values_in, d_values_out, n, num_buckets, bucket_of,
      d_bucket_offsets, stream, d_num_invalid);
}

// ---- Workspace overloads (allocate on growth, synchronise, report invalid records as cudaErrorInvalidValue) ----
template <typename T, typename BucketOp>
cudaError_t split(Workspace& ws, const T* d_in, T* d_out, ItemCount n, uint32_t num_buckets, BucketOp bucket_of,
                  uint64_t* d_bucket_offsets, cudaStream_t stream = 0, SplitOrder order = SplitOrder::stable) {
  return detail::run_checking_invalid(ws, stream, [&](void* d_temp, size_t& bytes, uint64_t* d_invalid) {
    return split(d_temp, bytes, d_in, d_out, n, num_buckets, bucket_of, d_bucket_offsets, stream, order, d_invalid);
  });
}

template <typename K, typename V, typename BucketOp>
cudaError_t split_pairs(Workspace& ws, const K* d_keys_in, K* d_keys_out, const V* d_values_in, V* d_values_out,
                        ItemCount n, uint32_t num_buckets, BucketOp bucket_of, uint64_t* d_bucket_offsets,
                        cudaStream_t stream = 0, SplitOrder order = SplitOrder::stable) {
  return detail::run_checking_invalid(ws, stream, [&](void* d_temp, size_t& bytes, uint64_t* d_invalid) {
    return split_pairs(d_temp, bytes, d_keys_in, d_keys_out, d_values_in, d_values_out, n, num_buckets, bucket_of,
                       d_bucket_offsets, stream, order, d_invalid);
  });
}

}  // namespace prim
