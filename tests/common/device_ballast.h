// GPU out-of-memory on demand, for the out-of-memory tests: a "ballast" of plain device allocations that holds all
// but about `leave` bytes of the device's free memory, so that the renderer's allocations fail for real.
// Tests that use it must run alone (ctest RUN_SERIAL): the ballast would starve a test beside them.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <utility>
#include <vector>

#include "prim/device_buffer.h"

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
      prim::DeviceBuffer<unsigned char> chunk;
      // A failed ask is the end of the ballast, not an error of the test (DeviceBuffer clears the error).
      if (ask == 0 || chunk.allocate(ask) != cudaSuccess) break;
      chunks_.push_back(std::move(chunk));
    }
  }
  void release() { chunks_.clear(); }

 private:
  std::vector<prim::DeviceBuffer<unsigned char>> chunks_;
};

}  // namespace slabcast::test
