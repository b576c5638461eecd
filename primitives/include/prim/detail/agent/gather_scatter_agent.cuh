// The gather / scatter kernel: a group of lanes per record, several records in flight per group.
//
// Layout of one block's tile (kBlockThreads threads, G = group lanes, U = records per group):
//   group g = threadIdx.x / G, lane = threadIdx.x % G; the block's tile holds (kBlockThreads / G) * U records;
//   record u*(kBlockThreads/G) + g of the tile belongs to group g, so consecutive groups take consecutive
//   records (map loads coalesce, and so do the sequential side's record accesses).
// Phases per tile: load U map entries and validate them / for each G-vector chunk of the records: issue all U
// loads, then all U stores / count invalid entries (one atomic per warp at most).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <limits>
#include <type_traits>

namespace prim::detail {

// Tuning (see style.md: tuning is data).
struct GatherScatterPolicy {
  static constexpr int kBlockThreads = 256;
  static constexpr int kRecordsPerGroup = 4;  // records in flight per group of lanes (memory-level parallelism)
  static constexpr int kMaxGroupLanes = 32;   // at most one warp per record; wider records loop over chunks
  static constexpr int kMaxVectorBytes = 16;  // LDG.128 / STG.128
  // The sequential side (gather's output, scatter's input) is touched once: evict-first loads / stores keep it
  // from displacing the random side's lines in L2.
  static constexpr bool kStreamingHints = true;
  // The kernel is at a plateau of its shape (H100, 2^26, 64-byte records): evict-first map or random-side loads,
  // 2 / 3 / 6 records a group, no streaming hints, 128 or 512 threads, and a resident grid looping over the tiles
  // were all equal or slower.
  static constexpr bool kStreamMapLoads = false;     // the map, read once, with evict-first loads too
  static constexpr bool kStreamRandomLoads = false;  // gather's random side with evict-first loads
  // The random side uses plain loads: on the H100 (64-byte records, 2^26) __ldg was equal, and L1::no_allocate
  // (+8%) or an L2::64B / L2::128B prefetch size (+8% / +23%) were slower; so were 8 records in flight per group
  // (+35%) and blocks of 128 or 512 threads (equal or slower). The 64-byte gather's traffic issued with no store
  // waiting for any load takes as long as this kernel (the bench's gather floor), so the way of issuing the accesses
  // does not set the time; the DRAM's mix of reads and writes does.
};

template <class Policy, typename Vec>
__device__ __forceinline__ Vec load_vector(const Vec* p, bool streaming) {
  if constexpr (Policy::kStreamingHints) {
    if (streaming) return __ldcs(p);
  }
  return *p;
}
template <class Policy, typename Vec>
__device__ __forceinline__ void store_vector(Vec* p, const Vec& v, bool streaming) {
  if constexpr (Policy::kStreamingHints) {
    if (streaming) {
      __stcs(p, v);
      return;
    }
  }
  *p = v;
}

// A map entry as a signed 64-bit index; unsigned values above INT64_MAX become -1 (invalid).
template <typename Index>
__device__ __forceinline__ int64_t map_entry_as_index(Index v) {
  if constexpr (std::is_unsigned_v<Index> && sizeof(Index) == 8) {
    return v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ? -1 : static_cast<int64_t>(v);
  } else {
    return static_cast<int64_t>(v);
  }
}

struct GatherScatterArgs {
  int64_t max_n;            // host upper bound of the record count
  const uint64_t* d_n;      // device count (nullptr: max_n is the count)
  int64_t bound;            // in_size (gather) or out_size (scatter): valid map entries lie in [0, bound)
  int64_t window_lo;        // scatter pass window [window_lo, window_hi) of destinations; gather: [0, bound)
  int64_t window_hi;
  uint32_t vectors_per_record;
  uint32_t log_group_lanes;
  uint64_t* d_num_invalid;  // nullptr: not counted; counted only by the pass with count_invalid set
  bool count_invalid;
};

template <class Policy, typename Vec, typename Index, bool kScatter>
__global__ void __launch_bounds__(Policy::kBlockThreads)
    gather_scatter_kernel(const Vec* __restrict__ d_in, Vec* __restrict__ d_out, const Index* __restrict__ d_map,
                          GatherScatterArgs args) {
  using P = Policy;
  constexpr int U = P::kRecordsPerGroup;
  int64_t n = args.max_n;
  if (args.d_n) {
    // A device count above the host bound (ItemCount's contract): write nothing, count everything invalid.
    const uint64_t device_n = *args.d_n;
    if (device_n > static_cast<uint64_t>(args.max_n)) {
      if (blockIdx.x == 0 && threadIdx.x == 0 && args.d_num_invalid && args.count_invalid) {
        atomicAdd(reinterpret_cast<unsigned long long*>(args.d_num_invalid), static_cast<unsigned long long>(device_n));
      }
      return;
    }
    n = static_cast<int64_t>(device_n);
  }
  const int groups_per_block = P::kBlockThreads >> args.log_group_lanes;
  const int64_t tile_base = static_cast<int64_t>(blockIdx.x) * groups_per_block * U;
  if (tile_base >= n) return;  // block-uniform, so the warp collectives below see every lane

  const int group = threadIdx.x >> args.log_group_lanes;
  const uint32_t lane = threadIdx.x & ((1u << args.log_group_lanes) - 1);
  const uint32_t vpr = args.vectors_per_record;

  // ---- map entries: which records move, from where to where ----
  int64_t from[U], to[U];
  bool moves[U];
  uint32_t invalid = 0;
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const int64_t i = tile_base + static_cast<int64_t>(u) * groups_per_block + group;
    const bool in_range = i < n;
    const int64_t idx = in_range ? map_entry_as_index(P::kStreamMapLoads ? __ldcs(d_map + i) : d_map[i]) : -1;
    const bool valid = in_range && idx >= 0 && idx < args.bound;
    invalid += (in_range && !valid && lane == 0) ? 1u : 0u;
    moves[u] = valid && idx >= args.window_lo && idx < args.window_hi;
    from[u] = (kScatter ? i : idx) * vpr;
    to[u] = (kScatter ? idx : i) * vpr;
  }

  // ---- move: all loads of a chunk before its stores, so U records are in flight per lane ----
  for (uint32_t chunk = 0; chunk < vpr; chunk += (1u << args.log_group_lanes)) {
    const uint32_t v = chunk + lane;
    Vec buf[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      if (moves[u] && v < vpr) buf[u] = load_vector<P>(d_in + from[u] + v, kScatter || P::kStreamRandomLoads);
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      if (moves[u] && v < vpr) store_vector<P>(d_out + to[u] + v, buf[u], !kScatter);
    }
  }

  // ---- invalid entries: a warp sum, one atomic per warp that saw any ----
  if (args.d_num_invalid && args.count_invalid) {
    const uint32_t warp_invalid = __reduce_add_sync(0xffffffffu, invalid);
    if ((threadIdx.x & 31) == 0 && warp_invalid) {
      atomicAdd(reinterpret_cast<unsigned long long*>(args.d_num_invalid), 1ull * warp_invalid);
    }
  }
}

}  // namespace prim::detail
