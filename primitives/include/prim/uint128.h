// prim::uint128: an unsigned 128-bit key for SplitSort (prim/sort.h), ordered as the integer hi * 2^64 + lo.
#pragma once
#include <cstdint>

// Usable from plain C++ (the references, the cpu backend) as well as from CUDA code.
#if defined(__CUDACC__)
#define PRIM_U128_HD __host__ __device__
#else
#define PRIM_U128_HD
#endif

namespace prim {

struct alignas(16) uint128 {
  uint64_t lo = 0;
  uint64_t hi = 0;

  PRIM_U128_HD friend constexpr bool operator==(const uint128& a, const uint128& b) {
    return a.lo == b.lo && a.hi == b.hi;
  }
  PRIM_U128_HD friend constexpr bool operator!=(const uint128& a, const uint128& b) { return !(a == b); }
  PRIM_U128_HD friend constexpr bool operator<(const uint128& a, const uint128& b) {
    return a.hi != b.hi ? a.hi < b.hi : a.lo < b.lo;
  }

  // Bits [begin, begin + count) as an integer (count <= 32, begin + count <= 128).
  PRIM_U128_HD constexpr uint32_t bits(int begin, int count) const {
    uint64_t word = 0;
    if (begin >= 64) {
      word = hi >> (begin - 64);
    } else if (begin + count <= 64) {
      word = lo >> begin;
    } else {  // straddles the two words
      word = (lo >> begin) | (hi << (64 - begin));
    }
    return count >= 32 ? static_cast<uint32_t>(word) : static_cast<uint32_t>(word & ((uint64_t{1} << count) - 1));
  }
};

}  // namespace prim

#undef PRIM_U128_HD
