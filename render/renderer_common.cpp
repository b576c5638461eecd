// What both backends share on the host: the factory, the reference-capacity policy, the structure download.
#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "render/backends.h"
#include "render/bin.h"

namespace slabcast {

std::unique_ptr<Renderer> make_renderer(Backend backend) { return make_renderer(backend, RendererOptions{}); }

std::unique_ptr<Renderer> make_renderer(Backend backend, const RendererOptions& options) {
  if (backend == Backend::cpu) return make_cpu_renderer(options);
  int devices = 0;
  const cudaError_t status = cudaGetDeviceCount(&devices);
  if (status != cudaSuccess || devices == 0) {
    const std::string why = status != cudaSuccess ? cudaGetErrorString(status) : "no CUDA device is present";
    (void)cudaGetLastError();  // clear the sticky-free error so later runtime calls are not confused by it
    throw std::runtime_error("slabcast: the cuda backend needs an NVIDIA GPU, but none is usable (" + why +
                             "); use the cpu backend (--backend cpu) instead");
  }
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
    const TileRange r = b.tile_range[t];
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

}  // namespace slabcast
