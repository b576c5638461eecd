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

// A ball or disc that holds vertex p wherever render/stages/deform.h's deformer moves it, over every time; `centre`
// and `radius` are the deformer's (the rest box's centre and half diagonal). A rotation by at most angle a keeps a
// point at distance r from its axis on that circle, on the arc of angles -a..a about where it was: the disc that
// holds that arc (the whole circle's from a = pi/2 on). A scale by 1 + s moves it by at most |s| |d|; the wave
// shifts y by at most its height. The deformers' float rounding (relative 1e-6 or so) is left to kFramingMargin.
FramingPoint deformer_ball(const DeformParams& deform, const glm::dvec3& centre, double radius, const glm::vec3& p) {
  const double amount = std::fabs(static_cast<double>(deform.amount));
  const glm::dvec3 d = glm::dvec3(p) - centre;
  // A rotation about the axis through `centre` along `axis_index` (1: y, 2: z) by at most `angle`.
  const auto rotated = [&](int axis_index, double angle) {
    const double r = axis_index == 1 ? std::hypot(d.x, d.z) : std::hypot(d.x, d.y);
    if (!(angle > 0.0) || !(r > 0.0)) return FramingPoint{p, 0.0f, glm::vec3(0.0f)};
    glm::dvec3 on_axis = centre;
    on_axis[axis_index] = static_cast<double>(p[axis_index]);
    glm::vec3 axis(0.0f);
    axis[axis_index] = 1.0f;
    if (angle >= kHalfPi) return FramingPoint{glm::vec3(on_axis), static_cast<float>(r), axis};
    // The arc from -angle to +angle about p: its chord's middle is cos(angle) of the way from the axis to p, its
    // half length r sin(angle), and the arc bulges past the chord by r (1 - cos(angle)) <= r sin(angle). The arc
    // also lies on the whole circle: both discs hold it.
    const glm::dvec3 arc_centre = on_axis + std::cos(angle) * (glm::dvec3(p) - on_axis);
    return FramingPoint{glm::vec3(arc_centre), static_cast<float>(r * std::sin(angle)), axis, glm::vec3(on_axis),
                        static_cast<float>(r)};
  };
  switch (deform.kind) {
    case Deformer::twist:  // about +Y, angle amount * (y / radius) * pi/2 * cos(time)
      return rotated(1, amount * std::fabs(d.y) / radius * kHalfPi);
    case Deformer::bend: {  // about +Z, angle amount * 0.5 * (x / radius)^2 * cos(time)
      const double h = d.x / radius;
      return rotated(2, amount * 0.5 * h * h);
    }
    case Deformer::wave:  // y + amount * 0.08 * radius * (a product of a sine and a cosine)
      return FramingPoint{p, static_cast<float>(amount * 0.08 * radius), glm::vec3(0.0f)};
    case Deformer::pulse:  // d * (1 + amount * 0.1 * sin(...))
      return FramingPoint{p, static_cast<float>(amount * 0.1 * glm::length(d)), glm::vec3(0.0f)};
    case Deformer::none:
    default:
      return FramingPoint{p, 0.0f, glm::vec3(0.0f)};
  }
}

// How far a point's ball or disc reaches along n (its support beyond the centre): reach |n| for a ball, reach times
// the length of n's part across the disc's normal for a disc.
double support(double reach, const glm::vec3& disc_normal, const glm::dvec3& n) {
  const double along_normal = glm::dot(n, glm::dvec3(disc_normal));
  return reach * std::sqrt(std::max(0.0, glm::dot(n, n) - along_normal * along_normal));
}
// The largest and the smallest n . q over the points q the vertex can reach: over its ball or disc, and over its
// circle's disc where it has one (it lies in both, so the nearer bound holds).
double most_along(const FramingPoint& point, const glm::dvec3& n) {
  double most = glm::dot(n, glm::dvec3(point.position)) + support(point.reach, point.disc_normal, n);
  if (point.circle_reach >= 0.0f) {
    most = std::min(most, glm::dot(n, glm::dvec3(point.circle_centre)) +
                              support(point.circle_reach, point.disc_normal, n));
  }
  return most;
}
double least_along(const FramingPoint& point, const glm::dvec3& n) { return -most_along(point, -n); }

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
    points.push_back(deformer_ball(deform, centre, static_cast<double>(bounds.radius), mesh.positions[v]));
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
// [left, right] when q.x + left q.z >= ex + left ez and q.x + right q.z <= ex + right ez. Over a ball or disc around
// p the sums q.x + s q.z range over p.x + s p.z -/+ its support along (1, 0, s) (most_along / least_along: the
// nearer bound of a rotated vertex's two discs). So with
//   most = max over the points of (p.x + right p.z + support along (1, 0, right)),
//   least = min over the points of (p.x + left p.z - support along (1, 0, left)),
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
  const glm::dvec3 n_left(1.0, 0.0, rect.left), n_right(1.0, 0.0, rect.right);
  const glm::dvec3 n_bottom(0.0, 1.0, rect.bottom), n_top(0.0, 1.0, rect.top);
  constexpr double inf = std::numeric_limits<double>::infinity();
  double most_x = -inf, least_x = inf, most_y = -inf, least_y = inf, nearest = -inf;
  glm::dvec3 lo(inf), hi(-inf);
  for (const FramingPoint& point : points) {
    const glm::dvec3 p(point.position);
    most_x = std::max(most_x, most_along(point, n_right));
    least_x = std::min(least_x, least_along(point, n_left));
    most_y = std::max(most_y, most_along(point, n_top));
    least_y = std::min(least_y, least_along(point, n_bottom));
    nearest = std::max(nearest, most_along(point, glm::dvec3(0.0, 0.0, 1.0)));
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

Camera frame_mesh_all_around(const Mesh& mesh, float fovy_degrees, float aspect, const DeformParams& deform) {
  Camera camera;
  camera.fovy_degrees = fovy_degrees;
  const std::vector<FramingPoint> points = framing_points(mesh, deform);
  if (points.empty()) return camera;
  constexpr double inf = std::numeric_limits<double>::infinity();
  glm::dvec3 lo(inf), hi(-inf);
  for (const FramingPoint& p : points) {
    lo = glm::min(lo, glm::dvec3(p.position));
    hi = glm::max(hi, glm::dvec3(p.position));
  }
  const glm::dvec3 centre = 0.5 * (lo + hi);
  double radius = 0.0;
  for (const FramingPoint& p : points) {
    double reach = glm::length(glm::dvec3(p.position) - centre) + static_cast<double>(p.reach);
    if (p.circle_reach >= 0.0f) {
      reach = std::min(reach, glm::length(glm::dvec3(p.circle_centre) - centre) + static_cast<double>(p.circle_reach));
    }
    radius = std::max(radius, reach);
  }
  if (!(radius > 0.0)) radius = 1.0;
  // A sphere fits a field of view of half-angle a from distance r / sin(a); the narrower of the two binds.
  double half = glm::radians(static_cast<double>(fovy_degrees)) * 0.5;
  if (aspect > 0.0f && aspect < 1.0f) half = std::atan(static_cast<double>(aspect) * std::tan(half));
  const double distance = kFramingMargin * radius / std::sin(half);
  camera.target = glm::vec3(centre);
  camera.eye = glm::vec3(centre + glm::dvec3(0.0, 0.0, distance));
  return camera;
}

}  // namespace slabcast
