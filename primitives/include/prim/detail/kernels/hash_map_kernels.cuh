// The hash map's kernels: one-line shims around the bulk agent (agent/hash_map_agent.cuh).
#pragma once
#include <cuda_runtime.h>

#include "prim/detail/agent/hash_map_agent.cuh"

namespace prim {
namespace detail {

template <class Policy, HashMapProbing kProbing, class K, class V>
__global__ void __launch_bounds__(Policy::kBlockThreads)
    hash_map_insert_kernel(HashMapView<K, V> map, const K* keys, const V* values, HashMapBulkArgs args) {
  HashMapBulk<K, V>::template insert<kProbing>(map, keys, values, args);
}

template <class Policy, HashMapProbing kProbing, HashMapAnswer kAnswer, class K, class V, class Out>
__global__ void __launch_bounds__(Policy::kBlockThreads)
    hash_map_find_kernel(HashMapView<K, V> map, const K* queries, Out* out, V not_found, HashMapBulkArgs args) {
  HashMapBulk<K, V>::template find<kProbing, kAnswer>(map, queries, out, not_found, args);
}

}  // namespace detail
}  // namespace prim
