// The default camera (frame_mesh, renderer.h) on the cpu backend: a long model fills a wide and a tall image along its
// long side without touching the border; a deforming model stays inside the image at every time of its animation;
// the framing is the points' exact fit (both sides of the binding direction touch the margin); huge triangles do not
// count.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "render/renderer.h"
#include "render/scenes.h"

namespace slabcast::test {
namespace {

constexpr uint32_t kMiss = 0xFFFFFFFFu;

// The box of a frame's hit pixels, and whether any lies on the border.
struct HitBox {
  int x0 = 1 << 30, y0 = 1 << 30, x1 = -1, y1 = -1;
  uint64_t hits = 0, on_border = 0;
};

HitBox hit_box(Renderer& r, const FrameSettings& f) {
  std::vector<uint8_t> pixels;
  FrameExtras extras;
  r.render(f, host_surface(pixels, f.width, f.height), &extras);
  HitBox b;
  for (int y = 0; y < f.height; ++y) {
    for (int x = 0; x < f.width; ++x) {
      if (extras.triangle_id[static_cast<size_t>(y) * f.width + x] == kMiss) continue;
      ++b.hits;
      b.on_border += x == 0 || y == 0 || x == f.width - 1 || y == f.height - 1;
      b.x0 = std::min(b.x0, x);
      b.x1 = std::max(b.x1, x);
      b.y0 = std::min(b.y0, y);
      b.y1 = std::max(b.y1, y);
    }
  }
  return b;
}

// A torus knot stretched along one axis: as long and lumpy as a scanned animal, with corners its bounding sphere
// wastes room around.
Mesh stretched_knot(glm::vec3 stretch) {
  Mesh m = make_procedural_mesh("torus_knot", 6000);
  for (glm::vec3& p : m.positions) p *= stretch;
  m.name += " stretched";
  return m;
}

FrameSettings framed_settings(const Mesh& m, int w, int h, const DeformParams& deform = {}) {
  FrameSettings f;
  f.width = w;
  f.height = h;
  f.slabs = 8;
  f.deform = deform;
  f.camera = frame_mesh(m, f.camera.fovy_degrees, static_cast<float>(w) / static_cast<float>(h), deform);
  return f;
}

// The share of the image's width (or height) the hits span, whichever is larger: the binding direction's.
double filled_share(const HitBox& b, int w, int h) {
  return std::max(double(b.x1 - b.x0 + 1) / w, double(b.y1 - b.y0 + 1) / h);
}

// The case: the dragon (long along x) at 1600x300 framed by its bounding sphere filled a third of the height.
// Long along x in a wide image, long along y in a tall one, and each the other way round: the model is whole, and
// the direction that binds is filled up to the margin (1 / 1.05 of it, less a pixel or two of rounding).
TEST(Framing, ALongModelFillsWideAndTallImagesWithoutTouchingTheBorder) {
  struct Case {
    glm::vec3 stretch;
    int w, h;
  };
  const Case cases[] = {{{4.0f, 1.0f, 1.0f}, 1600, 300},
                        {{1.0f, 4.0f, 1.0f}, 300, 1000},
                        {{4.0f, 1.0f, 1.0f}, 300, 1000},
                        {{1.0f, 4.0f, 1.0f}, 1600, 300},
                        {{1.0f, 1.0f, 4.0f}, 640, 360}};
  auto r = make_renderer(Backend::cpu);
  for (const Case& c : cases) {
    const Mesh m = stretched_knot(c.stretch);
    r->set_mesh(m);
    const std::string what = "stretch (" + std::to_string(c.stretch.x) + "," + std::to_string(c.stretch.y) + "," +
                             std::to_string(c.stretch.z) + ") at " + std::to_string(c.w) + "x" + std::to_string(c.h);
    const HitBox b = hit_box(*r, framed_settings(m, c.w, c.h));
    ASSERT_GT(b.hits, 0u) << what;
    EXPECT_EQ(b.on_border, 0u) << what << ": the model is cut by the frame";
    EXPECT_GT(filled_share(b, c.w, c.h), 0.90) << what << ": the model should fill the binding direction";
    // Centred: the hits' box leaves about as much room on either side (exactly in the binding direction, to within
    // the model's depth in the other: frame_points).
    EXPECT_NEAR(b.x0, c.w - 1 - b.x1, 0.05 * c.w + 2) << what;
    EXPECT_NEAR(b.y0, c.h - 1 - b.y1, 0.05 * c.h + 2) << what;
  }
}

// frame_mesh with the animation's deformer: over a whole period of the deformers' clock (2 pi seconds) the model never
// touches the border, at amount 1 and at the viewer's largest, 4; and it still fills most of the image.
TEST(Framing, TheDeformedModelStaysInsideTheImageThroughTheAnimation) {
  auto r = make_renderer(Backend::cpu);
  const Mesh m = stretched_knot({3.0f, 1.0f, 1.0f});
  r->set_mesh(m);
  for (const Deformer kind : {Deformer::twist, Deformer::bend, Deformer::wave, Deformer::pulse}) {
    for (const float amount : {1.0f, 4.0f}) {
      for (const auto& [w, h] : {std::pair<int, int>{320, 120}, {120, 240}}) {
        const DeformParams deform{kind, amount, 0.0f};
        FrameSettings f = framed_settings(m, w, h, deform);
        double most_filled = 0.0;
        for (int step = 0; step < 24; ++step) {
          f.deform.time = 6.2831853f * static_cast<float>(step) / 24.0f;
          const std::string what = "deformer " + std::to_string(static_cast<int>(kind)) + " amount " +
                                   std::to_string(amount) + " at " + std::to_string(w) + "x" + std::to_string(h) +
                                   ", time " + std::to_string(f.deform.time);
          const HitBox b = hit_box(*r, f);
          ASSERT_EQ(b.on_border, 0u) << what << ": the animation leaves the image";
          most_filled = std::max(most_filled, filled_share(b, w, h));
        }
        if (amount == 1.0f) {
          EXPECT_GT(most_filled, 0.7) << "deformer " << static_cast<int>(kind) << " at " << w << "x" << h
                                      << ": the reach of the deformer is too generous";
        }
      }
    }
  }
}

// A rotating deformer keeps every vertex on its circle about the axis: a sphere twisting about its own axis sweeps
// nothing outside itself, so it is framed as large as the still sphere (the arc's disc alone reaches past the
// circle, and framed the default scene's twisting sphere at 79 % of the image instead of 95 %).
TEST(Framing, ASphereTwistingAboutItsAxisFillsTheImageAsAStillOne) {
  auto r = make_renderer(Backend::cpu);
  const Mesh m = make_procedural_mesh("sphere", 20000);
  r->set_mesh(m);
  const HitBox still = hit_box(*r, framed_settings(m, 256, 256));
  for (const float amount : {1.0f, 4.0f}) {
    FrameSettings f = framed_settings(m, 256, 256, DeformParams{Deformer::twist, amount, 0.0f});
    for (int step = 0; step < 8; ++step) {
      f.deform.time = 0.8f * static_cast<float>(step);
      const HitBox b = hit_box(*r, f);
      ASSERT_EQ(b.on_border, 0u) << "amount " << amount << ", time " << f.deform.time;
      EXPECT_GE(filled_share(b, 256, 256), filled_share(still, 256, 256) - 2.0 / 256)
          << "amount " << amount << ", time " << f.deform.time;
    }
  }
  EXPECT_GT(filled_share(still, 256, 256), 0.9);
}

// The fit is exact for the points: every point projects inside the image shrunk by the margin, and in the binding
// direction the extreme points lie on both of its edges; the other direction is about centred.
TEST(Framing, FramePointsTouchesBothEdgesOfTheBindingDirection) {
  const Mesh m = stretched_knot({4.0f, 1.0f, 1.5f});
  const std::vector<FramingPoint> points = framing_points(m);
  ASSERT_EQ(points.size(), m.positions.size());
  for (const auto& [w, h] : {std::pair<int, int>{1600, 300}, {300, 1000}, {512, 512}}) {
    const float aspect = static_cast<float>(w) / static_cast<float>(h);
    const ImagePlaneRect rect = framing_rect(45.0f, aspect);
    const Camera c = frame_points(points, 45.0f, rect);
    EXPECT_EQ(c.eye.x, c.target.x);
    EXPECT_EQ(c.eye.y, c.target.y);
    EXPECT_EQ(c.up, glm::vec3(0.0f, 1.0f, 0.0f));
    double x_lo = 1e30, x_hi = -1e30, y_lo = 1e30, y_hi = -1e30;
    for (const FramingPoint& p : points) {
      const double depth = double(c.eye.z) - p.position.z;
      ASSERT_GT(depth, 0.0);
      const double x = (double(p.position.x) - c.eye.x) / depth, y = (double(p.position.y) - c.eye.y) / depth;
      x_lo = std::min(x_lo, x);
      x_hi = std::max(x_hi, x);
      y_lo = std::min(y_lo, y);
      y_hi = std::max(y_hi, y);
    }
    const double tolerance = 1e-5;
    EXPECT_GE(x_lo, rect.left - tolerance);
    EXPECT_LE(x_hi, rect.right + tolerance);
    EXPECT_GE(y_lo, rect.bottom - tolerance);
    EXPECT_LE(y_hi, rect.top + tolerance);
    const bool across = (x_hi - x_lo) / (rect.right - rect.left) > (y_hi - y_lo) / (rect.top - rect.bottom);
    const std::string what = std::to_string(w) + "x" + std::to_string(h);
    if (across) {
      EXPECT_NEAR(x_lo, rect.left, tolerance) << what;
      EXPECT_NEAR(x_hi, rect.right, tolerance) << what;
    } else {
      EXPECT_NEAR(y_lo, rect.bottom, tolerance) << what;
      EXPECT_NEAR(y_hi, rect.top, tolerance) << what;
    }
    // Centred: exactly in the binding direction (above), to within the model's depth in the other.
    EXPECT_NEAR(x_lo + x_hi, 0.0, 0.05 * (rect.right - rect.left)) << what << ": centred across";
    EXPECT_NEAR(y_lo + y_hi, 0.0, 0.05 * (rect.top - rect.bottom)) << what << ": centred upwards";
  }
}

// The stress scene's huge triangles do not count: the points are the sphere's, and so is the framing.
TEST(Framing, HugeTrianglesDoNotCount) {
  const Mesh stress = make_procedural_mesh("stress", 3000);
  const std::vector<FramingPoint> points = framing_points(stress);
  EXPECT_EQ(points.size(), stress.positions.size() - 18) << "the six huge triangles' 18 vertices are left out";
  for (const FramingPoint& p : points) EXPECT_LE(glm::length(p.position), 1.0001f);
  Mesh empty;
  EXPECT_EQ(frame_mesh(empty).eye, Camera{}.eye);
}

// A vertex's ball is the vertex itself at rest and for amount 0, and holds the deformed vertex at any time.
TEST(Framing, TheBallHoldsTheDeformedVertexAtAnyTime) {
  const Mesh m = stretched_knot({2.0f, 1.0f, 1.0f});
  for (const DeformParams& rest : {DeformParams{}, DeformParams{Deformer::twist, 0.0f, 0.0f}}) {
    const std::vector<FramingPoint> points = framing_points(m, rest);
    ASSERT_EQ(points.size(), m.positions.size());
    for (size_t v = 0; v < points.size(); ++v) {
      ASSERT_EQ(points[v].reach, 0.0f);
      ASSERT_EQ(points[v].position, m.positions[v]);
    }
  }
  auto r = make_renderer(Backend::cpu);
  r->set_mesh(m);
  for (const Deformer kind : {Deformer::twist, Deformer::bend, Deformer::wave, Deformer::pulse}) {
    const DeformParams deform{kind, 2.5f, 0.0f};
    const std::vector<FramingPoint> points = framing_points(m, deform);
    ASSERT_EQ(points.size(), m.positions.size());
    for (int step = 0; step < 16; ++step) {
      FrameSettings f = framed_settings(m, 16, 16, deform);
      f.deform.time = 0.4f * static_cast<float>(step);
      std::vector<uint8_t> pixels;
      r->render(f, host_surface(pixels, 16, 16), nullptr);
      const std::vector<glm::vec3> moved = r->last_deformed_positions();
      for (size_t v = 0; v < points.size(); ++v) {
        ASSERT_LE(glm::length(moved[v] - points[v].position), points[v].reach * 1.0001f + 1e-6f)
            << "deformer " << static_cast<int>(kind) << ", vertex " << v << ", time " << f.deform.time;
        // A disc: the vertex stays in its plane.
        ASSERT_LE(std::fabs(glm::dot(moved[v] - points[v].position, points[v].disc_normal)), 1e-5f)
            << "deformer " << static_cast<int>(kind) << ", vertex " << v << ", time " << f.deform.time;
        // A rotation's second disc, its whole circle's, holds it too.
        if (points[v].circle_reach >= 0.0f) {
          ASSERT_LE(glm::length(moved[v] - points[v].circle_centre), points[v].circle_reach * 1.0001f + 1e-6f)
              << "deformer " << static_cast<int>(kind) << ", vertex " << v << ", time " << f.deform.time;
        }
      }
    }
  }
}

}  // namespace
}  // namespace slabcast::test
