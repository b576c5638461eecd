#include "app/bench/environment.h"

#include "app/cli.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>

#ifndef SLABCAST_GIT_COMMIT
#define SLABCAST_GIT_COMMIT ""
#endif

namespace slabcast {
namespace {

std::string read_first_line(const std::string& path, const std::string& prefix = {}) {
  std::ifstream f(path);
  std::string line;
  while (std::getline(f, line)) {
    if (line.compare(0, prefix.size(), prefix) == 0) return line;
  }
  return {};
}

std::string version_text(int v) {  // CUDA's 13000 -> "13.0"
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

}  // namespace

BenchEnvironment gather_environment(Backend backend) {
  BenchEnvironment env;
  env.backend = to_string(backend);
  const char* commit = std::getenv("SLABCAST_GIT_COMMIT");
  env.git_commit = commit != nullptr && *commit != '\0' ? commit : SLABCAST_GIT_COMMIT;
  if (env.git_commit.empty()) env.git_commit = "unknown";
  char stamp[32];
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &utc);
  env.date = stamp;
  const std::string cpu = read_first_line("/proc/cpuinfo", "model name");
  const size_t colon = cpu.find(':');  // "model name\t: AMD EPYC ..."
  env.host = colon == std::string::npos ? "unknown" : cpu.substr(std::min(cpu.size(), colon + 2));

  int runtime = 0, driver = 0;
  if (cudaRuntimeGetVersion(&runtime) == cudaSuccess) env.cuda_runtime = version_text(runtime);
  if (cudaDriverGetVersion(&driver) == cudaSuccess && driver > 0) env.driver = "CUDA " + version_text(driver);
  (void)cudaGetLastError();
  // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.05  ..." or "... Open Kernel Module for x86_64
  // 580.159.04 ...": the driver's own version is the first word after "Module" made of digits and dots.
  const std::string nvrm = read_first_line("/proc/driver/nvidia/version", "NVRM");
  const size_t module = nvrm.find("Module");
  if (module != std::string::npos) {
    std::istringstream words(nvrm.substr(module + 6));
    std::string word;
    while (words >> word) {
      const bool version_like = std::isdigit(static_cast<unsigned char>(word[0])) &&
                                word.find('.') != std::string::npos &&
                                word.find_first_not_of("0123456789.") == std::string::npos;
      if (version_like) {
        env.driver = word + (env.driver.empty() ? "" : " (" + env.driver + ")");
        break;
      }
    }
  }
  if (env.driver.empty()) env.driver = "none";
  if (backend == Backend::cuda) {
    int device = 0;
    cudaDeviceProp prop{};
    if (cudaGetDevice(&device) == cudaSuccess && cudaGetDeviceProperties(&prop, device) == cudaSuccess) {
      env.gpu = prop.name;
    }
    (void)cudaGetLastError();
  }
  if (env.gpu.empty()) env.gpu = "none (cpu backend)";
  return env;
}

}  // namespace slabcast
