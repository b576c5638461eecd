// The two Renderer implementations (internal to render/; users call make_renderer).
#pragma once
#include <memory>

#include "render/build_ops.h"
#include "render/renderer.h"

namespace slabcast {

std::unique_ptr<Renderer> make_cpu_renderer(const RendererOptions& options);
std::unique_ptr<Renderer> make_cuda_renderer(const RendererOptions& options);  // requires a CUDA device

// Reference capacity a renderer starts with for a mesh of `triangles` (options may force it).
uint64_t initial_reference_capacity(const RendererOptions& options, uint64_t triangles);
// Capacity after an overflow that needed `needed` references.
uint64_t grown_reference_capacity(uint64_t capacity, uint64_t needed);

// FrameStructure from the build-order structure (shared by both backends' last_structure()).
struct BuildView {
  int tiles_x, tiles_y, slabs;
  float depth_min, depth_max;         // the reduction's raw results
  const TileRange* tile_range;        // [triangles]
  const float* nearest_depth;         // [triangles]
  size_t triangles;
  const uint64_t* cell_offsets;       // [cells + 1], build order
  const TriangleRef* cell_refs;       // [cell_offsets[cells]]
};
FrameStructure to_frame_structure(const BuildView& b);

}  // namespace slabcast
