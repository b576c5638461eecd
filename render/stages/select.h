// Vertex selection (Renderer::select_vertices), after a frame: each deformed vertex projected into the frame's image,
// the points a 2-D range tree is built over. Not a stage of the frame; the per-vertex body is shared by both backends
// (the cuda backend's kernel runs it one thread a vertex, the cpu backend in a loop), so both select the same vertices.
#pragma once
#include <cmath>
#include <cstdint>

#include "render/camera.h"
#include "render/frame_params.h"
#include "render/hd_math.h"

namespace slabcast {

// renderer.h's SelectedVertex without GLM's headers, for device code (static_asserts where both are seen keep the two
// in step).
struct SelectedVertexRecord {
  uint32_t vertex;
  float x, y;
  float depth;
};

// Vertex v of the frame's view-space positions as a range-tree point: its continuous pixel coordinates (pixel (px, py)
// covers [px, px + 1) x [py, py + 1), the bin stage's projection, stages/bin.h) and its depth along the view axis in
// view units. A vertex at or behind the camera plane projects nowhere: NaN coordinates, which the range tree counts
// as invalid and never returns.
SC_HD void project_vertex_one(const ViewParams& view, const ViewVertex* view_positions, int64_t v, float* x, float* y,
                              float* depth) {
  const Vec3 q = view_positions[v].p;
  const float d = -q.z;
  depth[v] = d;
  if (!(d > 0.0f)) {
    x[v] = NAN;
    y[v] = NAN;
    return;
  }
  const float W = static_cast<float>(view.width), H = static_cast<float>(view.height);
  const float kx = view.tan_half_fovy * view.aspect, ky = view.tan_half_fovy;
  x[v] = (sc_div(sc_div(q.x, d), kx) + 1.0f) * 0.5f * W;
  y[v] = (1.0f - sc_div(sc_div(q.y, d), ky)) * 0.5f * H;
}

// The record of a selected vertex v (renderer.h's SelectedVertex) from its projection; its depth from view units to
// world units, times 2^scale_exponent (exact).
SC_HD void selected_vertex_one(const float* x, const float* y, const float* depth, int scale_exponent, uint32_t v,
                               SelectedVertexRecord& out) {
  out.vertex = v;
  out.x = x[v];
  out.y = y[v];
  out.depth = ldexpf(depth[v], scale_exponent);
}

}  // namespace slabcast
