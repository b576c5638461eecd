// The Workspace overloads of the split family: size query, grow the workspace, run, then synchronise once to turn
// "some record had an out-of-range bucket" into cudaErrorInvalidValue (casual callers get an error, not a count).
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "prim/error.h"
#include "prim/temp_storage.h"
#include "prim/workspace.h"

namespace prim {
namespace detail {

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
