#include "render/oracle.h"

#include <glm/gtc/matrix_transform.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace slabcast::test {
namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr uint32_t kMiss = 0xFFFFFFFFu;
constexpr double kRel = 1e-5;

glm::dvec3 tri_vertex(const std::vector<glm::vec3>& p, const std::vector<uint32_t>& idx, uint32_t t, int k) {
  return glm::dvec3(p[idx[3 * static_cast<size_t>(t) + k]]);
}

// Closest approach of the ray origin + s * dir (s > 0) and the segment p + u * (q - p), u in [0, 1]:
// returns the distance and the ray parameter s there.
void ray_segment_closest(const OracleRay& ray, const glm::dvec3& p, const glm::dvec3& q, double& dist, double& s) {
  const glm::dvec3 e = q - p, w = ray.origin - p;
  const double a = 1.0, b = glm::dot(ray.dir, e), c = glm::dot(e, e), d = glm::dot(ray.dir, w), f = glm::dot(e, w);
  const double denom = a * c - b * b;
  double sc = 0, uc = 0;
  if (denom > 1e-30 * c) {
    sc = (b * f - c * d) / denom;
    uc = (a * f - b * d) / denom;
  } else {  // parallel: project the segment's start
    uc = 0;
    sc = -d;
  }
  uc = std::clamp(uc, 0.0, 1.0);
  sc = glm::dot(p + uc * e - ray.origin, ray.dir);  // best s for that u
  if (sc < 0) sc = 0;
  // One refinement of u for that s.
  if (c > 0) uc = std::clamp(glm::dot(ray.origin + sc * ray.dir - p, e) / c, 0.0, 1.0);
  dist = glm::length(ray.origin + sc * ray.dir - (p + uc * e));
  s = sc;
}
}  // namespace

OracleRay oracle_ray(const Camera& camera, int width, int height, int px, int py) {
  const glm::dvec3 eye(camera.eye), target(camera.target), up(camera.up);
  const glm::dvec3 f = glm::normalize(target - eye);
  const glm::dvec3 s = glm::normalize(glm::cross(f, up));
  const glm::dvec3 u = glm::cross(s, f);
  const double tan_half = std::tan(static_cast<double>(camera.fovy_degrees) * 3.14159265358979323846 / 360.0);
  const double aspect = static_cast<double>(width) / height;
  const double x = ((px + 0.5) / width * 2.0 - 1.0) * tan_half * aspect;
  const double y = (1.0 - (py + 0.5) / height * 2.0) * tan_half;
  const glm::dvec3 dv = glm::normalize(glm::dvec3(x, y, -1.0));
  return OracleRay{eye, glm::normalize(s * dv.x + u * dv.y - f * dv.z)};
}

double oracle_hit(const OracleRay& ray, const glm::dvec3& a, const glm::dvec3& b, const glm::dvec3& c) {
  const glm::dvec3 e1 = b - a, e2 = c - a;
  const glm::dvec3 p = glm::cross(ray.dir, e2);
  const double det = glm::dot(e1, p);
  if (det == 0.0) return kInf;
  const double inv = 1.0 / det;
  const glm::dvec3 s = ray.origin - a;
  const double u = glm::dot(s, p) * inv;
  if (u < 0.0 || u > 1.0) return kInf;
  const glm::dvec3 q = glm::cross(s, e1);
  const double v = glm::dot(ray.dir, q) * inv;
  if (v < 0.0 || u + v > 1.0) return kInf;
  const double t = glm::dot(e2, q) * inv;
  return t > 0.0 ? t : kInf;
}

double oracle_plane_t(const OracleRay& ray, const glm::dvec3& a, const glm::dvec3& b, const glm::dvec3& c) {
  const glm::dvec3 n = glm::cross(b - a, c - a);
  const double denom = glm::dot(n, ray.dir);
  if (denom == 0.0) return kInf;
  const double t = glm::dot(n, a - ray.origin) / denom;
  return t > 0.0 ? t : kInf;
}

bool oracle_grazes_edge(const OracleRay& ray, const glm::dvec3& a, const glm::dvec3& b, const glm::dvec3& c,
                        double rel) {
  const glm::dvec3 v[3] = {a, b, c};
  for (int k = 0; k < 3; ++k) {
    double dist = 0, s = 0;
    ray_segment_closest(ray, v[k], v[(k + 1) % 3], dist, s);
    if (s > 0.0 && dist <= rel * s) return true;
  }
  return false;
}

OracleImage oracle_cast(const std::vector<glm::vec3>& positions, const std::vector<uint32_t>& indices,
                        const Camera& camera, int width, int height) {
  OracleImage img;
  img.width = width;
  img.height = height;
  img.t.assign(static_cast<size_t>(width) * height, kInf);
  img.id.assign(static_cast<size_t>(width) * height, kMiss);
  const uint32_t tris = static_cast<uint32_t>(indices.size() / 3);
  std::vector<glm::dvec3> v(3 * static_cast<size_t>(tris));
  for (uint32_t t = 0; t < tris; ++t) {
    for (int k = 0; k < 3; ++k) v[3 * t + k] = tri_vertex(positions, indices, t, k);
  }
  for (int py = 0; py < height; ++py) {
    for (int px = 0; px < width; ++px) {
      const OracleRay ray = oracle_ray(camera, width, height, px, py);
      double best = kInf;
      uint32_t best_id = kMiss;
      for (uint32_t t = 0; t < tris; ++t) {
        const double d = oracle_hit(ray, v[3 * t], v[3 * t + 1], v[3 * t + 2]);
        if (d < best) {  // strict: on a tie the earlier (lower) ID stays
          best = d;
          best_id = t;
        }
      }
      img.t[static_cast<size_t>(py) * width + px] = best;
      img.id[static_cast<size_t>(py) * width + px] = best_id;
    }
  }
  return img;
}

OracleComparison compare_with_oracle(const OracleImage& oracle, const std::vector<glm::vec3>& positions,
                                     const std::vector<uint32_t>& indices, const Camera& camera,
                                     const FrameExtras& rendered) {
  OracleComparison cmp;
  std::ostringstream log;
  int logged_bad = 0, logged_ok = 0;
  const int W = oracle.width, H = oracle.height;
  for (int py = 0; py < H; ++py) {
    for (int px = 0; px < W; ++px) {
      const size_t i = static_cast<size_t>(py) * W + px;
      ++cmp.pixels;
      const uint32_t r = rendered.triangle_id[i], o = oracle.id[i];
      const double tr = rendered.depth[i], to = oracle.t[i];
      if (r == o) {
        if (o == kMiss) {
          if (!std::isinf(tr)) {
            ++cmp.depth_errors;
            if (logged_bad++ < 20) log << "pixel (" << px << "," << py << "): miss with depth " << tr << "\n";
          }
          continue;
        }
        ++cmp.hits;
        const double rel = std::abs(tr - to) / to;
        cmp.max_depth_rel_error = std::max(cmp.max_depth_rel_error, rel);
        if (!(rel <= kRel)) {
          ++cmp.depth_errors;
          if (logged_bad++ < 20) {
            log << "pixel (" << px << "," << py << ") triangle " << r << ": depth " << tr << " vs oracle " << to
                << " (relative error " << rel << ")\n";
          }
        }
        continue;
      }
      ++cmp.id_mismatches;
      const OracleRay ray = oracle_ray(camera, W, H, px, py);
      auto vert = [&](uint32_t t, int k) { return tri_vertex(positions, indices, t, k); };
      bool tie = false, graze = false;
      double t_r_oracle = kInf;
      if (r != kMiss) t_r_oracle = oracle_plane_t(ray, vert(r, 0), vert(r, 1), vert(r, 2));
      if (r != kMiss && o != kMiss && std::abs(t_r_oracle - to) <= kRel * to && std::abs(tr - to) <= kRel * to) {
        tie = true;
      }
      if (!tie && r != kMiss && oracle_grazes_edge(ray, vert(r, 0), vert(r, 1), vert(r, 2), kRel) &&
          (o == kMiss || tr <= to * (1 + kRel))) {
        graze = true;  // the renderer took a hit on the very edge of r that the oracle rounded to a miss
      }
      if (!tie && !graze && o != kMiss && oracle_grazes_edge(ray, vert(o, 0), vert(o, 1), vert(o, 2), kRel) &&
          (r == kMiss || tr >= to * (1 - kRel))) {
        graze = true;  // the renderer rounded the edge hit on o to a miss
      }
      std::ostringstream what;
      what << "pixel (" << px << "," << py << "): renderer " << (r == kMiss ? std::string("miss") : std::to_string(r))
           << " t=" << tr << ", oracle " << (o == kMiss ? std::string("miss") : std::to_string(o)) << " t=" << to
           << ", oracle t of the renderer's triangle (plane) " << t_r_oracle;
      if (tie) {
        ++cmp.ties;
        if (logged_ok++ < 5) log << "tie within rounding: " << what.str() << "\n";
      } else if (graze) {
        ++cmp.grazing;
        if (logged_ok++ < 5) log << "ray grazes a triangle edge: " << what.str() << "\n";
      } else {
        ++cmp.unjustified;
        if (logged_bad++ < 20) log << "UNJUSTIFIED: " << what.str() << "\n";
      }
    }
  }
  cmp.log = log.str();
  return cmp;
}

}  // namespace slabcast::test
