// CUDA-GL interop for the display path: a GL buffer registered once with CUDA, mapped for each frame.
// Only app/ knows about pixel buffers: the renderer sees a plain Surface (pointer, width, height, pitch).
// Failures throw std::runtime_error from render/cuda_check.h's SLABCAST_CUDA_CHECK (naming the call, file, line).
#pragma once
#include <glad/gl.h>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "prim/device_buffer.h"

namespace slabcast::gl {

// The CUDA device this process renders on, or -1 when there is none (no driver, no device): the viewer then
// runs the cpu backend. `why` (optional) gets the reason when -1.
int cuda_device_or_none(std::string* why = nullptr);

// Device-wide memory in use and total (cudaMemGetInfo) on the current device; false without CUDA.
bool cuda_memory_info(size_t* used_bytes, size_t* total_bytes);

// A GL buffer object registered with CUDA (write-discard: CUDA overwrites it whole, GL only reads it).
// Register once per buffer (the registration is expensive); map / unmap every frame.
class CudaGlBuffer {
 public:
  CudaGlBuffer() = default;
  explicit CudaGlBuffer(GLuint buffer);  // throws if the GL context is not on a CUDA device
  ~CudaGlBuffer();
  CudaGlBuffer(CudaGlBuffer&& other) noexcept;
  CudaGlBuffer& operator=(CudaGlBuffer&& other) noexcept;
  CudaGlBuffer(const CudaGlBuffer&) = delete;
  CudaGlBuffer& operator=(const CudaGlBuffer&) = delete;

  // Maps the buffer for CUDA on the legacy default stream (ordered after GL's use of it and before CUDA work
  // that follows on blocking streams) and returns its device address; `bytes` gets its size.
  uint8_t* map(size_t* bytes);
  void unmap();  // hands the buffer back to GL; the next GL command that reads it sees CUDA's writes
  explicit operator bool() const { return resource_ != nullptr; }

 private:
  void release() noexcept;
  cudaGraphicsResource* resource_ = nullptr;
  bool mapped_ = false;
};

// Device memory for the cuda backend when interop is impossible (GL runs on another device): the frame is rendered
// there, then copied to the host and uploaded. Also used by tests as the plain-device-memory frame.
class DeviceImage {
 public:
  void resize(size_t bytes);  // grows only, to exactly `bytes`
  uint8_t* data() const { return pixels_.data(); }
  void copy_to_host(void* host, size_t bytes) const;

 private:
  prim::DeviceBuffer<uint8_t> pixels_;
};

}  // namespace slabcast::gl
