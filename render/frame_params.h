// One frame's parameters, passed by value to every kernel (cudaraster's CRParams) and used the same way by
// the cpu backend's loops. Fields are grouped "stage N output / stage N+1 input"; each pointer says its
// shape. The pointers are device memory for the cuda backend and host memory for the cpu backend.
#pragma once
#include <cstdint>

#include "render/bin.h"
#include "render/build_ops.h"
#include "render/camera.h"
#include "render/deform.h"
#include "render/intersect.h"
#include "render/renderer.h"
#include "render/shade.h"

namespace slabcast {

struct TriangleVerts {  // one triangle's vertices in view space (the caster's input record)
  Vec3 a, b, c;
};

// A deformed vertex in view space, padded to 16 bytes: the bin stage gathers three per triangle, and a 12-byte
// vertex straddles two 32-byte sectors a third of the time (Nsight Compute, session 6: the bin kernel ran at 72% of
// the L2's throughput and 28% of DRAM's).
struct alignas(16) ViewVertex {
  Vec3 p;
  float unused;  // written (as 0) so that the padding is defined
};

// Integer statistics accumulated on the device during a frame (integer atomics only: deterministic).
struct FrameCounters {
  uint64_t binned;             // triangles that survived culling
  uint64_t references;         // L1 references (what L1 reported, also when over capacity)
  uint64_t ray_tests;          // ray-triangle tests of all pixels
  uint64_t pixels_hit;
  uint64_t nonempty_cells;
  uint64_t max_refs_per_tile;
  uint64_t overflow;           // 1 when L1 needed more than the reference capacity
  DepthRangeKeys depth_range;  // not a statistic: the bin stage's depth range (bin.h), here to be zeroed with them
};

// The frame's counters into the statistics both backends report (one place, so they cannot drift apart).
inline void copy_counters(const FrameCounters& c, FrameStats& stats) {
  stats.triangles_binned = c.binned;
  stats.references = c.references;
  stats.nonempty_cells = c.nonempty_cells;
  stats.max_refs_per_tile = c.max_refs_per_tile;
  stats.ray_triangle_tests = c.ray_tests;
  stats.pixels_hit = c.pixels_hit;
}

struct FrameParams {
  // ---- the mesh (set_mesh) ----
  int64_t num_vertices;
  int64_t num_triangles;
  const Vec3* rest_positions;           // [num_vertices], world
  const uint32_t* indices;              // [3 * num_triangles]
  const uint64_t* adjacency_offsets;    // [num_vertices + 1]: vertex v's triangles are
  const uint32_t* adjacency_triangles;  //   adjacency_triangles[offsets[v] .. offsets[v+1]), ascending IDs

  // ---- frame constants ----
  DeformFrame deform;
  ViewParams view;
  int tiles_x, tiles_y, slabs;
  ShadeMode shading;
  bool need_smooth_normals;  // phong / normals views

  // ---- stage 1 (deform) output / stage 2 input ----
  Vec3* world_positions;   // [num_vertices], deformed, world
  ViewVertex* view_positions;  // [num_vertices], deformed, view space
  Vec3* face_normals;      // [num_triangles], cross(b - a, c - a) in world space (area weighted)
  Vec3* vertex_normals;    // [num_vertices], normalized sum of adjacent face normals (world)

  // ---- stage 2 (project and bin) output / stage 3 input ----
  PixelBox* pixel_box;      // [num_triangles]: the pixels its rays can hit (bin.h), empty when culled
  float* nearest_depth;     // [num_triangles], bin.h (kStraddleDepth / kCulledDepth)
  TriangleVerts* tri_verts; // [num_triangles], view space (written for binned triangles only)
  DepthRangeKeys* depth_range;  // the in-front triangles' nearest depths, min and max as keys (bin.h)

  // ---- stage 3 (build) output / stage 4 input ----
  uint64_t reference_capacity;
  const TriangleRef* cell_refs;  // [reference_capacity]: references packed by cell (build order, build_ops.h)
  const uint64_t* cell_offsets;  // [tiles_x * tiles_y * slabs + 1]: cell c is cell_refs[offsets[c] .. [c+1])

  // ---- stage 4 (cast) output / stage 5 input ----
  float* hit_t;         // [width * height], row-major, row 0 = top; miss = +inf
  uint32_t* hit_id;     // [width * height]; miss = kNoHit
  uint32_t* ray_tests;  // [width * height]

  FrameCounters* counters;
};

// ---- Stage bodies for one item, shared by the cuda kernels and the cpu loops ----

SC_HD void deform_one(const FrameParams& p, int64_t v) {
  const Vec3 w = deform_vertex(p.deform, p.rest_positions[v]);
  p.world_positions[v] = w;
  p.view_positions[v] = ViewVertex{world_to_view(p.view, w), 0.0f};
}

SC_HD void face_normal_one(const FrameParams& p, int64_t t) {
  const Vec3 a = p.world_positions[p.indices[3 * t]];
  const Vec3 b = p.world_positions[p.indices[3 * t + 1]];
  const Vec3 c = p.world_positions[p.indices[3 * t + 2]];
  p.face_normals[t] = cross(b - a, c - a);
}

// A vertex normal is the normalized sum of the adjacent triangles' face normals, added in a fixed order so that it
// is the same every run and on both backends (no float atomics). A vertex with at most kWarpSumValence triangles
// adds them one after another in adjacency order. One with more (a UV sphere's poles have thousands: the one
// thread that summed a pole trailed the whole kernel) is summed as a warp of kWarpSumLanes lanes sums it: lane k
// adds up triangles k, k + 32, k + 64, ... in order, then the lanes' sums are added pairwise in a butterfly (lane k
// takes sum[k] + sum[k ^ 16], then ^ 8, ^ 4, ^ 2, ^ 1), and lane 0's total is the sum. The cpu backend does exactly
// these additions (vertex_normal_by_lanes_on_host).
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

// Returns whether the triangle was binned (for the caller's count).
SC_HD bool bin_one(const FrameParams& p, int64_t t) {
  const Vec3 a = p.view_positions[p.indices[3 * t]].p;
  const Vec3 b = p.view_positions[p.indices[3 * t + 1]].p;
  const Vec3 c = p.view_positions[p.indices[3 * t + 2]].p;
  const BinResult r = bin_triangle(p.view, p.tiles_x, p.tiles_y, a, b, c);
  p.pixel_box[t] = r.pixels;
  p.nearest_depth[t] = r.nearest_depth;
  if (is_culled(r.range)) return false;
  p.tri_verts[t] = TriangleVerts{a, b, c};
  return true;
}

SC_HD SlabRange frame_slab_range(const FrameParams& p) {
  return make_slab_range(*p.depth_range, p.slabs);
}

// A ray is finished after slab s when its nearest hit lies in front of slab s+1's near boundary: every
// triangle of a later slab has all its points at view depth >= that boundary (bin.h), and a hit's view depth
// is t * (-dir.z).
SC_HD bool ray_finished_after(const SlabRange& sr, int s, float best_t, float neg_dir_z) {
  return best_t * neg_dir_z < slab_boundary(sr, s + 1);
}

SC_HD uint64_t tile_reference_count(const FrameParams& p, int tx, int ty) {
  const uint64_t first = build_cell(tx, ty, 0, p.tiles_y, p.slabs);
  return p.cell_offsets[first + static_cast<uint64_t>(p.slabs)] - p.cell_offsets[first];
}

// Shade pixel (px, py) from its ray's result: the nearest hit (id, t; kNoHit / +inf for a miss), the ray's tests and
// its tile's references. The cuda caster calls this with the values it holds (it shades as it casts, writing straight
// into the target); the cpu backend through shade_one below, from the cast's buffers.
SC_HD Rgba8 shade_ray(const FrameParams& p, int px, int py, uint32_t id, float t, uint32_t ray_tests,
                      uint64_t tile_refs) {
  PixelSample s;
  s.id = id;
  s.t = t;
  s.dir_view = pixel_ray_view(p.view, px, py);
  s.ray_tests = ray_tests;
  s.tile_refs = tile_refs;
  const SlabRange sr = frame_slab_range(p);
  s.z_near = sr.z_near;
  s.z_far = sr.z_far;
  s.slabs = p.slabs;
  s.slab = 0;
  s.normal_view = Vec3{0, 0, 0};
  s.normal_world = Vec3{0, 0, 0};
  if (s.id != kNoHit) {
    const TriangleVerts tv = p.tri_verts[s.id];
    s.slab = slab_of_depth(sr, p.nearest_depth[s.id]);
    if (p.need_smooth_normals) {
      // Recompute the barycentrics of the hit (same inputs as the cast, so the same result).
      float t_again = 0.0f, bary[3] = {1.0f, 0.0f, 0.0f};
      intersect_watertight(make_ray_shear(s.dir_view), tv.a, tv.b, tv.c, t_again, bary);
      const Vec3 na = p.vertex_normals[p.indices[3 * static_cast<int64_t>(s.id)]];
      const Vec3 nb = p.vertex_normals[p.indices[3 * static_cast<int64_t>(s.id) + 1]];
      const Vec3 nc = p.vertex_normals[p.indices[3 * static_cast<int64_t>(s.id) + 2]];
      s.normal_world = na * bary[0] + nb * bary[1] + nc * bary[2];
      s.normal_view = rotate_to_view(p.view, s.normal_world);
    } else {
      s.normal_view = cross(tv.b - tv.a, tv.c - tv.a);
    }
  }
  return shade_pixel(p.shading, s);
}

// Shade pixel (px, py) from the cast's buffers.
SC_HD Rgba8 shade_one(const FrameParams& p, int px, int py) {
  const int64_t pix = static_cast<int64_t>(py) * p.view.width + px;
  return shade_ray(p, px, py, p.hit_id[pix], p.hit_t[pix], p.ray_tests[pix],
                   tile_reference_count(p, px / kTileSize, py / kTileSize));
}

}  // namespace slabcast
