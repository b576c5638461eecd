// prim_bench: the primitives library against its CUB / thrust peers, in one process (see bench_common.h for the
// method and docs/bench/README.md for how to read the output).
//
//   prim_bench [--sizes 20,24,26 | --sizes 20-28] [--dists uniform,low] [--reps 20] [--warmup 3] [--warmup-ms 50]
//              [--filter TEXT] [--sweep-passes] [--floors] [--json FILE]
//
// Exit status: 0 when every row ran and every output matched its peer's; 1 when a row failed (mismatch or CUDA
// error); 2 on a usage error or when there is no usable CUDA device.
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <cub/device/device_radix_sort.cuh>
#include <cuda/std/version>
#include <fstream>
#include <sstream>
#include <thrust/equal.h>
#include <thrust/execution_policy.h>
#include <thrust/version.h>

#include "bench_common.h"

namespace bench {

bool cuda_ok(Context& ctx, cudaError_t status, const char* what) {
  if (status == cudaSuccess) return true;
  std::fprintf(stderr, "prim_bench: %s failed: %s\n", what, cudaGetErrorString(status));
  ctx.failed = true;
  return false;
}

std::vector<double> time_interleaved_ms(Context& ctx, const std::vector<std::function<cudaError_t()>>& fns) {
  cudaEvent_t start, stop;
  if (cudaEventCreate(&start) != cudaSuccess || cudaEventCreate(&stop) != cudaSuccess) return {};
  std::vector<double> medians;
  std::vector<std::vector<float>> samples(fns.size());
  const size_t sides = fns.size();
  // Round r calls the functions in turn, starting from r % sides, so no side always runs right after another.
  auto side_of = [&](int round, size_t k) { return (static_cast<size_t>(round) + k) % sides; };
  {
    const auto warmup_start = std::chrono::steady_clock::now();
    auto warm_ms = [&] {
      return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - warmup_start).count();
    };
    for (int round = 0; round < ctx.opt.warmup || warm_ms() < ctx.opt.warmup_ms; ++round) {
      for (size_t k = 0; k < sides; ++k) {
        if (fns[side_of(round, k)]() != cudaSuccess) goto done;
      }
      if (round + 1 >= ctx.opt.warmup && cudaStreamSynchronize(ctx.stream) != cudaSuccess) goto done;
    }
  }
  if (cudaStreamSynchronize(ctx.stream) != cudaSuccess) goto done;
  for (int round = 0; round < ctx.opt.reps; ++round) {
    for (size_t k = 0; k < sides; ++k) {
      const size_t side = side_of(round, k);
      float ms = 0;
      if (cudaEventRecord(start, ctx.stream) != cudaSuccess || fns[side]() != cudaSuccess ||
          cudaEventRecord(stop, ctx.stream) != cudaSuccess || cudaEventSynchronize(stop) != cudaSuccess ||
          cudaEventElapsedTime(&ms, start, stop) != cudaSuccess) {
        goto done;
      }
      samples[side].push_back(ms);
    }
  }
  for (auto& s : samples) {
    std::sort(s.begin(), s.end());
    medians.push_back(s.size() % 2 ? s[s.size() / 2] : 0.5 * (s[s.size() / 2 - 1] + s[s.size() / 2]));
  }
done:
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return medians;
}

double time_ms(Context& ctx, const std::function<cudaError_t()>& fn) {
  const std::vector<double> medians = time_interleaved_ms(ctx, {fn});
  return medians.empty() ? -1 : medians[0];
}

double copy_ms(Context& ctx, double bytes) {
  // Large copies run at a flat bandwidth: copy at most 1 GiB and scale, so the ceiling costs no extra memory.
  constexpr double kMaxCopy = double(1u << 30);
  const double half = bytes / 2;
  const size_t copy_bytes = static_cast<size_t>(std::min(half, kMaxCopy)) & ~size_t(255);
  if (copy_bytes == 0) return 0;
  Buffer a(copy_bytes), b(copy_bytes);
  if (a.status() != cudaSuccess || b.status() != cudaSuccess) return -1;
  const double ms = time_ms(ctx, [&] { return cudaMemcpyAsync(b.get(), a.get(), copy_bytes, cudaMemcpyDeviceToDevice, ctx.stream); });
  return ms < 0 ? ms : ms * (half / double(copy_bytes));
}

bool device_equal(const void* a, const void* b, size_t bytes, cudaStream_t stream) {
  const auto* pa = static_cast<const uint8_t*>(a);
  const auto* pb = static_cast<const uint8_t*>(b);
  return thrust::equal(thrust::cuda::par.on(stream), pa, pa + bytes, pb);
}

namespace {

__device__ __forceinline__ uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

constexpr int kGenThreads = 256;

__global__ void __launch_bounds__(kGenThreads) fill_keys_kernel(uint32_t* keys, int64_t n, bool low_entropy, uint64_t seed) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const uint64_t h = splitmix64(seed * 0x100000001B3ull + uint64_t(i));
    uint32_t k = static_cast<uint32_t>(h);
    // Low entropy: AND of three uniform words, each bit 1 with probability 1/8 (0.54 bits of entropy per bit).
    if (low_entropy) k &= static_cast<uint32_t>(h >> 32) & static_cast<uint32_t>(splitmix64(h));
    keys[i] = k;
  }
}

__global__ void __launch_bounds__(kGenThreads) fill_sequence_kernel(uint32_t* v, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    v[i] = static_cast<uint32_t>(i);
  }
}

unsigned gen_blocks(int64_t n) { return static_cast<unsigned>(std::min<int64_t>((n + kGenThreads - 1) / kGenThreads, 65536)); }

}  // namespace

void fill_keys(uint32_t* d_keys, int64_t n, Dist dist, uint64_t seed, cudaStream_t stream) {
  if (n == 0) return;
  fill_keys_kernel<<<gen_blocks(n), kGenThreads, 0, stream>>>(d_keys, n, dist == Dist::low_entropy, seed);
}

void fill_sequence(uint32_t* d_values, int64_t n, cudaStream_t stream) {
  if (n == 0) return;
  fill_sequence_kernel<<<gen_blocks(n), kGenThreads, 0, stream>>>(d_values, n);
}

void fill_random_permutation(uint32_t* d_perm, int64_t n, uint64_t seed, cudaStream_t stream) {
  // Sort the sequence 0..n-1 by random keys.
  Buffer keys(n * sizeof(uint32_t)), keys_out(n * sizeof(uint32_t)), seq(n * sizeof(uint32_t));
  fill_keys(keys.as<uint32_t>(), n, Dist::uniform, seed, stream);
  fill_sequence(seq.as<uint32_t>(), n, stream);
  size_t bytes = 0;
  cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys.as<uint32_t>(), keys_out.as<uint32_t>(), seq.as<uint32_t>(),
                                  d_perm, n, 0, 32, stream);
  Buffer temp(bytes);
  cub::DeviceRadixSort::SortPairs(temp.get(), bytes, keys.as<uint32_t>(), keys_out.as<uint32_t>(), seq.as<uint32_t>(),
                                  d_perm, n, 0, 32, stream);
  cudaStreamSynchronize(stream);
}

void measure(Context& ctx, Row row, const std::function<cudaError_t()>& ours, const std::function<cudaError_t()>& peer,
             const std::function<std::string()>& check) {
  if (!ctx.opt.filter.empty() && row.op.find(ctx.opt.filter) == std::string::npos) return;
  std::fprintf(stderr, "  %-40s %-12s n=2^%.0f ...", row.op.c_str(), row.dist.c_str(), std::log2(double(row.n)));
  if (!cuda_ok(ctx, ours(), "ours (check run)") || !cuda_ok(ctx, peer(), "peer (check run)") ||
      !cuda_ok(ctx, cudaStreamSynchronize(ctx.stream), "check run")) {
    row.check = "CUDA error";
  } else {
    row.check = check();
  }
  if (row.check != "ok") ctx.failed = true;
  const std::vector<double> medians = time_interleaved_ms(ctx, {ours, peer});
  row.ours_ms = medians.empty() ? -1 : medians[0];
  row.peer_ms = medians.empty() ? -1 : medians[1];
  row.copy_ms = copy_ms(ctx, row.bytes);
  if (row.ours_ms < 0 || row.peer_ms < 0) {
    ctx.failed = true;
    if (row.check == "ok") row.check = "CUDA error while timing";
    cudaGetLastError();
  }
  std::fprintf(stderr, " ours %.3f ms, peer %.3f ms, %s\n", row.ours_ms, row.peer_ms, row.check.c_str());
  ctx.rows.push_back(row);
}

}  // namespace bench

namespace {

using bench::Row;

std::string json_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    out += c;
  }
  return out;
}

// The driver's version string (e.g. "580.159.04") through NVML, opened at run time so that the program starts
// (and reports "no GPU") on machines without the driver.
std::string driver_version_string() {
  void* nvml = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!nvml) return "unknown (libnvidia-ml.so.1 not found)";
  using InitFn = int (*)();
  using VersionFn = int (*)(char*, unsigned);
  auto init = reinterpret_cast<InitFn>(dlsym(nvml, "nvmlInit_v2"));
  auto version = reinterpret_cast<VersionFn>(dlsym(nvml, "nvmlSystemGetDriverVersion"));
  auto shutdown = reinterpret_cast<InitFn>(dlsym(nvml, "nvmlShutdown"));
  char buf[96] = "unknown";
  if (init && version && init() == 0) {
    if (version(buf, sizeof(buf)) != 0) std::strcpy(buf, "unknown");
    if (shutdown) shutdown();
  }
  dlclose(nvml);
  return buf;
}

std::string version_triplet(int v, int major_div, int minor_div) {
  std::ostringstream os;
  os << v / major_div << "." << (v % major_div) / minor_div << "." << v % minor_div;
  return os.str();
}

struct DeviceInfo {
  std::string name, driver, runtime, driver_api, cccl, thrust, nvcc;
  int sms = 0;
  double l2_mib = 0, mem_gib = 0;
};

DeviceInfo device_info() {
  DeviceInfo info;
  cudaDeviceProp prop{};
  int device = 0;
  cudaGetDevice(&device);
  cudaGetDeviceProperties(&prop, device);
  info.name = prop.name;
  info.sms = prop.multiProcessorCount;
  info.l2_mib = prop.l2CacheSize / 1048576.0;
  info.mem_gib = prop.totalGlobalMem / 1073741824.0;
  int rt = 0, drv = 0;
  cudaRuntimeGetVersion(&rt);
  cudaDriverGetVersion(&drv);
  info.runtime = std::to_string(rt / 1000) + "." + std::to_string((rt % 1000) / 10);
  info.driver_api = std::to_string(drv / 1000) + "." + std::to_string((drv % 1000) / 10);
  info.driver = driver_version_string();
  info.cccl = version_triplet(CCCL_VERSION, 1000000, 1000);
  info.thrust = version_triplet(THRUST_VERSION, 100000, 100);
  info.nvcc = std::to_string(__CUDACC_VER_MAJOR__) + "." + std::to_string(__CUDACC_VER_MINOR__) + "." +
              std::to_string(__CUDACC_VER_BUILD__);
  return info;
}

double ratio(const Row& r) { return r.ours_ms > 0 ? r.peer_ms / r.ours_ms : 0; }

// The table's row that a floor bounds (same op, size and distribution), or null when it did not run.
const Row* row_of(const std::vector<Row>& rows, const bench::FloorRow& f) {
  for (const Row& r : rows) {
    if (r.op == f.row_op && r.n == f.n && (f.dist == "-" || r.dist == f.dist)) return &r;
  }
  return nullptr;
}

// The time a row's target asks for: the peer's time over the target ratio, measured in this run.
double target_ms(const Row* r) { return r != nullptr && r->target > 0 && r->peer_ms > 0 ? r->peer_ms / r->target : 0; }

void print_floors(const std::vector<Row>& rows, const std::vector<bench::FloorRow>& floors) {
  if (floors.empty()) return;
  std::printf("\nFloors (bench_floors.cu): the simplest kernels moving a row's bytes to the split's places in its tiles'\n"
              "pattern, with no ranking and no look-back (read ms: the keys read once; move ms: the tiles moved), and the\n"
              "gather's halves one after the other (read ms: its random reads alone; move ms: its writes alone), and at once,\n"
              "no store waiting for a load. ours ms: the row's call timed in turns with its floor on the\n"
              "same input; target ms: this run's peer ms / the target ratio. A floor bounds what its kernels can do, not\n"
              "every kernel: where ours/floor < 1, ours beat it.\n\n");
  std::printf("%-42s %-11s %5s %9s %9s %-78s %9s %8s %8s %8s %10s %7s  %s\n", "row", "dist", "n", "ours ms", "target ms",
              "floor", "floor ms", "read ms", "move ms", "GB/s", "ours/floor", "<=tgt", "check");
  for (const bench::FloorRow& f : floors) {
    const double tgt = target_ms(row_of(rows, f));
    const double gbs = f.floor_ms > 0 ? f.bytes / (f.floor_ms * 1e6) : 0;
    std::printf("%-42s %-11s 2^%-3.0f %9.3f %9.3f %-78s %9.3f %8.3f %8.3f %8.0f %10.2f %7s  %s\n", f.row_op.c_str(),
                f.dist.c_str(), std::log2(double(f.n)), f.ours_ms, tgt, f.floor.c_str(), f.floor_ms, f.read_ms,
                f.move_ms, gbs, f.floor_ms > 0 ? f.ours_ms / f.floor_ms : 0.0,
                tgt > 0 ? (f.floor_ms <= tgt ? "yes" : "no") : "-", f.check.c_str());
  }
}

void print_table(const DeviceInfo& info, const std::vector<Row>& rows) {
  std::printf("\n%s | driver %s | CUDA runtime %s | CCCL %s | nvcc %s\n", info.name.c_str(), info.driver.c_str(),
              info.runtime.c_str(), info.cccl.c_str(), info.nvcc.c_str());
  std::printf("ratio = peer ms / ours ms (> 1: ours faster); target = the target ratio at 2^26, or a rate (G items / s);\n"
              "copy = a D2D copy of the same bytes\n\n");
  std::printf("%-40s %-46s %-11s %5s %9s %9s %6s %6s %9s %8s %9s  %s\n", "op", "peer", "dist", "n", "ours ms", "peer ms",
              "ratio", "target", "Gitems/s", "GB/s", "copy ms", "check");
  for (const Row& r : rows) {
    const double gitems = r.ours_ms > 0 ? r.n / (r.ours_ms * 1e6) : 0;
    const double gbs = r.ours_ms > 0 ? r.bytes / (r.ours_ms * 1e6) : 0;
    char target[16] = "-";
    if (r.target > 0) std::snprintf(target, sizeof(target), "%.2f", r.target);
    if (r.target_gitems > 0) std::snprintf(target, sizeof(target), "%.0fG/s", r.target_gitems);
    std::printf("%-40s %-46s %-11s 2^%-3.0f %9.3f %9.3f %6.2f %6s %9.2f %8.0f %9.3f  %s\n", r.op.c_str(), r.peer.c_str(),
                r.dist.c_str(), std::log2(double(r.n)), r.ours_ms, r.peer_ms, ratio(r), target, gitems, gbs, r.copy_ms,
                r.check.c_str());
  }
}

bool write_json(const std::string& path, const DeviceInfo& info, const bench::Options& opt, const std::vector<Row>& rows,
                const std::vector<bench::FloorRow>& floors) {
  std::ofstream f(path);
  if (!f) return false;
  f << "{\n  \"gpu\": \"" << json_escape(info.name) << "\",\n  \"driver\": \"" << json_escape(info.driver)
    << "\",\n  \"driver_cuda_api\": \"" << info.driver_api << "\",\n  \"cuda_runtime\": \"" << info.runtime
    << "\",\n  \"cccl\": \"" << info.cccl << "\",\n  \"thrust\": \"" << info.thrust << "\",\n  \"nvcc\": \"" << info.nvcc
    << "\",\n  \"sm_count\": " << info.sms << ",\n  \"l2_mib\": " << info.l2_mib << ",\n  \"memory_gib\": " << info.mem_gib
    << ",\n  \"reps\": " << opt.reps << ",\n  \"warmup\": " << opt.warmup << ",\n  \"warmup_ms\": " << opt.warmup_ms
    << ",\n  \"statistic\": \"median of reps, CUDA events around one call\",\n  \"rows\": [\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    f << "    {\"op\": \"" << json_escape(r.op) << "\", \"peer\": \"" << json_escape(r.peer) << "\", \"dist\": \""
      << r.dist << "\", \"n\": " << r.n << ", \"ours_ms\": " << r.ours_ms << ", \"peer_ms\": " << r.peer_ms
      << ", \"ratio\": " << ratio(r) << ", \"target_ratio\": " << r.target
      << ", \"target_items_per_s\": " << r.target_gitems * 1e9 << ", \"items_per_s\": "
      << (r.ours_ms > 0 ? r.n / (r.ours_ms * 1e-3) : 0) << ", \"bytes\": " << r.bytes << ", \"gb_per_s\": "
      << (r.ours_ms > 0 ? r.bytes / (r.ours_ms * 1e6) : 0) << ", \"copy_ms\": " << r.copy_ms << ", \"check\": \""
      << json_escape(r.check) << "\"}" << (i + 1 < rows.size() ? "," : "") << "\n";
  }
  f << "  ]";
  if (!floors.empty()) {
    f << ",\n  \"floors\": [\n";
    for (size_t i = 0; i < floors.size(); ++i) {
      const bench::FloorRow& fl = floors[i];
      const Row* r = row_of(rows, fl);
      f << "    {\"row\": \"" << json_escape(fl.row_op) << "\", \"floor\": \"" << json_escape(fl.floor)
        << "\", \"dist\": \"" << fl.dist << "\", \"n\": " << fl.n << ", \"ours_ms\": " << fl.ours_ms
        << ", \"target_ms\": " << target_ms(r) << ", \"floor_ms\": " << fl.floor_ms << ", \"read_ms\": "
        << fl.read_ms << ", \"move_ms\": " << fl.move_ms << ", \"bytes\": " << fl.bytes << ", \"check\": \""
        << json_escape(fl.check) << "\"}" << (i + 1 < floors.size() ? "," : "") << "\n";
    }
    f << "  ]";
  }
  f << "\n}\n";
  return static_cast<bool>(f);
}

[[noreturn]] void usage(const char* msg) {
  std::fprintf(stderr,
               "prim_bench: %s\nusage: prim_bench [--sizes 20,24,26 | --sizes 20-28] [--dists uniform,low] [--reps N>=20]\n"
               "                  [--warmup N] [--warmup-ms MS] [--filter TEXT] [--sweep-passes] [--floors] [--json FILE]\n",
               msg);
  std::exit(2);
}

std::vector<int> parse_sizes(const std::string& s) {
  std::vector<int> out;
  const auto dash = s.find('-');
  if (dash != std::string::npos) {
    const int lo = std::atoi(s.substr(0, dash).c_str()), hi = std::atoi(s.substr(dash + 1).c_str());
    for (int k = lo; k <= hi; ++k) out.push_back(k);
  } else {
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ',')) out.push_back(std::atoi(item.c_str()));
  }
  for (int k : out) {
    if (k < 10 || k > 31) usage("sizes are log2 of the element count, 10..31");
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  bench::Options opt;
  std::vector<int> sizes = {20, 24, 26};  // the quick default; --sizes 20-28 for the full sweep
  std::vector<bench::Dist> dists = {bench::Dist::uniform, bench::Dist::low_entropy};
  std::string json_path;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) usage(("missing value after " + a).c_str());
      return argv[++i];
    };
    if (a == "--sizes") {
      sizes = parse_sizes(next());
    } else if (a == "--dists") {
      dists.clear();
      const std::string d = next();
      if (d.find("uniform") != std::string::npos) dists.push_back(bench::Dist::uniform);
      if (d.find("low") != std::string::npos) dists.push_back(bench::Dist::low_entropy);
      if (dists.empty()) usage("--dists takes uniform and/or low");
    } else if (a == "--reps") {
      opt.reps = std::atoi(next().c_str());
      if (opt.reps < 1) usage("--reps must be positive");
    } else if (a == "--warmup") {
      opt.warmup = std::atoi(next().c_str());
    } else if (a == "--warmup-ms") {
      opt.warmup_ms = std::atof(next().c_str());
    } else if (a == "--filter") {
      opt.filter = next();
    } else if (a == "--sweep-passes") {
      opt.sweep_passes = true;
    } else if (a == "--floors") {
      opt.floors = true;
    } else if (a == "--json") {
      json_path = next();
    } else if (a == "-h" || a == "--help") {
      usage("help");
    } else {
      usage(("unknown argument " + a).c_str());
    }
  }

  int devices = 0;
  const cudaError_t status = cudaGetDeviceCount(&devices);
  if (status != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "prim_bench: no usable CUDA device (%s); the benchmark needs an NVIDIA GPU\n",
                 status != cudaSuccess ? cudaGetErrorString(status) : "device count is 0");
    return 2;
  }
  const DeviceInfo info = device_info();
  std::fprintf(stderr, "prim_bench on %s (%d SMs, %.0f MiB L2), driver %s, CUDA runtime %s, CCCL %s; %d reps\n",
               info.name.c_str(), info.sms, info.l2_mib, info.driver.c_str(), info.runtime.c_str(), info.cccl.c_str(),
               opt.reps);

  bench::Context ctx;
  ctx.opt = opt;
  if (!bench::cuda_ok(ctx, cudaStreamCreateWithFlags(&ctx.stream, cudaStreamNonBlocking), "cudaStreamCreate")) return 1;
  for (int k : sizes) {
    const int64_t n = int64_t(1) << k;
    for (bench::Dist d : dists) bench::run_split_rows(ctx, n, d);
    bench::run_move_rows(ctx, n);
    bench::run_hash_map_rows(ctx, n);
    bench::run_merge_search_select_rows(ctx, n);
    bench::run_range_tree_rows(ctx, n);
    if (opt.floors) bench::run_floor_rows(ctx, n, dists);
  }
  print_table(info, ctx.rows);
  print_floors(ctx.rows, ctx.floors);
  if (!json_path.empty()) {
    if (write_json(json_path, info, opt, ctx.rows, ctx.floors)) {
      std::fprintf(stderr, "prim_bench: wrote %s\n", json_path.c_str());
    } else {
      std::fprintf(stderr, "prim_bench: cannot write %s\n", json_path.c_str());
      ctx.failed = true;
    }
  }
  cudaStreamDestroy(ctx.stream);
  if (ctx.failed) std::fprintf(stderr, "prim_bench: FAILED (a row mismatched its peer or hit a CUDA error; see above)\n");
  return ctx.failed ? 1 : 0;
}
