// reduce over more than 2^31 elements: a size-heavy case, labelled `large` (left out of the sanitizer runs).
#include <gtest/gtest.h>

#include <cstdint>

#include "prim/device_buffer.h"
#include "prim/reduce.h"
#include "primitives/test_scan_util.h"

namespace {

using slabtest::DeviceBuffer;

TEST(Reduce, SixtyFourBitCountAbove2To31) {
  // 2^31 + 7 one-byte elements: a 32-bit count would wrap. 2 GiB of device memory.
  if (slabtest::quick_mode()) GTEST_SKIP() << "SLABCAST_TEST_QUICK";
  const int64_t n = (int64_t(1) << 31) + 7;
  prim::DeviceBuffer<uint8_t> d_in;  // not the tests' buffer: a failed allocation skips instead of failing
  if (d_in.allocate(static_cast<size_t>(n)) != cudaSuccess) {
    GTEST_SKIP() << "not enough device memory for 2^31 + 7 bytes";
  }
  ASSERT_EQ(cudaSuccess, cudaMemset(d_in.data(), 1, n));
  ASSERT_EQ(cudaSuccess, cudaMemset(d_in.data() + n - 1, 3, 1));  // the last element must be included
  DeviceBuffer<uint64_t> d_out(1);
  prim::Workspace ws;
  ASSERT_EQ(cudaSuccess, prim::reduce_sum(ws, d_in.data(), d_out.get(), n));
  EXPECT_EQ(d_out.download_one(), uint64_t(n) + 2);
}

}  // namespace
