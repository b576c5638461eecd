// Bit-count helpers shared by the split family and its host dispatch (host and device).
#pragma once
#include <cstdint>

namespace prim {
namespace detail {

// Number of bits needed to name num_buckets distinct buckets: ceil(log2(num_buckets)); 1 bucket -> 0 bits,
// 0 buckets -> 0 bits (no bucket id is valid then).
constexpr int bits_for_buckets(uint32_t num_buckets) {
  int bits = 0;
  while (bits < 32 && (uint64_t{1} << bits) < num_buckets) ++bits;
  return bits;
}

// Number of `digit_bits`-wide passes needed to cover `total_bits` bits (0 bits -> 0 passes).
constexpr int passes_for_bits(int total_bits, int digit_bits) {
  return total_bits <= 0 ? 0 : (total_bits + digit_bits - 1) / digit_bits;
}

// Ceiling division for non-negative 64-bit counts.
constexpr int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace detail

// Public alias: the number of bits to split on for `num_buckets` buckets (style guide: "compute the number of
// bits to split on with a small, unit-tested helper").
constexpr int bits_for_buckets(uint32_t num_buckets) { return detail::bits_for_buckets(num_buckets); }

}  // namespace prim
