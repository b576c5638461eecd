// Host side of the hash map (prim/hash_map.h): validation, grid, one launch a call. No scratch, no host sync.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "prim/detail/core/error.h"
#include "prim/detail/core/hash_map_types.h"
#include "prim/detail/core/item_count.h"
#include "prim/detail/kernels/hash_map_kernels.cuh"
#include "prim/detail/tuning.h"

namespace prim {
namespace detail {

// A view the kernels can walk: slots present and 32-byte aligned, a home range of whole windows, a probing the slot
// layout supports (ordered needs the packed u32 -> u32 slot).
template <class K, class V>
cudaError_t check_hash_map(const HashMapView<K, V>& map) {
  using View = HashMapView<K, V>;
  if (map.slots == nullptr || map.capacity == 0 || map.capacity % View::kWindowSlots != 0) return cudaErrorInvalidValue;
  if (reinterpret_cast<uintptr_t>(map.slots) % kHashWindowBytes != 0) return cudaErrorInvalidValue;
  if (map.probing == HashMapProbing::ordered) return View::kPacked ? cudaSuccess : cudaErrorInvalidValue;
  return map.probing == HashMapProbing::linear ? cudaSuccess : cudaErrorInvalidValue;
}

// Front half of every bulk call: *done when there is nothing to launch (n.max == 0).
template <class K, class V>
cudaError_t begin_hash_map_call(const HashMapView<K, V>& map, const void* d_in, const void* d_out, const ItemCount& n,
                                bool& done) {
  done = true;
  if (n.max < 0) return cudaErrorInvalidValue;
  if (n.max == 0) return cudaSuccess;
  PRIM_TRY(check_hash_map(map));
  if (d_in == nullptr || d_out == nullptr) return cudaErrorInvalidValue;
  done = false;
  return cudaSuccess;
}

inline unsigned hash_map_grid(int64_t max_n) {
  using P = HashMapPolicy;
  const int64_t blocks = (max_n + P::kBlockThreads - 1) / P::kBlockThreads;
  return static_cast<unsigned>(blocks < P::kMaxGrid ? blocks : P::kMaxGrid);
}

template <class K, class V>
cudaError_t dispatch_hash_map_clear(const HashMapView<K, V>& map, cudaStream_t stream) {
  PRIM_TRY(check_hash_map(map));
  return cudaMemsetAsync(map.slots, 0xFF, map.bytes(), stream);  // every key the reserved key, every value the largest
}

template <class K, class V>
cudaError_t dispatch_hash_map_insert(const HashMapView<K, V>& map, const K* d_keys, const V* d_values, ItemCount n,
                                     cudaStream_t stream, uint64_t* d_num_invalid) {
  bool done = false;
  PRIM_TRY(begin_hash_map_call(map, d_keys, map.slots, n, done));
  if (done) return cudaSuccess;
  using P = HashMapPolicy;
  const HashMapBulkArgs args{n.max, n.device, d_num_invalid};
  if constexpr (HashMapView<K, V>::kPacked) {
    if (map.probing == HashMapProbing::ordered) {
      hash_map_insert_kernel<P, HashMapProbing::ordered>
          <<<hash_map_grid(n.max), P::kBlockThreads, 0, stream>>>(map, d_keys, d_values, args);
      return cudaGetLastError();
    }
  }
  hash_map_insert_kernel<P, HashMapProbing::linear>
      <<<hash_map_grid(n.max), P::kBlockThreads, 0, stream>>>(map, d_keys, d_values, args);
  return cudaGetLastError();
}

template <HashMapAnswer kAnswer, class K, class V, class Out>
cudaError_t dispatch_hash_map_find(const HashMapView<K, V>& map, const K* d_queries, Out* d_out, ItemCount n,
                                   V not_found, cudaStream_t stream, uint64_t* d_num_invalid) {
  bool done = false;
  PRIM_TRY(begin_hash_map_call(map, d_queries, d_out, n, done));
  if (done) return cudaSuccess;
  using P = HashMapPolicy;
  const HashMapBulkArgs args{n.max, n.device, d_num_invalid};
  if constexpr (HashMapView<K, V>::kPacked) {
    if (map.probing == HashMapProbing::ordered) {
      hash_map_find_kernel<P, HashMapProbing::ordered, kAnswer>
          <<<hash_map_grid(n.max), P::kBlockThreads, 0, stream>>>(map, d_queries, d_out, not_found, args);
      return cudaGetLastError();
    }
  }
  hash_map_find_kernel<P, HashMapProbing::linear, kAnswer>
      <<<hash_map_grid(n.max), P::kBlockThreads, 0, stream>>>(map, d_queries, d_out, not_found, args);
  return cudaGetLastError();
}

}  // namespace detail
}  // namespace prim
