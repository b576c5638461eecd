// Compaction: prim::select_if, prim::select_flagged, prim::select_unique (run heads) and prim::partition_if.
//
//   size_t bytes = 0;
//   prim::select_if(nullptr, bytes, d_in, d_out, d_num_selected, n, IsVisible{});    // size query
//   ... d_temp = <bytes of device memory, allocated once> ...
//   prim::select_if(d_temp, bytes, d_in, d_out, d_num_selected, n, IsVisible{}, stream);
//
// Overview. Each call keeps some of the items of d_in[0, n) and writes them packed, in input order, to d_out;
// *d_num_selected (device uint64, may be null) receives how many.
//   select_if       items with pred(item) (a `__host__ __device__` callable T -> bool)
//   select_flagged  items whose flag d_flags[i] is non-zero (any type that converts to bool)
//   select_unique   the first item of each run of consecutive items equal under `equal` (default operator==), as
//                   std::unique keeps them
//   partition_if    both sides of pred: the selected items to d_selected_out, the rejected ones to d_rejected_out,
//                   each side in input order; *d_num_selected of the first kind, n - *d_num_selected of the second.
//                   (cub::DevicePartition::If writes the rejected items reversed after the selected ones in one
//                   array; a stable partition into one array would need the selected count before writing.)
//
// Stability. Every output keeps input order.
//
// Counts: n is an ItemCount (a host count, or a device count with a host bound). A device count above its bound is
// invalid input: nothing is written, *d_num_selected = 0, and the count is added to *d_num_invalid (device uint64,
// the call adds to it) when that pointer is non-null. The Workspace overloads synchronise and return
// cudaErrorInvalidValue if the count was invalid.
//
// Preconditions: outputs hold n.max items and overlap neither the input nor each other; T (and the flag type) are
// trivially copyable; pred and equal are pure. The inputs are not modified. No allocation, no host synchronisation
// (except the Workspace overloads); safe inside CUDA graph capture.
//
// Scratch: 8 bytes a tile of 8192 items (4-byte items; 6144 for select_flagged; about 0.001 bytes an item), zeroed by
// one memset node a call.
//
// Performance. One pass, one kernel, a block a tile: each warp ranks a row of 32 consecutive items with one ballot
// (warp-aggregated output; select_unique rows of up to four consecutive items a lane, up to 16 bytes, so that a lane
// finds most predecessors in its registers: an input aligned to a lane's run loads it with one load, any other one
// item at a time; select_flagged loads a lane's consecutive flags, up to 16 bytes, with one load where they are
// aligned, and hands them to the lanes that hold their items by ballots) and packs its selected items in shared memory as it goes; the warps' counts add up in
// shared memory, and the tile's output offset comes from a decoupled look-back over the earlier tiles' published
// counts, read 32 tiles at a time by one warp; then each warp stores its own items, 32 consecutive ones a store.
// Memory traffic: every item read once (and a flag, for select_flagged), every kept item written once. Tile shape:
// SelectPolicyFor in prim/detail/tuning.h.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "prim/detail/core/compare.h"
#include "prim/detail/dispatch/select_dispatch.cuh"
#include "prim/item_count.h"
#include "prim/workspace.h"

namespace prim {

// d_out[0, *d_num_selected) = the items with pred(item), in input order.
template <typename T, typename Pred>
cudaError_t select_if(void* d_temp, size_t& temp_bytes, const T* d_in, T* d_out, uint64_t* d_num_selected,
                      ItemCount n, Pred pred, cudaStream_t stream = 0, uint64_t* d_num_invalid = nullptr) {
  return detail::dispatch_select<detail::SelectOutput::selected>(d_temp, temp_bytes, d_in, d_out,
                                                                 static_cast<T*>(nullptr), d_num_selected, n,
                                                                 detail::SelectByPredicate<Pred>{pred}, stream,
                                                                 d_num_invalid);
}

// d_out[0, *d_num_selected) = the items d_in[i] with d_flags[i] non-zero, in input order.
template <typename T, typename Flag>
cudaError_t select_flagged(void* d_temp, size_t& temp_bytes, const T* d_in, const Flag* d_flags, T* d_out,
                           uint64_t* d_num_selected, ItemCount n, cudaStream_t stream = 0,
                           uint64_t* d_num_invalid = nullptr) {
  if (n.max > 0 && d_temp != nullptr && d_flags == nullptr) return cudaErrorInvalidValue;
  return detail::dispatch_select<detail::SelectOutput::selected>(d_temp, temp_bytes, d_in, d_out,
                                                                 static_cast<T*>(nullptr), d_num_selected, n,
                                                                 detail::SelectByFlags<Flag>{d_flags}, stream,
                                                                 d_num_invalid);
}

// d_out[0, *d_num_selected) = d_in[0] and every d_in[i] with !equal(d_in[i - 1], d_in[i]), in input order.
template <typename T, typename Equal = EqualTo>
cudaError_t select_unique(void* d_temp, size_t& temp_bytes, const T* d_in, T* d_out, uint64_t* d_num_selected,
                          ItemCount n, Equal equal = {}, cudaStream_t stream = 0,
                          uint64_t* d_num_invalid = nullptr) {
  return detail::dispatch_select<detail::SelectOutput::selected>(d_temp, temp_bytes, d_in, d_out,
                                                                 static_cast<T*>(nullptr), d_num_selected, n,
                                                                 detail::SelectRunHeads<Equal>{equal}, stream,
                                                                 d_num_invalid);
}

// d_selected_out[0, s) = the items with pred(item), d_rejected_out[0, n - s) = the others, both in input order;
// *d_num_selected = s.
template <typename T, typename Pred>
cudaError_t partition_if(void* d_temp, size_t& temp_bytes, const T* d_in, T* d_selected_out, T* d_rejected_out,
                         uint64_t* d_num_selected, ItemCount n, Pred pred, cudaStream_t stream = 0,
                         uint64_t* d_num_invalid = nullptr) {
  return detail::dispatch_select<detail::SelectOutput::partition>(d_temp, temp_bytes, d_in, d_selected_out,
                                                                  d_rejected_out, d_num_selected, n,
                                                                  detail::SelectByPredicate<Pred>{pred}, stream,
                                                                  d_num_invalid);
}

// ---- Workspace overloads (allocate on growth, synchronise, report an invalid count as cudaErrorInvalidValue) ----
template <typename T, typename Pred>
cudaError_t select_if(Workspace& ws, const T* d_in, T* d_out, uint64_t* d_num_selected, ItemCount n, Pred pred,
                      cudaStream_t stream = 0) {
  return detail::run_checking_invalid(ws, stream, [&](void* d_temp, size_t& bytes, uint64_t* d_invalid) {
    return select_if(d_temp, bytes, d_in, d_out, d_num_selected, n, pred, stream, d_invalid);
  });
}

template <typename T, typename Flag>
cudaError_t select_flagged(Workspace& ws, const T* d_in, const Flag* d_flags, T* d_out, uint64_t* d_num_selected,
                           ItemCount n, cudaStream_t stream = 0) {
  return detail::run_checking_invalid(ws, stream, [&](void* d_temp, size_t& bytes, uint64_t* d_invalid) {
    return select_flagged(d_temp, bytes, d_in, d_flags, d_out, d_num_selected, n, stream, d_invalid);
  });
}

template <typename T, typename Equal = EqualTo>
cudaError_t select_unique(Workspace& ws, const T* d_in, T* d_out, uint64_t* d_num_selected, ItemCount n,
                          Equal equal = {}, cudaStream_t stream = 0) {
  return detail::run_checking_invalid(ws, stream, [&](void* d_temp, size_t& bytes, uint64_t* d_invalid) {
    return select_unique(d_temp, bytes, d_in, d_out, d_num_selected, n, equal, stream, d_invalid);
  });
}

template <typename T, typename Pred>
cudaError_t partition_if(Workspace& ws, const T* d_in, T* d_selected_out, T* d_rejected_out, uint64_t* d_num_selected,
                         ItemCount n, Pred pred, cudaStream_t stream = 0) {
  return detail::run_checking_invalid(ws, stream, [&](void* d_temp, size_t& bytes, uint64_t* d_invalid) {
    return partition_if(d_temp, bytes, d_in, d_selected_out, d_rejected_out, d_num_selected, n, pred, stream,
                        d_invalid);
  });
}

}  // namespace prim
