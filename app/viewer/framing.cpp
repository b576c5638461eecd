#include "app/viewer/framing.h"

#include <glm/glm.hpp>

#include <algorithm>
#include <cmath>

namespace slabcast::viewer {

namespace {

bool overlaps(const PixelRect& a, const PixelRect& b) {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

// The depth (along the view axis) at which a sphere of `radius` fits the slice of the view between the planes through
// the eye at image-plane coordinates lo < hi (tangents of the angle off the axis), and where in [lo, hi] its centre
// then lies. The sphere touches both planes when its distance to each, depth (c - b) / sqrt(1 + b^2), is the radius:
// c = (lo k_hi + hi k_lo) / (k_lo + k_hi) and depth = radius (k_lo + k_hi) / (hi - lo), with k_b = sqrt(1 + b^2).
struct SliceFit {
  double depth, centre;
};
SliceFit fit_slice(double lo, double hi, double radius) {
  const double k_lo = std::sqrt(1.0 + lo * lo), k_hi = std::sqrt(1.0 + hi * hi);
  return {radius * (k_lo + k_hi) / (hi - lo), (lo * k_hi + hi * k_lo) / (k_lo + k_hi)};
}

}  // namespace

PixelRect free_rect(int width, int height, const std::vector<PixelRect>& panels) {
  const PixelRect whole{0, 0, std::max(width, 0), std::max(height, 0)};
  // A largest free rectangle has each side on the window's edge or on a panel's: try every such pair of columns and
  // rows (two panels give at most 6 x 6 edges).
  std::vector<int> xs{0, whole.width}, ys{0, whole.height};
  std::vector<PixelRect> covering;
  for (const PixelRect& p : panels) {
    if (p.width <= 0 || p.height <= 0 || !overlaps(p, whole)) continue;
    covering.push_back(p);
    xs.push_back(std::clamp(p.x, 0, whole.width));
    xs.push_back(std::clamp(p.x + p.width, 0, whole.width));
    ys.push_back(std::clamp(p.y, 0, whole.height));
    ys.push_back(std::clamp(p.y + p.height, 0, whole.height));
  }
  if (covering.empty()) return whole;
  std::sort(xs.begin(), xs.end());
  xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
  std::sort(ys.begin(), ys.end());
  ys.erase(std::unique(ys.begin(), ys.end()), ys.end());
  PixelRect best = whole;
  int best_side = -1;
  int64_t best_area = -1;
  for (size_t x0 = 0; x0 < xs.size(); ++x0) {
    for (size_t x1 = x0 + 1; x1 < xs.size(); ++x1) {
      for (size_t y0 = 0; y0 < ys.size(); ++y0) {
        for (size_t y1 = y0 + 1; y1 < ys.size(); ++y1) {
          const PixelRect r{xs[x0], ys[y0], xs[x1] - xs[x0], ys[y1] - ys[y0]};
          if (std::any_of(covering.begin(), covering.end(), [&](const PixelRect& p) { return overlaps(p, r); })) {
            continue;
          }
          const int side = std::min(r.width, r.height);
          const int64_t area = static_cast<int64_t>(r.width) * r.height;
          if (side > best_side || (side == best_side && area > best_area)) {
            best = r;
            best_side = side;
            best_area = area;
          }
        }
      }
    }
  }
  return best_side > 0 ? best : whole;
}

Camera frame_sphere_in_rect(const BoundingSphere& sphere, float fovy_degrees, int width, int height,
                            const PixelRect& free) {
  Camera camera;
  camera.fovy_degrees = fovy_degrees;
  camera.up = glm::vec3(0.0f, 1.0f, 0.0f);
  const double w = std::max(width, 1), h = std::max(height, 1);
  // The rectangle on the image plane at distance 1 (render/camera.h's pixel_ray_view: pixel edges, +v up).
  const double tan_y = std::tan(glm::radians(static_cast<double>(fovy_degrees)) * 0.5), tan_x = tan_y * w / h;
  PixelRect r = free;
  if (r.width <= 0 || r.height <= 0) r = PixelRect{0, 0, width, height};
  const double u0 = (2.0 * r.x / w - 1.0) * tan_x, u1 = (2.0 * (r.x + r.width) / w - 1.0) * tan_x;
  const double v0 = (1.0 - 2.0 * (r.y + r.height) / h) * tan_y, v1 = (1.0 - 2.0 * r.y / h) * tan_y;
  const double radius = kFramingMargin * sphere.radius;
  const SliceFit across = fit_slice(u0, u1, radius), along = fit_slice(v0, v1, radius);
  // The narrower slice decides the depth; the sphere then lies within the wider one wherever its centre is there.
  const double depth = std::max(across.depth, along.depth);
  // The sphere's centre in view space is depth x (across.centre, along.centre, -1); the eye sits that far behind it.
  const glm::vec3 sideways(static_cast<float>(depth * across.centre), static_cast<float>(depth * along.centre), 0.0f);
  camera.target = sphere.center - sideways;
  camera.eye = camera.target + glm::vec3(0.0f, 0.0f, static_cast<float>(depth));
  return camera;
}

}  // namespace slabcast::viewer
