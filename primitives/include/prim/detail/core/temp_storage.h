// TempCarver: carves one caller scratch blob into aligned sub-buffers (the convention: prim/temp_storage.h).
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace prim {

constexpr size_t kTempAlignment = 256;  // every carved sub-buffer starts on a 256-byte boundary

class TempCarver {
 public:
  // base == nullptr: size query; the carver only counts bytes.
  explicit TempCarver(void* base) : base_(static_cast<char*>(base)) {}

  template <typename T>
  T* take(size_t count) {
    const size_t offset = used_;
    used_ += round_up(count * sizeof(T));
    return base_ ? reinterpret_cast<T*>(base_ + offset) : nullptr;
  }

  size_t bytes_used() const { return used_; }
  bool is_size_query() const { return base_ == nullptr; }

  // Finish a call: in a size query store the total in temp_bytes and report true ("return now");
  // in a real call fail with cudaErrorInvalidValue if the caller's blob is too small.
  cudaError_t finish(size_t& temp_bytes, bool& size_query_done) const {
    size_query_done = is_size_query();
    const size_t reported = used_ > 0 ? used_ : 1;  // at least 1 byte, so Workspace passes a real pointer
    if (size_query_done) {
      temp_bytes = reported;
      return cudaSuccess;
    }
    return temp_bytes >= reported ? cudaSuccess : cudaErrorInvalidValue;
  }

 private:
  static size_t round_up(size_t bytes) { return (bytes + kTempAlignment - 1) / kTempAlignment * kTempAlignment; }
  char* base_;
  size_t used_ = 0;
};

}  // namespace prim
