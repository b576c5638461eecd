// Adapter from CUB's two-phase device algorithms to this library's scratch convention.
//
// The library's size query always reports at least one byte: prim::Workspace treats a null blob as "size
// query", so a primitive whose CUB call needs zero bytes (n == 0, say) must still be given a real pointer on
// the second call, or that call would silently do nothing.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cub/device/device_scan.cuh>
#include <type_traits>

namespace prim::detail {

// `call(void* d_temp, size_t& bytes)` is one CUB device-algorithm call with everything but the scratch bound.
template <typename CubCall>
cudaError_t cub_two_phase(void* d_temp, size_t& temp_bytes, CubCall&& call) {
  size_t needed = 0;
  cudaError_t status = call(static_cast<void*>(nullptr), needed);
  if (status != cudaSuccess) return status;
  const size_t reported = needed > 0 ? needed : 1;
  if (d_temp == nullptr) {
    temp_bytes = reported;
    return cudaSuccess;
  }
  if (temp_bytes < reported) return cudaErrorInvalidValue;
  return call(d_temp, needed);
}

// Exclusive sum of d_in[0, n) into d_out (prim::exclusive_sum's body; the library's dispatch calls it directly).
template <typename InT, typename OutT>
cudaError_t exclusive_sum(void* d_temp, size_t& temp_bytes, const InT* d_in, OutT* d_out, int64_t n,
                          cudaStream_t stream = 0) {
  if (n < 0) return cudaErrorInvalidValue;
  return cub_two_phase(d_temp, temp_bytes, [&](void* t, size_t& b) {
    if constexpr (std::is_same_v<InT, OutT>) {
      return cub::DeviceScan::ExclusiveSum(t, b, d_in, d_out, n, stream);
    } else {
      return cub::DeviceScan::ExclusiveScan(t, b, d_in, d_out, ::cuda::std::plus<OutT>{}, OutT{}, n, stream);
    }
  });
}

}  // namespace prim::detail
