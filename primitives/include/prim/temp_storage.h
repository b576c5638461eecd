// Two-phase caller-provided scratch memory (CUB's convention).
//
//   size_t bytes = 0;
//   prim::split(nullptr, bytes, ...);        // size query: only `bytes` is written, nothing runs
//   cudaMalloc(&temp, bytes);
//   prim::split(temp, bytes, ...);           // the call: stream-ordered, no allocation, no host sync
//
// Inside the library a call carves its blob with TempCarver: the same sequence of take() calls runs in the
// size query and in the real call, so the two cannot disagree.
#pragma once
#include "prim/detail/core/temp_storage.h"
