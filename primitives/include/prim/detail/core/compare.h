// The default comparator and equality of the merge, search and select calls: operator< and operator== of the type.
#pragma once
#include <cuda_runtime.h>

namespace prim {

// a < b (a strict weak ordering for the merge and search calls).
struct Less {
  template <class T>
  __host__ __device__ __forceinline__ bool operator()(const T& a, const T& b) const {
    return a < b;
  }
};

// a == b (the equivalence of select_unique's runs).
struct EqualTo {
  template <class T>
  __host__ __device__ __forceinline__ bool operator()(const T& a, const T& b) const {
    return a == b;
  }
};

}  // namespace prim
