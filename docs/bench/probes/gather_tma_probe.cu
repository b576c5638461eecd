// Session 22 probe: does Hopper's bulk-copy engine (TMA, cp.async.bulk) move the 64-byte gather's bytes faster
// than the library's gather (LDG.128 by groups of four lanes, STG.128 with evict-first hints)?
//
// Variants, each timed in turns with the library's gather and thrust::gather (CUDA events, median of the rounds
// after a warm-up), each output poisoned and then checked record by record:
//   tma_reads+bulk_store  every record fetched by its own 64-byte cp.async.bulk into shared memory (one mbarrier a
//                         tile), the tile written by one cp.async.bulk shared -> global
//   tma_reads+stcs        the same reads, the tile written by coalesced STG.128 (evict-first)
//   ldg+bulk_store        the library's reads (four lanes a record, LDG.128) staged in shared memory, the tile
//                         written by one cp.async.bulk
// and the halves alone (reads into shared memory with no stores; stores of a staged tile with no reads).
//
// Build (any CUDA 12.x+ toolkit, sm_90):
//   nvcc -O3 -std=c++17 -arch=sm_90 --extended-lambda -Iprimitives/include -Iprimitives
//        docs/bench/probes/gather_tma_probe.cu build/primitives/libslabcast_primitives.a -o gather_tma_probe
// Run: ./gather_tma_probe [log2 records = 26] [rounds = 25]
#include <cuda/ptx>
#include <cuda_runtime.h>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/gather.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "prim/gather_scatter.h"

#define PROBE_CHECK(call)                                                                           \
  do {                                                                                              \
    const cudaError_t err_ = (call);                                                                \
    if (err_ != cudaSuccess) {                                                                      \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err_)); \
      std::exit(1);                                                                                 \
    }                                                                                               \
  } while (0)

namespace {

struct alignas(16) Record64 {
  uint4 v[4];
};
static_assert(sizeof(Record64) == 64);

namespace ptx = cuda::ptx;

enum class Store { bulk, streaming, none };

// One tile of kThreads * kRecordsPerThread records a block. Reads by TMA: thread t issues the bulk copies of records
// t, t + kThreads, ... so that the map loads coalesce.
template <int kThreads, int kRecordsPerThread, Store kStore>
__global__ void __launch_bounds__(kThreads)
    tma_gather(const Record64* __restrict__ in, Record64* __restrict__ out, const uint32_t* __restrict__ map,
               int64_t n) {
  constexpr int kTile = kThreads * kRecordsPerThread;
  __shared__ alignas(128) Record64 stage[kTile];
  __shared__ uint64_t tile_arrived;
  const int64_t base = static_cast<int64_t>(blockIdx.x) * kTile;
  const int count = static_cast<int>(n - base < kTile ? n - base : kTile);
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&tile_arrived, 1);
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);  // the init, seen by the async proxy
    // Expect the whole tile's bytes before any copy is issued (the __syncthreads below orders the two).
    ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &tile_arrived,
                                   static_cast<uint32_t>(count) * 64u);
  }
  __syncthreads();
#pragma unroll
  for (int u = 0; u < kRecordsPerThread; ++u) {
    const int r = u * kThreads + threadIdx.x;
    if (r < count) {
      const uint32_t src = map[base + r];
      ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, &stage[r], &in[src], 64u, &tile_arrived);
    }
  }
  while (!ptx::mbarrier_try_wait_parity(&tile_arrived, 0u)) {
  }
  if constexpr (kStore == Store::bulk) {
    if (threadIdx.x == 0) {
      ptx::cp_async_bulk(ptx::space_global, ptx::space_shared, out + base, stage, static_cast<uint32_t>(count) * 64u);
      ptx::cp_async_bulk_commit_group();
      ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>{});  // the stage must outlive the copy's reads
    }
  } else if constexpr (kStore == Store::streaming) {
    const uint4* s = reinterpret_cast<const uint4*>(stage);
    uint4* o = reinterpret_cast<uint4*>(out + base);
    for (int v = threadIdx.x; v < count * 4; v += kThreads) __stcs(o + v, s[v]);
  } else {
    // Reads alone: one word of the tile goes out so the copies cannot be dropped (they are async anyway).
    if (threadIdx.x == 0 && stage[0].v[0].x == 0xFFFFFFFFu && stage[0].v[0].y == 0xFFFFFFFFu) out[base] = stage[0];
  }
}

// The library's reads (a group of four lanes a record, every lane one LDG.128, kRecordsPerGroup records in flight),
// staged in shared memory, then written by one bulk copy (or, with kWriteOnly, only the bulk copy of a staged tile).
template <int kThreads, int kRecordsPerGroup, bool kWriteOnly>
__global__ void __launch_bounds__(kThreads)
    ldg_gather_bulk_store(const Record64* __restrict__ in, Record64* __restrict__ out,
                          const uint32_t* __restrict__ map, int64_t n) {
  constexpr int kGroups = kThreads / 4;
  constexpr int kTile = kGroups * kRecordsPerGroup;
  __shared__ alignas(128) Record64 stage[kTile];
  const int64_t base = static_cast<int64_t>(blockIdx.x) * kTile;
  const int count = static_cast<int>(n - base < kTile ? n - base : kTile);
  const int group = threadIdx.x / 4, lane = threadIdx.x % 4;
  if constexpr (!kWriteOnly) {
    uint4 buf[kRecordsPerGroup];
#pragma unroll
    for (int u = 0; u < kRecordsPerGroup; ++u) {
      const int r = u * kGroups + group;
      if (r < count) buf[u] = in[map[base + r]].v[lane];
    }
#pragma unroll
    for (int u = 0; u < kRecordsPerGroup; ++u) {
      const int r = u * kGroups + group;
      if (r < count) stage[r].v[lane] = buf[u];
    }
  }
  ptx::fence_proxy_async(ptx::space_shared);  // the generic proxy's stores, seen by the bulk copy
  __syncthreads();
  if (threadIdx.x == 0) {
    ptx::cp_async_bulk(ptx::space_global, ptx::space_shared, out + base, stage, static_cast<uint32_t>(count) * 64u);
    ptx::cp_async_bulk_commit_group();
    ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>{});
  }
}

// Record r holds the words r * 16 + w; out[i] must hold map[i] * 16 + w.
__global__ void fill_records(uint32_t* words, int64_t n_words) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n_words; i += int64_t(gridDim.x) * blockDim.x)
    words[i] = static_cast<uint32_t>(i);
}
__global__ void count_wrong(const uint32_t* out_words, const uint32_t* map, int64_t n, unsigned long long* wrong) {
  unsigned long long local = 0;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n * 16; i += int64_t(gridDim.x) * blockDim.x)
    local += out_words[i] != static_cast<uint32_t>(uint64_t(map[i / 16]) * 16 + i % 16);
  if (local) atomicAdd(wrong, local);
}

struct Variant {
  std::string name;
  std::function<void(cudaStream_t)> launch;
  bool checked;  // writes the whole gather (the halves alone do not)
  std::vector<float> ms;
};

template <class Kernel>
std::function<void(cudaStream_t)> grid_launch(Kernel kernel, int threads, int64_t tile, const Record64* in,
                                              Record64* out, const uint32_t* map, int64_t n) {
  const unsigned blocks = static_cast<unsigned>((n + tile - 1) / tile);
  return [=](cudaStream_t s) { kernel<<<blocks, threads, 0, s>>>(in, out, map, n); };
}

}  // namespace

int main(int argc, char** argv) {
  const int log_n = argc > 1 ? std::atoi(argv[1]) : 26;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 25;
  if (log_n < 10 || log_n > 27 || rounds < 3) {
    std::fprintf(stderr, "usage: gather_tma_probe [log2 records, 10..27] [rounds >= 3]\n");
    return 2;
  }
  const int64_t n = int64_t(1) << log_n;
  cudaDeviceProp prop{};
  PROBE_CHECK(cudaGetDeviceProperties(&prop, 0));
  int driver = 0, runtime = 0;
  PROBE_CHECK(cudaDriverGetVersion(&driver));
  PROBE_CHECK(cudaRuntimeGetVersion(&runtime));
  std::printf("# %s, driver API %d, runtime %d; %lld records of 64 B, %d rounds\n", prop.name, driver, runtime,
              (long long)n, rounds);

  Record64 *in = nullptr, *out = nullptr;
  uint32_t* map = nullptr;
  unsigned long long* wrong = nullptr;
  PROBE_CHECK(cudaMalloc(&in, n * sizeof(Record64)));
  PROBE_CHECK(cudaMalloc(&out, n * sizeof(Record64)));
  PROBE_CHECK(cudaMalloc(&map, n * sizeof(uint32_t)));
  PROBE_CHECK(cudaMalloc(&wrong, sizeof(unsigned long long)));
  cudaStream_t s;
  PROBE_CHECK(cudaStreamCreate(&s));
  fill_records<<<1024, 256, 0, s>>>(reinterpret_cast<uint32_t*>(in), n * 16);
  PROBE_CHECK(cudaGetLastError());
  {  // a random permutation: the indices sorted by random keys
    uint32_t* keys = nullptr;
    PROBE_CHECK(cudaMalloc(&keys, n * sizeof(uint32_t)));
    thrust::sequence(thrust::cuda::par.on(s), map, map + n);
    fill_records<<<1024, 256, 0, s>>>(keys, n);
    PROBE_CHECK(cudaGetLastError());
    // keys[i] = hash(i): a bijective mix of the index, so the sort yields a random-looking permutation
    thrust::transform(thrust::cuda::par.on(s), keys, keys + n, keys, [] __device__(uint32_t x) {
      x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16; return x; });
    thrust::sort_by_key(thrust::cuda::par.on(s), keys, keys + n, map);
    PROBE_CHECK(cudaStreamSynchronize(s));
    PROBE_CHECK(cudaFree(keys));
  }
  size_t temp_bytes = 0;
  PROBE_CHECK(prim::gather(nullptr, temp_bytes, in, out, map, n, n, s));
  void* temp = nullptr;
  PROBE_CHECK(cudaMalloc(&temp, temp_bytes));

  std::vector<Variant> variants;
  variants.push_back({"library prim::gather", [=](cudaStream_t st) {
                        size_t tb = temp_bytes;
                        PROBE_CHECK(prim::gather(temp, tb, in, out, map, n, n, st));
                      }, true, {}});
  variants.push_back({"thrust::gather (16-B aligned)", [=](cudaStream_t st) {
                        thrust::gather(thrust::cuda::par.on(st), map, map + n, in, out);
                      }, true, {}});
  variants.push_back({"tma reads + bulk store, 128 x 2", grid_launch(tma_gather<128, 2, Store::bulk>, 128, 256, in, out, map, n), true, {}});
  variants.push_back({"tma reads + bulk store, 128 x 4", grid_launch(tma_gather<128, 4, Store::bulk>, 128, 512, in, out, map, n), true, {}});
  variants.push_back({"tma reads + bulk store, 64 x 4", grid_launch(tma_gather<64, 4, Store::bulk>, 64, 256, in, out, map, n), true, {}});
  variants.push_back({"tma reads + bulk store, 256 x 2", grid_launch(tma_gather<256, 2, Store::bulk>, 256, 512, in, out, map, n), true, {}});
  variants.push_back({"tma reads + stcs, 128 x 4", grid_launch(tma_gather<128, 4, Store::streaming>, 128, 512, in, out, map, n), true, {}});
  variants.push_back({"ldg (4 lanes, 4 records) + bulk store, 256", grid_launch(ldg_gather_bulk_store<256, 4, false>, 256, 256, in, out, map, n), true, {}});
  variants.push_back({"ldg (4 lanes, 8 records) + bulk store, 256", grid_launch(ldg_gather_bulk_store<256, 8, false>, 256, 512, in, out, map, n), true, {}});
  variants.push_back({"half: tma reads alone, 128 x 4", grid_launch(tma_gather<128, 4, Store::none>, 128, 512, in, out, map, n), false, {}});
  variants.push_back({"half: bulk stores alone, 256 x 4", grid_launch(ldg_gather_bulk_store<256, 4, true>, 256, 256, in, out, map, n), false, {}});

  // Correctness first: every full variant's output poisoned, then compared record by record.
  bool all_ok = true;
  for (Variant& v : variants) {
    if (!v.checked) continue;
    PROBE_CHECK(cudaMemsetAsync(out, 0xAB, n * sizeof(Record64), s));
    PROBE_CHECK(cudaMemsetAsync(wrong, 0, sizeof(unsigned long long), s));
    v.launch(s);
    PROBE_CHECK(cudaGetLastError());
    count_wrong<<<2048, 256, 0, s>>>(reinterpret_cast<const uint32_t*>(out), map, n, wrong);
    PROBE_CHECK(cudaGetLastError());
    unsigned long long w = 0;
    PROBE_CHECK(cudaMemcpyAsync(&w, wrong, sizeof(w), cudaMemcpyDeviceToHost, s));
    PROBE_CHECK(cudaStreamSynchronize(s));
    std::printf("# check %-45s %s (%llu wrong words)\n", v.name.c_str(), w ? "MISMATCH" : "ok", w);
    all_ok = all_ok && w == 0;
  }

  // Timing in turns: every round launches every variant once; three warm-up rounds are not kept.
  cudaEvent_t start, stop;
  PROBE_CHECK(cudaEventCreate(&start));
  PROBE_CHECK(cudaEventCreate(&stop));
  for (int round = 0; round < rounds + 3; ++round) {
    for (Variant& v : variants) {
      PROBE_CHECK(cudaEventRecord(start, s));
      v.launch(s);
      PROBE_CHECK(cudaGetLastError());
      PROBE_CHECK(cudaEventRecord(stop, s));
      PROBE_CHECK(cudaEventSynchronize(stop));
      float ms = 0;
      PROBE_CHECK(cudaEventElapsedTime(&ms, start, stop));
      if (round >= 3) v.ms.push_back(ms);
    }
  }
  const double moved = 2.0 * n * sizeof(Record64) + 4.0 * n;
  float thrust_ms = 0;
  for (Variant& v : variants) {
    std::sort(v.ms.begin(), v.ms.end());
    if (v.name.rfind("thrust", 0) == 0) thrust_ms = v.ms[v.ms.size() / 2];
  }
  std::printf("%-46s %9s %9s %9s %8s %10s\n", "variant", "median ms", "min ms", "max ms", "GB/s", "thrust/it");
  for (const Variant& v : variants) {
    const float med = v.ms[v.ms.size() / 2];
    std::printf("%-46s %9.3f %9.3f %9.3f %8.0f %10.3f\n", v.name.c_str(), med, v.ms.front(), v.ms.back(),
                v.checked ? moved / med * 1e-6 : 0.0, thrust_ms / med);
  }
  PROBE_CHECK(cudaFree(temp));
  PROBE_CHECK(cudaFree(in));
  PROBE_CHECK(cudaFree(out));
  PROBE_CHECK(cudaFree(map));
  PROBE_CHECK(cudaFree(wrong));
  return all_ok ? 0 : 1;
}
