#include "app/viewer/framing.h"

#include <glm/glm.hpp>

#include <algorithm>
#include <cmath>

namespace slabcast::viewer {

namespace {

bool overlaps(const PixelRect& a, const PixelRect& b) {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
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

Camera frame_points_in_rect(const std::vector<FramingPoint>& points, float fovy_degrees, int width, int height,
                            const PixelRect& free) {
  const double w = std::max(width, 1), h = std::max(height, 1);
  // The whole image: render/camera.h's pixel_ray_view maps pixel edges onto [-tan_x, tan_x] (right) and
  // [-tan_y, tan_y] (up).
  const double tan_y = std::tan(glm::radians(static_cast<double>(fovy_degrees)) * 0.5), tan_x = tan_y * w / h;
  PixelRect r = free;
  if (r.width <= 0 || r.height <= 0) r = PixelRect{0, 0, width, height};
  const double left = (2.0 * r.x / w - 1.0) * tan_x, right = (2.0 * (r.x + r.width) / w - 1.0) * tan_x;
  const double bottom = (1.0 - 2.0 * (r.y + r.height) / h) * tan_y, top = (1.0 - 2.0 * r.y / h) * tan_y;
  const double centre_x = 0.5 * (left + right), half_x = 0.5 * (right - left) / kFramingMargin;
  const double centre_y = 0.5 * (bottom + top), half_y = 0.5 * (top - bottom) / kFramingMargin;
  return frame_points(points, fovy_degrees,
                      ImagePlaneRect{centre_x - half_x, centre_x + half_x, centre_y - half_y, centre_y + half_y});
}

}  // namespace slabcast::viewer
