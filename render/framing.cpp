// The default camera (renderer.h, "the default camera"): the points that count, how far the deformers can move them,
// and the nearest camera looking down -Z that shows them all inside a rectangle of its image.
#include <glm/glm.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "render/frame_setup.h"
#include "render/renderer.h"
#include "render/scale.h"

namespace slabcast {
namespace {

constexpr double kHalfPi = 1.57079632679489661923;
// A triangle whose longest edge is this many times the median longest edge is "huge": its vertices do not count.
constexpr float kHugeEdgeFactor = 20.0f;

float longest_edge(const Mesh& m, size_t t) {
  const glm::vec3 a = m.positions[m.indices[3 * t]], b = m.positions[m.indices[3 * t + 1]],
                  c = m.positions[m.indices[3 * t + 2]];
  return std::max({length_without_overflow(b - a), length_without_overflow(c - b), length_without_overflow(a - c)});
}

// 1 for each vertex that counts (framing_points' rule), 0 for the others.
std::vector<uint8_t> counted_vertices(const Mesh& mesh) {
  std::vector<uint8_t> counted(mesh.positions.size(), 0);
  const size_t tris = mesh.triangle_count();
  if (tris > 0) {
    std::vector<float> edges(tris);
    for (size_t t = 0; t < tris; ++t) edges[t] = longest_edge(mesh, t);
    std::vector<float> sorted = edges;
    std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(tris / 2), sorted.end());
    const float huge = kHugeEdgeFactor * sorted[tris / 2];
    for (size_t t = 0; t < tris; ++t) {
      if (edges[t] > huge) continue;
      for (int k = 0; k < 3; ++k) counted[mesh.indices[3 * t + k]] = 1;
    }
  }
  if (std::none_of(counted.begin(), counted.end(), [](uint8_t c) { return c != 0; })) {
    std::fill(counted.begin(), counted.end(), uint8_t(1));
  }
  return counted;
}

// How far render/stages/deform.h's deformer can move a vertex `d` from the deformer's centre (the rest box's centre;
// `radius` its half diagonal), over every time: a rotation by at most angle a moves a point at distance r from its
// axis by 2 r sin(a / 2) <= r min(a, 2); a scale by 1 + s by |s| |d|; the wave shifts y by at most its height. The
// deformers' float rounding (relative 1e-6 or so) is left to kFramingMargin.
double deformer_reach(const DeformParams& deform, double radius, const glm::dvec3& d) {
  const double amount = std::fabs(static_cast<double>(deform.amount));
  switch (deform.kind) {
    case Deformer::twist: {  // about +Y, angle amount * (y / radius) * pi/2 * cos(time)
      const double angle = amount * std::fabs(d.y) / radius * kHalfPi;
      return std::hypot(d.x, d.z) * std::min(angle, 2.0);
    }
    case Deformer::bend: {  // about +Z, angle amount * 0.5 * (x / radius)^2 * cos(time)
      const double h = d.x / radius;
      return std::hypot(d.x, d.y) * std::min(amount * 0.5 * h * h, 2.0);
    }
    case Deformer::wave:  // y + amount * 0.08 * radius * (a product of a sine and a cosine)
      return amount * 0.08 * radius;
    case Deformer::pulse:  // d * (1 + amount * 0.1 * sin(...))
      return amount * 0.1 * glm::length(d);
    case Deformer::none:
    default:
      return 0.0;
  }
}

}  // namespace

std::vector<FramingPoint> framing_points(const Mesh& mesh, const DeformParams& deform) {
  std::vector<FramingPoint> points;
  if (mesh.positions.empty()) return points;
  const std::vector<uint8_t> counted = counted_vertices(mesh);
  const MeshBounds bounds = rest_bounds(mesh);
  const glm::dvec3 centre(bounds.center.x, bounds.center.y, bounds.center.z);
  points.reserve(static_cast<size_t>(std::count(counted.begin(), counted.end(), uint8_t(1))));
  for (size_t v = 0; v < mesh.positions.size(); ++v) {
    if (!counted[v]) continue;
    const glm::vec3 p = mesh.positions[v];
    const double reach = deformer_reach(deform, static_cast<double>(bounds.radius), glm::dvec3(p) - centre);
    points.push_back(FramingPoint{p, static_cast<float>(reach)});
  }
  return points;
}

ImagePlaneRect framing_rect(float fovy_degrees, float aspect) {
  const double tan_y = std::tan(glm::radians(static_cast<double>(fovy_degrees)) * 0.5);
  const double tan_x = tan_y * (aspect > 0.0f ? static_cast<double>(aspect) : 1.0);
  return ImagePlaneRect{-tan_x / kFramingMargin, tan_x / kFramingMargin, -tan_y / kFramingMargin,
                        tan_y / kFramingMargin};
}

// With the eye at (ex, ey, ez), a point q projects to x = (q.x - ex) / (ez - q.z) on the image plane, which lies in
// [left, right] when q.x + left q.z >= ex + left ez and q.x + right q.z <= ex + right ez. Over a ball of radius
// `reach` around p the sums q.x + s q.z range over p.x + s p.z -/+ reach sqrt(1 + s^2). So with
//   most = max over the points of (p.x + right p.z + reach sqrt(1 + right^2)),
//   least = min over the points of (p.x + left p.z - reach sqrt(1 + left^2)),
// every ball fits across when most - right ez <= ex <= least - left ez: an ex exists once
// ez >= (most - least) / (right - left), and the same holds upwards. The larger of the two depths is the nearest
// camera. The middle of ex's (and ey's) interval is the one ex in the binding direction; in the other it centres
// the slack as seen at the extreme points' depths, which centres their projection up to the model's own depth (an
// exact centring would need a search over the points; this one is a closed form).
Camera frame_points(const std::vector<FramingPoint>& points, float fovy_degrees, const ImagePlaneRect& rect) {
  Camera camera;
  camera.fovy_degrees = fovy_degrees;
  camera.up = glm::vec3(0.0f, 1.0f, 0.0f);
  if (points.empty()) return camera;
  const double k_left = std::sqrt(1.0 + rect.left * rect.left), k_right = std::sqrt(1.0 + rect.right * rect.right);
  const double k_bottom = std::sqrt(1.0 + rect.bottom * rect.bottom), k_top = std::sqrt(1.0 + rect.top * rect.top);
  constexpr double inf = std::numeric_limits<double>::infinity();
  double most_x = -inf, least_x = inf, most_y = -inf, least_y = inf, nearest = -inf;
  glm::dvec3 lo(inf), hi(-inf);
  for (const FramingPoint& point : points) {
    const glm::dvec3 p(point.position);
    const double reach = static_cast<double>(point.reach);
    most_x = std::max(most_x, p.x + rect.right * p.z + reach * k_right);
    least_x = std::min(least_x, p.x + rect.left * p.z - reach * k_left);
    most_y = std::max(most_y, p.y + rect.top * p.z + reach * k_top);
    least_y = std::min(least_y, p.y + rect.bottom * p.z - reach * k_bottom);
    nearest = std::max(nearest, p.z + reach);
    lo = glm::min(lo, p);
    hi = glm::max(hi, p);
  }
  const double size = 0.5 * glm::length(hi - lo);
  const double clearance = kFramingClearance * (size > 0.0 ? size : 1.0);
  const double depth = std::max({(most_x - least_x) / (rect.right - rect.left),
                                 (most_y - least_y) / (rect.top - rect.bottom), nearest + clearance});
  const double eye_x = 0.5 * ((most_x - rect.right * depth) + (least_x - rect.left * depth));
  const double eye_y = 0.5 * ((most_y - rect.top * depth) + (least_y - rect.bottom * depth));
  camera.eye = glm::vec3(glm::dvec3(eye_x, eye_y, depth));
  camera.target = glm::vec3(glm::dvec3(eye_x, eye_y, 0.5 * (lo.z + hi.z)));
  return camera;
}

Camera frame_mesh(const Mesh& mesh, float fovy_degrees, float aspect, const DeformParams& deform) {
  return frame_points(framing_points(mesh, deform), fovy_degrees, framing_rect(fovy_degrees, aspect));
}

}  // namespace slabcast
