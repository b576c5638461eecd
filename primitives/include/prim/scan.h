// Device-wide prefix scans (thin wrappers over cub::DeviceScan, in this library's conventions).
//
//   size_t bytes = 0;
//   prim::exclusive_sum(nullptr, bytes, d_in, d_out, n);      // size query: writes `bytes`, runs nothing
//   prim::exclusive_sum(d_temp, bytes, d_in, d_out, n, s);    // stream-ordered; no allocation, no host sync
//
// Conventions shared by every primitive of the library:
//   - d_temp == nullptr is a size query (at least 1 byte is reported); otherwise temp_bytes must be at least
//     what the query returned, else cudaErrorInvalidValue.
//   - counts are 64-bit; n == 0 is valid and writes nothing.
//   - the result is a cudaError_t (launch and configuration errors); the library never throws or exits.
//   - a Workspace& overload sizes and owns the scratch for casual callers.
// Preconditions: `op` is associative (it need not be commutative); d_in and d_out hold n elements and may be
// the same array (in-place scan) but must not otherwise overlap. Results of a non-associative op (floating
// point addition included) may differ from a sequential scan in rounding.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>
#include <cub/device/device_scan.cuh>

#include "prim/detail/dispatch/cub_calls.cuh"
#include "prim/error.h"
#include "prim/workspace.h"

namespace prim {

// d_out[i] = d_in[0] op d_in[1] op ... op d_in[i].
template <typename InT, typename OutT, typename ScanOp>
cudaError_t inclusive_scan(void* d_temp, size_t& temp_bytes, const InT* d_in, OutT* d_out, int64_t n, ScanOp op,
                           cudaStream_t stream = 0) {
  if (n < 0) return cudaErrorInvalidValue;
  return detail::cub_two_phase(d_temp, temp_bytes, [&](void* t, size_t& b) {
    return cub::DeviceScan::InclusiveScan(t, b, d_in, d_out, op, n, stream);
  });
}

// d_out[0] = init, d_out[i] = init op d_in[0] op ... op d_in[i-1].
template <typename InT, typename OutT, typename ScanOp, typename InitT>
cudaError_t exclusive_scan(void* d_temp, size_t& temp_bytes, const InT* d_in, OutT* d_out, int64_t n, ScanOp op,
                           InitT init, cudaStream_t stream = 0) {
  if (n < 0) return cudaErrorInvalidValue;
  return detail::cub_two_phase(d_temp, temp_bytes, [&](void* t, size_t& b) {
    return cub::DeviceScan::ExclusiveScan(t, b, d_in, d_out, op, init, n, stream);
  });
}

// Sums: the accumulator type is OutT (e.g. uint8_t flags summed into uint64_t offsets cannot overflow).
template <typename InT, typename OutT>
cudaError_t inclusive_sum(void* d_temp, size_t& temp_bytes, const InT* d_in, OutT* d_out, int64_t n,
                          cudaStream_t stream = 0) {
  if (n < 0) return cudaErrorInvalidValue;
  return detail::cub_two_phase(d_temp, temp_bytes, [&](void* t, size_t& b) {
    if constexpr (std::is_same_v<InT, OutT>) {
      return cub::DeviceScan::InclusiveSum(t, b, d_in, d_out, n, stream);
    } else {
      return cub::DeviceScan::InclusiveScanInit(t, b, d_in, d_out, ::cuda::std::plus<OutT>{}, OutT{}, n, stream);
    }
  });
}

template <typename InT, typename OutT>
cudaError_t exclusive_sum(void* d_temp, size_t& temp_bytes, const InT* d_in, OutT* d_out, int64_t n,
                          cudaStream_t stream = 0) {
  return detail::exclusive_sum(d_temp, temp_bytes, d_in, d_out, n, stream);
}

// ---- Workspace overloads (allocate on growth only; see prim/workspace.h) ----

template <typename InT, typename OutT, typename ScanOp>
cudaError_t inclusive_scan(Workspace& ws, const InT* d_in, OutT* d_out, int64_t n, ScanOp op,
                           cudaStream_t stream = 0) {
  return ws.run([&](void* t, size_t& b) { return inclusive_scan(t, b, d_in, d_out, n, op, stream); });
}
template <typename InT, typename OutT, typename ScanOp, typename InitT>
cudaError_t exclusive_scan(Workspace& ws, const InT* d_in, OutT* d_out, int64_t n, ScanOp op, InitT init,
                           cudaStream_t stream = 0) {
  return ws.run([&](void* t, size_t& b) { return exclusive_scan(t, b, d_in, d_out, n, op, init, stream); });
}
template <typename InT, typename OutT>
cudaError_t inclusive_sum(Workspace& ws, const InT* d_in, OutT* d_out, int64_t n, cudaStream_t stream = 0) {
  return ws.run([&](void* t, size_t& b) { return inclusive_sum(t, b, d_in, d_out, n, stream); });
}
template <typename InT, typename OutT>
cudaError_t exclusive_sum(Workspace& ws, const InT* d_in, OutT* d_out, int64_t n, cudaStream_t stream = 0) {
  return ws.run([&](void* t, size_t& b) { return exclusive_sum(t, b, d_in, d_out, n, stream); });
}

}  // namespace prim
