// prim::segmented_split / prim::segmented_split_pairs: split every segment of an array independently (and
// stably) into num_buckets buckets chosen by a user functor. This is the renderer's L2 (columns split by tile
// row) and L3 (tiles split by depth slab).
//
//   size_t bytes = 0;
//   prim::segmented_split(nullptr, bytes, d_in, d_out, max_items, d_seg, num_segments, 16, BySlab{}, d_cells);
//   ... d_temp = <bytes of device memory, allocated once> ...
//   prim::segmented_split(d_temp, bytes, d_in, d_out, max_items, d_seg, num_segments, 16, BySlab{}, d_cells, s);
//
// Segments: d_segment_offsets (device, num_segments + 1 entries, non-decreasing, first entry 0): segment s holds
// items [offsets[s], offsets[s+1]). The item count lives on the device (the last entry), so a frame never waits
// for it; max_items is its host upper bound and sizes the scratch. The output of segment s occupies the same
// range of d_out, its records ordered by bucket and, inside a bucket, by input position.
//
// d_bucket_offsets (device, num_segments * num_buckets + 1 entries, may be null): entry s * num_buckets + b is the
// start of bucket b of segment s; the last entry is the item count.
//
// Bucket functor: `__host__ __device__ uint32_t operator()(const T& record) const` (the key for the pairs
// variant). It is evaluated up to twice per record, so it must be pure.
//
// Invalid records: a record whose bucket is >= num_buckets is not written (never out-of-bounds memory) and is
// added to *d_num_invalid (device uint64, the call adds to it) when that pointer is non-null; the valid records
// of its segment stay packed from the segment's start and its last slots are left untouched. If the item count
// exceeds max_items (or offsets[0] != 0) the call writes nothing and adds the whole count to *d_num_invalid.
// The Workspace overloads synchronise and return cudaErrorInvalidValue in both cases.
//
// Preconditions: 1 <= num_buckets <= 2048 (else cudaErrorInvalidValue); d_out must not overlap d_in; d_out holds
// max_items records. The input is not modified. No allocation, no host synchronisation (except the Workspace
// overloads); safe inside CUDA graph capture. The scratch size depends only on max_items, num_buckets and the
// record size (not on the segments).
//
// Implementation: the tile engine (prim/detail/dispatch/segmented_split_dispatch.cuh) packs small segments whole into
// block tiles and splits them in shared memory in one pass, and cuts medium ones into tiles whose bucket counts go
// through one global scan. Segments of more than a window of records (8 tiles of the plain split, 49152 records of up
// to 8 bytes with <= 256 buckets) leave it (SegmentedSplitOptions): on compute capability 9.0 and up, with <= 256
// buckets, a segment of at most 8 tiles of 512 x 16 records (65536 records of up to 4 bytes) goes to a thread-block
// cluster, a tile a block, the blocks exchanging their bucket counts through distributed shared memory
// (prim/detail/dispatch/segmented_cluster_segments.cuh); longer ones go through the plain split's engine, a window part
// per block (prim/detail/dispatch/segmented_large_segments.cuh). With those paths on, the tile engine runs resident:
// its upsweep tests the tiles 256 at a time on a resident grid and skips those inside a large segment, its downsweep
// does the same when the mean segment is longer than a window (else a block a tile, whose tiles inside a large segment
// leave at once), and only the part of its count matrix that the segments crossing tiles use is zeroed and scanned, by
// a count its plan leaves on the device (prim/detail/dispatch/device_count_scan.cuh); the large-segment path's blocks
// leave at once when its plan finds no large segment. On compute capability 9.0 and up these launches overlap with the
// kernel before them (prim/detail/core/overlapped_launch.cuh). A functor that declares its bucket bound
// (prim/key_bits.h, prim::KeyBits with 2^bits buckets) lets the cluster path pad every tile instead of testing its
// buckets.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "prim/detail/dispatch/segmented_split_dispatch.cuh"
#include "prim/key_bits.h"
#include "prim/workspace.h"

namespace prim {

// Largest num_buckets a segmented split call accepts.
constexpr uint32_t kMaxSegmentedSplitBuckets = detail::kMaxSegmentedBuckets;

// Per-call choices; the defaults suit any input, and the output is the same with every choice.
struct SegmentedSplitOptions {
  // Segments of more than a window through the cluster path and the plain split's engine. Their launches come with
  // every call whose max_items exceeds a window, even when no segment is that large, and cost a few microseconds there
  // (docs/bench/README.md has both settings). A caller whose segments are known to be smaller and whose calls are small
  // (the renderer) turns them off, and then every segment goes through the tile engine, a block a tile. Pass the same
  // options to the size query and to the call (the scratch differs).
  bool large_segment_path = true;
};

template <typename T, typename BucketOp>
cudaError_t segmented_split(void* d_temp, size_t& temp_bytes, const T* d_in, T* d_out, int64_t max_items,
                            const uint64_t* d_segment_offsets, int64_t num_segments, uint32_t num_buckets,
                            BucketOp bucket_of, uint64_t* d_bucket_offsets, cudaStream_t stream = 0,
                            uint64_t* d_num_invalid = nullptr, SegmentedSplitOptions options = {}) {
  return detail::segmented_split_dispatch(d_temp, temp_bytes, detail::SegmentedKeysIo<T, BucketOp>{d_in, d_out, bucket_of},
                                          max_items, d_segment_offsets, num_segments, num_buckets, d_bucket_offsets,
                                          stream, d_num_invalid, options.large_segment_path);
}

// Key-value variant: the functor sees the key; values follow their keys.
template <typename K, typename V, typename BucketOp>
cudaError_t segmented_split_pairs(void* d_temp, size_t& temp_bytes, const K* d_keys_in, K* d_keys_out,
                                  const V* d_values_in, V* d_values_out, int64_t max_items,
                                  const uint64_t* d_segment_offsets, int64_t num_segments, uint32_t num_buckets,
                                  BucketOp bucket_of, uint64_t* d_bucket_offsets, cudaStream_t stream = 0,
                                  uint64_t* d_num_invalid = nullptr, SegmentedSplitOptions options = {}) {
  return detail::segmented_split_dispatch(
      d_temp, temp_bytes,
      detail::SegmentedPairsIo<K, V, BucketOp>{d_keys_in, d_keys_out, d_values_in, d_values_out, bucket_of}, max_items,
      d_segment_offsets, num_segments, num_buckets, d_bucket_offsets, stream, d_num_invalid,
      options.large_segment_path);
}

// ---- Workspace overloads (allocate on growth, synchronise, report invalid records as cudaErrorInvalidValue) ----
template <typename T, typename BucketOp>
cudaError_t segmented_split(Workspace& ws, const T* d_in, T* d_out, int64_t max_items,
                            const uint64_t* d_segment_offsets, int64_t num_segments, uint32_t num_buckets,
                            BucketOp bucket_of, uint64_t* d_bucket_offsets, cudaStream_t stream = 0) {
  return detail::run_checking_invalid(ws, stream, [&](void* d_temp, size_t& bytes, uint64_t* d_invalid) {
    return segmented_split(d_temp, bytes, d_in, d_out, max_items, d_segment_offsets, num_segments, num_buckets,
                           bucket_of, d_bucket_offsets, stream, d_invalid);
  });
}

template <typename K, typename V, typename BucketOp>
cudaError_t segmented_split_pairs(Workspace& ws, const K* d_keys_in, K* d_keys_out, const V* d_values_in,
                                  V* d_values_out, int64_t max_items, const uint64_t* d_segment_offsets,
                                  int64_t num_segments, uint32_t num_buckets, BucketOp bucket_of,
                                  uint64_t* d_bucket_offsets, cudaStream_t stream = 0) {
  return detail::run_checking_invalid(ws, stream, [&](void* d_temp, size_t& bytes, uint64_t* d_invalid) {
    return segmented_split_pairs(d_temp, bytes, d_keys_in, d_keys_out, d_values_in, d_values_out, max_items,
                                 d_segment_offsets, num_segments, num_buckets, bucket_of, d_bucket_offsets, stream,
                                 d_invalid);
  });
}

}  // namespace prim
