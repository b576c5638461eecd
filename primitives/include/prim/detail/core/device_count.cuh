// ItemCount inside a kernel: the count it works on, and what a count above its bound adds to the invalid counter.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "prim/detail/core/item_count.h"

namespace prim {
namespace detail {

// Whether the count is usable: a host count always is; a device count when it is at most its host bound.
__device__ __forceinline__ bool count_in_bound(const ItemCount& n) {
  return n.device == nullptr || *n.device <= static_cast<uint64_t>(n.max);
}

// The count the kernels work on: the device count when there is one, 0 for a count above its bound (such a call
// writes nothing; count_above_bound says what it adds to the invalid counter).
__device__ __forceinline__ int64_t count_on_device(const ItemCount& n) {
  if (n.device == nullptr) return n.max;
  const uint64_t c = *n.device;
  return c <= static_cast<uint64_t>(n.max) ? static_cast<int64_t>(c) : 0;
}

// The counts of a call with two inputs: both 0 when either is above its bound (such a call writes nothing).
__device__ __forceinline__ void counts_on_device(const ItemCount& n1, const ItemCount& n2, int64_t& c1, int64_t& c2) {
  const bool usable = count_in_bound(n1) && count_in_bound(n2);
  c1 = usable ? count_on_device(n1) : 0;
  c2 = usable ? count_on_device(n2) : 0;
}

// The items a count above its bound makes invalid: all of them (0 for a usable count).
__device__ __forceinline__ uint64_t count_above_bound(const ItemCount& n) {
  if (n.device == nullptr) return 0;
  const uint64_t c = *n.device;
  return c > static_cast<uint64_t>(n.max) ? c : 0;
}

__device__ __forceinline__ void add_invalid(uint64_t* num_invalid, uint64_t count) {
  if (num_invalid != nullptr && count != 0) {
    atomicAdd(reinterpret_cast<unsigned long long*>(num_invalid), static_cast<unsigned long long>(count));
  }
}

}  // namespace detail
}  // namespace prim
