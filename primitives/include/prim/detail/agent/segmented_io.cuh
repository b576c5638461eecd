// The segmented split's record access: keys only, or key-value pairs. Each also gives the split engine's view of its
// arrays (the large-segment and cluster paths).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "prim/detail/agent/split_tile.cuh"

namespace prim {
namespace detail {

template <class T, class BucketOp>
struct SegmentedKeysIo {
  using Record = T;
  using SplitKey = T;
  using SplitValue = NoValue;
  static constexpr SplitOutput kSplitOutput = SplitOutput::keys;
  const T* in;
  T* out;
  BucketOp bucket_of;
  const T* split_keys_in() const { return in; }
  T* split_keys_out() const { return out; }
  const NoValue* split_values_in() const { return nullptr; }
  NoValue* split_values_out() const { return nullptr; }
  __device__ __forceinline__ T load(uint64_t i) const { return in[i]; }
  __device__ __forceinline__ uint32_t bucket_at(uint64_t i) const { return static_cast<uint32_t>(bucket_of(in[i])); }
  __device__ __forceinline__ uint32_t bucket(const T& r) const { return static_cast<uint32_t>(bucket_of(r)); }
  __device__ __forceinline__ void store(uint64_t i, const T& r) const { out[i] = r; }
};

template <class K, class V>
struct KeyValue {
  K key;
  V value;
};

template <class K, class V, class BucketOp>
struct SegmentedPairsIo {
  using Record = KeyValue<K, V>;
  using SplitKey = K;
  using SplitValue = V;
  static constexpr SplitOutput kSplitOutput = SplitOutput::pairs;
  const K* keys_in;
  K* keys_out;
  const V* values_in;
  V* values_out;
  BucketOp bucket_of;
  const K* split_keys_in() const { return keys_in; }
  K* split_keys_out() const { return keys_out; }
  const V* split_values_in() const { return values_in; }
  V* split_values_out() const { return values_out; }
  __device__ __forceinline__ Record load(uint64_t i) const { return Record{keys_in[i], values_in[i]}; }
  __device__ __forceinline__ uint32_t bucket_at(uint64_t i) const {
    return static_cast<uint32_t>(bucket_of(keys_in[i]));
  }
  __device__ __forceinline__ uint32_t bucket(const Record& r) const { return static_cast<uint32_t>(bucket_of(r.key)); }
  __device__ __forceinline__ void store(uint64_t i, const Record& r) const {
    keys_out[i] = r.key;
    values_out[i] = r.value;
  }
};


}  // namespace detail
}  // namespace prim
