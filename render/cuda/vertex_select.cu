#include "render/cuda/vertex_select.h"

#include <algorithm>
#include <cstddef>
#include <string>

#include "prim/range_tree.h"

#include "render/cuda/kernels.cuh"
#include "render/cuda_check.h"

namespace slabcast {

static_assert(sizeof(SelectedVertex) == sizeof(SelectedVertexRecord) &&
                  offsetof(SelectedVertex, vertex) == offsetof(SelectedVertexRecord, vertex) &&
                  offsetof(SelectedVertex, x) == offsetof(SelectedVertexRecord, x) &&
                  offsetof(SelectedVertex, y) == offsetof(SelectedVertexRecord, y) &&
                  offsetof(SelectedVertex, depth) == offsetof(SelectedVertexRecord, depth),
              "the device's records are downloaded as renderer.h's SelectedVertex");

void DeviceVertexSelect::reserve(DeviceArrays& arrays, int64_t vertices, cudaStream_t stream) {
  if (vertices == vertices_) return;
  vertices_ = -1;  // until every buffer below is in place
  const size_t V = static_cast<size_t>(vertices);
  size_t build_bytes = 0, tree_bytes = 0, report_bytes = 0;
  prim::RangeTree no_tree{};
  SLABCAST_CUDA_CHECK(prim::range_tree_build(nullptr, build_bytes, nullptr, tree_bytes, nullptr, nullptr, nullptr,
                                             vertices, /*report=*/true, no_tree, stream));
  SLABCAST_CUDA_CHECK(prim::range_tree_report(nullptr, report_bytes, no_tree, nullptr, prim::ItemCount(1), nullptr,
                                              nullptr, 0, stream));
  const std::string what = "the vertex selection's range tree (" + std::to_string(V) + " vertices)";
  arrays.allocate(x_, V, what);
  arrays.allocate(y_, V, what);
  arrays.allocate(depth_, V, what);
  arrays.allocate(temp_, std::max(build_bytes, report_bytes), what);
  arrays.allocate(tree_, tree_bytes, what);
  arrays.allocate(box_, 1, what);
  arrays.allocate(offsets_, 2, what);
  arrays.allocate(points_, V, what);
  arrays.allocate(records_, V, what);
  vertices_ = vertices;
}

std::vector<SelectedVertex> DeviceVertexSelect::select(DeviceArrays& arrays, const ViewParams& view,
                                                       const ImageRect& rect, cudaStream_t stream) {
  const int64_t V = arrays.num_vertices;
  reserve(arrays, V, stream);
  project_vertices_kernel<<<grid_for(V, kVertexBlock), kVertexBlock, 0, stream>>>(
      view, arrays.a.view.data(), V, x_.data(), y_.data(), depth_.data());
  SLABCAST_CUDA_CHECK_LAUNCH(project_vertices_kernel);
  size_t temp_bytes = temp_.bytes(), tree_bytes = tree_.bytes();
  prim::RangeTree tree{};
  SLABCAST_CUDA_CHECK(prim::range_tree_build(temp_.data(), temp_bytes, tree_.data(), tree_bytes, x_.data(), y_.data(),
                                             nullptr, V, /*report=*/true, tree, stream));
  // A pageable source: the copy has read it before the call returns.
  const prim::RangeBox box{rect.x_min, rect.x_max, rect.y_min, rect.y_max};
  SLABCAST_CUDA_CHECK(cudaMemcpyAsync(box_.data(), &box, sizeof(box), cudaMemcpyHostToDevice, stream));
  // Room for every vertex: a box never holds more, so the report never needs a second pass.
  temp_bytes = temp_.bytes();
  SLABCAST_CUDA_CHECK(prim::range_tree_report(temp_.data(), temp_bytes, tree, box_.data(), prim::ItemCount(1),
                                              offsets_.data(), points_.data(), V, stream));
  selected_vertices_kernel<<<grid_for(V, kVertexBlock), kVertexBlock, 0, stream>>>(
      points_.data(), offsets_.data() + 1, V, x_.data(), y_.data(), depth_.data(), view.scale_exponent,
      records_.data());
  SLABCAST_CUDA_CHECK_LAUNCH(selected_vertices_kernel);
  // The query's one wait: the count decides how much to download.
  uint64_t count = 0;
  SLABCAST_CUDA_CHECK(cudaMemcpyAsync(&count, offsets_.data() + 1, sizeof(count), cudaMemcpyDeviceToHost, stream));
  SLABCAST_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<SelectedVertex> out(static_cast<size_t>(std::min<uint64_t>(count, static_cast<uint64_t>(V))));
  if (!out.empty()) {
    SLABCAST_CUDA_CHECK(cudaMemcpy(out.data(), records_.data(), out.size() * sizeof(SelectedVertex),
                                   cudaMemcpyDeviceToHost));
  }
  std::sort(out.begin(), out.end(),
            [](const SelectedVertex& a, const SelectedVertex& b) { return a.vertex < b.vertex; });
  return out;
}

size_t DeviceVertexSelect::bytes() const {
  return x_.bytes() + y_.bytes() + depth_.bytes() + temp_.bytes() + tree_.bytes() + box_.bytes() + offsets_.bytes() +
         points_.bytes() + records_.bytes();
}

}  // namespace slabcast
