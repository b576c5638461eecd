// The select / partition kernel: a one-line shim around the tile agent.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "prim/detail/agent/select_agent.cuh"
#include "prim/detail/core/item_count.h"

namespace prim {
namespace detail {

// One block a tile, by its index. Dynamic shared memory holds the agent's TempStorage (wide items need more than
// 48 KiB).
template <class Policy, SelectOutput OUT, class T, class Selector>
__global__ void __launch_bounds__(Policy::BLOCK_THREADS, Policy::MIN_BLOCKS)
    select_kernel(typename SelectAgent<Policy, OUT, T, Selector>::Io io, ItemCount n, Selector selector,
                  uint64_t* num_invalid) {
  using Agent = SelectAgent<Policy, OUT, T, Selector>;
  extern __shared__ __align__(16) unsigned char select_smem[];
  Agent::run(*reinterpret_cast<typename Agent::TempStorage*>(select_smem), io, n, selector, num_invalid);
}

}  // namespace detail
}  // namespace prim
