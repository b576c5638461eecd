// Device-wide reductions (thin wrappers over cub::DeviceReduce, in this library's conventions: see scan.h).
//
//   prim::reduce_sum(nullptr, bytes, d_in, d_sum, n);   // size query
//   prim::reduce_sum(d_temp, bytes, d_in, d_sum, n, s); // *d_sum (device memory) = sum of d_in[0..n)
//
// The result stays on the device (no host synchronisation); copy it back only where the host needs it.
// Preconditions: `op` is associative and commutative (the order of combination is unspecified);
// reduce_min / reduce_max of n == 0 write the identity (numeric max / lowest of the value type).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <cub/device/device_reduce.cuh>
#include <type_traits>

#include "prim/detail/dispatch/cub_calls.cuh"
#include "prim/error.h"
#include "prim/workspace.h"

namespace prim {

// *d_out = init op d_in[0] op ... op d_in[n-1].
template <typename InT, typename OutT, typename ReduceOp, typename InitT>
cudaError_t reduce(void* d_temp, size_t& temp_bytes, const InT* d_in, OutT* d_out, int64_t n, ReduceOp op,
                   InitT init, cudaStream_t stream = 0) {
  if (n < 0) return cudaErrorInvalidValue;
  return detail::cub_two_phase(d_temp, temp_bytes, [&](void* t, size_t& b) {
    return cub::DeviceReduce::Reduce(t, b, d_in, d_out, n, op, init, stream);
  });
}

// Sum accumulated in OutT (so uint8_t inputs can be summed into a uint64_t without overflow).
template <typename InT, typename OutT>
cudaError_t reduce_sum(void* d_temp, size_t& temp_bytes, const InT* d_in, OutT* d_out, int64_t n,
                       cudaStream_t stream = 0) {
  if (n < 0) return cudaErrorInvalidValue;
  return detail::cub_two_phase(d_temp, temp_bytes, [&](void* t, size_t& b) {
    if constexpr (std::is_same_v<InT, OutT>) {
      return cub::DeviceReduce::Sum(t, b, d_in, d_out, n, stream);
    } else {
      return cub::DeviceReduce::Reduce(t, b, d_in, d_out, n, ::cuda::std::plus<OutT>{}, OutT{}, stream);
    }
  });
}

template <typename T>
cudaError_t reduce_min(void* d_temp, size_t& temp_bytes, const T* d_in, T* d_out, int64_t n,
                       cudaStream_t stream = 0) {
  if (n < 0) return cudaErrorInvalidValue;
  return detail::cub_two_phase(d_temp, temp_bytes, [&](void* t, size_t& b) {
    return cub::DeviceReduce::Min(t, b, d_in, d_out, n, stream);
  });
}

template <typename T>
cudaError_t reduce_max(void* d_temp, size_t& temp_bytes, const T* d_in, T* d_out, int64_t n,
                       cudaStream_t stream = 0) {
  if (n < 0) return cudaErrorInvalidValue;
  return detail::cub_two_phase(d_temp, temp_bytes, [&](void* t, size_t& b) {
    return cub::DeviceReduce::Max(t, b, d_in, d_out, n, stream);
  });
}

// ---- Workspace overloads ----

template <typename InT, typename OutT, typename ReduceOp, typename InitT>
cudaError_t reduce(Workspace& ws, const InT* d_in, OutT* d_out, int64_t n, ReduceOp op, InitT init,
                   cudaStream_t stream = 0) {
  return ws.run([&](void* t, size_t& b) { return reduce(t, b, d_in, d_out, n, op, init, stream); });
}
template <typename InT, typename OutT>
cudaError_t reduce_sum(Workspace& ws, const InT* d_in, OutT* d_out, int64_t n, cudaStream_t stream = 0) {
  return ws.run([&](void* t, size_t& b) { return reduce_sum(t, b, d_in, d_out, n, stream); });
}
template <typename T>
cudaError_t reduce_min(Workspace& ws, const T* d_in, T* d_out, int64_t n, cudaStream_t stream = 0) {
  return ws.run([&](void* t, size_t& b) { return reduce_min(t, b, d_in, d_out, n, stream); });
}
template <typename T>
cudaError_t reduce_max(Workspace& ws, const T* d_in, T* d_out, int64_t n, cudaStream_t stream = 0) {
  return ws.run([&](void* t, size_t& b) { return reduce_max(t, b, d_in, d_out, n, stream); });
}

}  // namespace prim
