// prim::lower_bound / prim::upper_bound: the position of each of many needles in a sorted haystack.
//
//   size_t bytes = 0;
//   prim::lower_bound(nullptr, bytes, d_haystack, h, d_needles, n, d_out);      // size query
//   ... d_temp = <bytes of device memory, allocated once> ...
//   prim::lower_bound(d_temp, bytes, d_haystack, h, d_needles, n, d_out, prim::Less{}, stream,
//                     prim::NeedleOrder::sorted);
//
// Overview. d_out[i] = the number of haystack items before needle i in the order of `comp` (a
// `__host__ __device__ bool operator()(const K& a, const K& b) const`, a strict weak ordering): lower_bound counts the
// items x with comp(x, needle), upper_bound those with !comp(needle, x), as std::lower_bound / std::upper_bound over
// the haystack return them. Index: an integer type holding h.max (else cudaErrorInvalidValue).
//
// Needle order. NeedleOrder::sorted promises needles sorted by `comp`; when the haystack holds at most 32 items a
// needle (SearchPolicy::kSweepHaystackPerNeedle) the call then sweeps needles and haystack together: the merge path
// of the two (prim/merge.h's tiles), each needle's result its count of haystack items merged before it. Otherwise,
// and for NeedleOrder::any, every needle is searched by itself. Both give the same results.
//
// Counts: h and n are ItemCounts (a host count, or a device count with a host bound). A device count above its bound
// is invalid input: nothing is written and that count is added to *d_num_invalid (device uint64, the call adds to it)
// when the pointer is non-null. The Workspace overloads synchronise and return cudaErrorInvalidValue if a count was
// invalid.
//
// Preconditions: the haystack is sorted by `comp` (else the results are unspecified; every read stays inside the
// haystack); with NeedleOrder::sorted the needles are too (else the results are unspecified, some possibly unwritten;
// reads and writes stay inside the arrays); d_out does not overlap the inputs; K is trivially copyable and default
// constructible; h.max, n.max <= 2^60. The inputs are not modified. No allocation, no host synchronisation (except the
// Workspace overloads); safe inside CUDA graph capture.
//
// Scratch: the sweep, 8 bytes a tile boundary of the merged needles and haystack; the search, the levels of samples
// above the haystack (about h / (F - 1) items: h / 7 for 4-byte keys, h / 3 for 8-byte keys and wider).
//
// Performance. The sweep reads needles and haystack once and writes the results once (a cut kernel, then a block a
// tile, as the merge). The search is cache-aware: a kernel gathers levels of samples of the haystack (level l: the
// items at multiples of F^l, F = 8 for 4-byte keys, 16 for narrower ones, 4 for
// wider ones), a B+ tree whose leaves are the haystack
// itself; each block of a resident grid holds the top level (at most 4 KiB) in shared memory, and each level below
// costs a needle one node of F consecutive items (32 bytes for 4-byte keys: one sector, no dependent steps inside
// it), the upper levels hits in L1 and L2, the haystack's leaf node the one read from DRAM. A thread's three needles
// step down in lockstep so that their loads are in flight together (SearchPolicy in prim/detail/tuning.h).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "prim/detail/core/compare.h"
#include "prim/detail/core/search_types.h"
#include "prim/detail/dispatch/search_dispatch.cuh"
#include "prim/item_count.h"
#include "prim/workspace.h"

namespace prim {

// d_out[i] = the number of haystack items x with comp(x, d_needles[i]) (the first position the needle could be
// inserted at, keeping the haystack sorted).
template <typename K, typename Index, typename Compare = Less>
cudaError_t lower_bound(void* d_temp, size_t& temp_bytes, const K* d_haystack, ItemCount h, const K* d_needles,
                        ItemCount n, Index* d_out, Compare comp = {}, cudaStream_t stream = 0,
                        NeedleOrder order = NeedleOrder::any, uint64_t* d_num_invalid = nullptr) {
  return detail::dispatch_search<false>(d_temp, temp_bytes, d_haystack, h, d_needles, n, d_out, comp, stream, order,
                                        d_num_invalid);
}

// d_out[i] = the number of haystack items x with !comp(d_needles[i], x) (the last position the needle could be
// inserted at).
template <typename K, typename Index, typename Compare = Less>
cudaError_t upper_bound(void* d_temp, size_t& temp_bytes, const K* d_haystack, ItemCount h, const K* d_needles,
                        ItemCount n, Index* d_out, Compare comp = {}, cudaStream_t stream = 0,
                        NeedleOrder order = NeedleOrder::any, uint64_t* d_num_invalid = nullptr) {
  return detail::dispatch_search<true>(d_temp, temp_bytes, d_haystack, h, d_needles, n, d_out, comp, stream, order,
                                       d_num_invalid);
}

// ---- Workspace overloads (allocate on growth, synchronise, report an invalid count as cudaErrorInvalidValue) ----
template <typename K, typename Index, typename Compare = Less>
cudaError_t lower_bound(Workspace& ws, const K* d_haystack, ItemCount h, const K* d_needles, ItemCount n, Index* d_out,
                        Compare comp = {}, cudaStream_t stream = 0, NeedleOrder order = NeedleOrder::any) {
  return detail::run_checking_invalid(ws, stream, [&](void* d_temp, size_t& bytes, uint64_t* d_invalid) {
    return lower_bound(d_temp, bytes, d_haystack, h, d_needles, n, d_out, comp, stream, order, d_invalid);
  });
}

template <typename K, typename Index, typename Compare = Less>
cudaError_t upper_bound(Workspace& ws, const K* d_haystack, ItemCount h, const K* d_needles, ItemCount n, Index* d_out,
                        Compare comp = {}, cudaStream_t stream = 0, NeedleOrder order = NeedleOrder::any) {
  return detail::run_checking_invalid(ws, stream, [&](void* d_temp, size_t& bytes, uint64_t* d_invalid) {
    return upper_bound(d_temp, bytes, d_haystack, h, d_needles, n, d_out, comp, stream, order, d_invalid);
  });
}

}  // namespace prim
