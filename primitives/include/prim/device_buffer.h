// The one owner of device memory in slabcast: a typed, move-only cudaMalloc'd array.
//
//   prim::DeviceBuffer<uint32_t> keys;
//   PRIM_TRY(keys.allocate(n));                  // exactly n elements; the old contents are freed first
//   PRIM_TRY(keys.upload(host.data(), n));
//   PRIM_TRY(prim::split(d_temp, temp_bytes, keys.data(), ...));
//
// Like the rest of the library it never throws: every call that can fail returns cudaError_t, so a renderer can
// turn a failed allocation into its own out-of-memory report and an application into its own check.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

namespace prim {

template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept { swap(other); }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      release();
      swap(other);
    }
    return *this;
  }
  ~DeviceBuffer() { release(); }

  // Frees the old contents, then allocates exactly `count` elements (none for 0). On failure the buffer is left
  // empty and the runtime's status is returned; an allocation failure is not sticky, so it is cleared here.
  cudaError_t allocate(size_t count) {
    release();
    if (count == 0) return cudaSuccess;
    void* p = nullptr;
    const cudaError_t status = cudaMalloc(&p, count * sizeof(T));
    if (status != cudaSuccess) {
      if (status == cudaErrorMemoryAllocation) (void)cudaGetLastError();
      return status;
    }
    data_ = static_cast<T*>(p);
    count_ = count;
    return cudaSuccess;
  }

  // At least `count` elements; reallocates (contents not kept) only when growing, to at least 1.5x the old size,
  // so a buffer resized every frame settles after a few frames.
  cudaError_t reserve(size_t count) {
    if (count <= count_) return cudaSuccess;
    const size_t grown = count_ + count_ / 2;
    return allocate(count > grown ? count : grown);
  }

  void release() {
    if (data_) cudaFree(data_);  // the release path has no one to report a failure to
    data_ = nullptr;
    count_ = 0;
  }

  T* data() const { return data_; }
  size_t size() const { return count_; }
  size_t bytes() const { return count_ * sizeof(T); }
  bool empty() const { return count_ == 0; }

  // Every byte of the buffer set to `byte` (tests poison outputs before a kernel writes them).
  cudaError_t fill_bytes(unsigned char byte, cudaStream_t stream = nullptr) const {
    return count_ ? cudaMemsetAsync(data_, byte, bytes(), stream) : cudaSuccess;
  }
  // Copies `count` elements (at most size()) from host memory to the front of the buffer; synchronous.
  cudaError_t upload(const T* host, size_t count) const {
    if (count > count_) return cudaErrorInvalidValue;
    return count ? cudaMemcpy(data_, host, count * sizeof(T), cudaMemcpyHostToDevice) : cudaSuccess;
  }
  // Copies the first `count` elements (at most size()) to host memory; synchronous.
  cudaError_t download(T* host, size_t count) const {
    if (count > count_) return cudaErrorInvalidValue;
    return count ? cudaMemcpy(host, data_, count * sizeof(T), cudaMemcpyDeviceToHost) : cudaSuccess;
  }

 private:
  void swap(DeviceBuffer& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(count_, other.count_);
  }
  T* data_ = nullptr;
  size_t count_ = 0;
};

}  // namespace prim
