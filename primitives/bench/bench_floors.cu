// Floors of the rows that miss their targets (`prim_bench --floors`): each row's bytes, moved in the row's pattern,
// with the work between the loads and the stores taken away.
//
// The split rows (the functor split, split-index, the pairs split by key bits) run a histogram pass that reads the
// keys, then one one-sweep pass that reads the records again, ranks each tile by bucket, finds the tile's bases by
// look-back and writes the tile out as one run a bucket. Their floor is the same traffic with no ranking and no
// look-back:
//   - the read part: one pass reading the keys, vectorised, XOR-reduced (the histogram's traffic);
//   - the move part: every tile's records already in bucket order (set up, untimed), each loaded and stored where the
//     split puts it, by three kernels, the fastest of which counts: a block a tile, which finds a record's run from its
//     neighbour's bucket and reads the tile's base for every bucket from a table (1 KB a tile, counted in the bytes);
//     an element-wise kernel with no barrier, which reads a record's shift to its place from such a table; and a block
//     a tile whose warps take a run at a time.
// Its output is checked equal to the peer's (CUB's sort by the bucket), so the floor moves exactly the split's bytes to
// exactly its places. A split of this design with these tiles does the floor's loads and stores and more, so a target
// time below the floor is not expected to be met by it unless its stores beat all three patterns; a target time above
// the floor measures what the ranking and the look-back may cost.
//
// The gather row moves 64-byte records through a random permutation. Its two halves are timed apart: the random
// reads alone (the map and the records, XOR-reduced) and the sequential writes alone (a memset of the output); one
// after the other, they bound a gather that keeps them apart in time. A gather that overlaps them is bounded by the
// same reads and writes issued at once with no store waiting for a load (unordered_traffic_kernel).
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "bench_common.h"
#include "prim/gather_scatter.h"
#include "prim/key_bits.h"
#include "prim/split.h"
#include "prim/split_index.h"

namespace bench {
namespace {

constexpr int kBuckets = 256;

// ---- set-up (untimed): every tile in bucket order, and every tile's base for every bucket ----

// A block a tile and a thread a bucket: thread d walks the tile in order and places its bucket's records after those
// of the buckets before d. A stable counting sort, slow and plainly right; counts are [bucket][tile], and run_starts
// (where bucket d's run starts in the sorted tile) [tile][bucket].
constexpr int kTileSortThreads = kBuckets;
template <class BucketOp>
__global__ void __launch_bounds__(kTileSortThreads)
    sort_tiles_by_bucket_kernel(const uint32_t* keys, const uint32_t* values, uint32_t* keys_sorted,
                                uint32_t* values_sorted, uint32_t* counts, uint32_t* run_starts, int64_t n,
                                int tile_items, int64_t tiles) {
  extern __shared__ uint8_t tile_buckets[];
  using Scan = cub::BlockScan<uint32_t, kTileSortThreads>;
  __shared__ typename Scan::TempStorage scan;
  const int64_t start = blockIdx.x * int64_t{tile_items};
  const int count = static_cast<int>(n - start < tile_items ? n - start : tile_items);
  for (int i = threadIdx.x; i < count; i += kTileSortThreads) {
    tile_buckets[i] = static_cast<uint8_t>(BucketOp{}(keys[start + i]));
  }
  __syncthreads();
  const uint32_t d = threadIdx.x;
  uint32_t mine = 0;
  for (int i = 0; i < count; ++i) mine += tile_buckets[i] == d ? 1u : 0u;
  uint32_t place = 0;
  Scan(scan).ExclusiveSum(mine, place);
  counts[int64_t{d} * tiles + blockIdx.x] = mine;
  run_starts[blockIdx.x * int64_t{kBuckets} + d] = place;
  for (int i = 0; i < count; ++i) {
    if (tile_buckets[i] != d) continue;
    keys_sorted[start + place] = keys[start + i];
    if (values != nullptr) values_sorted[start + place] = values[start + i];
    ++place;
  }
}

// The exclusive scan of the [bucket][tile] counts is each tile's base for each bucket (the buckets before it, then
// the earlier tiles' records of it). The block-a-tile floor reads a tile's 256 bases together, so they go
// [tile][bucket]; the element-wise floor reads, for a record at input position i, the shift to its place (base - the
// run's first input position), in place of the run starts, so that dst = i + shift (modulo 2^32).
__global__ void __launch_bounds__(kBuckets)
    transpose_bases_kernel(const uint32_t* bucket_major, uint32_t* bases, uint32_t* run_starts_to_shifts,
                           int64_t tiles, int tile_items) {
  const int64_t at = blockIdx.x * int64_t{kBuckets} + threadIdx.x;
  const uint32_t base = bucket_major[int64_t{threadIdx.x} * tiles + blockIdx.x];
  bases[at] = base;
  run_starts_to_shifts[at] = base - static_cast<uint32_t>(blockIdx.x * int64_t{tile_items} + run_starts_to_shifts[at]);
}

// ---- the timed kernels ----

// The read part: every key read once, 16 bytes a load and four loads in flight a thread.
constexpr int kReadThreads = 256;
constexpr int kReadUnroll = 4;
__global__ void __launch_bounds__(kReadThreads) read_floor_kernel(const uint4* __restrict__ in, int64_t vectors,
                                                                  uint32_t never, uint32_t* sink) {
  uint32_t acc = 0;
  const int64_t stride = int64_t{gridDim.x} * kReadThreads;
  int64_t i = blockIdx.x * int64_t{kReadThreads} + threadIdx.x;
  for (; i + (kReadUnroll - 1) * stride < vectors; i += kReadUnroll * stride) {
    uint4 v[kReadUnroll];
#pragma unroll
    for (int u = 0; u < kReadUnroll; ++u) v[u] = in[i + u * stride];
#pragma unroll
    for (int u = 0; u < kReadUnroll; ++u) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  for (; i < vectors; i += stride) acc ^= in[i].x ^ in[i].y ^ in[i].z ^ in[i].w;
  // The loads stay (their sum may be stored), and no store happens (an atomic a warp on one word would cost more than
  // the loads: the random reads so reduced took 4.19 ms, against 3.74 for the gather).
  if (acc == never) *sink = acc;
}

// The move part: a block a tile of kThreads x kItems records, already in bucket order. A record starts its bucket's
// run where its neighbour's bucket differs; it goes to the tile's base of its bucket plus its place in the run.
template <int kThreads, int kItems, class BucketOp, bool kPairs>
__global__ void __launch_bounds__(kThreads)
    tile_runs_floor_kernel(const uint32_t* __restrict__ keys, const uint32_t* __restrict__ values,
                           uint32_t* __restrict__ keys_out, uint32_t* __restrict__ values_out,
                           const uint32_t* __restrict__ bases, int64_t n) {
  constexpr int kTile = kThreads * kItems;
  __shared__ uint8_t tile_buckets[kTile];
  __shared__ uint32_t run_start[kBuckets], base[kBuckets];
  const int64_t start = blockIdx.x * int64_t{kTile};
  const int count = static_cast<int>(n - start < kTile ? n - start : kTile);
  for (int d = threadIdx.x; d < kBuckets; d += kThreads) base[d] = bases[blockIdx.x * int64_t{kBuckets} + d];
  // The buckets are computed again where they are needed: arrays of them would cost kItems registers more.
  // Keys, then values, as the split moves them.
  uint32_t key[kItems] = {}, value[kItems];
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const int i = k * kThreads + threadIdx.x;
    if (i < count) {
      key[k] = keys[start + i];
      tile_buckets[i] = static_cast<uint8_t>(BucketOp{}(key[k]));
    }
  }
  if constexpr (kPairs) {
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      const int i = k * kThreads + threadIdx.x;
      if (i < count) value[k] = values[start + i];
    }
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const int i = k * kThreads + threadIdx.x;
    const uint32_t bucket = BucketOp{}(key[k]);
    if (i < count && (i == 0 || tile_buckets[i - 1] != bucket)) run_start[bucket] = i;
  }
  __syncthreads();
  uint32_t to[kItems];
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const int i = k * kThreads + threadIdx.x;
    const uint32_t bucket = BucketOp{}(key[k]);
    to[k] = base[bucket] + static_cast<uint32_t>(i) - run_start[bucket];
    if (i < count) keys_out[to[k]] = key[k];
  }
  if constexpr (kPairs) {
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      if (k * kThreads + static_cast<int>(threadIdx.x) < count) values_out[to[k]] = value[k];
    }
  }
}

// The move part again, element-wise: no block barrier and no shared memory, every record on its own (a record's shift
// from a table of 1 KB a tile, which the cache holds), at full occupancy. The same loads and stores as the block-a-tile
// kernel; the faster of the two is the floor.
constexpr int kElementThreads = 256;
constexpr int kElementItems = 8;
template <class BucketOp, bool kPairs>
__global__ void __launch_bounds__(kElementThreads)
    element_runs_floor_kernel(const uint32_t* __restrict__ keys, const uint32_t* __restrict__ values,
                              uint32_t* __restrict__ keys_out, uint32_t* __restrict__ values_out,
                              const uint32_t* __restrict__ shifts, int64_t n, int tile_items) {
  const int64_t start = blockIdx.x * int64_t{kElementThreads * kElementItems};
  uint32_t key[kElementItems], value[kElementItems], to[kElementItems];
#pragma unroll
  for (int k = 0; k < kElementItems; ++k) {
    const int64_t i = start + k * kElementThreads + threadIdx.x;
    if (i < n) key[k] = keys[i];
  }
#pragma unroll
  for (int k = 0; k < kElementItems; ++k) {
    const int64_t i = start + k * kElementThreads + threadIdx.x;
    if (i < n) {
      to[k] = static_cast<uint32_t>(i) + shifts[(i / tile_items) * kBuckets + BucketOp{}(key[k])];
      keys_out[to[k]] = key[k];
    }
  }
  if constexpr (kPairs) {
#pragma unroll
    for (int k = 0; k < kElementItems; ++k) {
      const int64_t i = start + k * kElementThreads + threadIdx.x;
      if (i < n) value[k] = values[i];
    }
#pragma unroll
    for (int k = 0; k < kElementItems; ++k) {
      if (start + k * kElementThreads + threadIdx.x < n) values_out[to[k]] = value[k];
    }
  }
}

// The move part a third way: a block a tile again, but a warp a run (a tile's records of one bucket) at a time, its
// lanes on consecutive places of that run, so that a warp's store touches one run only; the element-wise and the
// block-a-tile kernels store 32 consecutive records of the sorted tile, which cross from one run into the next. The
// runs' starts come from the bases and shifts (start = base - shift - the tile's first position).
template <int kThreads, int kItems, bool kPairs>
__global__ void __launch_bounds__(kThreads)
    warp_runs_floor_kernel(const uint32_t* __restrict__ keys, const uint32_t* __restrict__ values,
                           uint32_t* __restrict__ keys_out, uint32_t* __restrict__ values_out,
                           const uint32_t* __restrict__ bases, const uint32_t* __restrict__ shifts, int64_t n) {
  constexpr int kTile = kThreads * kItems;
  constexpr int kWarpThreads = 32;
  constexpr int kWarps = kThreads / kWarpThreads;
  __shared__ uint32_t run_start[kBuckets + 1], base[kBuckets];
  const int64_t start = blockIdx.x * int64_t{kTile};
  const int count = static_cast<int>(n - start < kTile ? n - start : kTile);
  for (int d = threadIdx.x; d < kBuckets; d += kThreads) {
    const int64_t at = blockIdx.x * int64_t{kBuckets} + d;
    base[d] = bases[at];
    run_start[d] = bases[at] - shifts[at] - static_cast<uint32_t>(start);
  }
  if (threadIdx.x == 0) run_start[kBuckets] = static_cast<uint32_t>(count);
  __syncthreads();
  const int warp = threadIdx.x / kWarpThreads;
  const int lane = threadIdx.x % kWarpThreads;
  for (int d = warp; d < kBuckets; d += kWarps) {
    const uint32_t first = run_start[d];
    const uint32_t length = run_start[d + 1] - first;
    for (uint32_t o = lane; o < length; o += kWarpThreads) {
      keys_out[base[d] + o] = keys[start + first + o];
      if constexpr (kPairs) values_out[base[d] + o] = values[start + first + o];
    }
  }
}

// The gather's random half: a group of four lanes a 64-byte record (16 bytes a lane), four records in flight a group,
// as prim::gather moves them; read and XOR-reduced, never stored.
constexpr int kRandomThreads = 256;
constexpr int kRecordLanes = 4;
constexpr int kRecordsInFlight = 4;
constexpr int kRecordGroups = kRandomThreads / kRecordLanes;

// A group of kRecordLanes lanes loads each of its kInFlight records as prim::gather does (16 bytes a lane, all loads
// issued before any is used): record tile_base + u * kGroups + group, through the map, into v[u] where present[u].
template <int kGroups, int kInFlight>
__device__ __forceinline__ void load_group_records(const uint4* __restrict__ records, const uint32_t* __restrict__ map,
                                                   int64_t tile_base, int64_t n, uint4 (&v)[kInFlight],
                                                   bool (&present)[kInFlight]) {
  const int group = threadIdx.x / kRecordLanes;
  const int lane = threadIdx.x % kRecordLanes;
  int64_t from[kInFlight];
#pragma unroll
  for (int u = 0; u < kInFlight; ++u) {
    const int64_t i = tile_base + u * kGroups + group;
    present[u] = i < n;
    from[u] = present[u] ? int64_t{map[i]} : 0;
  }
#pragma unroll
  for (int u = 0; u < kInFlight; ++u) {
    if (present[u]) v[u] = records[from[u] * kRecordLanes + lane];
  }
}

// Keeps the loads of load_group_records: their XOR goes out only if it equals `never` (as in read_floor_kernel).
template <int kInFlight>
__device__ __forceinline__ void keep_group_records(const uint4 (&v)[kInFlight], const bool (&present)[kInFlight],
                                                   uint32_t never, uint32_t* sink) {
  uint32_t acc = 0;
#pragma unroll
  for (int u = 0; u < kInFlight; ++u) {
    if (present[u]) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  if (acc == never) *sink = acc;
}

__global__ void __launch_bounds__(kRandomThreads)
    random_read_floor_kernel(const uint4* __restrict__ records, const uint32_t* __restrict__ map, int64_t n,
                             uint32_t never, uint32_t* sink) {
  uint4 v[kRecordsInFlight];
  bool present[kRecordsInFlight];
  load_group_records<kRecordGroups, kRecordsInFlight>(
      records, map, blockIdx.x * int64_t{kRecordGroups * kRecordsInFlight}, n, v, present);
  keep_group_records(v, present, never, sink);
}

// The gather's traffic with neither half waiting on the other: the same random 64-byte reads (map and
// records, XOR-reduced, as random_read_floor_kernel) and the same sequential evict-first 64-byte writes (as
// prim::gather's, of values made from the record's index, so that no store waits for a load), in flight together:
//   - TrafficMix::same_blocks: a block issues its tile's 256 random loads, then its tile's 256 stores;
//   - TrafficMix::split_blocks: even blocks only read a tile, odd blocks only write one.
// It bounds a gather that overlaps its reads with its writes: such a gather issues this traffic and must also wait
// for each record before it stores it.
enum class TrafficMix { same_blocks, split_blocks };
template <TrafficMix kMix>
__global__ void __launch_bounds__(kRandomThreads)
    unordered_traffic_kernel(const uint4* __restrict__ records, const uint32_t* __restrict__ map,
                             uint4* __restrict__ out, int64_t n, uint32_t never, uint32_t* sink) {
  constexpr int64_t kTile = kRecordGroups * kRecordsInFlight;
  const bool reads = kMix == TrafficMix::same_blocks || blockIdx.x % 2 == 0;
  const bool writes = kMix == TrafficMix::same_blocks || blockIdx.x % 2 == 1;
  const int64_t tile_base = (kMix == TrafficMix::same_blocks ? blockIdx.x : blockIdx.x / 2) * kTile;
  uint4 v[kRecordsInFlight];
  bool present[kRecordsInFlight] = {};
  if (reads) load_group_records<kRecordGroups, kRecordsInFlight>(records, map, tile_base, n, v, present);
  if (writes) {
    const int group = threadIdx.x / kRecordLanes;
    const int lane = threadIdx.x % kRecordLanes;
#pragma unroll
    for (int u = 0; u < kRecordsInFlight; ++u) {
      const int64_t i = tile_base + u * kRecordGroups + group;
      if (i < n) {
        const uint4 value{static_cast<uint32_t>(i), static_cast<uint32_t>(lane), 0u, 0u};
        __stcs(&out[i * kRecordLanes + lane], value);
      }
    }
  }
  keep_group_records(v, present, never, sink);
}

// A value the read kernels compare their sums with and store only if equal: a run-time argument, so that the
// compiler keeps the loads. (A sum may equal it by chance: the store is then one word, harmless.)
constexpr uint32_t kNever = 0x9E3779B9u;

// The read kernel's grid: one full wave of blocks.
cudaError_t read_floor_blocks(unsigned& blocks) {
  int device = 0, sms = 0;
  cudaError_t status = cudaGetDevice(&device);
  if (status == cudaSuccess) status = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  blocks = static_cast<unsigned>(sms * (2048 / kReadThreads));
  return status;
}

cudaError_t read_floor(const uint32_t* keys, int64_t n, uint32_t* sink, unsigned blocks, cudaStream_t s) {
  read_floor_kernel<<<blocks, kReadThreads, 0, s>>>(reinterpret_cast<const uint4*>(keys), n / 4, kNever, sink);
  return cudaGetLastError();
}

// The floor of a split of n keys (kPairs: and their values) by BucketOp in tiles of kThreads x kItems, against the
// table's rows `row_ops` (those whose traffic it is). ref_* hold the peer's output for the same input.
// A row of the table timed beside its floor, on the floor's input (the same keys), so that both see the same clocks
// and memory.
struct OursBeside {
  std::string row_op;
  std::function<cudaError_t()> call;
};

template <int kThreads, int kItems, class BucketOp, bool kPairs>
void split_floor(Context& ctx, int64_t n, Dist dist, const std::vector<OursBeside>& ours, const std::string& floor,
                 const uint32_t* keys, const uint32_t* values, const uint32_t* ref_keys, const uint32_t* ref_values) {
  constexpr int kTile = kThreads * kItems;
  const cudaStream_t s = ctx.stream;
  const int64_t tiles = (n + kTile - 1) / kTile;
  const size_t kb = sizeof(uint32_t) * static_cast<size_t>(n);
  const size_t table = sizeof(uint32_t) * static_cast<size_t>(tiles) * kBuckets;
  Buffer sorted_keys(kb), sorted_values(kPairs ? kb : 0), out_keys(kb), out_values(kPairs ? kb : 0);
  Buffer counts(table), bases(table), shifts(table), sink(sizeof(uint32_t));
  for (const Buffer* b : {&sorted_keys, &sorted_values, &out_keys, &out_values, &counts, &bases, &shifts, &sink}) {
    BENCH_TRY(ctx, b->status());
  }
  uint32_t* sk = sorted_keys.as<uint32_t>();
  uint32_t* sv = kPairs ? sorted_values.as<uint32_t>() : nullptr;
  uint32_t* ok = out_keys.as<uint32_t>();
  uint32_t* ov = kPairs ? out_values.as<uint32_t>() : nullptr;
  uint32_t* tile_bases = bases.as<uint32_t>();
  uint32_t* tile_shifts = shifts.as<uint32_t>();

  // Set-up: the tiles in bucket order, their counts scanned into bases (in place), the bases and shifts
  // [tile][bucket].
  sort_tiles_by_bucket_kernel<BucketOp><<<static_cast<unsigned>(tiles), kTileSortThreads, kTile, s>>>(
      keys, kPairs ? values : nullptr, sk, sv, counts.as<uint32_t>(), tile_shifts, n, kTile, tiles);
  BENCH_TRY(ctx, cudaGetLastError());
  size_t scan_bytes = 0;
  const int64_t table_items = tiles * kBuckets;
  BENCH_TRY(ctx, cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, counts.as<uint32_t>(), counts.as<uint32_t>(),
                                               table_items, s));
  Buffer scan_temp(scan_bytes);
  BENCH_TRY(ctx, scan_temp.status());
  BENCH_TRY(ctx, cub::DeviceScan::ExclusiveSum(scan_temp.get(), scan_bytes, counts.as<uint32_t>(),
                                               counts.as<uint32_t>(), table_items, s));
  transpose_bases_kernel<<<static_cast<unsigned>(tiles), kBuckets, 0, s>>>(counts.as<uint32_t>(), tile_bases,
                                                                          tile_shifts, tiles, kTile);
  BENCH_TRY(ctx, cudaGetLastError());

  unsigned read_blocks = 0;
  BENCH_TRY(ctx, read_floor_blocks(read_blocks));
  uint32_t* acc = sink.as<uint32_t>();
  const auto move = [&] {
    tile_runs_floor_kernel<kThreads, kItems, BucketOp, kPairs>
        <<<static_cast<unsigned>(tiles), kThreads, 0, s>>>(sk, sv, ok, ov, tile_bases, n);
    return cudaGetLastError();
  };
  const auto move_elementwise = [&] {
    const unsigned blocks = static_cast<unsigned>((n + kElementThreads * kElementItems - 1) /
                                                  (kElementThreads * kElementItems));
    element_runs_floor_kernel<BucketOp, kPairs><<<blocks, kElementThreads, 0, s>>>(sk, sv, ok, ov, tile_shifts, n,
                                                                                  kTile);
    return cudaGetLastError();
  };
  const auto move_warp_runs = [&] {
    warp_runs_floor_kernel<kThreads, kItems, kPairs>
        <<<static_cast<unsigned>(tiles), kThreads, 0, s>>>(sk, sv, ok, ov, tile_bases, tile_shifts, n);
    return cudaGetLastError();
  };
  const auto read = [&] { return read_floor(sk, n, acc, read_blocks, s); };
  // A whole floor: the read part, then one way of moving the tiles.
  const auto read_then = [&](std::function<cudaError_t()> move_part) -> std::function<cudaError_t()> {
    return [&read, move_part] {
      const cudaError_t status = read();
      return status != cudaSuccess ? status : move_part();
    };
  };

  FloorRow row;
  row.floor = floor;
  row.dist = dist_name(dist);
  row.n = n;
  row.bytes = (kPairs ? 20.0 : 12.0) * static_cast<double>(n) + static_cast<double>(table);
  // Each move kernel's output, poisoned first (a record it does not write cannot pass), against the peer's.
  const auto check = [&](const std::function<cudaError_t()>& floor_call, const char* name) -> std::string {
    if (!cuda_ok(ctx, cudaMemsetAsync(ok, 0xA5, kb, s), "poison") ||
        (kPairs && !cuda_ok(ctx, cudaMemsetAsync(ov, 0xA5, kb, s), "poison")) ||
        !cuda_ok(ctx, floor_call(), name) || !cuda_ok(ctx, cudaStreamSynchronize(s), name)) {
      return "CUDA error";
    }
    if (!device_equal(ok, ref_keys, kb, s)) return std::string("MISMATCH: ") + name + ": keys differ from the peer's";
    if (kPairs && !device_equal(ov, ref_values, kb, s)) {
      return std::string("MISMATCH: ") + name + ": values differ from the peer's";
    }
    return "ok";
  };
  // The three ways of moving the tiles; the fastest, read part included, is the floor.
  struct Way {
    const char* name;
    std::function<cudaError_t()> whole, move;
  };
  const Way ways[] = {{"a block a tile", read_then(move), move},
                      {"element-wise", read_then(move_elementwise), move_elementwise},
                      {"a warp a run", read_then(move_warp_runs), move_warp_runs}};
  constexpr int kWays = sizeof(ways) / sizeof(ways[0]);
  row.check = "ok";
  for (const Way& way : ways) {
    if (row.check == "ok") row.check = check(way.whole, way.name);
  }
  if (row.check != "ok") ctx.failed = true;
  std::vector<std::function<cudaError_t()>> timed = {read};  // [0] read, [1 + 2w] whole, [2 + 2w] move, then ours
  for (const Way& way : ways) {
    timed.push_back(way.whole);
    timed.push_back(way.move);
  }
  for (const OursBeside& o : ours) timed.push_back(o.call);
  const std::vector<double> medians = time_interleaved_ms(ctx, timed);
  const size_t ours_at = 1 + 2 * kWays;
  if (medians.empty()) {
    ctx.failed = true;
    if (row.check == "ok") row.check = "CUDA error while timing";
    cudaGetLastError();
  } else {
    int best = 0;
    for (int w = 1; w < kWays; ++w) {
      if (medians[1 + 2 * w] < medians[1 + 2 * best]) best = w;
    }
    row.floor_ms = medians[1 + 2 * best];
    row.read_ms = medians[0];
    row.move_ms = medians[2 + 2 * best];
    row.floor += std::string(", ") + ways[best].name;
  }
  const auto move_ms = [&](int w) { return medians.empty() ? 0.0 : medians[2 + 2 * w]; };
  std::fprintf(stderr,
               "  floor %-60s %-12s n=2^%.0f: %.3f ms (read %.3f; move: a block a tile %.3f, element-wise %.3f, "
               "a warp a run %.3f), %s\n",
               floor.c_str(), row.dist.c_str(), std::log2(double(n)), row.floor_ms, row.read_ms, move_ms(0),
               move_ms(1), move_ms(2), row.check.c_str());
  for (size_t i = 0; i < ours.size(); ++i) {
    row.row_op = ours[i].row_op;
    row.ours_ms = medians.empty() ? -1 : medians[ours_at + i];
    std::fprintf(stderr, "    beside it: %s %.3f ms\n", row.row_op.c_str(), row.ours_ms);
    ctx.floors.push_back(row);
  }
}

bool wanted(const Context& ctx, const std::string& row_op) {
  return ctx.opt.filter.empty() || row_op.find(ctx.opt.filter) != std::string::npos;
}
bool wanted(const Context& ctx, const std::vector<OursBeside>& rows) {
  for (const OursBeside& o : rows) {
    if (wanted(ctx, o.row_op)) return true;
  }
  return false;
}

struct alignas(16) Record64 {
  uint32_t w[16];
};

// The 64-byte gather's halves, timed in turns with prim::gather on the same records and permutation: the random reads
// alone (the map and the records, XOR-reduced), the sequential writes alone (a memset of the output), and the two one
// after the other, the row's floor. It bounds a gather that cannot overlap its reads with its writes; one that could
// might beat it, where DRAM had time to spare for the writes while the random reads were in flight. That gather is
// bounded by the same traffic at once (unordered_traffic_kernel, both mixes), also timed in these turns.
void gather_floor(Context& ctx, int64_t n) {
  const std::string row_op = "gather 64 B records, random permutation";
  if (!wanted(ctx, row_op)) return;
  const cudaStream_t s = ctx.stream;
  const size_t rb = sizeof(Record64) * static_cast<size_t>(n);
  size_t free_b = 0, total_b = 0;
  BENCH_TRY(ctx, cudaMemGetInfo(&free_b, &total_b));
  if (3 * rb + (size_t{1} << 30) > free_b) {
    std::fprintf(stderr, "  floor of the 64 B gather at n=%lld: skipped (does not fit in device memory)\n",
                 static_cast<long long>(n));
    return;
  }
  Buffer perm(sizeof(uint32_t) * static_cast<size_t>(n)), records(rb), out(rb), sink(sizeof(uint32_t));
  for (const Buffer* b : {&perm, &records, &out, &sink}) BENCH_TRY(ctx, b->status());
  fill_random_permutation(perm.as<uint32_t>(), n, 99, s);  // the gather row's permutation (bench_move.cu)
  fill_keys(records.as<uint32_t>(), n * 16, Dist::uniform, 7, s);
  BENCH_TRY(ctx, cudaGetLastError());
  const uint32_t* map = perm.as<uint32_t>();
  const Record64* in = records.as<Record64>();
  size_t temp_bytes = 0;
  BENCH_TRY(ctx, prim::gather(nullptr, temp_bytes, in, out.as<Record64>(), map, n, n));
  Buffer temp(temp_bytes);
  BENCH_TRY(ctx, temp.status());
  const unsigned blocks = static_cast<unsigned>((n + kRecordGroups * kRecordsInFlight - 1) /
                                                (kRecordGroups * kRecordsInFlight));
  const auto ours = [&] {
    size_t b = temp_bytes;
    return prim::gather(temp.get(), b, in, out.as<Record64>(), map, n, n, s);
  };
  const auto read = [&] {
    random_read_floor_kernel<<<blocks, kRandomThreads, 0, s>>>(records.as<uint4>(), map, n, kNever,
                                                                sink.as<uint32_t>());
    return cudaGetLastError();
  };
  const auto write = [&] { return cudaMemsetAsync(out.get(), 0, rb, s); };
  const auto both = [&] {
    const cudaError_t status = read();
    return status != cudaSuccess ? status : write();
  };
  // The same traffic with neither half waiting on the other (unordered_traffic_kernel); it writes out.
  const auto unordered = [&](TrafficMix mix) -> std::function<cudaError_t()> {
    return [&, mix] {
      if (mix == TrafficMix::same_blocks) {
        unordered_traffic_kernel<TrafficMix::same_blocks><<<blocks, kRandomThreads, 0, s>>>(
            records.as<uint4>(), map, out.as<uint4>(), n, kNever, sink.as<uint32_t>());
      } else {
        unordered_traffic_kernel<TrafficMix::split_blocks><<<2 * blocks, kRandomThreads, 0, s>>>(
            records.as<uint4>(), map, out.as<uint4>(), n, kNever, sink.as<uint32_t>());
      }
      return cudaGetLastError();
    };
  };

  FloorRow floor;
  floor.row_op = row_op;
  floor.floor = "random 64 B reads alone (map + records), then the writes alone (memset)";
  floor.dist = "-";
  floor.n = n;
  floor.bytes = 2.0 * static_cast<double>(rb) + 4.0 * static_cast<double>(n);
  floor.check = "-";  // nothing to compare: the halves move no record to its place
  // Every way is timed in the same turns; a row's slots name its medians (-1: not timed).
  std::vector<std::function<cudaError_t()>> timed;
  const auto slot = [&](const std::function<cudaError_t()>& fn) {
    timed.push_back(fn);
    return static_cast<int>(timed.size()) - 1;
  };
  struct Way {
    FloorRow row;
    int whole = -1, read = -1, move = -1;
  };
  std::vector<Way> ways;
  const auto add_way = [&](const std::string& what, const std::string& check, int whole, int read, int move) {
    Way w{floor, whole, read, move};
    w.row.floor = what;
    w.row.check = check;
    if (check != "-" && check != "ok") ctx.failed = true;
    ways.push_back(w);
  };
  const int ours_slot = slot(ours), read_slot = slot(read), write_slot = slot(write);
  add_way(floor.floor, "-", slot(both), read_slot, write_slot);
  add_way("the same reads + writes at once, no store waits for a load; a block both", "-",
          slot(unordered(TrafficMix::same_blocks)), read_slot, write_slot);
  add_way("the same reads + writes at once, no store waits for a load; a block one", "-",
          slot(unordered(TrafficMix::split_blocks)), read_slot, write_slot);
  const std::vector<double> medians = time_interleaved_ms(ctx, timed);
  if (medians.empty()) {
    ctx.failed = true;
    for (Way& w : ways) w.row.check = "CUDA error while timing";
    cudaGetLastError();
  }
  const auto median = [&](int at) { return at < 0 || medians.empty() ? 0.0 : medians[at]; };
  for (Way& w : ways) {
    w.row.ours_ms = median(ours_slot);
    w.row.floor_ms = median(w.whole);
    w.row.read_ms = median(w.read);
    w.row.move_ms = median(w.move);
    std::fprintf(stderr, "  the 64 B gather n=2^%.0f, %s: %.3f ms (read %.3f, write %.3f; ours %.3f) %s\n",
                 std::log2(double(n)), w.row.floor.c_str(), w.row.floor_ms, w.row.read_ms, w.row.move_ms,
                 w.row.ours_ms, w.row.check.c_str());
    ctx.floors.push_back(w.row);
  }
}

void split_floors(Context& ctx, int64_t n, Dist dist) {
  const cudaStream_t s = ctx.stream;
  const size_t kb = sizeof(uint32_t) * static_cast<size_t>(n);
  Buffer keys(kb), values(kb), ref_keys(kb), ref_values(kb), ids(static_cast<size_t>(n)), ids_out(static_cast<size_t>(n));
  for (const Buffer* b : {&keys, &values, &ref_keys, &ref_values, &ids, &ids_out}) BENCH_TRY(ctx, b->status());
  fill_keys(keys.as<uint32_t>(), n, dist, 42, s);  // the split rows' keys and values (bench_split.cu)
  fill_sequence(values.as<uint32_t>(), n, s);
  const uint32_t* k = keys.as<uint32_t>();
  const uint32_t* v = values.as<uint32_t>();
  uint32_t* rk = ref_keys.as<uint32_t>();
  uint32_t* rv = ref_values.as<uint32_t>();
  // Ours, timed beside the floors: the table's calls on the same keys (bench_split.cu), into buffers of their own.
  Buffer ours_keys(kb), ours_values(kb), offsets(sizeof(uint64_t) * (kBuckets + 1));
  for (const Buffer* b : {&ours_keys, &ours_values, &offsets}) BENCH_TRY(ctx, b->status());
  uint32_t* ka = ours_keys.as<uint32_t>();
  uint32_t* va = ours_values.as<uint32_t>();
  uint64_t* offs = offsets.as<uint64_t>();
  const prim::KeyBits<uint32_t> low_byte{0, 8};
  size_t t_split = 0, t_index = 0, t_pairs = 0;
  BENCH_TRY(ctx, prim::split(nullptr, t_split, k, ka, n, kBuckets, HashBucket{}, offs, s));
  BENCH_TRY(ctx, prim::split_index(nullptr, t_index, k, n, kBuckets, HashBucket{}, va, prim::PermutationKind::gather,
                                   offs, s));
  BENCH_TRY(ctx, prim::split_pairs(nullptr, t_pairs, k, ka, v, va, n, kBuckets, low_byte, offs, s));
  const size_t t_ours = std::max({t_split, t_index, t_pairs});
  Buffer ours_temp(t_ours);
  BENCH_TRY(ctx, ours_temp.status());
  void* t = ours_temp.get();

  // The functor split and split-index: 2^26 keys read twice and written once (split-index writes 4-byte indices
  // where the split writes the keys: the same bytes), in the one-sweep pass's tiles (384 x 19).
  const std::vector<OursBeside> key_rows = {
      {"split u32 keys by functor (256 buckets)",
       [&] {
         size_t b = t_ours;
         return prim::split(t, b, k, ka, n, kBuckets, HashBucket{}, offs, s);
       }},
      {"split-index u32 gather permutation", [&] {
         size_t b = t_ours;
         return prim::split_index(t, b, k, n, kBuckets, HashBucket{}, va, prim::PermutationKind::gather, offs, s);
       }}};
  if (wanted(ctx, key_rows)) {
    size_t bytes = 0;
    BENCH_TRY(ctx, bucket_ids<false>(k, ids.as<uint8_t>(), nullptr, n, s));
    BENCH_TRY(ctx, cub::DeviceRadixSort::SortPairs(nullptr, bytes, ids.as<uint8_t>(), ids_out.as<uint8_t>(), k, rk,
                                                   n, 0, 8, s));
    Buffer temp(bytes);
    BENCH_TRY(ctx, temp.status());
    BENCH_TRY(ctx, cub::DeviceRadixSort::SortPairs(temp.get(), bytes, ids.as<uint8_t>(), ids_out.as<uint8_t>(), k, rk,
                                                   n, 0, 8, s));
    split_floor<384, 19, HashBucket, false>(ctx, n, dist, key_rows, "keys read twice, written once; tiles of 384 x 19",
                                            k, nullptr, rk, nullptr);
  }

  // The pairs split by key bits [0, 8): keys read, then pairs read and written, in the pass's tiles (384 x 20).
  const std::vector<OursBeside> pair_rows = {{"split pairs u32+u32, bucket = key[0,8)", [&] {
                                                size_t b = t_ours;
                                                return prim::split_pairs(t, b, k, ka, v, va, n, kBuckets, low_byte,
                                                                         offs, s);
                                              }}};
  if (wanted(ctx, pair_rows)) {
    size_t bytes = 0;
    BENCH_TRY(ctx, cub::DeviceRadixSort::SortPairs(nullptr, bytes, k, rk, v, rv, n, 0, 8, s));
    Buffer temp(bytes);
    BENCH_TRY(ctx, temp.status());
    BENCH_TRY(ctx, cub::DeviceRadixSort::SortPairs(temp.get(), bytes, k, rk, v, rv, n, 0, 8, s));
    split_floor<384, 20, LowByte, true>(ctx, n, dist, pair_rows,
                                        "keys read, then pairs read and written; tiles of 384 x 20", k, v, rk, rv);
  }
}

}  // namespace

void run_floor_rows(Context& ctx, int64_t n, const std::vector<Dist>& dists) {
  // The read part loads 16 bytes at a time, and the move part's table holds 32-bit places.
  if (n % 4 != 0 || n > (int64_t{1} << 30)) {
    std::fprintf(stderr, "  floors at n=%lld: skipped (they take a multiple of 4 keys, at most 2^30)\n",
                 static_cast<long long>(n));
    return;
  }
  for (const Dist dist : dists) split_floors(ctx, n, dist);
  gather_floor(ctx, n);  // its records do not depend on the key distribution
}

}  // namespace bench
