// Renderer::select_vertices on the cuda backend: the last frame's view-space vertices projected into its image on the
// device (stages/select.h), a prim::range_tree built over them with reports, and one box's report. The buffers are
// allocated at the first query for a mesh of a new vertex count, through DeviceArrays (its out-of-memory message), and
// kept: a viewer queries every frame while a selection rectangle is up.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "prim/detail/core/range_tree_layout.h"  // RangeBox only: the calls are vertex_select.cu's
#include "prim/device_buffer.h"
#include "render/camera.h"
#include "render/cuda/device_arrays.h"
#include "render/renderer.h"
#include "render/stages/select.h"

namespace slabcast {

class DeviceVertexSelect {
 public:
  // The vertices of `arrays`' last frame (rendered with `view`) inside `rect`, ascending. Waits for the stream.
  std::vector<SelectedVertex> select(DeviceArrays& arrays, const ViewParams& view, const ImageRect& rect,
                                     cudaStream_t stream);
  size_t bytes() const;

 private:
  void reserve(DeviceArrays& arrays, int64_t vertices, cudaStream_t stream);

  int64_t vertices_ = -1;  // what the buffers are sized for
  prim::DeviceBuffer<float> x_, y_, depth_;          // [vertices]: each vertex's projection (stages/select.h)
  prim::DeviceBuffer<unsigned char> temp_, tree_;    // the build's and the report's scratch; the tree's arrays
  prim::DeviceBuffer<prim::RangeBox> box_;           // [1]: the queried rectangle
  prim::DeviceBuffer<uint64_t> offsets_;             // [2]: the report's offsets; [1] is the count
  prim::DeviceBuffer<uint32_t> points_;              // [vertices]: the selected vertices, in the tree's order
  prim::DeviceBuffer<SelectedVertexRecord> records_; // [vertices]: their records, in the same order
};

}  // namespace slabcast
