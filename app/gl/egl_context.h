// An OpenGL 4.5 core context without a window or an X server: EGL's device platform (EGL_EXT_platform_device).
// Used by `slabcast view --headless`, `slabcast render --backend gl-raster`, `slabcast bench` and the tests.
#pragma once
#include <string>

namespace slabcast::gl {

class EglContext {
 public:
  // Opens an EGL device and makes a 4.5 core context current on this thread, with no surface (frames go into
  // framebuffer objects). `want_cuda_device` >= 0 picks NVIDIA's EGL device that drives that CUDA device, so
  // that CUDA-GL interop works; otherwise (or when no such device exists) Mesa's software device
  // (EGL_MESA_device_software), then any other device that gives a 4.5 core context.
  // SLABCAST_EGL_DEVICE=<index> (as eglQueryDevicesEXT lists them) or =software forces a device.
  // One EglContext at a time: the destructor terminates the EGL display.
  // Throws std::runtime_error saying what each device answered when none works.
  explicit EglContext(int want_cuda_device);
  ~EglContext();
  EglContext(const EglContext&) = delete;
  EglContext& operator=(const EglContext&) = delete;

  // True if the context runs on the EGL device of the CUDA device asked for (CUDA-GL interop is possible).
  bool on_cuda_device() const { return on_cuda_device_; }
  // "EGL device 1 (NVIDIA, CUDA device 0) | 4.5.0 NVIDIA 580.x | NVIDIA H100 ..." for logs and the overlay.
  const std::string& description() const { return description_; }

 private:
  void* display_ = nullptr;  // EGLDisplay
  void* context_ = nullptr;  // EGLContext
  bool on_cuda_device_ = false;
  std::string description_;
};

}  // namespace slabcast::gl
