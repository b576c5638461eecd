#include "render/shadow_oracle.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "render/oracle.h"

namespace slabcast::test {
namespace {
constexpr uint32_t kMiss = 0xFFFFFFFFu;
constexpr double kEndTolerance = 1e-4;   // of the scene's size: a blocker this near either end is a rounding case
constexpr double kEdgeTolerance = 1e-5;  // of the scene's size: a crossing this near a blocker's edge too

glm::dvec3 vertex(const std::vector<glm::vec3>& p, const std::vector<uint32_t>& idx, size_t t, int k) {
  return glm::dvec3(p[idx[3 * t + static_cast<size_t>(k)]]);
}

enum class Crossing { none, clear, rounding };

// Whether triangle (a, b, c) crosses the segment from p along d (0 < s < s_max; s_max infinite for a sun), and
// whether that depends on rounding. `scale` is the scene's size.
Crossing crossing(const glm::dvec3& p, const glm::dvec3& d, double s_max, const glm::dvec3& a, const glm::dvec3& b,
                  const glm::dvec3& c, double scale) {
  const glm::dvec3 e1 = b - a, e2 = c - a;
  const glm::dvec3 n = glm::cross(e1, e2);
  const double area2 = glm::length(n);
  if (!(area2 > 0.0)) return Crossing::none;
  const double len = glm::length(d);
  const glm::dvec3 u = d / len;
  const double along = glm::dot(n, u);  // |along| / area2: sine of the segment's angle with the plane
  const double plane_dist = glm::dot(n, p - a) / area2;
  if (std::abs(along) <= 1e-12 * area2) {  // parallel to the plane: only a segment in the plane could touch it
    return std::abs(plane_dist) < kEdgeTolerance * scale ? Crossing::rounding : Crossing::none;
  }
  const double s = -glm::dot(n, p - a) / along;  // distance from p along u
  const double end = std::isinf(s_max) ? s_max : s_max * len;
  if (s <= -kEndTolerance * scale || s >= end + kEndTolerance * scale) return Crossing::none;
  const glm::dvec3 x = p + s * u;
  // Signed distances of x from the three edges, inside positive.
  double edge_min = std::numeric_limits<double>::infinity();
  const glm::dvec3 v[3] = {a, b, c};
  for (int k = 0; k < 3; ++k) {
    const glm::dvec3 e = v[(k + 1) % 3] - v[k];
    const glm::dvec3 inward = glm::normalize(glm::cross(n, e));
    edge_min = std::min(edge_min, glm::dot(x - v[k], inward));
  }
  if (edge_min < -kEdgeTolerance * scale) return Crossing::none;
  const bool near_end = s < kEndTolerance * scale || (!std::isinf(end) && s > end - kEndTolerance * scale);
  if (near_end || edge_min <= kEdgeTolerance * scale) return Crossing::rounding;
  return Crossing::clear;
}
}  // namespace

OracleLight oracle_light(const Light& light, const Camera& camera) {
  OracleLight l;
  l.sun = light.type == LightType::sun;
  l.vector = light.type == LightType::headlight ? glm::dvec3(camera.eye) : glm::dvec3(light.vector);
  return l;
}

std::vector<ShadowTruth> oracle_shadows(const std::vector<glm::vec3>& positions, const std::vector<uint32_t>& indices,
                                        const Camera& camera, int width, int height, const OracleLight& light,
                                        const std::vector<uint32_t>& ids) {
  glm::dvec3 lo(positions[0]), hi(positions[0]);
  for (const glm::vec3& q : positions) {
    lo = glm::min(lo, glm::dvec3(q));
    hi = glm::max(hi, glm::dvec3(q));
  }
  const double scale = glm::length(hi - lo);
  const size_t triangles = indices.size() / 3;
  std::vector<ShadowTruth> truth(ids.size(), ShadowTruth::no_hit);
  for (int py = 0; py < height; ++py) {
    for (int px = 0; px < width; ++px) {
      const size_t pix = static_cast<size_t>(py) * width + px;
      const uint32_t id = ids[pix];
      if (id == kMiss) continue;
      const OracleRay ray = oracle_ray(camera, width, height, px, py);
      const glm::dvec3 a = vertex(positions, indices, id, 0), b = vertex(positions, indices, id, 1),
                       c = vertex(positions, indices, id, 2);
      const double t = oracle_plane_t(ray, a, b, c);
      if (!std::isfinite(t)) {
        truth[pix] = ShadowTruth::rounding;
        continue;
      }
      const glm::dvec3 p = ray.origin + t * ray.dir;
      const glm::dvec3 d = light.sun ? light.vector : light.vector - p;
      const double s_max = light.sun ? std::numeric_limits<double>::infinity() : 1.0;
      ShadowTruth answer = ShadowTruth::lit;
      if (!light.sun && glm::length(d) < kEndTolerance * scale) {
        answer = ShadowTruth::rounding;  // the hit point is at the light
      } else {
        for (size_t j = 0; j < triangles && answer != ShadowTruth::shadow; ++j) {
          if (j == id) continue;
          const Crossing k = crossing(p, d, s_max, vertex(positions, indices, j, 0),
                                      vertex(positions, indices, j, 1), vertex(positions, indices, j, 2), scale);
          if (k == Crossing::clear) answer = ShadowTruth::shadow;
          if (k == Crossing::rounding) answer = ShadowTruth::rounding;
        }
      }
      truth[pix] = answer;
    }
  }
  return truth;
}

ShadowComparison compare_shadows(const std::vector<ShadowTruth>& truth, const std::vector<uint8_t>& mask, int width) {
  ShadowComparison r;
  if (mask.size() != truth.size()) {
    r.wrong = 1;
    r.log = "the mask has " + std::to_string(mask.size()) + " pixels, expected " + std::to_string(truth.size()) + "\n";
    return r;
  }
  std::ostringstream log;
  int logged = 0;
  for (size_t i = 0; i < truth.size(); ++i) {
    const ShadowTruth t = truth[i];
    uint8_t expected = 0;
    bool any = false;
    switch (t) {
      case ShadowTruth::no_hit: expected = 128; break;
      case ShadowTruth::lit: expected = 255; ++r.lit; break;
      case ShadowTruth::shadow: expected = 0; ++r.shadowed; break;
      case ShadowTruth::rounding: any = true; ++r.rounding; break;
    }
    if (t != ShadowTruth::no_hit) ++r.samples;
    const bool right = any ? (mask[i] == 0 || mask[i] == 255) : mask[i] == expected;
    if (!right) {
      ++r.wrong;
      if (logged++ < 10) {
        log << "pixel (" << i % width << ", " << i / width << "): mask " << int(mask[i]) << ", exact answer "
            << (any ? "either" : std::to_string(expected)) << "\n";
      }
    }
  }
  r.log = log.str();
  return r;
}

}  // namespace slabcast::test
