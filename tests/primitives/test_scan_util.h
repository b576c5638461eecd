// Helpers shared by the scan / reduce / histogram / gather-scatter gpu tests: the tests' device buffer (poisoned on
// allocation, common/device_buffer.h), quick mode, and sizes.
#pragma once
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "common/device_buffer.h"
#include "common/quick_mode.h"

namespace slabtest {

// Edge sizes: 0, 1, warp +-1, tiles +-1 for tiles of 256 and 1024 items, 2^k +- 1; larger ones outside quick mode.
inline std::vector<int64_t> edge_sizes() {
  std::vector<int64_t> sizes = {0, 1, 2, 31, 32, 33, 255, 256, 257, 1023, 1024, 1025, 4095, 4096, 4097, 65535, 65537};
  if (!quick_mode()) {
    sizes.push_back((int64_t(1) << 20) + 1);
    sizes.push_back((int64_t(1) << 22) - 1);
  }
  return sizes;
}

}  // namespace slabtest
