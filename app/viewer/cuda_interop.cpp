// The only translation unit of the viewer that talks to the CUDA runtime. glad's header comes first: it defines
// the include guard of <GL/gl.h>, which cuda_gl_interop.h would otherwise pull in as a second GL declaration set.
#include "app/viewer/cuda_interop.h"

#include <cuda_gl_interop.h>
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <utility>

namespace slabcast::viewer {

void check_cuda(int status, const char* call, const char* file, int line) {
  if (status == static_cast<int>(cudaSuccess)) return;
  const auto error = static_cast<cudaError_t>(status);
  // Reset the runtime's last-error slot: a failure handled here (e.g. interop registration on a GL context of
  // another device, which the viewer recovers from) must not be reported again by the renderer's next check.
  (void)cudaGetLastError();
  throw std::runtime_error(std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                           cudaGetErrorName(error) + ": " + cudaGetErrorString(error));
}

int cuda_device_or_none(std::string* why) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    if (why != nullptr) *why = status != cudaSuccess ? cudaGetErrorString(status) : "no CUDA device";
    (void)cudaGetLastError();  // a failed device query leaves a sticky-looking error behind; clear it
    return -1;
  }
  int device = 0;
  SLABCAST_CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

bool cuda_memory_info(size_t* used_bytes, size_t* total_bytes) {
  size_t free_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, total_bytes) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  *used_bytes = *total_bytes - free_bytes;
  return true;
}

CudaGlBuffer::CudaGlBuffer(GLuint buffer) {
  SLABCAST_CUDA_CHECK(cudaGraphicsGLRegisterBuffer(&resource_, buffer, cudaGraphicsRegisterFlagsWriteDiscard));
}

CudaGlBuffer::~CudaGlBuffer() { release(); }

CudaGlBuffer::CudaGlBuffer(CudaGlBuffer&& other) noexcept
    : resource_(std::exchange(other.resource_, nullptr)), mapped_(std::exchange(other.mapped_, false)) {}

CudaGlBuffer& CudaGlBuffer::operator=(CudaGlBuffer&& other) noexcept {
  if (this != &other) {
    release();
    resource_ = std::exchange(other.resource_, nullptr);
    mapped_ = std::exchange(other.mapped_, false);
  }
  return *this;
}

void CudaGlBuffer::release() noexcept {
  if (resource_ == nullptr) return;
  // Errors cannot propagate from a destructor; an unmap or unregister failure here would mean the context is
  // already gone, and the process is shutting down anyway.
  if (mapped_) (void)cudaGraphicsUnmapResources(1, &resource_, nullptr);
  (void)cudaGraphicsUnregisterResource(resource_);
  resource_ = nullptr;
  mapped_ = false;
}

uint8_t* CudaGlBuffer::map(size_t* bytes) {
  SLABCAST_CUDA_CHECK(cudaGraphicsMapResources(1, &resource_, nullptr));
  mapped_ = true;
  void* pointer = nullptr;
  SLABCAST_CUDA_CHECK(cudaGraphicsResourceGetMappedPointer(&pointer, bytes, resource_));
  return static_cast<uint8_t*>(pointer);
}

void CudaGlBuffer::unmap() {
  mapped_ = false;
  SLABCAST_CUDA_CHECK(cudaGraphicsUnmapResources(1, &resource_, nullptr));
}

DeviceImage::~DeviceImage() {
  if (data_ != nullptr) (void)cudaFree(data_);  // see CudaGlBuffer::release
}

void DeviceImage::resize(size_t bytes) {
  if (bytes <= bytes_) return;
  if (data_ != nullptr) SLABCAST_CUDA_CHECK(cudaFree(data_));
  data_ = nullptr;
  bytes_ = 0;
  void* pointer = nullptr;
  SLABCAST_CUDA_CHECK(cudaMalloc(&pointer, bytes));
  data_ = static_cast<uint8_t*>(pointer);
  bytes_ = bytes;
}

void DeviceImage::copy_to_host(void* host, size_t bytes) const {
  SLABCAST_CUDA_CHECK(cudaMemcpy(host, data_, bytes, cudaMemcpyDeviceToHost));
}

}  // namespace slabcast::viewer
