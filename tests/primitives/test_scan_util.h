// Helpers shared by the scan / reduce / histogram / gather-scatter gpu tests: an owning device buffer with
// poisoning (outputs start as garbage so an unwritten element cannot pass by luck), quick mode, and sizes.
#pragma once
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "common/quick_mode.h"

namespace slabtest {

constexpr unsigned char kPoisonByte = 0xA5;

template <typename T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t count) : count_(count) {
    status_ = cudaMalloc(&ptr_, (count > 0 ? count : 1) * sizeof(T));
    if (status_ == cudaSuccess) status_ = cudaMemset(ptr_, kPoisonByte, (count > 0 ? count : 1) * sizeof(T));
  }
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) {
    if (status_ == cudaSuccess && !host.empty()) {
      status_ = cudaMemcpy(ptr_, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice);
    }
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { cudaFree(ptr_); }

  T* get() const { return ptr_; }
  size_t size() const { return count_; }
  cudaError_t status() const { return status_; }
  std::vector<T> download() const {
    std::vector<T> host(count_);
    if (count_ > 0) EXPECT_EQ(cudaSuccess, cudaMemcpy(host.data(), ptr_, count_ * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }
  T download_one(size_t i = 0) const {
    T v{};
    EXPECT_EQ(cudaSuccess, cudaMemcpy(&v, ptr_ + i, sizeof(T), cudaMemcpyDeviceToHost));
    return v;
  }

 private:
  T* ptr_ = nullptr;
  size_t count_ = 0;
  cudaError_t status_ = cudaSuccess;
};

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
