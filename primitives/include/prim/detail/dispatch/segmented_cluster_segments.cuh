// The segmented split's path for segments of a thread-block cluster's size: a cluster of kClusterBlocks blocks
// splits a segment of up to kClusterBlocks tiles, a tile a block, and reads every record once.
//
// Why. The large-segment path (segmented_large_segments.cuh) reads every record from DRAM twice, in its upsweep and
// in its downsweep. A segment of at most kClusterBlocks tiles needs no upsweep: each block loads its tile and ranks
// it (the split engine's one-sweep tile, agent/split_downsweep_agent.cuh); as soon as the ranker knows the tile's
// bucket counts, the block puts them in its shared memory, and the cluster's blocks read each other's through
// distributed shared memory (ClusterBases). A block's base for bucket d is then the segment's start + the segment's
// records of the buckets before d + the earlier blocks' records of d, and the block scatters its tile.
//
// Which segments. More than W records (the tile engine's bound: it leaves such segments out, and W is also the
// large-segment path's window) and at most kClusterBlocks tiles, with <= 256 buckets, where the kernel's code has
// clusters (compute capability 9.0 and up); longer ones stay the large-segment path's. The input is cut into windows
// of W records. Such a segment is longer than a window, so at most one starts in each window, and it holds the
// window's last record: a plan kernel (a warp a window) lists them, and a resident grid of clusters takes the list's
// segments in turn.
//
// Shape (H100, 2^26 u32 keys, 256 buckets, segments of 2^16): a resident grid of clusters over the list, 8 blocks of
// 384 x 16 records a cluster. A cluster a window, a cluster a listed segment, 16 blocks of 384 x 11, prefetching the
// next segment's tile (into L2, or into shared memory by cp.async) and prefetching the list were equal or slower.
// The kernel is latency-bound (0.38 instructions issued a cycle and scheduler, 29 of 64 warps active); the cluster
// exchange is 6% of it. The clean tile's bucket test (no upsweep counted the invalid records) runs on the loaded
// keys; a functor that declares its buckets in range and puts the all-ones key in the last bucket (prim::KeyBits with
// 2^bits buckets) gets a kernel whose every tile is padded: no test, and no out-of-line tile.
#pragma once
#include <cuda_runtime.h>

#include <cooperative_groups.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <cub/block/block_scan.cuh>
#include <limits>

#include "prim/detail/core/bits.h"
#include "prim/detail/core/overlapped_launch.cuh"
#include "prim/detail/dispatch/segmented_large_segments.cuh"
#include "prim/detail/kernels/split_kernels.cuh"
#include "prim/detail/core/error.h"
#include "prim/detail/core/key_bits.h"
#include "prim/detail/core/temp_storage.h"

namespace prim {
namespace detail {

// Blocks a cluster: the largest portable cluster size.
constexpr int kClusterBlocks = 8;

// 512 threads x 16 records, two blocks an SM (__launch_bounds__ caps registers at 64): a segment of 2^16 four-byte
// keys (the benchmark's) is a tile for each block of the cluster.
template <class KeyT, class ValueT>
using ClusterSegmentPolicy =
    SplitTilePolicy<8, 512,
                    split_items_per_thread(512, sizeof(KeyT) > sizeof(ValueT) ? sizeof(KeyT) : sizeof(ValueT), 16), 2,
                    2>;

// The split engine's choices for the path's tiles: CUB's one-sweep tile (a block ranks one tile at a time, with the
// details split_downsweep_agent.cuh ties to that shape) and plain loads, as the LSD one-sweep passes take.
struct ClusterSegmentPartition {
  static constexpr bool kOneTilePerBlock = true;
  static constexpr bool kPlainLoads = true;
};

// The segments the path takes, listed by the plan kernel (in no particular order: each is split on its own).
struct ClusterSegmentList {
  int64_t* segments;          // [windows]
  unsigned long long* count;  // a word of the caller's, zeroed before the plan kernel
};

// Where the cluster segments lie.
struct ClusterSegmentLocator {
  const uint64_t* offsets;  // [num_segments + 1]
  int64_t num_segments;
  int64_t max_items;
  int64_t window;       // W: a cluster segment has more records than this
  int64_t max_records;  // and at most this many

  // The cluster segment that starts in window j, or -1. Warp-cooperative: every lane gets it.
  __device__ __forceinline__ int64_t find(int64_t j) const {
    if (!segmented_input_ok(offsets, num_segments, max_items)) return -1;
    const uint64_t total = offsets[num_segments];
    const uint64_t x0 = static_cast<uint64_t>(j) * static_cast<uint64_t>(window);
    if (x0 >= total) return -1;
    const uint64_t x1 = x0 + window < total ? x0 + window : total;
    const int64_t s = warp_upper_bound(offsets, num_segments + 1, x1 - 1) - 1;  // holds x1 - 1
    const uint64_t start = offsets[s];
    const uint64_t size = offsets[s + 1] - start;
    const bool ours = start >= x0 && size > static_cast<uint64_t>(window) && size <= static_cast<uint64_t>(max_records);
    return ours ? s : -1;
  }
};

constexpr int kClusterPlanWarps = 8;
static __global__ void __launch_bounds__(kClusterPlanWarps * 32)
    cluster_segment_plan_kernel(ClusterSegmentLocator locator, int64_t windows, ClusterSegmentList list) {
  wait_for_earlier_kernels();  // first: overlapped_launch.cuh
  const int64_t j = (int64_t{blockIdx.x} * blockDim.x + threadIdx.x) / 32;
  if (j >= windows) return;  // warp-uniform
  const int64_t s = locator.find(j);
  if (s >= 0 && (threadIdx.x & 31) == 0) list.segments[atomicAdd(list.count, 1ull)] = s;
}

#if defined(_CG_HAS_CLUSTER_GROUP)
// The split engine's bases hook (split_bases.cuh; split_downsweep_agent.cuh, split_tile) for a tile of a cluster
// segment: publish() puts the tile's counts where the cluster reads them, resolve() gathers the cluster's. Every block
// of the cluster takes part, one with no tile of the segment through idle(); the last barrier's wait is the caller's
// (finish()), so that no block reuses or leaves its shared memory while another still reads it.
template <int THREADS, int RADIX_DIGITS>
struct ClusterBases {
  using BucketScan = cub::BlockScan<uint32_t, THREADS>;
  struct Shared {
    uint32_t tile_counts[RADIX_DIGITS];  // this block's tile, by bucket: the cluster's blocks read it
    typename BucketScan::TempStorage scan;
  };
  Shared& shared;
  uint64_t segment_start;
  uint64_t segment_size;
  int64_t bucket_offsets_row;  // segment * num_buckets
  uint64_t* bucket_offsets;    // may be null
  uint64_t* num_invalid;       // may be null

  template <int BINS>
  __device__ __forceinline__ void publish(const int (&real)[BINS], uint32_t num_buckets) const {
#pragma unroll
    for (int t = 0; t < BINS; ++t) {
      const uint32_t d = threadIdx.x * BINS + t;
      if (d < num_buckets) shared.tile_counts[d] = static_cast<uint32_t>(real[t]);
    }
  }

  template <int BINS>
  __device__ __forceinline__ void resolve(const int (&)[BINS], uint64_t (&base)[BINS], uint32_t num_buckets) const {
    namespace cg = cooperative_groups;
    const cg::cluster_group cluster = cg::this_cluster();
    const int rank = static_cast<int>(cluster.block_rank());
    cluster.sync();  // every block's counts are published (release / acquire at cluster scope)
    uint32_t total[BINS], before[BINS];
#pragma unroll
    for (int t = 0; t < BINS; ++t) {
      const uint32_t d = threadIdx.x * BINS + t;
      total[t] = before[t] = 0;
      if (d < num_buckets) {
#pragma unroll
        for (int r = 0; r < kClusterBlocks; ++r) {
          const uint32_t v = cluster.map_shared_rank(shared.tile_counts, r)[d];
          total[t] += v;
          before[t] += r < rank ? v : 0;
        }
      }
    }
    cluster.barrier_arrive();  // done with the other blocks' memory; finish() waits for theirs
    uint32_t thread_total = 0;
#pragma unroll
    for (int t = 0; t < BINS; ++t) thread_total += total[t];
    uint32_t running = 0, valid = 0;
    BucketScan(shared.scan).ExclusiveSum(thread_total, running, valid);
#pragma unroll
    for (int t = 0; t < BINS; ++t) {
      const uint32_t d = threadIdx.x * BINS + t;
      base[t] = segment_start + running + before[t];
      if (rank == 0 && bucket_offsets != nullptr && d < num_buckets) {
        bucket_offsets[bucket_offsets_row + d] = segment_start + running;
      }
      running += total[t];
    }
    if (rank == 0 && threadIdx.x == 0 && num_invalid != nullptr && valid < segment_size) {
      atomicAdd(reinterpret_cast<unsigned long long*>(num_invalid),
                static_cast<unsigned long long>(segment_size - valid));
    }
  }

  // A block with no tile of the segment: no records, the same barriers.
  __device__ __forceinline__ void idle(uint32_t num_buckets) const {
    for (uint32_t d = threadIdx.x; d < num_buckets; d += THREADS) shared.tile_counts[d] = 0;
    cooperative_groups::this_cluster().sync();
    cooperative_groups::this_cluster().barrier_arrive();
  }

  // After the tile's scatter: the cluster's blocks are done reading this block's counts, and this block's threads
  // with the tile's shared memory.
  __device__ __forceinline__ static void finish() {
    cooperative_groups::this_cluster().barrier_wait();
    __syncthreads();
  }
};
#endif

// kPadEveryTile: every tile, full or not, is a padded tile (split_downsweep_agent.cuh), with no bucket test and no
// out-of-line tile: for a functor that declares its buckets in range and puts the all-ones key in the last bucket
// (pads_every_cluster_tile). Otherwise a full tile tests its buckets and the others go out of line.
template <class Policy, SplitOutput OUT, class KeyT, class ValueT, class BucketOp, bool kPadEveryTile>
struct ClusterSegmentSplit {
  using Split = SplitDownsweepAgent<Policy, OUT, KeyT, ValueT, BucketOp, ClusterSegmentPartition>;
  using Io = SplitIo<KeyT, ValueT, BucketOp>;
  static constexpr int THREADS = Policy::BLOCK_THREADS;
  static constexpr int TILE = Policy::TILE_ITEMS;
#if defined(_CG_HAS_CLUSTER_GROUP)
  using Bases = ClusterBases<THREADS, Policy::RADIX_DIGITS>;
#endif

  struct TempStorage {
    typename Split::TempStorage split;
#if defined(_CG_HAS_CLUSTER_GROUP)
    typename Bases::Shared cluster;
#endif
  };

#if defined(_CG_HAS_CLUSTER_GROUP)
  // A partial tile, or a full one with an out-of-range bucket. Out of line: inlined, its registers made the kernel
  // spill more (ptxas, u32 keys only / u32 pairs: 176 / 620 bytes a thread, out of line 64 / 100).
  __device__ __noinline__ static void split_other_tile(typename Split::TempStorage& temp, const Io& io,
                                                       int64_t tile_base, int in_tile, const Bases& bases) {
    uint64_t base[Split::BINS];
    if constexpr (PadsWithAllOnes<BucketOp>::value) {
      Split::template split_tile<TileKind::padded>(temp, io, tile_base, in_tile, base, bases);
    } else {
      Split::template split_tile<TileKind::general>(temp, io, tile_base, in_tile, base, bases);
    }
  }

  __device__ __forceinline__ static void run(TempStorage& temp, const Io& io, const uint64_t* __restrict__ offsets,
                                             ClusterSegmentList list, uint64_t* bucket_offsets,
                                             uint64_t* num_invalid) {
    namespace cg = cooperative_groups;
    const cg::cluster_group cluster = cg::this_cluster();
    const int rank = static_cast<int>(cluster.block_rank());
    const int64_t clusters = gridDim.x / kClusterBlocks;
    const int64_t listed = static_cast<int64_t>(*list.count);
    for (int64_t i = blockIdx.x / kClusterBlocks; i < listed; i += clusters) {  // cluster-uniform
      const int64_t s = list.segments[i];
      const uint64_t start = offsets[s];
      const int64_t size = static_cast<int64_t>(offsets[s + 1] - start);
      const Bases bases{temp.cluster, start, static_cast<uint64_t>(size), s * int64_t{io.num_buckets},
                        bucket_offsets, num_invalid};
      const int64_t tile_base = static_cast<int64_t>(start) + int64_t{rank} * TILE;
      const int64_t remaining = static_cast<int64_t>(start) + size - tile_base;
      if constexpr (kPadEveryTile) {
        if (remaining > 0) {  // block-uniform
          uint64_t base[Split::BINS];  // resolve() sets them
          Split::template split_tile<TileKind::padded>(temp.split, io, tile_base,
                                                       static_cast<int>(remaining < TILE ? remaining : TILE), base,
                                                       bases);
        } else {
          bases.idle(io.num_buckets);
        }
      } else if (remaining > 0) {  // block-uniform
        // No upsweep said whether the tile's buckets are all valid: the clean tile tests them on its loaded keys (a
        // separate test that loaded them took 8% of the call) and gives way to the general one.
        constexpr bool kCheck = !PadsWithAllOnes<BucketOp>::value;
        bool split = false;
        if (remaining >= TILE) {
          uint64_t base[Split::BINS];  // resolve() sets them
          split = Split::template split_tile<TileKind::clean, kCheck>(temp.split, io, tile_base, TILE, base, bases);
        }
        if (!split) {
          split_other_tile(temp.split, io, tile_base, static_cast<int>(remaining < TILE ? remaining : TILE), bases);
        }
      } else {
        bases.idle(io.num_buckets);
      }
      Bases::finish();
    }
  }
#endif
};

template <class Policy, SplitOutput OUT, class KeyT, class ValueT, class BucketOp, bool kPadEveryTile>
static __global__ void __launch_bounds__(Policy::BLOCK_THREADS, Policy::MIN_BLOCKS)
    cluster_segment_split_kernel(SplitIo<KeyT, ValueT, BucketOp> io, const uint64_t* offsets, ClusterSegmentList list,
                                 uint64_t* bucket_offsets, uint64_t* num_invalid) {
  wait_for_earlier_kernels();  // first: overlapped_launch.cuh
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  using Agent = ClusterSegmentSplit<Policy, OUT, KeyT, ValueT, BucketOp, kPadEveryTile>;
  extern __shared__ __align__(16) unsigned char cluster_smem[];
  Agent::run(*reinterpret_cast<typename Agent::TempStorage*>(cluster_smem), io, offsets, list, bucket_offsets,
             num_invalid);
#else
  __trap();  // not launched: the host takes this path only where the kernel's code has clusters (ClusterSegmentPath)
#endif
}

// The path's host side for one record type and tile choice.
template <SplitOutput OUT, class KeyT, class ValueT, class BucketOp, bool kPadEveryTile = false>
struct ClusterSegmentPath {
  using Policy = ClusterSegmentPolicy<KeyT, ValueT>;
  using Key = KeyT;
  using Value = ValueT;
  using BucketFunctor = BucketOp;
  static constexpr int64_t kMaxRecords = int64_t{kClusterBlocks} * Policy::TILE_ITEMS;
  static constexpr size_t kSmem =
      sizeof(typename ClusterSegmentSplit<Policy, OUT, KeyT, ValueT, BucketOp, kPadEveryTile>::TempStorage);

  static auto kernel() { return cluster_segment_split_kernel<Policy, OUT, KeyT, ValueT, BucketOp, kPadEveryTile>; }

  // Whether any segment can be the path's: one of more than `window` records and at most kMaxRecords, <= 256 buckets.
  static bool applies(int64_t max_items, int64_t window, uint32_t num_buckets) {
    return num_buckets <= 256 && kMaxRecords > window && max_items > window;
  }

  // attrs[0]: the cluster shape; attrs[1], with `overlap`: the launch overlapped with the previous kernel.
  static cudaLaunchConfig_t config(int clusters, cudaStream_t stream, cudaLaunchAttribute (&attrs)[2],
                                   bool overlap = false) {
    attrs[0].id = cudaLaunchAttributeClusterDimension;
    attrs[0].val.clusterDim.x = kClusterBlocks;
    attrs[0].val.clusterDim.y = 1;
    attrs[0].val.clusterDim.z = 1;
    attrs[1] = overlap_attribute();
    cudaLaunchConfig_t c = {};
    c.gridDim = dim3(static_cast<unsigned>(clusters * kClusterBlocks));
    c.blockDim = dim3(Policy::BLOCK_THREADS);
    c.dynamicSmemBytes = kSmem;
    c.stream = stream;
    c.attrs = attrs;
    c.numAttrs = overlap ? 2 : 1;
    return c;
  }

  // The clusters the device keeps resident, or 0 where the path cannot run: the kernel's code was built for a compute
  // capability below 9.0 (an sm_80 build running on an H100 too), or no cluster of its blocks fits. Host queries, no
  // synchronisation.
  static cudaError_t resident_clusters(int& clusters) {
    clusters = 0;
    int arch = 0;
    PRIM_TRY(kernel_code_arch(kernel(), arch));
    if (arch < 90) return cudaSuccess;
    if (kSmem > 48 * 1024) {
      PRIM_TRY(cudaFuncSetAttribute(kernel(), cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kSmem)));
    }
    if (kClusterBlocks > 8) PRIM_TRY(cudaFuncSetAttribute(kernel(), cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    cudaLaunchAttribute attrs[2];
    const cudaLaunchConfig_t c = config(1, nullptr, attrs);
    return cudaOccupancyMaxActiveClusters(&clusters, kernel(), &c);
  }
};

// Scratch of the path for one call: the list of its segments, a window each at most.
struct ClusterSegmentScratch {
  int64_t windows = 0;  // 0: the path is off
  ClusterSegmentList list{};
};

template <SplitOutput OUT, class KeyT, class ValueT, class BucketOp>
void carve_cluster_segment_scratch(TempCarver& carver, int64_t max_items, int64_t window, uint32_t num_buckets,
                                   unsigned long long* count, ClusterSegmentScratch& out) {
  out = ClusterSegmentScratch{};
  if (!ClusterSegmentPath<OUT, KeyT, ValueT, BucketOp>::applies(max_items, window, num_buckets)) return;
  out.windows = ceil_div(max_items, window);
  out.list.segments = carver.take<int64_t>(static_cast<size_t>(out.windows));
  out.list.count = count;
}

// The path's split kernel on `resident` clusters at most, its tiles as Path chooses (Path::kernel()).
template <class Path>
cudaError_t launch_cluster_segment_kernel(
    const SplitIo<typename Path::Key, typename Path::Value, typename Path::BucketFunctor>& io,
    const uint64_t* d_segment_offsets, ClusterSegmentList list, int64_t windows, int resident,
    uint64_t* d_bucket_offsets, cudaStream_t stream, uint64_t* d_num_invalid, bool overlap) {
  const int clusters = static_cast<int>(std::min<int64_t>(resident, windows));
  cudaLaunchAttribute attrs[2];
  const cudaLaunchConfig_t c = Path::config(clusters, stream, attrs, overlap);
  return cudaLaunchKernelEx(&c, Path::kernel(), io, d_segment_offsets, list, d_bucket_offsets, d_num_invalid);
}

// Every tile of the call can be padded (kPadEveryTile) when no record can be invalid, by the functor's declared bound
// (prim/key_bits.h), and the all-ones key falls in the last bucket, so that the padding ranks after every real
// record (prim::KeyBits with num_buckets = 2^bits). The functor runs on the host here: the API asks for
// __host__ __device__ functors.
template <class KeyT, class BucketOp>
bool pads_every_cluster_tile(const BucketOp& bucket_of, uint32_t num_buckets) {
  if (!buckets_declared_in_range(bucket_of, num_buckets)) return false;
  KeyT all_ones_key;
  std::memset(&all_ones_key, 0xFF, sizeof(KeyT));
  return static_cast<uint32_t>(bucket_of(all_ones_key)) == num_buckets - 1;
}

// The path's launches; `taken` says whether it runs (the large-segment path then leaves its segments out).
// With every tile padded (a declared bound) the call is about 10% faster than with the bucket test and the
// out-of-line tile (2^26 u32 keys in segments of 2^16).
template <SplitOutput OUT, class KeyT, class ValueT, class BucketOp>
cudaError_t launch_cluster_segment_split(const ClusterSegmentScratch& scratch, const KeyT* keys_in, KeyT* keys_out,
                                         const ValueT* values_in, ValueT* values_out,
                                         const uint64_t* d_segment_offsets, int64_t num_segments, int64_t max_items,
                                         int64_t window, uint32_t num_buckets, BucketOp bucket_of,
                                         uint64_t* d_bucket_offsets, cudaStream_t stream, uint64_t* d_num_invalid,
                                         bool overlap, bool& taken) {
  using Path = ClusterSegmentPath<OUT, KeyT, ValueT, BucketOp>;
  taken = false;
  if (scratch.windows == 0) return cudaSuccess;
  int resident = 0;
  PRIM_TRY(Path::resident_clusters(resident));
  if (resident == 0) return cudaSuccess;
  taken = true;
  const ClusterSegmentLocator locator{d_segment_offsets, num_segments, max_items, window, Path::kMaxRecords};
  const unsigned plan_blocks = static_cast<unsigned>(ceil_div(scratch.windows, int64_t{kClusterPlanWarps}));
  PRIM_TRY(launch_overlapped(overlap, cluster_segment_plan_kernel, plan_blocks, kClusterPlanWarps * 32, 0, stream,
                             locator, scratch.windows, scratch.list));
  const SplitIo<KeyT, ValueT, BucketOp> io{keys_in, keys_out, values_in, values_out, num_buckets, bucket_of};
  if constexpr (DeclaresBucketBound<BucketOp>::value) {  // the padded kernel exists only for such functors
    if (pads_every_cluster_tile<KeyT>(bucket_of, num_buckets)) {
      using Padded = ClusterSegmentPath<OUT, KeyT, ValueT, BucketOp, true>;
      int padded_resident = 0;
      PRIM_TRY(Padded::resident_clusters(padded_resident));
      if (padded_resident > 0) {
        return launch_cluster_segment_kernel<Padded>(io, d_segment_offsets, scratch.list, scratch.windows,
                                                     padded_resident, d_bucket_offsets, stream, d_num_invalid,
                                                     overlap);
      }
    }
  }
  return launch_cluster_segment_kernel<Path>(io, d_segment_offsets, scratch.list, scratch.windows, resident,
                                             d_bucket_offsets, stream, d_num_invalid, overlap);
}

}  // namespace detail
}  // namespace prim
