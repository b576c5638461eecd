// Overlapped launches: programmatic dependent launch (compute capability 9.0 and up). A kernel launched with it may
// start while the kernel before it in the stream is still finishing; it must not touch memory that earlier kernels
// write before wait_for_earlier_kernels(), which waits until the previous kernel has completed and its writes are
// visible. That previous kernel itself waited the same way, so the wait covers every earlier kernel of the chain.
//
// The rule for a kernel of such a chain: every block calls wait_for_earlier_kernels() before it reads or writes
// anything that an earlier kernel of the call writes or reads, and before it can exit (a block that exits without
// waiting lets its grid complete early). The kernels do not signal the next one early (griddepcontrol
// .launch_dependents): the next kernel's blocks are then scheduled as this kernel's blocks exit, not while they run.
// Signalled at the start of every kernel, the next kernel's blocks waited beside the resident grids (the cluster
// path's): 2^26 keys in segments of 2^16 took 0.71 ms against 0.47 without the signal and 0.50 without overlap.
// The segmented split's resident engine chains its launches this way: most of its kernels do little or nothing in a
// given call, and overlapped they cost less (2^20 u32 keys: segments of 2^16 0.075 -> 0.058 ms, of 2^8 0.076 ->
// 0.060).
#pragma once
#include <cuda_runtime.h>

#include <atomic>
#include <utility>

#include "prim/detail/core/error.h"

namespace prim {
namespace detail {

__device__ __forceinline__ void wait_for_earlier_kernels() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// The compute capability of the code that `kernel` runs on the current device: its PTX's where the device compiles
// that PTX (a PTX older than the binary's), else its binary's. An sm_80 build running on an H100 reports 80.
template <class Kernel>
cudaError_t kernel_code_arch(Kernel kernel, int& arch) {
  cudaFuncAttributes attributes{};
  PRIM_TRY(cudaFuncGetAttributes(&attributes, kernel));
  arch = attributes.ptxVersion > 0 && attributes.ptxVersion < attributes.binaryVersion ? attributes.ptxVersion
                                                                                      : attributes.binaryVersion;
  return cudaSuccess;
}

// Whether kKernel runs code of compute capability 9.0 or up on the current device, so that its waits exist: a build
// for an older architecture launches without overlap. The answer is kept per kernel and device (it cannot change in a
// process), because the attribute query costs about 0.85 us of host time and a one-sweep call asks twice.
template <auto kKernel>
cudaError_t kernel_waits_for_earlier_kernels(bool& waits) {
  constexpr int kKeptDevices = 64;                    // devices of higher ordinal ask every time
  static std::atomic<signed char> kept[kKeptDevices];  // 0: not asked yet, 1: no, 2: yes (zero-initialised)
  int device = 0;
  PRIM_TRY(cudaGetDevice(&device));
  const bool keeps = device >= 0 && device < kKeptDevices;
  if (keeps) {
    const signed char known = kept[device].load(std::memory_order_relaxed);
    if (known != 0) {
      waits = known == 2;
      return cudaSuccess;
    }
  }
  int arch = 0;
  PRIM_TRY(kernel_code_arch(kKernel, arch));
  waits = arch >= 90;
  if (keeps) kept[device].store(waits ? 2 : 1, std::memory_order_relaxed);
  return cudaSuccess;
}

// The launch attribute that overlaps a launch with the previous kernel.
inline cudaLaunchAttribute overlap_attribute() {
  cudaLaunchAttribute attribute;
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  return attribute;
}

// Launches kernel<<<grid, block, smem, stream>>>(args...), overlapped with the previous kernel when `overlap`.
template <class... Params, class... Args>
cudaError_t launch_overlapped(bool overlap, void (*kernel)(Params...), dim3 grid, dim3 block, size_t smem,
                              cudaStream_t stream, Args&&... args) {
  cudaLaunchAttribute attribute = overlap_attribute();
  cudaLaunchConfig_t config = {};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = smem;
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = overlap ? 1 : 0;
  return cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
}

}  // namespace detail
}  // namespace prim
