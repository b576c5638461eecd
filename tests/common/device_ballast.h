// GPU out-of-memory on demand, for the out-of-memory tests: a "ballast" of plain cudaMalloc chunks that holds all
// but about `leave` bytes of the device's free memory, so that the renderer's allocations fail for real.
// Tests that use it must run alone (ctest RUN_SERIAL): the ballast would starve a test beside them.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

namespace slabcast::test {

class DeviceBallast {
 public:
  explicit DeviceBallast(size_t leave) {
    constexpr size_t kChunk = size_t(256) << 20;
    constexpr size_t kPage = size_t(2) << 20;  // the driver's allocation granularity
    for (;;) {
      size_t free_bytes = 0, total = 0;
      if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess || free_bytes <= leave + kPage) break;
      const size_t ask = free_bytes - leave > kChunk ? kChunk : (free_bytes - leave) & ~(kPage - 1);
      void* p = nullptr;
      if (ask == 0 || cudaMalloc(&p, ask) != cudaSuccess) {
        (void)cudaGetLastError();  // the failed ask is the end of the ballast, not an error of the test
        break;
      }
      chunks_.push_back(p);
    }
  }
  ~DeviceBallast() { release(); }
  DeviceBallast(const DeviceBallast&) = delete;
  DeviceBallast& operator=(const DeviceBallast&) = delete;
  void release() {
    for (void* p : chunks_) cudaFree(p);
    chunks_.clear();
  }

 private:
  std::vector<void*> chunks_;
};

}  // namespace slabcast::test
