// A small owning scratch buffer for casual callers who do not want the two-phase size query.
//
//   prim::Workspace ws;                        // owns device scratch, grows geometrically, frees on destruction
//   PRIM_TRY(prim::split(ws, ...));            // each primitive has an overload taking a Workspace
//
// Renderers and other frame loops should instead size their scratch once with the size query and pass
// (d_temp, temp_bytes) themselves, so that no call allocates inside a frame.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "prim/detail/core/error.h"
#include "prim/detail/core/temp_storage.h"
#include "prim/device_buffer.h"

namespace prim {

class Workspace {
 public:
  // Make at least `bytes` available (allocates only when growing; at least 1.5x the old size).
  cudaError_t reserve(size_t bytes) { return buffer_.reserve(bytes); }
  void release() { buffer_.release(); }
  void* data() const { return buffer_.data(); }
  size_t bytes() const { return buffer_.bytes(); }

  // Run a two-phase primitive call: `call(void* d_temp, size_t& temp_bytes)` is made twice (size query, then
  // the real call with this workspace's memory).
  template <typename Call>
  cudaError_t run(Call&& call) {
    size_t needed = 0;
    PRIM_TRY(call(static_cast<void*>(nullptr), needed));
    PRIM_TRY(reserve(needed));
    size_t available = bytes();
    return call(data(), available);
  }

 private:
  DeviceBuffer<unsigned char> buffer_;
};

namespace detail {

// The Workspace overloads of the split family: size query, grow the workspace, run, then synchronise once to turn
// "some record had an out-of-range bucket" into cudaErrorInvalidValue (casual callers get an error, not a count).
// call(void* d_temp, size_t& temp_bytes, uint64_t* d_num_invalid) is a two-phase primitive call.
template <class Call>
cudaError_t run_checking_invalid(Workspace& ws, cudaStream_t stream, Call&& call) {
  size_t needed = 0;
  PRIM_TRY(call(static_cast<void*>(nullptr), needed, static_cast<uint64_t*>(nullptr)));
  PRIM_TRY(ws.reserve(needed + kTempAlignment));  // the first aligned slot holds the invalid counter
  uint64_t* d_invalid = static_cast<uint64_t*>(ws.data());
  void* d_temp = static_cast<char*>(ws.data()) + kTempAlignment;
  size_t available = ws.bytes() - kTempAlignment;
  PRIM_TRY(cudaMemsetAsync(d_invalid, 0, sizeof(uint64_t), stream));
  PRIM_TRY(call(d_temp, available, d_invalid));
  uint64_t invalid = 0;
  PRIM_TRY(cudaMemcpyAsync(&invalid, d_invalid, sizeof(invalid), cudaMemcpyDeviceToHost, stream));
  PRIM_TRY(cudaStreamSynchronize(stream));
  return invalid == 0 ? cudaSuccess : cudaErrorInvalidValue;
}

}  // namespace detail
}  // namespace prim
