// Stage 1, deform (docs/architecture.md, frame step 1): rest position -> deformed position, one call per vertex, and
// the smooth normals (face normals, then vertex normals) when the shading uses them. The per-item bodies here are
// shared by both backends: the cuda kernels run one per thread, the cpu backend in loops.
//
// Deformer parameters are relative to the rest mesh's bounds, so `amount` means the same on any model. `time` is an
// input (seconds): the same (amount, time) always gives the same mesh.
#pragma once
#include <cstdint>

#include "render/camera.h"
#include "render/constants.h"
#include "render/frame_params.h"
#include "render/hd_math.h"

namespace slabcast {

namespace detail {
constexpr float kPi = 3.14159265358979f;
SC_HD Vec3 rotate_about_y(Vec3 d, float angle) {
  float s, c;
  sin_cos(angle, s, c);
  return Vec3{d.x * c + d.z * s, d.y, d.z * c - d.x * s};
}
SC_HD Vec3 rotate_about_z(Vec3 d, float angle) {
  float s, c;
  sin_cos(angle, s, c);
  return Vec3{d.x * c - d.y * s, d.x * s + d.y * c, d.z};
}
}  // namespace detail

SC_HD Vec3 deform_vertex(const DeformFrame& f, Vec3 p) {
  const Vec3 d = p - f.center;
  const float inv_r = sc_div(1.0f, f.radius);
  switch (f.kind) {
    case DeformKind::twist: {  // rotation about +Y growing with height; swings with time
      const float angle = f.amount * (d.y * inv_r) * (0.5f * detail::kPi) * det_cos(f.time);
      return f.center + detail::rotate_about_y(d, angle);
    }
    case DeformKind::bend: {  // rotation about +Z growing with |x|: the X axis bends into an arc
      const float h = d.x * inv_r;
      const float angle = f.amount * 0.5f * h * sc_abs(h) * det_cos(f.time);
      return f.center + detail::rotate_about_z(d, angle);
    }
    case DeformKind::wave: {  // travelling wave along X and Z, displacing Y
      const float k = 2.0f * detail::kPi;
      const float w = det_sin(k * d.x * inv_r + 3.0f * f.time) * det_cos(k * d.z * inv_r + 2.0f * f.time);
      return Vec3{p.x, p.y + f.amount * 0.08f * f.radius * w, p.z};
    }
    case DeformKind::pulse: {  // radial breathing with a ripple outward from the centre
      // |d| at unit size and back (an exact power of two): dot(d, d) itself overflows for coordinates past 1e19.
      const Vec3 du = d * f.unit;
      const float dist = sc_div(sc_sqrt(dot(du, du)), f.unit) * inv_r;
      const float scale = 1.0f + f.amount * 0.1f * det_sin(6.0f * dist - 4.0f * f.time);
      return f.center + d * scale;
    }
    case DeformKind::none:
    default:
      return p;
  }
}

// The rig's pose applied to vertex v (renderer.h's MeshRig): morph, then skin. Targets with weight 0 and influences
// with weight 0 are skipped (they would add only zeros); a vertex whose weights are all 0 keeps its morphed position.
SC_HD Vec3 posed_vertex(const FrameParams& p, int64_t v) {
  Vec3 q = p.rig_positions[v];
  for (int64_t k = 0; k < p.morph_target_count; ++k) {
    const MorphRange m = p.morph_targets[k];
    const uint64_t i = static_cast<uint64_t>(v) - m.first_vertex;  // wraps past the range below first_vertex
    const float w = p.morph_weights[m.weight];
    if (i < m.vertex_count && w != 0.0f) q = q + w * p.morph_deltas[m.delta_offset + i];
  }
  const int n = p.rig_influences;
  Vec3 skinned{0.0f, 0.0f, 0.0f};
  bool skinned_any = false;
  for (int i = 0; i < n; ++i) {
    const int64_t k = v * n + i;
    const float w = p.rig_weights[k];
    if (w == 0.0f) continue;
    const RigMatrix M = p.rig_palette[p.rig_joints[k]];
    skinned = skinned + w * (((M.c0 * q.x + M.c1 * q.y) + M.c2 * q.z) + M.c3);
    skinned_any = true;
  }
  return skinned_any ? skinned : q;
}

// ---- per-item bodies ----

SC_HD void deform_one(const FrameParams& p, int64_t v) {
  Vec3 rest;
  if (p.keyframe_a != nullptr) {
    const Vec3 a = p.keyframe_a[v];
    rest = a + p.keyframe_mix * (p.keyframe_b[v] - a);
  } else {
    rest = p.rig_positions != nullptr ? posed_vertex(p, v) : p.rest_positions[v];
  }
  Vec3 w = deform_vertex(p.deform, rest);
  // The user displacement stacks on top of every deformer. A zero weight adds nothing (not even 0 * offset), so
  // the vertices outside a selection keep their bits exactly.
  if (p.displacement_offsets != nullptr) w = w + p.displacement_offsets[v];
  if (p.displacement_weights != nullptr) {
    const float k = p.displacement_weights[v];
    if (k != 0.0f) w = w + k * p.displacement_offset;
  }
  p.world_positions[v] = w;
  p.view_positions[v] = ViewVertex{world_to_view(p.view, w), 0.0f};
}

SC_HD void face_normal_one(const FrameParams& p, int64_t t) {
  const Vec3 a = p.world_positions[p.indices[3 * t]];
  const Vec3 b = p.world_positions[p.indices[3 * t + 1]];
  const Vec3 c = p.world_positions[p.indices[3 * t + 2]];
  // At view scale (an exact power of two, so the direction is unchanged): the products of two coordinates would
  // overflow for a mesh past 1e19.
  p.face_normals[t] = cross((b - a) * p.view.view_scale, (c - a) * p.view.view_scale);
}

// A vertex normal is the normalized sum of the adjacent triangles' face normals, added in a fixed order so that it
// is the same every run and on both backends (no float atomics). A vertex with at most kWarpSumValence triangles
// adds them one after another in adjacency order. One with more (a UV sphere's poles have thousands: one thread
// summing a pole would trail the whole kernel) is summed as a warp of kWarpSumLanes lanes sums it: lane k adds up
// triangles k, k + 32, k + 64, ... in order, then the lanes' sums are added pairwise in a butterfly (lane k takes
// sum[k] + sum[k ^ 16], then ^ 8, ^ 4, ^ 2, ^ 1), and lane 0's total is the sum. The cpu backend does exactly these
// additions (vertex_normal_by_lanes_on_host); the cuda kernel's warp is render/cuda/deform_warp.cuh.
SC_HD bool summed_by_lanes(const FrameParams& p, int64_t v) {
  return p.adjacency_offsets[v + 1] - p.adjacency_offsets[v] > static_cast<uint64_t>(kWarpSumValence);
}

// The face normals of adjacency entries first, first + step, ... below end, added in that order.
SC_HD Vec3 face_normal_sum(const FrameParams& p, uint64_t first, uint64_t end, uint64_t step) {
  Vec3 sum{0.0f, 0.0f, 0.0f};
  for (uint64_t k = first; k < end; k += step) sum = sum + p.face_normals[p.adjacency_triangles[k]];
  return sum;
}

// A vertex that is not summed_by_lanes.
SC_HD void vertex_normal_one(const FrameParams& p, int64_t v) {
  p.vertex_normals[v] = normalize_or_zero(face_normal_sum(p, p.adjacency_offsets[v], p.adjacency_offsets[v + 1], 1));
}

// A vertex that is summed_by_lanes, on the host: the cuda kernel's lanes' additions, one by one.
inline void vertex_normal_by_lanes_on_host(const FrameParams& p, int64_t v) {
  Vec3 lane_sum[kWarpSumLanes];
  for (int lane = 0; lane < kWarpSumLanes; ++lane) {
    lane_sum[lane] = face_normal_sum(p, p.adjacency_offsets[v] + static_cast<uint64_t>(lane),
                                     p.adjacency_offsets[v + 1], kWarpSumLanes);
  }
  for (int offset = kWarpSumLanes / 2; offset >= 1; offset /= 2) {
    Vec3 next[kWarpSumLanes];
    for (int lane = 0; lane < kWarpSumLanes; ++lane) next[lane] = lane_sum[lane] + lane_sum[lane ^ offset];
    for (int lane = 0; lane < kWarpSumLanes; ++lane) lane_sum[lane] = next[lane];
  }
  p.vertex_normals[v] = normalize_or_zero(lane_sum[0]);
}

// Any vertex, on the host: the cpu backend's loop body (the cuda kernel makes the same choice per warp).
inline void vertex_normal_on_host(const FrameParams& p, int64_t v) {
  if (summed_by_lanes(p, v)) {
    vertex_normal_by_lanes_on_host(p, v);
  } else {
    vertex_normal_one(p, v);
  }
}

}  // namespace slabcast
