// split_index with more than 256 buckets: the records' buckets and indices become (bucket, index) pairs, which the
// two stable 8-bit passes of the record split sort (split_into_more_than_256_buckets, split_lsd.cuh); the sorted
// indices are the gather permutation, and one more kernel inverts it for the scatter kind.
//
// Why not the one-pass 11-bit ranker that served split_index until session 11: measured on the H100 (2^26 u32
// pairs, 2048 buckets) it took 6.6 ms with uniform keys where the two passes take 1.5 (docs/bench/README.md,
// "Session 10"). The pairs also evaluate the bucket functor once a record, and read a large record only once.
// The buckets are 16-bit keys (at most 2048 buckets): u16 + u32 pairs move 6 bytes a record where u32 + u32 moved 8.
// H100, session 18, call e (2^26 keys, 2048 buckets): 1.483-1.492 -> 1.348-1.352 ms (CUB's peer 1.17).
// Cost: scratch of about 2 + 2 + 2 x sizeof(Index) bytes a record (n.max) besides the two passes' own (a copy of
// the pairs), plus sizeof(Index) for the scatter kind.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "detail/bits.h"
#include "detail/split_dispatch.cuh"
#include "detail/split_lsd.cuh"
#include "detail/split_types.cuh"
#include "prim/error.h"
#include "prim/item_count.h"
#include "prim/temp_storage.h"

namespace prim {
namespace detail {

constexpr uint32_t kInvalidBucket = 0xFFFFFFFFu;
using SplitIndexBucket = uint16_t;  // its all-ones value, kInvalidBucket cast, lies above every bucket
static_assert(kMaxSplitBuckets < 0xFFFFu, "16-bit buckets");

// buckets[i] = the bucket of record i (kInvalidBucket when out of range), index[i] = i, for the records that exist.
template <class T, class BucketOp, class Bucket, class Index>
__global__ void bucket_and_index_kernel(const T* __restrict__ in, ItemCount n, uint32_t num_buckets,
                                        BucketOp bucket_of, Bucket* __restrict__ buckets,
                                        Index* __restrict__ index) {
  const int64_t count = resolve_count(n);
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count; i += stride) {
    const uint32_t b = bucket_of(in[i]);
    buckets[i] = b < num_buckets ? static_cast<Bucket>(b) : static_cast<Bucket>(kInvalidBucket);
    index[i] = static_cast<Index>(i);
  }
}

// The pairs' key is the bucket itself.
struct BucketIsKey {
  __host__ __device__ __forceinline__ uint32_t operator()(uint32_t bucket) const { return bucket; }
};

// scatter[gather[i]] = i for the *d_count valid records (entries of invalid records stay untouched).
template <class Index>
__global__ void invert_permutation_kernel(const Index* __restrict__ gather, const uint64_t* d_count,
                                          Index* __restrict__ scatter) {
  const int64_t count = static_cast<int64_t>(*d_count);
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count; i += stride) {
    scatter[gather[i]] = static_cast<Index>(i);
  }
}

template <class T, class BucketOp, class Index>
cudaError_t split_index_two_passes(void* d_temp, size_t& temp_bytes, const T* d_in, ItemCount n,
                                   uint32_t num_buckets, BucketOp bucket_of, Index* d_permutation,
                                   PermutationKind kind, uint64_t* d_bucket_offsets, cudaStream_t stream,
                                   uint64_t* d_num_invalid) {
  if (n.max < 0 || num_buckets <= 256 || num_buckets > kMaxSplitBuckets) return cudaErrorInvalidValue;
  const bool gather_kind = kind == PermutationKind::gather;
  const size_t records = static_cast<size_t>(n.max);
  TempCarver carver(d_temp);
  SplitIndexBucket* buckets = carver.take<SplitIndexBucket>(records);
  Index* index = carver.take<Index>(records);
  SplitIndexBucket* sorted_buckets = carver.take<SplitIndexBucket>(records);
  Index* gather = gather_kind ? d_permutation : carver.take<Index>(records);
  // The valid records (offsets[num_buckets]) bound the inversion, so the offsets are needed even if not asked for.
  uint64_t* offsets = d_bucket_offsets != nullptr ? d_bucket_offsets : carver.take<uint64_t>(num_buckets + 1);
  size_t split_bytes = 0;
  PRIM_TRY((split_into_more_than_256_buckets<SplitOutput::pairs>(nullptr, split_bytes, buckets, sorted_buckets, index,
                                                                  gather, n, num_buckets, BucketIsKey{}, offsets,
                                                                  stream, d_num_invalid)));
  void* split_temp = carver.take<unsigned char>(split_bytes);
  bool size_query = false;
  PRIM_TRY(carver.finish(temp_bytes, size_query));
  if (size_query) return cudaSuccess;

  int device = 0, sms = 0;
  PRIM_TRY(cudaGetDevice(&device));
  PRIM_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const unsigned blocks =
      static_cast<unsigned>(std::max<int64_t>(1, std::min<int64_t>(ceil_div(n.max, 256), int64_t{sms} * 8)));
  bucket_and_index_kernel<<<blocks, 256, 0, stream>>>(d_in, n, num_buckets, bucket_of, buckets, index);
  PRIM_TRY_LAUNCH();
  PRIM_TRY((split_into_more_than_256_buckets<SplitOutput::pairs>(split_temp, split_bytes, buckets, sorted_buckets,
                                                                  index, gather, n, num_buckets, BucketIsKey{},
                                                                  offsets, stream, d_num_invalid)));
  if (!gather_kind) {
    invert_permutation_kernel<<<blocks, 256, 0, stream>>>(gather, offsets + num_buckets, d_permutation);
    PRIM_TRY_LAUNCH();
  }
  return cudaSuccess;
}

}  // namespace detail
}  // namespace prim
