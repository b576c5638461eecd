// KeyBits, the radix-pass bucket functor (its contract: prim/key_bits.h), and the test of a functor's declared
// bucket bound. Here so that the split dispatch can recognise KeyBits without including the public API.
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
