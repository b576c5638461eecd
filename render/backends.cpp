// What both backends share on the host (backends.h): the factory, the reference-capacity policy, out-of-memory
// reports, the structure download.
#include <cuda_runtime.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "render/backends.h"
#include "render/stages/bin.h"
#include "render/stages/build.h"

namespace slabcast {

std::unique_ptr<Renderer> make_renderer(Backend backend) { return make_renderer(backend, RendererOptions{}); }

void require_cuda_device() {
  int devices = 0;
  const cudaError_t status = cudaGetDeviceCount(&devices);
  if (status != cudaSuccess || devices == 0) {
    const std::string why = status != cudaSuccess ? cudaGetErrorString(status) : "no CUDA device is present";
    (void)cudaGetLastError();  // clear the sticky-free error so later runtime calls are not confused by it
    throw std::runtime_error("slabcast: the cuda backend needs an NVIDIA GPU, but none is usable (" + why +
                             "); use the cpu backend (--backend cpu) instead");
  }
}

std::unique_ptr<Renderer> make_renderer(Backend backend, const RendererOptions& options) {
  if (backend == Backend::cpu) return make_cpu_renderer(options);
  require_cuda_device();
  return make_cuda_renderer(options);
}

uint64_t initial_reference_capacity(const RendererOptions& options, uint64_t triangles) {
  if (options.initial_reference_capacity > 0) return options.initial_reference_capacity;
  return std::max(kMinReferenceCapacity, kInitialRefsPerTriangle * triangles);
}

uint64_t grown_reference_capacity(uint64_t capacity, uint64_t needed) {
  const uint64_t geometric = static_cast<uint64_t>(static_cast<double>(capacity) * kReferenceGrowth) + 1;
  return std::max(geometric, needed + needed / 8);
}

std::string format_bytes(uint64_t bytes) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < 5) {
    value /= 1024.0;
    ++unit;
  }
  char text[32];
  if (unit == 0) {
    std::snprintf(text, sizeof(text), "%llu B", static_cast<unsigned long long>(bytes));
  } else {
    std::snprintf(text, sizeof(text), value < 10 ? "%.2f %s" : value < 100 ? "%.1f %s" : "%.0f %s", value,
                  kUnits[unit]);
  }
  return text;
}

std::string out_of_memory_message(const char* memory, const std::string& owner, uint64_t needed,
                                  const std::string& what, uint64_t free_bytes, uint64_t total_bytes) {
  return std::string("out of ") + memory + " memory: " + (owner.empty() ? "the renderer" : owner) + " needs " +
         format_bytes(needed) + " more for " + what + " (" + format_bytes(free_bytes) + " free of " +
         format_bytes(total_bytes) + ")";
}

namespace {

// The first number in a file such as /sys/fs/cgroup/memory.max; false if absent or not a number ("max").
bool read_number(const char* path, uint64_t* value) {
  std::ifstream in(path);
  return static_cast<bool>(in >> *value);
}

// A "Key:   123 kB" line of /proc/self/status, in KiB (0 if absent).
uint64_t status_kib(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) == 0) return std::strtoull(line.c_str() + std::strlen(key), nullptr, 10);
  }
  return 0;
}

}  // namespace

bool host_memory_info(uint64_t* available_bytes, uint64_t* total_bytes) {
  std::ifstream meminfo("/proc/meminfo");
  uint64_t available_kib = 0, total_kib = 0;
  bool have_available = false, have_total = false;
  std::string line;
  while (std::getline(meminfo, line)) {
    std::istringstream fields(line);
    std::string key;
    uint64_t kib = 0;
    if (!(fields >> key >> kib)) continue;
    if (key == "MemAvailable:") {
      available_kib = kib;
      have_available = true;
    } else if (key == "MemTotal:") {
      total_kib = kib;
      have_total = true;
    }
  }
  if (!have_available || !have_total) return false;
  uint64_t available = available_kib * 1024, total = total_kib * 1024;
  // A container's memory limit (cgroup v2) and the process's address-space limit (ulimit -v) bind before the
  // machine's memory does.
  uint64_t limit = 0, used = 0;
  if (read_number("/sys/fs/cgroup/memory.max", &limit) && read_number("/sys/fs/cgroup/memory.current", &used) &&
      limit < total) {
    total = limit;
    available = std::min(available, limit > used ? limit - used : 0);
  }
  rlimit address_space{};
  if (getrlimit(RLIMIT_AS, &address_space) == 0 && address_space.rlim_cur != RLIM_INFINITY) {
    const uint64_t mapped = status_kib("VmSize:") * 1024;
    const uint64_t cap = address_space.rlim_cur;
    total = std::min<uint64_t>(total, cap);
    available = std::min(available, cap > mapped ? cap - mapped : 0);
  }
  *available_bytes = available;
  *total_bytes = total;
  return true;
}

void check_host_memory(const std::string& owner, uint64_t needed, const std::string& what) {
  // Linux overcommits: an allocation far past physical memory may succeed and the process be killed later, when
  // the pages are touched. Asking first turns that into an error message.
  uint64_t available = 0, total = 0;
  if (host_memory_info(&available, &total) && needed > available) {
    throw OutOfMemory(out_of_memory_message("host", owner, needed, what, available, total));
  }
}

FrameStructure to_frame_structure(const BuildView& b) {
  FrameStructure s;
  s.tiles_x = b.tiles_x;
  s.tiles_y = b.tiles_y;
  s.slabs = b.slabs;
  const SlabRange range = make_slab_range(b.depth_min, b.depth_max, b.slabs);
  s.z_near = range.z_near;
  s.z_far = range.z_far;
  s.tile_range.resize(4 * b.triangles);
  s.slab_of_triangle.resize(b.triangles);
  for (size_t t = 0; t < b.triangles; ++t) {
    const TileRange r = tile_range_of(b.pixel_box[t]);
    s.tile_range[4 * t] = r.x0;
    s.tile_range[4 * t + 1] = r.y0;
    s.tile_range[4 * t + 2] = r.x1;
    s.tile_range[4 * t + 3] = r.y1;
    s.slab_of_triangle[t] = is_culled(r) ? 0 : static_cast<uint8_t>(slab_of_depth(range, b.nearest_depth[t]));
  }
  // Build order (tx, ty, slab) -> documented order (ty, tx, slab).
  const uint64_t cells = static_cast<uint64_t>(b.tiles_x) * b.tiles_y * b.slabs;
  s.cell_offsets.assign(cells + 1, 0);
  for (int ty = 0; ty < b.tiles_y; ++ty) {
    for (int tx = 0; tx < b.tiles_x; ++tx) {
      for (int sl = 0; sl < b.slabs; ++sl) {
        const uint64_t src = build_cell(tx, ty, sl, b.tiles_y, b.slabs);
        const uint64_t dst = (static_cast<uint64_t>(ty) * b.tiles_x + tx) * b.slabs + sl;
        s.cell_offsets[dst + 1] = b.cell_offsets[src + 1] - b.cell_offsets[src];
      }
    }
  }
  for (uint64_t c = 0; c < cells; ++c) s.cell_offsets[c + 1] += s.cell_offsets[c];
  s.cell_triangles.resize(s.cell_offsets[cells]);
  for (int ty = 0; ty < b.tiles_y; ++ty) {
    for (int tx = 0; tx < b.tiles_x; ++tx) {
      for (int sl = 0; sl < b.slabs; ++sl) {
        const uint64_t src = build_cell(tx, ty, sl, b.tiles_y, b.slabs);
        const uint64_t dst = (static_cast<uint64_t>(ty) * b.tiles_x + tx) * b.slabs + sl;
        uint64_t out = s.cell_offsets[dst];
        for (uint64_t k = b.cell_offsets[src]; k < b.cell_offsets[src + 1]; ++k) {
          s.cell_triangles[out++] = ref_triangle(b.cell_refs[k]);
        }
      }
    }
  }
  return s;
}

std::vector<glm::vec3> to_glm(const std::vector<Vec3>& v) {
  std::vector<glm::vec3> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = glm::vec3(v[i].x, v[i].y, v[i].z);
  return out;
}

}  // namespace slabcast
