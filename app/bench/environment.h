// Where a benchmark ran: backend, GPU, driver, CUDA runtime, OpenGL, commit, date and host CPU (the JSON's
// "environment").
#pragma once
#include "render/renderer.h"

#include <string>

namespace slabcast {

struct BenchEnvironment {
  std::string backend, gpu, driver, cuda_runtime, gl, git_commit, date, host;
};

// Everything but `gl` (the bench fills that in once it has a context). The driver is the kernel module's version
// (/proc/driver/nvidia/version) with the CUDA driver API version beside it; "none" without a driver. The commit
// is SLABCAST_GIT_COMMIT from the environment, else the one the binary was configured at, else "unknown".
BenchEnvironment gather_environment(Backend backend);

}  // namespace slabcast
