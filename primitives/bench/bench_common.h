// Shared pieces of prim_bench: the measurement harness, the row record and the input generators.
//
// Method (every row): inputs generated on the device with a fixed seed; ours and the peer each run once and their
// outputs are compared byte for byte (a fast wrong result is reported as a failure, never as a time; the unstable
// split, whose order inside a bucket is free, is checked as a bucket-preserving permutation instead); then each
// side is warmed up (Options::warmup and warmup_ms) and timed `reps` times with CUDA events around one call, the two
// sides taking turns call by call, and the median is reported. Scratch is allocated before timing. The same
// device-to-device copy of the row's essential bytes is timed alongside (read + write counted, i.e. bytes/2 copied)
// as the bandwidth ceiling.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "prim/device_buffer.h"

namespace bench {

// Key distributions of the sweep (CUB's benchmarks use the same bitwise-AND entropy reduction).
enum class Dist { uniform, low_entropy };
inline const char* dist_name(Dist d) { return d == Dist::uniform ? "uniform" : "low-entropy"; }

struct Options {
  int reps = 20;
  // Warm-up: at least `warmup` rounds, and more until `warmup_ms` have passed (after 3 rounds alone, the first row
  // after a new set of inputs read slow for tens of milliseconds).
  int warmup = 3;
  double warmup_ms = 50;
  std::string filter;  // run only rows whose op name contains this
  bool sweep_passes = false;  // extra rows: multi-pass scatter of narrow records at 1..32 passes (tuning)
  bool floors = false;        // extra table: the missed targets' rows against floors of their traffic (bench_floors.cu)
};

struct Row {
  std::string op;        // what ours does
  std::string peer;      // the CUB / thrust peer
  std::string dist;      // key distribution ("-" where the keys do not matter)
  int64_t n = 0;
  double ours_ms = 0, peer_ms = 0, copy_ms = 0;
  double bytes = 0;      // essential bytes read + written by the operation
  double target = 0;     // the target ratio (peer / ours) at 2^26; 0: none
  std::string check;     // "ok", "MISMATCH ...", "skipped: ..."
  double target_gitems = 0;  // a target rate instead, in G items / s at 2^26 (the hash map's rows); 0: none
};

// A floor (bench_floors.cu): the bytes of a row's split in the same pattern, with no ranking and no look-back.
struct FloorRow {
  std::string row_op;    // the row of the table whose target it bounds
  std::string floor;     // what the floor moves, and how
  std::string dist;
  int64_t n = 0;
  double ours_ms = 0;    // the row's call, timed in turns with the floor on the same input
  double floor_ms = 0;   // the whole floor (its parts timed together)
  double read_ms = 0;    // its read-only part (the histogram's traffic), timed alone
  double move_ms = 0;    // its moving part (the downsweep's traffic), timed alone
  double bytes = 0;
  std::string check;     // the floor's output against the peer's: "ok" or "MISMATCH ..."
};

struct Context {
  Options opt;
  cudaStream_t stream = nullptr;
  std::vector<Row> rows;
  std::vector<FloorRow> floors;
  bool failed = false;   // a mismatch or a CUDA error
};

// Aborts the row (not the program) on a CUDA error: records it and returns false.
bool cuda_ok(Context& ctx, cudaError_t status, const char* what);
#define BENCH_TRY(ctx, expr)                       \
  do {                                             \
    if (!bench::cuda_ok((ctx), (expr), #expr)) return; \
  } while (0)

// Median of ctx.opt.reps timed calls of fn (after ctx.opt.warmup untimed ones); < 0 on a CUDA error.
double time_ms(Context& ctx, const std::function<cudaError_t()>& fn);
// The same for several functions timed in turns, call by call (ours and the peer: both see the same clocks and
// caches); the medians in the order of fns, or none on a CUDA error.
std::vector<double> time_interleaved_ms(Context& ctx, const std::vector<std::function<cudaError_t()>>& fns);
// Time of a device-to-device copy moving `bytes` in total (bytes / 2 read and bytes / 2 written).
double copy_ms(Context& ctx, double bytes);
// Byte-wise equality of two device ranges.
bool device_equal(const void* a, const void* b, size_t bytes, cudaStream_t stream);

// The rows' bucket functors (bench_split.cu, and the floors of bench_floors.cu).
// Bucket = key bits [0, 8): the same order as a stable radix sort on those bits.
struct LowByte {
  __host__ __device__ uint32_t operator()(uint32_t key) const { return key & 0xFFu; }
};
// A bucket functor that is not a bit range of the key (Fibonacci hashing, top 8 bits of the product).
struct HashBucket {
  __host__ __device__ uint32_t operator()(uint32_t key) const { return (key * 2654435761u) >> 24; }
};

constexpr int kIdThreads = 256;

// The functor split's peer's "bucket functor kernel" (and the floors' reference): writes the u8 bucket id of every
// key (and, for split-index, i as the value).
template <bool kWithSequence>
__global__ void __launch_bounds__(kIdThreads) bucket_ids_kernel(const uint32_t* keys, uint8_t* ids, uint32_t* seq, int64_t n) {
  const int64_t i = blockIdx.x * int64_t(kIdThreads) + threadIdx.x;
  if (i >= n) return;
  ids[i] = static_cast<uint8_t>(HashBucket{}(keys[i]));
  if constexpr (kWithSequence) seq[i] = static_cast<uint32_t>(i);
}

template <bool kWithSequence>
cudaError_t bucket_ids(const uint32_t* keys, uint8_t* ids, uint32_t* seq, int64_t n, cudaStream_t stream) {
  const unsigned blocks = static_cast<unsigned>((n + kIdThreads - 1) / kIdThreads);
  bucket_ids_kernel<kWithSequence><<<blocks, kIdThreads, 0, stream>>>(keys, ids, seq, n);
  return cudaGetLastError();
}

// Device generators (fixed seeds).
void fill_keys(uint32_t* d_keys, int64_t n, Dist dist, uint64_t seed, cudaStream_t stream);
void fill_sequence(uint32_t* d_values, int64_t n, cudaStream_t stream);
void fill_random_permutation(uint32_t* d_perm, int64_t n, uint64_t seed, cudaStream_t stream);

// A device allocation of prim_bench: a prim::DeviceBuffer of at least one byte; status() says whether it failed.
class Buffer {
 public:
  explicit Buffer(size_t bytes) : bytes_(bytes) { status_ = memory_.allocate(bytes > 0 ? bytes : 1); }
  template <typename T>
  T* as() const { return reinterpret_cast<T*>(memory_.data()); }
  void* get() const { return memory_.data(); }
  size_t bytes() const { return bytes_; }
  cudaError_t status() const { return status_; }

 private:
  prim::DeviceBuffer<unsigned char> memory_;
  size_t bytes_ = 0;
  cudaError_t status_ = cudaSuccess;
};

// Records a measured row: checks, then times ours, the peer and the copy ceiling.
void measure(Context& ctx, Row row, const std::function<cudaError_t()>& ours, const std::function<cudaError_t()>& peer,
             const std::function<std::string()>& check);

// Row groups (bench_split.cu, bench_move.cu, bench_merge_search_select.cu, bench_hash_map.cu).
void run_split_rows(Context& ctx, int64_t n, Dist dist);
void run_move_rows(Context& ctx, int64_t n);
void run_hash_map_rows(Context& ctx, int64_t n);
void run_merge_search_select_rows(Context& ctx, int64_t n);  // uniform keys only
void run_range_tree_rows(Context& ctx, int64_t n);  // bench_range_tree.cu: uniform points in the unit square
void run_floor_rows(Context& ctx, int64_t n, const std::vector<Dist>& dists);  // bench_floors.cu

}  // namespace bench
