// SLABCAST_TEST_QUICK=1, set by scripts/gpu-check.sh for its compute-sanitizer runs (the tools slow kernels down
// 10-100x, racecheck more): gpu tests leave out the inputs whose point is size. Every named property still runs,
// on small inputs, so the sanitizers see every kernel and every code path.
#pragma once
#include <cstdlib>
#include <cstring>

namespace slabtest {

inline bool quick_mode() {
  const char* q = std::getenv("SLABCAST_TEST_QUICK");
  return q != nullptr && *q != '\0' && std::strcmp(q, "0") != 0;
}

}  // namespace slabtest
