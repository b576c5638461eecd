// Warp shuffles of a value of any trivially copyable type, a 32-bit word at a time.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>

namespace prim {
namespace detail {

template <class T>
struct ShuffleWords {
  static constexpr int kWords = static_cast<int>((sizeof(T) + 3) / 4);
  uint32_t word[kWords];

  __device__ __forceinline__ static ShuffleWords of(const T& value) {
    ShuffleWords w{};
    memcpy(w.word, &value, sizeof(T));
    return w;
  }
  __device__ __forceinline__ T value() const {
    T out;
    memcpy(&out, word, sizeof(T));
    return out;
  }
};

// `value` of lane `source` (all 32 lanes take part).
template <class T>
__device__ __forceinline__ T shuffle_index(const T& value, int source) {
  ShuffleWords<T> w = ShuffleWords<T>::of(value);
#pragma unroll
  for (int k = 0; k < ShuffleWords<T>::kWords; ++k) w.word[k] = __shfl_sync(0xFFFFFFFFu, w.word[k], source);
  return w.value();
}

// `value` of lane (this lane - 1); lane 0 gets its own (all 32 lanes take part).
template <class T>
__device__ __forceinline__ T shuffle_up_one(const T& value) {
  ShuffleWords<T> w = ShuffleWords<T>::of(value);
#pragma unroll
  for (int k = 0; k < ShuffleWords<T>::kWords; ++k) w.word[k] = __shfl_up_sync(0xFFFFFFFFu, w.word[k], 1);
  return w.value();
}

}  // namespace detail
}  // namespace prim
