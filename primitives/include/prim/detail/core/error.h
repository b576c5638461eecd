// Error handling inside the library: every call returns cudaError_t (the library never throws or exits).
#pragma once
#include <cuda_runtime.h>

// Evaluate a cudaError_t expression; return it from the enclosing function if it is not cudaSuccess.
#define PRIM_TRY(expr)                                   \
  do {                                                   \
    const cudaError_t prim_try_status_ = (expr);         \
    if (prim_try_status_ != cudaSuccess) return prim_try_status_; \
  } while (0)

// After a <<<...>>> launch: return the launch error, if any.
#define PRIM_TRY_LAUNCH() PRIM_TRY(cudaGetLastError())
