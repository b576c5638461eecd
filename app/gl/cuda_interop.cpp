// The CUDA side of the GL code. glad's header comes first (through cuda_interop.h): it defines the include guard
// of <GL/gl.h>, which cuda_gl_interop.h would otherwise pull in as a second GL declaration set.
#include "app/gl/cuda_interop.h"

#include <cuda_gl_interop.h>

#include <utility>

#include "render/cuda_check.h"

namespace slabcast::gl {

namespace {

// Runs `checked` (a SLABCAST_CUDA_CHECK); when it throws, the runtime's last-error slot is reset first: a failure
// here may be recovered from (interop registration on a GL context of another device: the viewer copies frames
// through the host instead), and the renderer's next launch check must not report it again.
template <typename Checked>
void clearing_last_error(Checked&& checked) {
  try {
    checked();
  } catch (...) {
    (void)cudaGetLastError();
    throw;
  }
}

}  // namespace

int cuda_device_or_none(std::string* why) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    if (why != nullptr) *why = status != cudaSuccess ? cudaGetErrorString(status) : "no CUDA device";
    (void)cudaGetLastError();  // a failed device query leaves a sticky-looking error behind; clear it
    return -1;
  }
  int device = 0;
  clearing_last_error([&] { SLABCAST_CUDA_CHECK(cudaGetDevice(&device)); });
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
  clearing_last_error([&] {
    SLABCAST_CUDA_CHECK(cudaGraphicsGLRegisterBuffer(&resource_, buffer, cudaGraphicsRegisterFlagsWriteDiscard));
  });
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
  void* pointer = nullptr;
  clearing_last_error([&] {
    SLABCAST_CUDA_CHECK(cudaGraphicsMapResources(1, &resource_, nullptr));
    mapped_ = true;
    SLABCAST_CUDA_CHECK(cudaGraphicsResourceGetMappedPointer(&pointer, bytes, resource_));
  });
  return static_cast<uint8_t*>(pointer);
}

void CudaGlBuffer::unmap() {
  mapped_ = false;
  clearing_last_error([&] { SLABCAST_CUDA_CHECK(cudaGraphicsUnmapResources(1, &resource_, nullptr)); });
}

void DeviceImage::resize(size_t bytes) {
  if (bytes <= pixels_.size()) return;
  clearing_last_error([&] { SLABCAST_CUDA_CHECK(pixels_.allocate(bytes)); });
}

void DeviceImage::copy_to_host(void* host, size_t bytes) const {
  clearing_last_error([&] { SLABCAST_CUDA_CHECK(pixels_.download(static_cast<uint8_t*>(host), bytes)); });
}

}  // namespace slabcast::gl
