#include "app/version_command.h"

#include "app/bench/environment.h"
#include "app/cli.h"

#include <cuda_runtime.h>

#include <ostream>
#include <thread>

#ifndef SLABCAST_VERSION
#define SLABCAST_VERSION "unknown"
#endif

namespace slabcast {

int print_version(std::ostream& out) {
  int devices = 0;
  const bool cuda = cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0;
  (void)cudaGetLastError();  // no device: the sticky "no device" error is no failure here
  const BenchEnvironment env = gather_environment(cuda ? Backend::cuda : Backend::cpu);
  out << "slabcast " << SLABCAST_VERSION << " (commit " << env.git_commit << ")\n"
      << "CUDA runtime " << (env.cuda_runtime.empty() ? std::string("unknown") : env.cuda_runtime) << ", driver "
      << env.driver << "\n";
  if (cuda) {
    out << "GPU " << env.gpu << " (the cuda backend)\n";
  } else {
    out << "GPU none usable: the cpu backend renders, on " << std::thread::hardware_concurrency() << " cores ("
        << env.host << ")\n";
  }
  return kExitOk;
}

}  // namespace slabcast
