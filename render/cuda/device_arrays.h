// The cuda backend's device memory: every array of the mesh, the build and the frame size, each a prim::DeviceBuffer,
// and the out-of-memory handling that keeps the renderer usable when one does not fit. Every allocation goes through
// allocate(), which turns a failure for lack of memory into OutOfMemory naming the mesh, what the buffer is for, the
// bytes asked for and what the device has free; the operations that replace buffers (set_mesh, grow_references,
// reserve_frame) check first whether the new ones can fit and otherwise roll back to the old ones.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "prim/device_buffer.h"
#include "render/appearance.h"
#include "render/backends.h"
#include "render/cuda_check.h"
#include "render/frame_params.h"
#include "render/frame_setup.h"
#include "render/renderer.h"
#include "render/stages/resolve.h"

namespace slabcast {

class DeviceArrays {
 public:
  // Allocates nothing: the owner allocates the counters, then set_mesh the mesh. `stream` orders the uploads.
  explicit DeviceArrays(cudaStream_t stream);

  // ---- what the frame reads and writes ----
  FrameArrays<prim::DeviceBuffer> a;              // FrameParams points into these (shapes there)
  prim::DeviceBuffer<unsigned char> scratch;      // every primitive of the build, one after another: one blob
  prim::DeviceBuffer<FrameCounters> counters;     // [1]
  prim::DeviceBuffer<SampleSum> sample_sums;      // [W * H] once a frame has samples > 1 (stages/resolve.h)
  uint64_t capacity = 0;                          // elements of a.refs_a and a.refs_b
  int64_t num_vertices = 0, num_triangles = 0;    // 0 triangles: no mesh
  MeshBounds bounds;                              // of the rest mesh
  uint64_t hidden_duplicates = 0;                 // triangles flagged in a.hidden_duplicate
  std::string mesh_name;                          // in out-of-memory messages
  FrameSize size;                                 // what the frame arrays and the scratch are sized for ({}: none)
  bool have_frame = false;                        // the arrays hold a rendered frame (last_structure)
  KeyframeSlots keyframe_slots;                   // what a.keyframe_slot holds (set_mesh forgets it)
  DisplacementSlot displacement_slot;             // what a.displacement_* hold (set_mesh forgets it)

  // Counts allocations: a frame graph that points into an old buffer must not be launched again.
  uint64_t generation() const { return generation_; }

  // Allocates exactly `count` elements (the old contents are freed first); OutOfMemory when the device has no room.
  template <typename T>
  void allocate(prim::DeviceBuffer<T>& buffer, size_t count, const std::string& what);
  // At least `count` elements: allocates only when growing.
  template <typename T>
  void ensure(prim::DeviceBuffer<T>& buffer, size_t count, const std::string& what) {
    if (count > buffer.size()) allocate(buffer, count, what);
  }

  // All or nothing: on failure the previous mesh stays and still renders. A mesh that cannot fit even in place of
  // the previous one is refused before anything is freed (OutOfMemory naming what was needed and what is free).
  // Otherwise the previous mesh is copied to the host and freed; should an allocation then fail anyway (another
  // process took the memory meanwhile), the copy is uploaded again. Only if that fails too is the renderer left
  // without a mesh (render() then throws until a set_mesh succeeds), and the message says so. The scratch and the
  // frame arrays' size are reset (the next render sizes them).
  void set_mesh(const Mesh& mesh, uint64_t capacity);

  // After L1 overflowed: both reference arrays grow to `capacity` (the caller sizes the scratch again). If they
  // cannot fit even in place of the old ones, nothing changes (OutOfMemory; frames needing fewer references still
  // render). Should an allocation fail anyway, the old capacity is allocated again; only if that fails too is the
  // mesh dropped. `what` names the frame's need in the message.
  void grow_references(uint64_t capacity, const std::string& what);

  // The frame arrays for frames of `frame` (the caller sizes the scratch, then sets `size`): nothing changes if they
  // cannot fit even in place of the old ones (frames of the previous size still render).
  void reserve_frame(const FrameSize& frame);

  size_t mesh_bytes_held() const;
  size_t bytes_in_use() const;  // everything above

 private:
  size_t mesh_upload_bytes(size_t V, size_t T, uint64_t capacity);
  // Throws OutOfMemory (the caller releases). `appearance` is pack_appearance(mesh)'s (or the previous mesh's).
  void upload_mesh(const Mesh& mesh, const PackedAppearance& appearance, uint64_t capacity);
  Mesh download_mesh() const;
  PackedAppearance download_appearance() const;
  void release_mesh();
  // Allocates `buffer` for `host` and copies it (stream-ordered: `host` must live until the stream has run it);
  // an empty `host` releases the buffer.
  template <typename T>
  void upload(prim::DeviceBuffer<T>& buffer, const std::vector<T>& host, const std::string& what);

  cudaStream_t stream_;
  uint64_t generation_ = 0;
};

template <typename T>
void DeviceArrays::allocate(prim::DeviceBuffer<T>& buffer, size_t count, const std::string& what) {
  ++generation_;
  const cudaError_t status = buffer.allocate(count);
  if (status == cudaSuccess) return;
  if (status != cudaErrorMemoryAllocation) detail::check_cuda(status, "cudaMalloc", __FILE__, __LINE__);
  (void)cudaGetLastError();  // an allocation failure is not sticky; clear it so the next call starts clean
  size_t free_bytes = 0, total_bytes = 0;
  SLABCAST_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  throw OutOfMemory(out_of_memory_message("GPU", mesh_name, count * sizeof(T), what, free_bytes, total_bytes));
}

template <typename T>
void DeviceArrays::upload(prim::DeviceBuffer<T>& buffer, const std::vector<T>& host, const std::string& what) {
  if (host.empty()) {
    buffer.release();
    return;
  }
  allocate(buffer, host.size(), what);
  SLABCAST_CUDA_CHECK(
      cudaMemcpyAsync(buffer.data(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice, stream_));
}

}  // namespace slabcast
