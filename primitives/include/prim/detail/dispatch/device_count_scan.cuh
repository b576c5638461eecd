// In-place exclusive sum of data[0, *count), where the count lives on the device and only its bound is known on the
// host: two launches on a fixed grid (block sums; then each block adds up the sums before it and scans its part
// again from there). A count of zero costs two nearly empty launches, where a scan sized by the bound would read and
// write all of it. The segmented split's tile engine and its large-segment path scan their count tables this way:
// only their plan kernels know how much of a table the call uses (often none of it).
// It reads its part twice and writes it once, against CUB's single pass: use it where the count is often far
// below the bound. (A third launch scanning the block sums would be one more launch that usually has nothing to do,
// about 3.5 us of GPU time and 3.8 of host time; there are at most 1024 sums, so each block adds up those before its
// own.)
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cub/block/block_load.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>

#include "prim/detail/core/bits.h"
#include "prim/detail/core/overlapped_launch.cuh"
#include "prim/detail/core/error.h"

namespace prim {
namespace detail {

struct DeviceCountScanPolicy {
  static constexpr int kThreads = 256;
  static constexpr int kItems = 8;
  static constexpr int kTile = kThreads * kItems;
  static constexpr int kMaxBlocks = 1024;  // each block adds up at most this many block sums

  // Blocks for a count of at most max_count.
  static int blocks(int64_t max_count) {
    return static_cast<int>(std::clamp<int64_t>(ceil_div(std::max<int64_t>(max_count, 1), int64_t{kTile}), 1,
                                                kMaxBlocks));
  }
};

// Block b's part of [0, count): whole tiles, the last part shorter.
__device__ __forceinline__ void device_count_scan_part(uint64_t count, uint64_t& begin, uint64_t& end) {
  constexpr uint64_t kTile = DeviceCountScanPolicy::kTile;
  const uint64_t per_block = (count + gridDim.x - 1) / gridDim.x;
  const uint64_t part = (per_block + kTile - 1) / kTile * kTile;
  begin = blockIdx.x * part < count ? blockIdx.x * part : count;
  end = begin + part < count ? begin + part : count;
}

template <class T>
__global__ void __launch_bounds__(DeviceCountScanPolicy::kThreads)
    device_count_scan_reduce_kernel(const T* __restrict__ data, const uint64_t* __restrict__ count, T* partials) {
  wait_for_earlier_kernels();  // first: overlapped_launch.cuh
  using Reduce = cub::BlockReduce<T, DeviceCountScanPolicy::kThreads>;
  __shared__ typename Reduce::TempStorage temp;
  uint64_t begin = 0, end = 0;
  device_count_scan_part(*count, begin, end);
  if (begin >= end) return;  // block-uniform: an empty part (the non-empty ones are a prefix of the blocks)
  T sum = 0;
  for (uint64_t i = begin + threadIdx.x; i < end; i += DeviceCountScanPolicy::kThreads) sum += data[i];
  sum = Reduce(temp).Sum(sum);
  if (threadIdx.x == 0) partials[blockIdx.x] = sum;
}

template <class T>
__global__ void __launch_bounds__(DeviceCountScanPolicy::kThreads)
    device_count_scan_down_kernel(T* data, const uint64_t* __restrict__ count, const T* __restrict__ partials) {
  wait_for_earlier_kernels();  // first: overlapped_launch.cuh
  using P = DeviceCountScanPolicy;
  using Load = cub::BlockLoad<T, P::kThreads, P::kItems, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using Store = cub::BlockStore<T, P::kThreads, P::kItems, cub::BLOCK_STORE_WARP_TRANSPOSE>;
  using Scan = cub::BlockScan<T, P::kThreads>;
  using Reduce = cub::BlockReduce<T, P::kThreads>;
  __shared__ union {
    typename Load::TempStorage load;
    typename Store::TempStorage store;
    typename Scan::TempStorage scan;
    typename Reduce::TempStorage reduce;
  } temp;
  __shared__ T base;
  uint64_t begin = 0, end = 0;
  device_count_scan_part(*count, begin, end);
  if (begin >= end) return;  // block-uniform: an empty part
  T before = 0;
  for (unsigned b = threadIdx.x; b < blockIdx.x; b += P::kThreads) before += partials[b];
  before = Reduce(temp.reduce).Sum(before);
  if (threadIdx.x == 0) base = before;
  __syncthreads();
  T running = base;
  for (uint64_t tile = begin; tile < end; tile += P::kTile) {
    const int valid = static_cast<int>(end - tile < P::kTile ? end - tile : P::kTile);
    T items[P::kItems];
    Load(temp.load).Load(data + tile, items, valid, T{0});
    __syncthreads();
    T aggregate = 0;
    Scan(temp.scan).ExclusiveSum(items, items, aggregate);
#pragma unroll
    for (int i = 0; i < P::kItems; ++i) items[i] += running;
    running += aggregate;
    __syncthreads();
    Store(temp.store).Store(data + tile, items, valid);
    __syncthreads();
  }
}

// Scratch: the blocks' sums.
template <class T>
size_t device_count_scan_partials(int64_t max_count) {
  return static_cast<size_t>(DeviceCountScanPolicy::blocks(max_count));
}

// data[i] = sum of data[0, i) for i < *d_count (<= max_count); data past the count is neither read nor written.
// overlap: both launches overlapped with the kernel before them (overlapped_launch.cuh).
template <class T>
cudaError_t device_count_exclusive_sum(T* data, const uint64_t* d_count, int64_t max_count, T* partials,
                                       cudaStream_t stream, bool overlap = false) {
  using P = DeviceCountScanPolicy;
  const int blocks = P::blocks(max_count);
  PRIM_TRY(launch_overlapped(overlap, device_count_scan_reduce_kernel<T>, blocks, P::kThreads, 0, stream, data,
                             d_count, partials));
  PRIM_TRY(launch_overlapped(overlap, device_count_scan_down_kernel<T>, blocks, P::kThreads, 0, stream, data, d_count,
                             static_cast<const T*>(partials)));
  return cudaSuccess;
}

}  // namespace detail
}  // namespace prim
