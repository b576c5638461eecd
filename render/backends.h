// The two Renderer implementations (internal to render/; users call make_renderer) and what they share on the host
// besides the frame setup (frame_setup.h): the reference-capacity policy, out-of-memory reports, the structure
// download. Implemented in backends.cpp; the backends are render/cuda/ and render/cpu/.
#pragma once
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "render/frame_params.h"
#include "render/renderer.h"

namespace slabcast {

std::unique_ptr<Renderer> make_cpu_renderer(const RendererOptions& options);
std::unique_ptr<Renderer> make_cuda_renderer(const RendererOptions& options);  // requires a CUDA device

// Reference capacity a renderer starts with for a mesh of `triangles` (options may force it).
uint64_t initial_reference_capacity(const RendererOptions& options, uint64_t triangles);
// Capacity after an overflow that needed `needed` references.
uint64_t grown_reference_capacity(uint64_t capacity, uint64_t needed);

// ---- running out of memory (both backends) ----
// A failed allocation, reported with what was needed and what was free; a std::runtime_error, so users of the
// Renderer interface need not know the type. The backends catch it internally only to add what state they kept.
class OutOfMemory : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
// "out of GPU memory: sphere:1000000 needs 1.9 GiB more for the mesh's buffers (3.2 GiB free of 80 GiB)".
// `memory` is "GPU" or "host"; `owner` is the mesh's name (empty before the first mesh: "the renderer");
// `needed` is what the operation asked for on top of what the renderer already holds.
std::string out_of_memory_message(const char* memory, const std::string& owner, uint64_t needed,
                                  const std::string& what, uint64_t free_bytes, uint64_t total_bytes);
// 1536 -> "1.5 KiB"; three significant digits, binary units.
std::string format_bytes(uint64_t bytes);
// Host memory that can still be allocated without swapping (/proc/meminfo MemAvailable) and the total; false when
// unknown (then no pre-check is made and only std::bad_alloc reports the failure).
bool host_memory_info(uint64_t* available_bytes, uint64_t* total_bytes);
// Throws OutOfMemory if `needed` bytes of host memory are more than is available (when that is known).
void check_host_memory(const std::string& owner, uint64_t needed, const std::string& what);

// FrameStructure from the build-order structure (shared by both backends' last_structure()).
struct BuildView {
  int tiles_x, tiles_y, slabs;
  float depth_min, depth_max;         // the raw depth range (stages/bin.h: nearest_of, farthest_of)
  const PixelBox* pixel_box;          // [triangles]
  const float* nearest_depth;         // [triangles]
  size_t triangles;
  const uint64_t* cell_offsets;       // [cells + 1], build order
  const TriangleRef* cell_refs;       // [cell_offsets[cells]]
};
FrameStructure to_frame_structure(const BuildView& b);

// Per-vertex vectors as the Renderer interface returns them.
std::vector<glm::vec3> to_glm(const std::vector<Vec3>& v);

}  // namespace slabcast
