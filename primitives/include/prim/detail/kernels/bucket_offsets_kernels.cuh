// Bucket offsets of records already sorted by bucket: a sweep over the records, or a binary search per bucket.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

namespace prim {
namespace detail {

// Bucket offsets of records sorted by bucket: bucket b starts at the first position whose bucket is >= b. Position i
// (0 <= i <= count) writes the starts of the buckets after its predecessor's, up to its own (count: up to
// num_buckets), so every entry of offsets[0..num_buckets] is written exactly once.
template <class KeyT, class BucketOp>
__global__ void sorted_bucket_offsets_kernel(const KeyT* sorted, const uint64_t* d_count, uint32_t num_buckets,
                                             BucketOp bucket_of, uint64_t* offsets) {
  const int64_t count = static_cast<int64_t>(*d_count);
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i <= count; i += stride) {
    const uint32_t first = i == 0 ? 0 : bucket_of(sorted[i - 1]) + 1;
    const uint32_t last = i == count ? num_buckets : bucket_of(sorted[i]);
    for (uint32_t b = first; b <= last; ++b) offsets[b] = static_cast<uint64_t>(i);
  }
}

// The same offsets by binary search: thread b finds the first position whose bucket is >= b, in about log2(count)
// dependent loads (the top levels of every search hit the same lines), where the kernel above reads every record.
template <class KeyT, class BucketOp>
__global__ void searched_bucket_offsets_kernel(const KeyT* sorted, const uint64_t* d_count, uint32_t num_buckets,
                                               BucketOp bucket_of, uint64_t* offsets) {
  const uint32_t bucket = blockIdx.x * blockDim.x + threadIdx.x;
  if (bucket > num_buckets) return;
  int64_t hi = static_cast<int64_t>(*d_count);
  int64_t lo = bucket == num_buckets ? hi : 0;  // every valid record's bucket is < num_buckets
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (bucket_of(sorted[mid]) < bucket) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  offsets[bucket] = static_cast<uint64_t>(lo);
}

}  // namespace detail
}  // namespace prim
