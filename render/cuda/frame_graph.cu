#include "render/cuda/frame_graph.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <string>

#include "render/cuda/kernels.cuh"
#include "render/cuda_check.h"
#include "render/stages/shade.h"

namespace slabcast {

bool FrameGraph::launch_with(const FrameParams& p, const CastTarget& cast_target, cudaStream_t stream) {
  FrameParams params = p;
  CastTarget cast = cast_target;
  void* frame_args[] = {&params};
  void* target_args[] = {&params, &cast};
  for (const FrameKernelNode& node : nodes_) {
    cudaKernelNodeParams kernel = node.params;
    kernel.kernelParams = node.takes_target ? target_args : frame_args;
    SLABCAST_CUDA_CHECK(cudaGraphExecKernelNodeSetParams(exec_, node.node, &kernel));
  }
  const cudaError_t status = cudaGraphLaunch(exec_, stream);
  if (status == cudaErrorMemoryAllocation) {  // the device is too full for the graph: the caller launches directly
    cudaGetLastError();
    release();
    return false;
  }
  SLABCAST_CUDA_CHECK(status);
  return true;
}

void FrameGraph::release() {
  if (exec_) cudaGraphExecDestroy(exec_);
  if (template_) cudaGraphDestroy(template_);
  exec_ = nullptr;
  template_ = nullptr;
  nodes_.clear();
}

// Captures `encode` for a new shape of frame and instantiates it. Leaves exec_ null if the device has no memory left
// for the graph (the caller then launches the frame directly); throws on any other error.
void FrameGraph::capture(const FrameParams& p, const Shape& shape, cudaStream_t stream,
                         const std::function<void()>& encode) {
  release();
  SLABCAST_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  capturing_ = true;
  cudaGraph_t graph = nullptr;
  try {
    encode();
  } catch (...) {
    capturing_ = false;
    cudaStreamEndCapture(stream, &graph);  // leave the stream usable; the capture is void anyway
    cudaGetLastError();
    if (graph) cudaGraphDestroy(graph);
    throw;
  }
  capturing_ = false;
  SLABCAST_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  template_ = graph;  // kept: its nodes name the executable graph's nodes to update
  // The frame launches deform, bin and the two casters once (with shadows the two that make the samples), the two
  // normal kernels when the shading needs them, with shadows the references' count (which writes the light boxes) and
  // scatter and the test, and the shade kernel where the frame is shaded after the cast.
  const size_t expected = (p.need_smooth_normals ? 6 : 4) + (p.light.shadows ? 3 : 0) +
                          (shades_after_cast(p) ? 1 : 0);
  const std::vector<FrameKernelNode> nodes = frame_kernel_nodes(graph, expected);
  const cudaError_t status = cudaGraphInstantiate(&exec_, graph, 0);
  if (status == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    exec_ = nullptr;
    release();
    return;
  }
  if (status != cudaSuccess) {
    exec_ = nullptr;
    release();
    SLABCAST_CUDA_CHECK(status);
  }
  nodes_ = nodes;
  exec_shape_ = shape;
}

// The captured graph's nodes of the renderer's per-frame kernels, found by their function. Each must be there as
// often as the frame launches it (the primitives' kernels take only buffers, which the shape fixes).
std::vector<FrameGraph::FrameKernelNode> FrameGraph::frame_kernel_nodes(cudaGraph_t graph, size_t expected) const {
  size_t count = 0;
  SLABCAST_CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &count));
  std::vector<cudaGraphNode_t> all(count);
  SLABCAST_CUDA_CHECK(cudaGraphGetNodes(graph, all.data(), &count));
  const void* frame_kernels[] = {reinterpret_cast<const void*>(deform_kernel),
                                 reinterpret_cast<const void*>(face_normal_kernel),
                                 reinterpret_cast<const void*>(vertex_normal_kernel),
                                 reinterpret_cast<const void*>(bin_kernel),
                                 reinterpret_cast<const void*>(light_ref_count_sun_kernel),
                                 reinterpret_cast<const void*>(light_ref_scatter_sun_kernel),
                                 reinterpret_cast<const void*>(light_ref_count_cube_kernel),
                                 reinterpret_cast<const void*>(light_ref_scatter_cube_kernel)};
  const void* target_kernels[] = {  // they take the CastTarget too
      reinterpret_cast<const void*>(cast_kernel),        reinterpret_cast<const void*>(cast_deep_kernel),
      reinterpret_cast<const void*>(cast_sample_kernel), reinterpret_cast<const void*>(cast_deep_sample_kernel),
      reinterpret_cast<const void*>(shadow_test_kernel), reinterpret_cast<const void*>(shade_kernel)};
  std::vector<FrameKernelNode> nodes;
  for (cudaGraphNode_t node : all) {
    cudaGraphNodeType type;
    SLABCAST_CUDA_CHECK(cudaGraphNodeGetType(node, &type));
    if (type != cudaGraphNodeTypeKernel) continue;
    cudaKernelNodeParams params{};
    SLABCAST_CUDA_CHECK(cudaGraphKernelNodeGetParams(node, &params));
    const bool takes_target = std::find(std::begin(target_kernels), std::end(target_kernels), params.func) !=
                              std::end(target_kernels);
    const bool is_frame = std::find(std::begin(frame_kernels), std::end(frame_kernels), params.func) !=
                          std::end(frame_kernels);
    if (takes_target || is_frame) nodes.push_back(FrameKernelNode{node, params, takes_target});
  }
  if (nodes.size() != expected) {
    throw std::logic_error("slabcast: the frame graph has " + std::to_string(nodes.size()) +
                           " nodes of the frame's kernels, expected " + std::to_string(expected));
  }
  return nodes;
}

}  // namespace slabcast
