// prim::merge / prim::merge_pairs: the stable merge of two sorted sequences, by merge-path partitioning.
//
//   size_t bytes = 0;
//   prim::merge(nullptr, bytes, d_a, na, d_b, nb, d_out);            // size query
//   ... d_temp = <bytes of device memory, allocated once> ...
//   prim::merge(d_temp, bytes, d_a, na, d_b, nb, d_out, prim::Less{}, stream);
//
// Overview. d_out[0, na + nb) receives the items of both inputs in the order of `comp`, a
// `__host__ __device__ bool operator()(const K& a, const K& b) const` that is a strict weak ordering ("a before b").
// merge_pairs moves a value with each key: d_values_out[i] is the value of the key in d_keys_out[i].
//
// Stability. Items that compare equivalent keep their input order, and those of the first input come before those of
// the second (std::merge's order).
//
// Counts: na and nb are ItemCounts (a host count, or a device count with a host bound); the output holds
// na.max + nb.max items and the call writes the first *na.device + *nb.device of them. A device count above its bound
// is invalid input: the call writes nothing and adds that count to *d_num_invalid (device uint64, the call adds to it)
// when the pointer is non-null. The Workspace overloads synchronise and return cudaErrorInvalidValue if a count was
// invalid.
//
// Preconditions: both inputs are sorted by `comp` (else the output's order is unspecified, but every read and write
// stays inside the arrays: a tile whose cuts cross writes nothing); the output does not overlap an input; K and V are
// trivially copyable and K is default constructible; na.max, nb.max <= 2^60. The inputs are not modified. No
// allocation, no host synchronisation (except the Workspace overloads); safe inside CUDA graph capture.
//
// Scratch: 8 bytes a tile boundary (tiles of 3840 items of 4 bytes: 0.002 bytes an item). Less than the size query
// reported gives cudaErrorInvalidValue.
//
// Performance. Two kernels: one merge-path search a tile boundary in global memory (the cuts), then a block a tile,
// launched overlapped with the cuts (programmatic dependent launch on compute capability 9.0 and up). A tile stages
// its shares of both inputs in shared memory (keys and values loaded together, evict-first), cuts them again at each
// thread's diagonal, merges a thread's items serially, and stores keys and values through shared memory in
// warp-consecutive order. Memory traffic: every key and value read once and written once; the cuts read 2 log2(n)
// keys a tile. Tile shape: MergePolicyFor in prim/detail/tuning.h.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "prim/detail/core/compare.h"
#include "prim/detail/dispatch/merge_dispatch.cuh"
#include "prim/item_count.h"
#include "prim/workspace.h"

namespace prim {

// d_keys1[0, n1) and d_keys2[0, n2) -> d_keys_out[0, n1 + n2), stable.
template <typename K, typename Compare = Less>
cudaError_t merge(void* d_temp, size_t& temp_bytes, const K* d_keys1, ItemCount n1, const K* d_keys2, ItemCount n2,
                  K* d_keys_out, Compare comp = {}, cudaStream_t stream = 0, uint64_t* d_num_invalid = nullptr) {
  const detail::MergeIo<K, K> io{d_keys1, nullptr, d_keys2, nullptr, d_keys_out, nullptr};
  return detail::dispatch_merge<false>(d_temp, temp_bytes, io, n1, n2, comp, stream, d_num_invalid);
}

// Key-value variant: the comparator sees the keys; each value follows its key.
template <typename K, typename V, typename Compare = Less>
cudaError_t merge_pairs(void* d_temp, size_t& temp_bytes, const K* d_keys1, const V* d_values1, ItemCount n1,
                        const K* d_keys2, const V* d_values2, ItemCount n2, K* d_keys_out, V* d_values_out,
                        Compare comp = {}, cudaStream_t stream = 0, uint64_t* d_num_invalid = nullptr) {
  const detail::MergeIo<K, V> io{d_keys1, d_values1, d_keys2, d_values2, d_keys_out, d_values_out};
  return detail::dispatch_merge<true>(d_temp, temp_bytes, io, n1, n2, comp, stream, d_num_invalid);
}

// ---- Workspace overloads (allocate on growth, synchronise, report an invalid count as cudaErrorInvalidValue) ----
template <typename K, typename Compare = Less>
cudaError_t merge(Workspace& ws, const K* d_keys1, ItemCount n1, const K* d_keys2, ItemCount n2, K* d_keys_out,
                  Compare comp = {}, cudaStream_t stream = 0) {
  return detail::run_checking_invalid(ws, stream, [&](void* d_temp, size_t& bytes, uint64_t* d_invalid) {
    return merge(d_temp, bytes, d_keys1, n1, d_keys2, n2, d_keys_out, comp, stream, d_invalid);
  });
}

template <typename K, typename V, typename Compare = Less>
cudaError_t merge_pairs(Workspace& ws, const K* d_keys1, const V* d_values1, ItemCount n1, const K* d_keys2,
                        const V* d_values2, ItemCount n2, K* d_keys_out, V* d_values_out, Compare comp = {},
                        cudaStream_t stream = 0) {
  return detail::run_checking_invalid(ws, stream, [&](void* d_temp, size_t& bytes, uint64_t* d_invalid) {
    return merge_pairs(d_temp, bytes, d_keys1, d_values1, n1, d_keys2, d_values2, n2, d_keys_out, d_values_out, comp,
                       stream, d_invalid);
  });
}

}  // namespace prim
