// Triangulation of one polygon face (an OBJ `f` line with more than three corners).
//
// Rules the loader's triangle IDs rely on:
//   - a polygon of n corners always becomes exactly n-2 triangles, so the IDs of later faces never depend on this
//     face's shape;
//   - every triangle keeps the polygon's winding: it lists its corners in the order the polygon visits them;
//   - the result depends only on the corner positions and their order (no randomness, no timing, no state).
//
// Which method a polygon gets:
//   - convex (every corner turns the same way as the polygon, or not at all: collinear corners), or degenerate
//     (zero area in its plane): the first-corner fan (0, k, k+1) for k = 1..n-2;
//   - otherwise ear clipping (see polygon_triangulation.cpp for the order of its triangles);
//   - ear clipping costs about 3·n·r corner-in-triangle tests (r: corners that do not turn like the polygon), so a
//     concave polygon with n·r > kMaxEarClipWork is fanned instead, and so is the rest of one whose clipping runs
//     past its work bound (only polygons that cross themselves can); the loader warns about both.
// Whether a corner turns with the polygon is decided in the polygon's plane as its Newell normal gives it: the corners
// are projected along the normal's largest coordinate axis, a parallel projection that keeps every turn of a planar
// polygon, its convexity and its winding, and keeps the coordinates exact.
#pragma once
#include <glm/vec3.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace slabcast {

// Ear-clipping work bound: n·r at most this (any concave polygon of up to 4096 corners; 10^6 corners with up to 16
// of them not convex), so that no file can stall loading.
constexpr uint64_t kMaxEarClipWork = uint64_t(1) << 24;  // 0.06 s at the bound: 5792-corner half annulus, one core

enum class PolygonMethod : uint8_t {
  fan,            // convex or degenerate: the first-corner fan
  ear_clipped,    // concave: ear clipping
  fan_too_large,  // concave, but past the ear-clipping work bound: fanned (in part or whole), may cover its notches
};

struct PolygonTriangles {
  PolygonMethod method = PolygonMethod::fan;
  uint32_t not_convex_corners = 0;  // r: corners that turn against the polygon or not at all (0 for a fan)
};

// Appends the triangulation of the polygon whose corners, in order, lie at corners[0..n-1] to `triangles`: n-2
// triangles, three corner numbers (0..n-1) each. Precondition: n >= 3, every coordinate finite. Never throws
// except std::bad_alloc. Work: linear in n to choose the method and for a fan; ear clipping adds at most
// 4·kMaxEarClipWork corner tests.
PolygonTriangles triangulate_polygon(const glm::vec3* corners, uint32_t n, std::vector<uint32_t>* triangles);

}  // namespace slabcast
