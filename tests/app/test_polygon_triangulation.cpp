// app/polygon_triangulation: n-2 triangles always, the fan for convex polygons, an exact cover of concave ones,
// the polygon's winding kept, degenerate and self-crossing polygons survived, bounded work on huge ones.
#include "app/polygon_triangulation.h"

#include <glm/glm.hpp>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace slabcast {
namespace {

constexpr double kPi = 3.14159265358979323846;

struct Result {
  PolygonTriangles how;
  std::vector<uint32_t> triangles;
};

Result triangulate(const std::vector<glm::vec3>& corners) {
  Result r;
  r.how = triangulate_polygon(corners.data(), uint32_t(corners.size()), &r.triangles);
  return r;
}

std::vector<uint32_t> fan(uint32_t n) {
  std::vector<uint32_t> out;
  for (uint32_t k = 1; k + 1 < n; ++k) out.insert(out.end(), {0, k, k + 1});
  return out;
}

// Polygons in the z = 0 plane, counter-clockwise seen from +z unless reversed.
std::vector<glm::vec3> flat(const std::vector<glm::vec2>& points) {
  std::vector<glm::vec3> out;
  for (const glm::vec2& p : points) out.emplace_back(p.x, p.y, 0.0f);
  return out;
}

// An L: the unit square's upper-right quarter of [0,2]^2 is the notch. Starting at (2,0), the first-corner fan
// covers the notch; starting at (1,1), the first corner is the reflex one.
const std::vector<glm::vec2> kL = {{2, 0}, {2, 1}, {1, 1}, {1, 2}, {0, 2}, {0, 0}};
const std::vector<glm::vec2> kLReflexFirst = {{1, 1}, {1, 2}, {0, 2}, {0, 0}, {2, 0}, {2, 1}};
constexpr double kLArea = 3.0;

bool in_notch(const glm::dvec2& p) { return p.x > 1.0 && p.y > 1.0; }

double signed_area(const glm::vec3& a, const glm::vec3& b, const glm::vec3& c) {
  return 0.5 * ((double(b.x) - a.x) * (double(c.y) - a.y) - (double(b.y) - a.y) * (double(c.x) - a.x));
}

// Every triangle lists three different corners in the polygon's cyclic order: the winding the polygon has.
void expect_polygon_order(const std::vector<uint32_t>& t, uint32_t n) {
  ASSERT_EQ(t.size(), 3 * size_t(n - 2));
  for (size_t i = 0; i < t.size(); i += 3) {
    ASSERT_LT(t[i], n);
    ASSERT_LT(t[i + 1], n);
    ASSERT_LT(t[i + 2], n);
    // Rotated so that the smallest comes first, the three must increase.
    uint32_t a = t[i], b = t[i + 1], c = t[i + 2];
    while (a > b || a > c) {
      const uint32_t first = a;
      a = b, b = c, c = first;
    }
    EXPECT_TRUE(a < b && b < c) << "triangle " << i / 3 << ": " << t[i] << " " << t[i + 1] << " " << t[i + 2];
  }
}

// The triangles of a counter-clockwise polygon in z = 0 cover it exactly: none turns clockwise and their areas
// add up to the polygon's (so none overlaps another or reaches outside).
void expect_exact_cover(const std::vector<glm::vec3>& corners, const std::vector<uint32_t>& t, double area) {
  double sum = 0;
  for (size_t i = 0; i < t.size(); i += 3) {
    const double a = signed_area(corners[t[i]], corners[t[i + 1]], corners[t[i + 2]]);
    EXPECT_GE(a, 0.0) << "triangle " << i / 3 << " turns against the polygon";
    sum += a;
  }
  EXPECT_NEAR(sum, area, 1e-9 * std::max(1.0, area));
}

TEST(PolygonTriangulation, TriangleIsItself) {
  const Result r = triangulate(flat({{0, 0}, {1, 0}, {0, 1}}));
  EXPECT_EQ(r.triangles, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(r.how.method, PolygonMethod::fan);
}

TEST(PolygonTriangulation, AppendsToWhatIsThere) {
  std::vector<uint32_t> out = {7, 7, 7};
  const std::vector<glm::vec3> corners = flat(kL);
  triangulate_polygon(corners.data(), uint32_t(corners.size()), &out);
  ASSERT_EQ(out.size(), 3u + 12u);
  EXPECT_EQ(out[0], 7u);
}

TEST(PolygonTriangulation, ConvexPolygonsKeepTheFirstCornerFan) {
  std::vector<std::vector<glm::vec3>> polygons = {
      flat({{0, 0}, {1, 0}, {1, 1}, {0, 1}}),
      flat({{0, 0}, {0, 1}, {1, 1}, {1, 0}}),                                  // clockwise
      flat({{0, 0}, {1, 0}, {2, 0}, {2, 1}, {2, 2}, {1, 2}, {0, 2}, {0, 1}}),  // collinear corners on every side
  };
  // 1000 corners on a tilted circle away from the origin, its radius large enough that rounding the corners to
  // floats cannot bend one inwards.
  std::vector<glm::vec3> circle;
  for (int i = 0; i < 1000; ++i) {
    const double a = 2 * kPi * i / 1000;
    circle.emplace_back(1000.0 + 1000.0 * std::cos(a), 2000.0 + 600.0 * std::sin(a), 3000.0 + 800.0 * std::sin(a));
  }
  polygons.push_back(circle);
  for (const auto& polygon : polygons) {
    SCOPED_TRACE(polygon.size());
    const Result r = triangulate(polygon);
    EXPECT_EQ(r.how.method, PolygonMethod::fan);
    EXPECT_EQ(r.triangles, fan(uint32_t(polygon.size())));
  }
}

TEST(PolygonTriangulation, LShapedHexagonIsCoveredExactlyWithoutItsNotch) {
  for (const auto& points : {kL, kLReflexFirst}) {
    const std::vector<glm::vec3> corners = flat(points);
    const Result r = triangulate(corners);
    EXPECT_EQ(r.how.method, PolygonMethod::ear_clipped);
    EXPECT_EQ(r.how.not_convex_corners, 1u);
    expect_polygon_order(r.triangles, 6);
    expect_exact_cover(corners, r.triangles, kLArea);
    for (size_t i = 0; i < r.triangles.size(); i += 3) {
      const glm::dvec2 centroid = (glm::dvec2(points[r.triangles[i]]) + glm::dvec2(points[r.triangles[i + 1]]) +
                                   glm::dvec2(points[r.triangles[i + 2]])) / 3.0;
      EXPECT_FALSE(in_notch(centroid)) << "triangle " << i / 3 << " lies in the notch";
    }
    EXPECT_NE(r.triangles, fan(6));
  }
}

TEST(PolygonTriangulation, WindingFollowsThePolygonInAnyPlane) {
  // The L clockwise, and the L in a tilted plane seen from either side: every triangle's normal points the way the
  // polygon's (Newell) normal does.
  const glm::dvec3 e1 = glm::normalize(glm::dvec3(1, 2, 3)), e2 = glm::normalize(glm::cross(e1, glm::dvec3(0, 0, 1)));
  for (bool reversed : {false, true}) {
    std::vector<glm::vec2> points = kL;
    if (reversed) points.assign(kL.rbegin(), kL.rend());
    std::vector<glm::vec3> corners;
    for (const glm::vec2& p : points) corners.push_back(glm::vec3(glm::dvec3(5, -7, 11) + double(p.x) * e1 + double(p.y) * e2));
    glm::dvec3 newell(0);
    for (size_t i = 0; i < corners.size(); ++i) {
      newell += glm::cross(glm::dvec3(corners[i]), glm::dvec3(corners[(i + 1) % corners.size()]));
    }
    const Result r = triangulate(corners);
    EXPECT_EQ(r.how.method, PolygonMethod::ear_clipped);
    expect_polygon_order(r.triangles, 6);
    double area = 0;
    for (size_t i = 0; i < r.triangles.size(); i += 3) {
      const glm::dvec3 a(corners[r.triangles[i]]), b(corners[r.triangles[i + 1]]), c(corners[r.triangles[i + 2]]);
      const double along = glm::dot(glm::cross(b - a, c - a), glm::normalize(newell));
      EXPECT_GT(along, 0.0) << "triangle " << i / 3;
      area += 0.5 * along;
    }
    EXPECT_NEAR(area, kLArea, 1e-5);
  }
}

TEST(PolygonTriangulation, CollinearCornersInAConcavePolygon) {
  // The L with a corner halfway along every side, including both sides of the notch, and one repeated corner.
  const std::vector<glm::vec3> corners = flat({{2, 0}, {2, 0.5f}, {2, 1}, {1.5f, 1}, {1, 1}, {1, 1.5f}, {1, 2},
                                               {0.5f, 2}, {0, 2}, {0, 2}, {0, 1}, {0, 0}, {1, 0}});
  const Result r = triangulate(corners);
  EXPECT_EQ(r.how.method, PolygonMethod::ear_clipped);
  expect_polygon_order(r.triangles, uint32_t(corners.size()));
  expect_exact_cover(corners, r.triangles, kLArea);
}

TEST(PolygonTriangulation, DegeneratePolygonsAreFanned) {
  const std::vector<std::vector<glm::vec3>> polygons = {
      flat({{0, 0}, {1, 1}, {2, 2}, {3, 3}}),          // all on a line
      flat({{1, 1}, {1, 1}, {1, 1}, {1, 1}, {1, 1}}),  // one point
      flat({{0, 0}, {1, 0}, {0, 0}, {1, 0}}),          // back and forth
      flat({{0, 0}, {1, 1}, {1, 0}, {0, 1}}),          // a bow tie: zero area
  };
  for (const auto& polygon : polygons) {
    const Result r = triangulate(polygon);
    EXPECT_EQ(r.how.method, PolygonMethod::fan);
    EXPECT_EQ(r.triangles, fan(uint32_t(polygon.size())));
  }
}

TEST(PolygonTriangulation, SquareWithAHoleThroughABridge) {
  // How exporters write a face with a hole: the outer ring, a bridge in, the hole the other way round, the bridge
  // back; the bridge's ends are repeated corners.
  const std::vector<glm::vec3> corners = flat({{0, 0}, {4, 0}, {4, 4}, {0, 4}, {0, 0}, {1, 1}, {1, 3}, {3, 3},
                                               {3, 1}, {1, 1}});
  const Result r = triangulate(corners);
  EXPECT_EQ(r.how.method, PolygonMethod::ear_clipped);
  expect_polygon_order(r.triangles, uint32_t(corners.size()));
  expect_exact_cover(corners, r.triangles, 16.0 - 4.0);
}

TEST(PolygonTriangulation, RandomSimplePolygonsAreCoveredExactly) {
  // Star-shaped polygons around the origin (simple, mostly concave), fixed seeds, 4 to 300 corners.
  std::mt19937 rng(12345);
  for (int round = 0; round < 300; ++round) {
    std::uniform_int_distribution<int> count(4, 300);
    std::uniform_real_distribution<float> radius(0.05f, 1.0f);
    const int n = count(rng);
    std::vector<glm::vec3> corners;
    double area = 0;
    for (int i = 0; i < n; ++i) {
      const double a = 2 * kPi * i / n;
      const float r = radius(rng);
      corners.emplace_back(float(r * std::cos(a)), float(r * std::sin(a)), 0.0f);
    }
    for (int i = 0; i < n; ++i) area += signed_area(glm::vec3(0), corners[i], corners[(i + 1) % n]);
    SCOPED_TRACE("round " + std::to_string(round) + ", " + std::to_string(n) + " corners");
    const Result r = triangulate(corners);
    expect_polygon_order(r.triangles, uint32_t(n));
    expect_exact_cover(corners, r.triangles, area);
    if (HasFailure()) return;
  }
}

TEST(PolygonTriangulation, SelfCrossingPolygonsStillGiveNMinusTwoTriangles) {
  // Random corners (crossing edges everywhere), a pentagram, and one that winds twice: no exact cover exists, but
  // the count and the order of corners hold, and the same input gives the same triangles.
  std::mt19937 rng(777);
  std::uniform_real_distribution<float> coordinate(-1.0f, 1.0f);
  std::vector<std::vector<glm::vec3>> polygons;
  for (int round = 0; round < 200; ++round) {
    std::vector<glm::vec3> corners(size_t(4 + round % 60));
    for (glm::vec3& p : corners) p = glm::vec3(coordinate(rng), coordinate(rng), round % 3 == 0 ? coordinate(rng) : 0.0f);
    polygons.push_back(corners);
  }
  std::vector<glm::vec3> star, twice;
  for (int i = 0; i < 5; ++i) star.emplace_back(std::cos(4 * kPi * i / 5), std::sin(4 * kPi * i / 5), 0.0);
  for (int i = 0; i < 12; ++i) twice.emplace_back(std::cos(4 * kPi * i / 12) * (i % 2 ? 1.0 : 0.5), std::sin(4 * kPi * i / 12), 0.0);
  polygons.push_back(star);
  polygons.push_back(twice);
  for (const auto& polygon : polygons) {
    const Result r = triangulate(polygon);
    expect_polygon_order(r.triangles, uint32_t(polygon.size()));
    EXPECT_EQ(triangulate(polygon).triangles, r.triangles);
    if (HasFailure()) return;
  }
}

// A comb, counter-clockwise: `teeth` spikes 10 high on a bar 1 high, the corners between the spikes reflex.
std::vector<glm::vec3> comb(uint32_t teeth) {
  std::vector<glm::vec3> corners;
  for (uint32_t i = 0; i < teeth; ++i) {
    corners.emplace_back(float(2 * i), 0.0f, 0.0f);
    corners.emplace_back(float(2 * i + 1), 10.0f, 0.0f);
  }
  corners.emplace_back(float(2 * teeth), 0.0f, 0.0f);
  corners.emplace_back(float(2 * teeth), -1.0f, 0.0f);
  corners.emplace_back(0.0f, -1.0f, 0.0f);
  return {corners.rbegin(), corners.rend()};
}

// Half an annulus, counter-clockwise: `per_arc` corners on the outer arc (radius 1000), as many on the inner one
// (radius 500), every inner corner reflex. The costliest shape for ear clipping: the outer corners are the only
// ears, and every test of one looks at every inner corner, which all stay reflex to the end.
std::vector<glm::vec3> half_annulus(uint32_t per_arc) {
  std::vector<glm::vec3> corners;
  for (uint32_t i = 0; i < per_arc; ++i) {
    const double a = kPi * i / (per_arc - 1);
    corners.emplace_back(float(1000.0 * std::cos(a)), float(1000.0 * std::sin(a)), 0.0f);
  }
  for (uint32_t i = 0; i < per_arc; ++i) {
    const double a = kPi * (per_arc - 1 - i) / (per_arc - 1);
    corners.emplace_back(float(500.0 * std::cos(a)), float(500.0 * std::sin(a)), 0.0f);
  }
  return corners;
}

double shoelace(const std::vector<glm::vec3>& corners) {
  double area = 0;
  for (size_t i = 0; i < corners.size(); ++i) {
    area += signed_area(glm::vec3(0), corners[i], corners[(i + 1) % corners.size()]);
  }
  return area;
}

TEST(PolygonTriangulation, ConcavePolygonsUpToTheWorkBoundAreEarClipped) {
  // 2800 teeth: 5603 corners, 2799 of them reflex, just under the bound.
  const std::vector<glm::vec3> teeth = comb(2800);
  ASSERT_LE(uint64_t(teeth.size()) * 2799, kMaxEarClipWork);
  Result r = triangulate(teeth);
  EXPECT_EQ(r.how.method, PolygonMethod::ear_clipped);
  EXPECT_EQ(r.how.not_convex_corners, 2799u);
  expect_polygon_order(r.triangles, uint32_t(teeth.size()));
  expect_exact_cover(teeth, r.triangles, 2800 * 2 * 10 / 2.0 + 2 * 2800);

  // 2 x 2896 corners, 2894 of them reflex (the inner arc less its ends): the costliest polygon that is clipped.
  const std::vector<glm::vec3> arcs = half_annulus(2896);
  ASSERT_LE(uint64_t(arcs.size()) * 2894, kMaxEarClipWork);
  const auto start = std::chrono::steady_clock::now();
  r = triangulate(arcs);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.how.method, PolygonMethod::ear_clipped);
  EXPECT_EQ(r.how.not_convex_corners, 2894u);
  expect_polygon_order(r.triangles, uint32_t(arcs.size()));
  expect_exact_cover(arcs, r.triangles, shoelace(arcs));
  EXPECT_LT(seconds, 5.0);
}

TEST(PolygonTriangulation, HugeConcavePolygonsAreFannedQuickly) {
  // 500,000 teeth, 10^6 corners, half of them reflex: far past the bound, fanned in linear time.
  const std::vector<glm::vec3> corners = comb(500000);
  const auto start = std::chrono::steady_clock::now();
  const Result r = triangulate(corners);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.how.method, PolygonMethod::fan_too_large);
  EXPECT_EQ(r.how.not_convex_corners, 499999u);
  EXPECT_EQ(r.triangles, fan(uint32_t(corners.size())));
  EXPECT_LT(seconds, 5.0);
}

TEST(PolygonTriangulation, ManyCornersFewReflexOnesAreEarClipped) {
  // A circle of 4000 corners with 8 notches cut in: the ear tests only look at the notches, so n·r stays small.
  constexpr uint32_t kCorners = 4000;
  std::vector<glm::vec3> corners;
  for (uint32_t i = 0; i < kCorners; ++i) {
    const double a = 2 * kPi * i / kCorners;
    const double r = i % (kCorners / 8) == 0 ? 500.0 : 1000.0;  // every notch corner is reflex
    corners.emplace_back(float(r * std::cos(a)), float(r * std::sin(a)), 0.0f);
  }
  const Result r = triangulate(corners);
  EXPECT_EQ(r.how.method, PolygonMethod::ear_clipped);
  EXPECT_EQ(r.how.not_convex_corners, 8u);
  expect_polygon_order(r.triangles, kCorners);
  expect_exact_cover(corners, r.triangles, shoelace(corners));
}

}  // namespace
}  // namespace slabcast
