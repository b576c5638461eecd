// The tests' device array: prim::DeviceBuffer (the project's one owner of device memory) with the conveniences a
// test wants. Every allocation is poisoned, so an output element a kernel failed to write cannot pass by luck;
// every CUDA status is checked with a gtest expectation naming the call.
#pragma once
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "prim/device_buffer.h"

namespace slabtest {

constexpr unsigned char kPoisonByte = 0xA5;

template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t count) { resize(count); }
  explicit DeviceBuffer(const std::vector<T>& host) { upload(host); }

  // Exactly `count` elements, every byte kPoisonByte; the old contents are gone.
  void resize(size_t count) {
    status_ = buffer_.allocate(count);
    EXPECT_EQ(cudaSuccess, status_) << "cudaMalloc of " << count << " elements of " << sizeof(T) << " bytes";
    if (status_ == cudaSuccess) poison();
  }
  // Resized to the host vector and filled with it.
  void upload(const std::vector<T>& host) {
    resize(host.size());
    if (status_ == cudaSuccess) {
      EXPECT_EQ(cudaSuccess, buffer_.upload(host.data(), host.size()));
      settle();
    }
  }
  std::vector<T> download(size_t count) const {
    std::vector<T> host(count);
    EXPECT_EQ(cudaSuccess, buffer_.download(host.data(), count));
    return host;
  }
  std::vector<T> download() const { return download(size()); }
  T download_one(size_t i = 0) const {
    T value{};
    EXPECT_LT(i, size());
    if (i < size()) {
      EXPECT_EQ(cudaSuccess, cudaMemcpy(&value, buffer_.data() + i, sizeof(T), cudaMemcpyDeviceToHost));
    }
    return value;
  }
  void poison() { fill(kPoisonByte); }
  void zero() { fill(0); }

  T* get() const { return buffer_.data(); }
  size_t size() const { return buffer_.size(); }
  // The status of the last allocation (a test of out-of-memory behaviour may expect a failure).
  cudaError_t status() const { return status_; }

 private:
  void fill(unsigned char byte) {
    if (!buffer_.empty()) {
      EXPECT_EQ(cudaSuccess, cudaMemset(buffer_.data(), byte, buffer_.bytes()));
      settle();
    }
  }
  // cudaMemset and a pageable cudaMemcpy run on the legacy default stream and may still be in flight when they
  // return; a test that then works on a non-blocking stream would race them (the poison landing after its output).
  static void settle() { EXPECT_EQ(cudaSuccess, cudaDeviceSynchronize()); }
  prim::DeviceBuffer<T> buffer_;
  cudaError_t status_ = cudaSuccess;
};

}  // namespace slabtest
