// Error convention of the library: every call returns cudaError_t; the library never throws or exits.
// PRIM_TRY(expr) returns a failed status from the enclosing function; PRIM_TRY_LAUNCH() does so for the last launch.
#pragma once
#include "prim/detail/core/error.h"
