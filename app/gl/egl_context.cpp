#include "app/gl/egl_context.h"

#include "app/gl/gl_util.h"

#include <EGL/egl.h>
#include <EGL/eglext.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace slabcast::gl {

namespace {

// EGL_NV_device_cuda: eglext.h of older libglvnd releases may lack it.
#ifndef EGL_CUDA_DEVICE_NV
#define EGL_CUDA_DEVICE_NV 0x323A
#endif

constexpr EGLint kMaxDevices = 32;

struct EglDeviceApi {
  PFNEGLQUERYDEVICESEXTPROC query_devices = nullptr;
  PFNEGLQUERYDEVICESTRINGEXTPROC query_device_string = nullptr;
  PFNEGLQUERYDEVICEATTRIBEXTPROC query_device_attrib = nullptr;
  PFNEGLGETPLATFORMDISPLAYEXTPROC get_platform_display = nullptr;
};

template <typename T>
T egl_proc(const char* name) {
  return reinterpret_cast<T>(eglGetProcAddress(name));
}

EglDeviceApi load_device_api() {
  const char* client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  if (client == nullptr || std::strstr(client, "EGL_EXT_platform_device") == nullptr) {
    throw std::runtime_error("EGL has no device platform (EGL_EXT_platform_device); client extensions: " +
                             std::string(client ? client : "none"));
  }
  EglDeviceApi api;
  api.query_devices = egl_proc<PFNEGLQUERYDEVICESEXTPROC>("eglQueryDevicesEXT");
  api.query_device_string = egl_proc<PFNEGLQUERYDEVICESTRINGEXTPROC>("eglQueryDeviceStringEXT");
  api.query_device_attrib = egl_proc<PFNEGLQUERYDEVICEATTRIBEXTPROC>("eglQueryDeviceAttribEXT");
  api.get_platform_display = egl_proc<PFNEGLGETPLATFORMDISPLAYEXTPROC>("eglGetPlatformDisplayEXT");
  if (!api.query_devices || !api.query_device_string || !api.query_device_attrib || !api.get_platform_display) {
    throw std::runtime_error("EGL lacks eglQueryDevicesEXT / eglGetPlatformDisplayEXT");
  }
  return api;
}

bool has_extension(const char* list, const char* name) {
  if (list == nullptr) return false;
  const size_t n = std::strlen(name);
  for (const char* p = list; (p = std::strstr(p, name)) != nullptr; p += n) {
    if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return true;
  }
  return false;
}

struct Candidate {
  int index;
  EGLDeviceEXT device;
  int cuda_device;  // -1 unless EGL_NV_device_cuda
  bool software;
  std::string label;
};

std::string hex(EGLint value) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%04X", static_cast<unsigned>(value));
  return buf;
}

}  // namespace

EglContext::EglContext(int want_cuda_device) {
  const EglDeviceApi api = load_device_api();
  EGLDeviceEXT devices[kMaxDevices];
  EGLint count = 0;
  if (!api.query_devices(kMaxDevices, devices, &count) || count == 0) {
    throw std::runtime_error("EGL lists no devices (eglQueryDevicesEXT: " + hex(eglGetError()) + ")");
  }

  // Order the devices: the CUDA device's EGL device first (if asked for), then Mesa's software device, then the
  // rest in EGL's order.
  std::vector<Candidate> all;
  for (EGLint i = 0; i < count; ++i) {
    const char* extensions = api.query_device_string(devices[i], EGL_EXTENSIONS);
    Candidate c{static_cast<int>(i), devices[i], -1, has_extension(extensions, "EGL_MESA_device_software"), ""};
    EGLAttrib cuda = -1;
    if (has_extension(extensions, "EGL_NV_device_cuda") &&
        api.query_device_attrib(devices[i], EGL_CUDA_DEVICE_NV, &cuda)) {
      c.cuda_device = static_cast<int>(cuda);
    }
    c.label = "EGL device " + std::to_string(i) +
              (c.software ? " (Mesa software)"
                          : c.cuda_device >= 0 ? " (NVIDIA, CUDA device " + std::to_string(c.cuda_device) + ")" : "");
    all.push_back(c);
  }
  std::vector<Candidate> order;
  const char* forced = std::getenv("SLABCAST_EGL_DEVICE");
  if (forced != nullptr && std::strcmp(forced, "software") == 0) {
    for (const Candidate& c : all) if (c.software) order.push_back(c);
    if (order.empty()) throw std::runtime_error("SLABCAST_EGL_DEVICE=software but EGL lists no software device");
  } else if (forced != nullptr && *forced != '\0') {
    char* end = nullptr;
    const long index = std::strtol(forced, &end, 10);
    if (*end != '\0' || index < 0 || index >= count) {
      throw std::runtime_error("SLABCAST_EGL_DEVICE=" + std::string(forced) + ": expected 'software' or an index below " +
                               std::to_string(count));
    }
    order.push_back(all[static_cast<size_t>(index)]);
  } else {
    for (const Candidate& c : all) if (want_cuda_device >= 0 && c.cuda_device == want_cuda_device) order.push_back(c);
    for (const Candidate& c : all) if (c.software) order.push_back(c);
    for (const Candidate& c : all) {
      if (!(want_cuda_device >= 0 && c.cuda_device == want_cuda_device) && !c.software) order.push_back(c);
    }
  }

  std::string tried;
  for (const Candidate& c : order) {
    EGLDisplay display = api.get_platform_display(EGL_PLATFORM_DEVICE_EXT, c.device, nullptr);
    EGLint major = 0, minor = 0;
    if (display == EGL_NO_DISPLAY || !eglInitialize(display, &major, &minor)) {
      tried += "\n  " + c.label + ": eglInitialize failed (" + hex(eglGetError()) + ")";
      continue;
    }
    const char* extensions = eglQueryString(display, EGL_EXTENSIONS);
    if (!has_extension(extensions, "EGL_KHR_surfaceless_context")) {
      tried += "\n  " + c.label + ": no EGL_KHR_surfaceless_context";
      eglTerminate(display);
      continue;
    }
    // No surface at all: every frame goes into a framebuffer object. Mesa offers configless contexts
    // (EGL_KHR_no_config_context); NVIDIA wants a config, any pbuffer-capable one.
    EGLConfig config = EGL_NO_CONFIG_KHR;
    if (!has_extension(extensions, "EGL_KHR_no_config_context")) {
      const EGLint config_attribs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
                                       EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_NONE};
      EGLint configs = 0;
      if (!eglChooseConfig(display, config_attribs, &config, 1, &configs) || configs == 0) {
        tried += "\n  " + c.label + ": no OpenGL config";
        eglTerminate(display);
        continue;
      }
    }
    if (!eglBindAPI(EGL_OPENGL_API)) {
      tried += "\n  " + c.label + ": eglBindAPI(EGL_OPENGL_API) failed";
      eglTerminate(display);
      continue;
    }
    const EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, 5,
                                      EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
    EGLContext context = eglCreateContext(display, config, EGL_NO_CONTEXT, context_attribs);
    if (context == EGL_NO_CONTEXT) {
      tried += "\n  " + c.label + ": no OpenGL 4.5 core context (" + hex(eglGetError()) + ")";
      eglTerminate(display);
      continue;
    }
    if (!eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context)) {
      tried += "\n  " + c.label + ": eglMakeCurrent failed (" + hex(eglGetError()) + ")";
      eglDestroyContext(display, context);
      eglTerminate(display);
      continue;
    }
    try {
      const std::string gl = load_gl(reinterpret_cast<GLADloadfunc>(eglGetProcAddress));
      description_ = c.label + " | " + gl;
    } catch (const std::exception& e) {
      tried += "\n  " + c.label + ": " + e.what();
      eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
      eglDestroyContext(display, context);
      eglTerminate(display);
      continue;
    }
    display_ = display;
    context_ = context;
    on_cuda_device_ = want_cuda_device >= 0 && c.cuda_device == want_cuda_device;
    return;
  }
  throw std::runtime_error("no EGL device gives an OpenGL 4.5 core context:" + tried);
}

EglContext::~EglContext() {
  eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglDestroyContext(display_, context_);
  eglTerminate(display_);
}

}  // namespace slabcast::gl
