// The deform stage's cuda-only pieces (stages/deform.h has the per-item bodies both backends share): the warp that
// sums a many-triangle vertex's normal, and the vertex -> triangle adjacency the normals read, built once by set_mesh.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "render/constants.h"
#include "render/frame_params.h"
#include "render/hd_math.h"
#include "render/stages/deform.h"

namespace slabcast {

// One thread a vertex, except that a vertex with many triangles (stages/deform.h: summed_by_lanes) is summed by its
// whole warp, one after another, each lane adding every 32nd triangle, then the lanes' sums in a butterfly. Every
// thread of the warp calls this (v past the end included).
__device__ __forceinline__ void vertex_normal_warp(const FrameParams& p, int64_t v) {
  static_assert(kVertexBlock % 32 == 0 && kWarpSumLanes == 32, "whole warps sum the many-triangle vertices");
  const bool by_lanes = v < p.num_vertices && summed_by_lanes(p, v);
  if (v < p.num_vertices && !by_lanes) vertex_normal_one(p, v);
  const int lane = static_cast<int>(threadIdx.x) % 32;
  for (unsigned waiting = __ballot_sync(0xffffffffu, by_lanes); waiting != 0; waiting &= waiting - 1) {
    const int owner = __ffs(static_cast<int>(waiting)) - 1;
    const int64_t hub = __shfl_sync(0xffffffffu, v, owner);
    Vec3 sum = face_normal_sum(p, p.adjacency_offsets[hub] + static_cast<uint64_t>(lane), p.adjacency_offsets[hub + 1],
                               kWarpSumLanes);
#pragma unroll
    for (int offset = kWarpSumLanes / 2; offset >= 1; offset /= 2) {
      sum = sum + Vec3{__shfl_xor_sync(0xffffffffu, sum.x, offset), __shfl_xor_sync(0xffffffffu, sum.y, offset),
                       __shfl_xor_sync(0xffffffffu, sum.z, offset)};
    }
    if (lane == 0) p.vertex_normals[hub] = normalize_or_zero(sum);
  }
}

// ---- the adjacency (set_mesh): a stable sort of the 3T corners by vertex, between these two ----

// Corner c belongs to triangle c / 3 (the sort's values).
__device__ __forceinline__ void corner_triangle_one(uint32_t* corner_triangle, int64_t corners, int64_t c) {
  if (c < corners) corner_triangle[c] = static_cast<uint32_t>(c / 3);
}

// CSR offsets from the corners' vertices sorted ascending: offsets[v] = first corner of vertex v; vertices
// without triangles get an empty range. Position i fills the offsets of the vertices in (key[i-1], key[i]].
__device__ __forceinline__ void adjacency_offsets_one(const uint32_t* sorted_vertex, int64_t corners, int64_t vertices,
                                                      uint64_t* offsets, int64_t i) {
  if (i > corners) return;
  const int64_t prev = i == 0 ? -1 : static_cast<int64_t>(sorted_vertex[i - 1]);
  const int64_t cur = i == corners ? vertices : static_cast<int64_t>(sorted_vertex[i]);
  for (int64_t v = prev + 1; v <= cur; ++v) offsets[v] = static_cast<uint64_t>(i);
}

}  // namespace slabcast
