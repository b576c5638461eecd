// Gather and scatter of records of any size (thesis ch. 5; He et al., SC07).
//
//   gather:  d_out[i]        = d_in[d_map[i]]   for i < n        (d_in holds in_size records)
//   scatter: d_out[d_map[i]] = d_in[i]          for i < n        (d_out holds out_size records)
//
// Several threads move one record (a group of 1..32 lanes, each with 16-, 8-, 4-, 2- or 1-byte vectors, the
// widest that the record size and both base addresses allow), so a record's bytes travel in one coalesced
// request per vector width instead of one scattered request per word. Each group keeps several records in
// flight. Scatter can run in several passes (He et al.'s multi-pass scatter): pass p writes only the
// destinations in the p-th window of out_size / passes records, so each pass's writes fall in a cache-sized
// window; every pass re-reads the whole map.
//
//   size_t bytes = 0;
//   prim::gather(nullptr, bytes, d_in, d_out, d_map, n, in_size);       // size query (these need no scratch:
//   prim::gather(d_temp, bytes, d_in, d_out, d_map, n, in_size, s);     // 1 byte is reported)
//
// Scratch: the size query reports 1 byte and the call uses none of it, but as every call of the library it returns
// cudaErrorInvalidValue when d_temp is non-null and temp_bytes is below what the query reported (0 bytes).
//
// Conventions as the rest of the library: caller scratch, stream-ordered, no allocation, no host sync (the
// dispatch reads device attributes only), 64-bit counts, cudaError_t results.
//   - n: an ItemCount: a host count, or a device-resident count with a host upper bound (the grid is sized
//     for the bound; the kernel reads the count), so a gather can follow a split without a host round trip.
//   - Index: int32_t, uint32_t, int64_t or uint64_t. A map entry outside [0, in_size) (gather) or
//     [0, out_size) (scatter) is not accessed: nothing is read or written for it (gather leaves d_out[i]
//     untouched) and it is added to *d_num_invalid (device uint64, the call adds to it, as in the split
//     family) when that pointer is non-null. The Workspace overloads synchronise and return
//     cudaErrorInvalidValue if any entry was invalid.
//   - d_in and d_out must not overlap; d_map must not overlap d_out.
//   - scatter: valid map entries should be distinct (a permutation or an injection). Where two entries name
//     the same destination, that destination holds one of the records, or for records wider than one
//     vector possibly a mix of their vectors: unspecified.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "prim/error.h"
#include "prim/item_count.h"
#include "prim/workspace.h"

namespace prim {

// Number of scatter passes: 0 lets the library choose (ScatterPlan below); 1 is the plain one-pass scatter.
struct ScatterOptions {
  uint32_t passes = 0;
};

// ---- untyped entry points: record size in bytes at run time (compiled once per Index type) ----

template <typename Index>
cudaError_t gather_bytes(void* d_temp, size_t& temp_bytes, const void* d_in, void* d_out, const Index* d_map,
                         ItemCount n, int64_t in_size, size_t record_bytes, cudaStream_t stream = 0,
                         uint64_t* d_num_invalid = nullptr);

template <typename Index>
cudaError_t scatter_bytes(void* d_temp, size_t& temp_bytes, const void* d_in, void* d_out, const Index* d_map,
                          ItemCount n, int64_t out_size, size_t record_bytes, cudaStream_t stream = 0,
                          uint64_t* d_num_invalid = nullptr, ScatterOptions options = {});

#define PRIM_GATHER_SCATTER_EXTERN(Index)                                                                       \
  extern template cudaError_t gather_bytes<Index>(void*, size_t&, const void*, void*, const Index*, ItemCount,  \
                                                  int64_t, size_t, cudaStream_t, uint64_t*);                    \
  extern template cudaError_t scatter_bytes<Index>(void*, size_t&, const void*, void*, const Index*, ItemCount, \
                                                   int64_t, size_t, cudaStream_t, uint64_t*, ScatterOptions);
PRIM_GATHER_SCATTER_EXTERN(int32_t)
PRIM_GATHER_SCATTER_EXTERN(uint32_t)
PRIM_GATHER_SCATTER_EXTERN(int64_t)
PRIM_GATHER_SCATTER_EXTERN(uint64_t)
#undef PRIM_GATHER_SCATTER_EXTERN

// ---- typed entry points: a record is one T (any trivially copyable type) ----

template <typename T, typename Index>
cudaError_t gather(void* d_temp, size_t& temp_bytes, const T* d_in, T* d_out, const Index* d_map, ItemCount n,
                   int64_t in_size, cudaStream_t stream = 0, uint64_t* d_num_invalid = nullptr) {
  static_assert(std::is_trivially_copyable_v<T>, "gather moves records as raw bytes");
  return gather_bytes(d_temp, temp_bytes, d_in, d_out, d_map, n, in_size, sizeof(T), stream, d_num_invalid);
}

template <typename T, typename Index>
cudaError_t scatter(void* d_temp, size_t& temp_bytes, const T* d_in, T* d_out, const Index* d_map, ItemCount n,
                    int64_t out_size, cudaStream_t stream = 0, uint64_t* d_num_invalid = nullptr,
                    ScatterOptions options = {}) {
  static_assert(std::is_trivially_copyable_v<T>, "scatter moves records as raw bytes");
  return scatter_bytes(d_temp, temp_bytes, d_in, d_out, d_map, n, out_size, sizeof(T), stream, d_num_invalid,
                       options);
}

// ---- Workspace overloads (allocate on growth, synchronise, report invalid map entries as cudaErrorInvalidValue) ----

template <typename T, typename Index>
cudaError_t gather(Workspace& ws, const T* d_in, T* d_out, const Index* d_map, ItemCount n, int64_t in_size,
                   cudaStream_t stream = 0) {
  return detail::run_checking_invalid(ws, stream, [&](void* t, size_t& b, uint64_t* d_invalid) {
    return gather(t, b, d_in, d_out, d_map, n, in_size, stream, d_invalid);
  });
}
template <typename T, typename Index>
cudaError_t scatter(Workspace& ws, const T* d_in, T* d_out, const Index* d_map, ItemCount n, int64_t out_size,
                    cudaStream_t stream = 0, ScatterOptions options = {}) {
  return detail::run_checking_invalid(ws, stream, [&](void* t, size_t& b, uint64_t* d_invalid) {
    return scatter(t, b, d_in, d_out, d_map, n, out_size, stream, d_invalid, options);
  });
}

// ---- planning (exposed for tests and the benchmark) ----

// How a record is moved: vector width, vectors per record, lanes per record (a power of two <= 32).
struct RecordPlan {
  uint32_t vector_bytes;
  uint32_t vectors_per_record;
  uint32_t group_lanes;
};
// The widest vector (16, 8, 4, 2, 1 bytes) dividing record_bytes and both base addresses.
RecordPlan plan_record(size_t record_bytes, const void* d_in, const void* d_out);

// Passes for a multi-pass scatter when ScatterOptions::passes == 0, from the record size, the destination's
// size in bytes and the L2 size.
uint32_t scatter_auto_passes(size_t record_bytes, uint64_t out_bytes, uint64_t l2_bytes);

}  // namespace prim
