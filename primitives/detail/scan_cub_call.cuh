// Adapter from CUB's two-phase device algorithms to this library's scratch convention.
//
// The library's size query always reports at least one byte: prim::Workspace treats a null blob as "size
// query", so a primitive whose CUB call needs zero bytes (n == 0, say) must still be given a real pointer on
// the second call, or that call would silently do nothing.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>

namespace prim::detail {

// `call(void* d_temp, size_t& bytes)` is one CUB device-algorithm call with everything but the scratch bound.
template <typename CubCall>
cudaError_t cub_two_phase(void* d_temp, size_t& temp_bytes, CubCall&& call) {
  size_t needed = 0;
  cudaError_t status = call(static_cast<void*>(nullptr), needed);
  if (status != cudaSuccess) return status;
  if (d_temp == nullptr) {
    temp_bytes = needed > 0 ? needed : 1;
    return cudaSuccess;
  }
  if (temp_bytes < needed) return cudaErrorInvalidValue;
  return call(d_temp, needed);
}

}  // namespace prim::detail
