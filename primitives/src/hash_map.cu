// The hash map's bulk calls (prim/hash_map.h), compiled once for every pair of uint32_t / uint64_t keys and values.
#include "prim/detail/dispatch/hash_map_dispatch.cuh"
#include "prim/hash_map.h"

namespace prim {

template <typename K, typename V>
cudaError_t hash_map_clear(const HashMapView<K, V>& map, cudaStream_t stream) {
  return detail::dispatch_hash_map_clear(map, stream);
}

template <typename K, typename V>
cudaError_t hash_map_insert(const HashMapView<K, V>& map, const typename HashMapView<K, V>::key_type* d_keys,
                            const typename HashMapView<K, V>::value_type* d_values, ItemCount n, cudaStream_t stream,
                            uint64_t* d_num_invalid) {
  return detail::dispatch_hash_map_insert(map, d_keys, d_values, n, stream, d_num_invalid);
}

template <typename K, typename V>
cudaError_t hash_map_find(const HashMapView<K, V>& map, const typename HashMapView<K, V>::key_type* d_queries,
                          typename HashMapView<K, V>::value_type* d_values_out, ItemCount n,
                          typename HashMapView<K, V>::value_type not_found, cudaStream_t stream,
                          uint64_t* d_num_invalid) {
  return detail::dispatch_hash_map_find<detail::HashMapAnswer::value>(map, d_queries, d_values_out, n, not_found,
                                                                      stream, d_num_invalid);
}

template <typename K, typename V>
cudaError_t hash_map_contains(const HashMapView<K, V>& map, const typename HashMapView<K, V>::key_type* d_queries,
                              bool* d_out, ItemCount n, cudaStream_t stream, uint64_t* d_num_invalid) {
  return detail::dispatch_hash_map_find<detail::HashMapAnswer::contains>(map, d_queries, d_out, n, V{0}, stream,
                                                                         d_num_invalid);
}

#define PRIM_HASH_MAP_INSTANTIATE(K, V)                                                                            \
  template cudaError_t hash_map_clear<K, V>(const HashMapView<K, V>&, cudaStream_t);                              \
  template cudaError_t hash_map_insert<K, V>(const HashMapView<K, V>&, const K*, const V*, ItemCount, cudaStream_t, \
                                             uint64_t*);                                                          \
  template cudaError_t hash_map_find<K, V>(const HashMapView<K, V>&, const K*, V*, ItemCount, V, cudaStream_t,    \
                                           uint64_t*);                                                            \
  template cudaError_t hash_map_contains<K, V>(const HashMapView<K, V>&, const K*, bool*, ItemCount, cudaStream_t, \
                                               uint64_t*);
PRIM_HASH_MAP_INSTANTIATE(uint32_t, uint32_t)
PRIM_HASH_MAP_INSTANTIATE(uint32_t, uint64_t)
PRIM_HASH_MAP_INSTANTIATE(uint64_t, uint32_t)
PRIM_HASH_MAP_INSTANTIATE(uint64_t, uint64_t)
#undef PRIM_HASH_MAP_INSTANTIATE

}  // namespace prim
