// The brute-force caster the renderer is checked against: every pixel's ray against every triangle, in double
// precision, with its own ray setup (docs/architecture.md's formula) and its own intersection code
// (Moller-Trumbore), so that none of the renderer's math is reused. Ties (equal t) go to the lower triangle ID, as in
// the renderer.
#pragma once
#include <glm/glm.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "render/renderer.h"

namespace slabcast::test {

struct OracleRay {
  glm::dvec3 origin, dir;  // dir normalized
};

// The ray through pixel (px, py)'s centre, in world space.
OracleRay oracle_ray(const Camera& camera, int width, int height, int px, int py);

// Exact (double) hit distance of the ray with triangle (a, b, c), or +inf for a miss (t <= 0 is a miss).
double oracle_hit(const OracleRay& ray, const glm::dvec3& a, const glm::dvec3& b, const glm::dvec3& c);

// Distance along the ray to the triangle's plane (+inf if parallel or behind).
double oracle_plane_t(const OracleRay& ray, const glm::dvec3& a, const glm::dvec3& b, const glm::dvec3& c);

// Whether the ray passes within rel * (distance along the ray) of one of the triangle's edges, at t > 0:
// a hit or a miss there is decided by rounding.
bool oracle_grazes_edge(const OracleRay& ray, const glm::dvec3& a, const glm::dvec3& b, const glm::dvec3& c,
                        double rel);

struct OracleImage {
  int width = 0, height = 0;
  std::vector<double> t;     // +inf = miss
  std::vector<uint32_t> id;  // 0xFFFFFFFF = miss
};

OracleImage oracle_cast(const std::vector<glm::vec3>& positions, const std::vector<uint32_t>& indices,
                        const Camera& camera, int width, int height);

// Compares a rendered frame with the oracle. Identical IDs are required, except where two hits tie within
// rounding (the oracle's t of both triangles agree within 1e-5 relative) or the ray grazes an edge of one of
// the two triangles (within 1e-5 relative of its distance) so that rounding decides hit or miss. Depth must be
// within 1e-5 relative where the IDs agree. Each accepted mismatch is justified in `log`.
struct OracleComparison {
  uint64_t pixels = 0, hits = 0, id_mismatches = 0, ties = 0, grazing = 0, unjustified = 0, depth_errors = 0;
  double max_depth_rel_error = 0;
  std::string log;  // first unjustified mismatches / depth errors, and a sample of the justified ones
  bool ok() const { return unjustified == 0 && depth_errors == 0; }
};

OracleComparison compare_with_oracle(const OracleImage& oracle, const std::vector<glm::vec3>& positions,
                                     const std::vector<uint32_t>& indices, const Camera& camera,
                                     const FrameExtras& rendered);

}  // namespace slabcast::test
