// The frame as one CUDA graph. Launching the frame's ~25 kernels one by one leaves the GPU idle between them (most
// stages are a few microseconds of work); a graph's nodes follow one another with less of that. The graph is captured
// once per shape of frame (Shape: what decides its kernels, grids and buffers). Between frames of one shape only the
// arguments of the renderer's own kernels change (FrameParams: time, camera, shading; CastTarget: the surface), so
// each frame sets those on the executable graph's kernel nodes and launches it: capturing and updating the whole
// graph every frame would cost the host tens of microseconds a frame.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "render/cuda/cast_target.cuh"
#include "render/frame_params.h"

namespace slabcast {

class FrameGraph {
 public:
  // What decides the frame graph's nodes: the smooth-normal kernels, the sizes from which the primitives choose their
  // grids and kernels (CUB's scans pick single- or multi-pass by size), and the buffers the nodes point into (a new
  // allocation anywhere, e.g. another mesh of the same size, makes a new graph).
  struct Shape {
    bool smooth_normals = false;
    int width = 0, height = 0, slabs = 0;
    int64_t triangles = 0, vertices = 0;
    uint64_t capacity = 0;
    uint64_t buffers_generation = 0;
    int light_faces = 0, light_grid = 0;  // shadows (0: none)
    uint64_t light_capacity = 0;
    bool shade_kernel = false;  // the frame is shaded by a kernel of its own (stages/shade.h: shades_after_cast)
    bool operator==(const Shape& o) const {
      return smooth_normals == o.smooth_normals && width == o.width && height == o.height && slabs == o.slabs &&
             triangles == o.triangles && vertices == o.vertices && capacity == o.capacity &&
             buffers_generation == o.buffers_generation && light_faces == o.light_faces &&
             light_grid == o.light_grid && light_capacity == o.light_capacity && shade_kernel == o.shade_kernel;
    }
  };

  FrameGraph() = default;
  FrameGraph(const FrameGraph&) = delete;
  FrameGraph& operator=(const FrameGraph&) = delete;
  ~FrameGraph() { release(); }

  // Runs one frame on `stream`: `encode()` issues the frame's work (stream-ordered; it is captured when the shape is
  // new). If the device has no memory left for the graph itself, the frame is encoded directly instead.
  template <class Encode>
  void launch(const FrameParams& p, const CastTarget& cast, const Shape& shape, cudaStream_t stream, Encode&& encode) {
    if (!exec_ || !(shape == exec_shape_)) capture(p, shape, stream, encode);
    if (!exec_ || !launch_with(p, cast, stream)) encode();
  }
  // Whether `encode` is being captured (stage events must then be recorded as external events).
  bool capturing() const { return capturing_; }
  void release();

 private:
  // A kernel node whose arguments are the frame's: FrameParams, and for the kernels that write pixels CastTarget.
  struct FrameKernelNode {
    cudaGraphNode_t node;
    cudaKernelNodeParams params;  // as captured; the argument pointers are replaced at each launch
    bool takes_target;            // CastTarget is its second argument
  };
  void capture(const FrameParams& p, const Shape& shape, cudaStream_t stream, const std::function<void()>& encode);
  // Sets the frame's arguments on the executable graph's nodes and launches it; false (the graph released) when the
  // device has no memory left to launch it.
  bool launch_with(const FrameParams& p, const CastTarget& cast, cudaStream_t stream);
  std::vector<FrameKernelNode> frame_kernel_nodes(cudaGraph_t graph, size_t expected) const;

  cudaGraphExec_t exec_ = nullptr;
  cudaGraph_t template_ = nullptr;        // what exec_ was instantiated from; its nodes name exec_'s nodes
  std::vector<FrameKernelNode> nodes_;    // exec_'s nodes whose arguments change every frame
  Shape exec_shape_;
  bool capturing_ = false;
};

}  // namespace slabcast
