// prim::KeyBits: the bucket functor of a radix pass, bits [shift, shift + bits) of an unsigned key (CUB's radix sorts
// with begin_bit = shift, end_bit = shift + bits), and the declared bucket bound it carries.
//
//   prim::segmented_split(d_temp, bytes, d_in, d_out, n, d_seg, num_segments, 256, prim::KeyBits<uint32_t>{0, 8},
//                         nullptr, stream);
//
// Declared bound. A bucket functor may declare `__host__ uint64_t bucket_bound() const`: a promise that every bucket
// it returns is below that value. When the bound is at most the call's num_buckets, no record can be invalid, and a
// call may leave out its tests for out-of-range buckets. Today one path uses it: the segmented split's tiles of a
// thread-block cluster (segments of 49153 to 65536 four-byte keys). No upsweep counted their invalid records, so each
// full tile tests its keys before it ranks them, and the other tiles go through an out-of-line general tile. With a
// bound of exactly num_buckets and the all-ones key in the last bucket (KeyBits with 2^bits buckets; the call
// evaluates the functor on the host to see that), every tile is a padded tile instead, with neither. Measured on an
// H100 (docs/bench/README.md, "Session 15"): 2^26 keys in segments of 2^16 took 0.514 ms with KeyBits, 0.590 with a
// functor that declares nothing (0.604 and 0.673 before the segmented split's tile engine ran resident).
// A functor that declares a bound and returns a bucket at or above it breaks the calls' preconditions: their output
// is then undefined. Without the declaration every call keeps its tests, and out-of-range buckets are reported as
// documented.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>
#include <utility>

namespace prim {

template <typename K>
struct KeyBits {
  static_assert(std::is_integral<K>::value && std::is_unsigned<K>::value, "KeyBits takes unsigned integer keys");
  int shift = 0;  // first bit, < 8 * sizeof(K)
  int bits = 8;   // 0 ..= 32, and shift + bits <= 8 * sizeof(K)

  __host__ __device__ __forceinline__ uint32_t operator()(K key) const {
    if constexpr (sizeof(K) <= 4) {
      const uint32_t mask = bits >= 32 ? ~0u : (1u << bits) - 1u;
      return (static_cast<uint32_t>(key) >> shift) & mask;
    } else {
      const uint64_t mask = bits >= 32 ? 0xFFFFFFFFull : (uint64_t{1} << bits) - 1u;
      return static_cast<uint32_t>((static_cast<uint64_t>(key) >> shift) & mask);
    }
  }
  // Every bucket is below 2^bits.
  uint64_t bucket_bound() const { return uint64_t{1} << (bits < 32 ? bits : 32); }
};

namespace detail {

// Whether a functor declares a bound (`bucket_bound()`), and whether the declared bound keeps every bucket of a call
// with num_buckets buckets in range.
template <class BucketOp, class = void>
struct DeclaresBucketBound : std::false_type {};
template <class BucketOp>
struct DeclaresBucketBound<BucketOp, std::void_t<decltype(std::declval<const BucketOp&>().bucket_bound())>>
    : std::true_type {};

template <class BucketOp>
bool buckets_declared_in_range(const BucketOp& bucket_of, uint32_t num_buckets) {
  if constexpr (DeclaresBucketBound<BucketOp>::value) {
    return static_cast<uint64_t>(bucket_of.bucket_bound()) <= uint64_t{num_buckets};
  } else {
    return false;
  }
}

}  // namespace detail
}  // namespace prim
