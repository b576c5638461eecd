// split_index with more than 256 buckets: the records' buckets and indices become (bucket, index) pairs, sorted by two
// stable 8-bit passes (the bucket's low byte, then its high bits); the sorted indices are the gather permutation, and
// one more kernel inverts it for the scatter kind. Two routes:
//   pairs from the first pass (records of up to 4 bytes, u32 indices, n.max < 2^30; split_index_pairs_from_first_pass):
//       one histogram of both passes' digits reads the records; the first pass splits the records themselves and
//       writes each one's index and 16-bit bucket (buckets_and_gather_index); the second splits those pairs.
//       (2^26 u32 keys, 2048 buckets: 1.35 -> 1.12 ms against the kernel's pairs.)
//   pairs from a kernel (any other records; split_index_two_passes): bucket_and_index_kernel writes every record's
//       pair, which the record split's two passes sort (split_into_more_than_256_buckets, split_lsd.cuh). A large
//       record is read only once, and its bucket functor evaluated once a record.
// The one-pass 11-bit ranker is latency-bound (split_dispatch.cuh). The buckets are 16-bit keys (at most 2048
// buckets): u16 + u32 pairs move 6 bytes a record where u32 + u32 moved 8 (1.49 -> 1.35 ms).
// Cost: scratch of about 2 + 2 + 2 x sizeof(Index) bytes a record (n.max) besides the passes' own (a copy of the
// pairs on the kernel's route), plus sizeof(Index) for the scatter kind.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "prim/detail/core/bits.h"
#include "prim/detail/dispatch/split_dispatch.cuh"
#include "prim/detail/dispatch/split_lsd.cuh"
#include "prim/detail/core/split_types.h"
#include "prim/detail/core/error.h"
#include "prim/detail/core/item_count.h"
#include "prim/detail/core/temp_storage.h"

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

template <class Index>
cudaError_t launch_inverted_permutation(const Index* gather, int64_t max_records, const uint64_t* d_count,
                                        Index* scatter, cudaStream_t stream) {
  unsigned blocks = 1;
  PRIM_TRY(grid_stride_blocks(max_records, blocks));
  invert_permutation_kernel<<<blocks, 256, 0, stream>>>(gather, d_count, scatter);
  PRIM_TRY_LAUNCH();
  return cudaSuccess;
}

// ---- Records of up to 4 bytes with u32 indices: the first pass makes the pairs ----
// The first pass splits the records themselves by the bucket's low byte (buckets_and_gather_index,
// split_downsweep_agent.cuh): it writes each record's index and its whole 16-bit bucket in that order, the pairs that
// the second pass splits by the bucket's high byte. One histogram counts both passes' digits from the records, as
// split_lsd.cuh's two sweeps do. Against bucket_and_index_kernel and two passes of the pairs, the records are read
// twice instead of once but no pass reads or writes the unsorted pairs (6 bytes a record each way), and one kernel
// fewer runs. The first pass takes the keys' shape with the general tiles apart, as the gather permutation's single
// pass (split_lsd.cuh).
template <class T, class Index>
using PairsFirstPass = GlobalSplitPass<SplitOutput::buckets_and_gather_index, T, Index, OneSweepShape::kKeysItems,
                                       OneSweepShape::kKeysMinBlocks, true, true>;

template <class T, class Index>
bool makes_pairs_in_first_pass(ItemCount n) {
  return sizeof(T) <= 4 && std::is_same_v<Index, uint32_t> && n.max <= PairsFirstPass<T, Index>::kMaxRecords;
}

template <class T, class BucketOp, class Index>
cudaError_t split_index_pairs_from_first_pass(void* d_temp, size_t& temp_bytes, const T* d_in, ItemCount n,
                                              uint32_t num_buckets, BucketOp bucket_of, Index* d_permutation,
                                              PermutationKind kind, uint64_t* d_bucket_offsets, cudaStream_t stream,
                                              uint64_t* d_num_invalid) {
  using First = PairsFirstPass<T, Index>;
  using MakeSecondOp = MakeBucketBytesOrSink<BucketIsKey>;
  using Second = LsdPassFor<SplitOutput::pairs, SplitIndexBucket, Index, MakeSecondOp>;
  const bool gather_kind = kind == PermutationKind::gather;
  const size_t records = static_cast<size_t>(n.max);
  TempCarver carver(d_temp);
  SplitIndexBucket* buckets = carver.take<SplitIndexBucket>(records);  // the first pass's, by the low byte
  Index* index = carver.take<Index>(records);
  SplitIndexBucket* sorted_buckets = carver.take<SplitIndexBucket>(records);
  Index* gather = gather_kind ? d_permutation : carver.take<Index>(records);
  uint64_t* scanned = carver.take<uint64_t>(2 * (kLsdDigits + 1));
  // The bins and the first pass's look-back words side by side: one memset zeroes both.
  auto* bins = carver.take<unsigned long long>(2 * kLsdDigits);
  uint32_t* lookback = carver.take<uint32_t>(std::max(First::lookback_words(n.max), Second::lookback_words(n.max)));
  bool size_query = false;
  PRIM_TRY(carver.finish(temp_bytes, size_query));
  if (size_query) return cudaSuccess;

  const MakeBucketBytesOrSink<BucketOp> make_op{{bucket_of, num_buckets}};
  const LsdPlan plan = lsd_plan(bits_for_buckets(num_buckets));  // 9..11 bits: two passes
  PassOptions first;
  first.lookback_zeroed = true;
  PRIM_TRY(count_lsd_digits<2>(d_in, n, 0, plan, make_op, bins,
                               lookback + First::pass_lookback_words(n.max, kLsdDigits), scanned, stream,
                               d_num_invalid, first.overlap));
  PRIM_TRY(First::launch(d_in, buckets, static_cast<const Index*>(nullptr), index, n, kLsdDigits,
                         make_op(0, 0, kLsdDigitBits), scanned, lookback, stream, first));
  const ItemCount valid(n.max, scanned + kLsdDigits);  // the first pass's valid records
  PassOptions later;
  later.later_pass = true;
  const int high_bits = plan.bits_of(1);
  PRIM_TRY(Second::launch(buckets, sorted_buckets, index, gather, valid, uint32_t{1} << high_bits,
                          MakeSecondOp{{BucketIsKey{}, num_buckets}}(1, kLsdDigitBits, high_bits),
                          scanned + kLsdDigits + 1, lookback, stream, later));
  if (d_bucket_offsets != nullptr) {
    PRIM_TRY(launch_sorted_bucket_offsets(sorted_buckets, n.max, scanned + kLsdDigits, num_buckets, BucketIsKey{},
                                          d_bucket_offsets, stream));
  }
  if (!gather_kind) PRIM_TRY(launch_inverted_permutation(gather, n.max, scanned + kLsdDigits, d_permutation, stream));
  return cudaSuccess;
}

// ---- Any other records: a kernel makes the pairs, two passes split them ----
template <class T, class BucketOp, class Index>
cudaError_t split_index_two_passes(void* d_temp, size_t& temp_bytes, const T* d_in, ItemCount n,
                                   uint32_t num_buckets, BucketOp bucket_of, Index* d_permutation,
                                   PermutationKind kind, uint64_t* d_bucket_offsets, cudaStream_t stream,
                                   uint64_t* d_num_invalid) {
  if (n.max < 0 || num_buckets <= 256 || num_buckets > kMaxSplitBuckets) return cudaErrorInvalidValue;
  if (makes_pairs_in_first_pass<T, Index>(n)) {
    return split_index_pairs_from_first_pass(d_temp, temp_bytes, d_in, n, num_buckets, bucket_of, d_permutation, kind,
                                             d_bucket_offsets, stream, d_num_invalid);
  }
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

  unsigned blocks = 1;
  PRIM_TRY(grid_stride_blocks(n.max, blocks));
  bucket_and_index_kernel<<<blocks, 256, 0, stream>>>(d_in, n, num_buckets, bucket_of, buckets, index);
  PRIM_TRY_LAUNCH();
  PRIM_TRY((split_into_more_than_256_buckets<SplitOutput::pairs>(split_temp, split_bytes, buckets, sorted_buckets,
                                                                  index, gather, n, num_buckets, BucketIsKey{},
                                                                  offsets, stream, d_num_invalid)));
  if (!gather_kind) PRIM_TRY(launch_inverted_permutation(gather, n.max, offsets + num_buckets, d_permutation, stream));
  return cudaSuccess;
}

}  // namespace detail
}  // namespace prim
