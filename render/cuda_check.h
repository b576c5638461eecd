// Checking every CUDA runtime call and launch in render/: a failure throws std::runtime_error naming the call,
// the file and the line (style.md 9). The primitives return cudaError_t; the same macro checks those.
#pragma once
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace slabcast::detail {

inline void check_cuda(cudaError_t status, const char* what, const char* file, int line) {
  if (status == cudaSuccess) return;
  throw std::runtime_error(std::string("slabcast: CUDA error in ") + what + " at " + file + ":" +
                           std::to_string(line) + ": " + cudaGetErrorName(status) + " (" +
                           cudaGetErrorString(status) + ")");
}

}  // namespace slabcast::detail

// Variadic so that a call with template arguments (commas) needs no extra parentheses.
#define SLABCAST_CUDA_CHECK(...) ::slabcast::detail::check_cuda((__VA_ARGS__), #__VA_ARGS__, __FILE__, __LINE__)
// After a <<<...>>> launch: the launch error (bad configuration, missing kernel image), named after the kernel.
#define SLABCAST_CUDA_CHECK_LAUNCH(kernel) \
  ::slabcast::detail::check_cuda(cudaGetLastError(), "launch of " #kernel, __FILE__, __LINE__)
