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

#include "prim/error.h"

namespace prim {

class Workspace {
 public:
  Workspace() = default;
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;
  ~Workspace() { release(); }

  // Make at least `bytes` available (allocates only when growing; at least 1.5x the old size).
  cudaError_t reserve(size_t bytes) {
    if (bytes <= bytes_) return cudaSuccess;
    const size_t grown = bytes_ + bytes_ / 2;
    const size_t want = bytes > grown ? bytes : grown;
    release();
    PRIM_TRY(cudaMalloc(&data_, want));
    bytes_ = want;
    return cudaSuccess;
  }
  void release() {
    if (data_) cudaFree(data_);
    data_ = nullptr;
    bytes_ = 0;
  }
  void* data() const { return data_; }
  size_t bytes() const { return bytes_; }

  // Run a two-phase primitive call: `call(void* d_temp, size_t& temp_bytes)` is made twice (size query, then
  // the real call with this workspace's memory).
  template <typename Call>
  cudaError_t run(Call&& call) {
    size_t needed = 0;
    PRIM_TRY(call(static_cast<void*>(nullptr), needed));
    PRIM_TRY(reserve(needed));
    size_t available = bytes_;
    return call(data_, available);
  }

 private:
  void* data_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace prim
