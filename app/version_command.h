// `slabcast --version`: the version, the commit it was built from, the CUDA runtime and driver, and the GPU (or that
// there is none and the cpu backend is used).
#pragma once
#include <iosfwd>

namespace slabcast {

int print_version(std::ostream& out);

}  // namespace slabcast
