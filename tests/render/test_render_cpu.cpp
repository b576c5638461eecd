// cpu backend tests: shared math, meshes, and the cpu backend against the brute-force oracle (oracle.h).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <set>

#include "render/stages/bin.h"
#include "render/stages/build.h"
#include "render/constants.h"
#include "render/hd_math.h"
#include "render/intersect.h"
#include "render/oracle.h"
#include "render/renderer.h"
#include "render/scale_free.h"
#include "render/scenes.h"

namespace slabcast::test {
namespace {

// ---------------------------------------------------------------- shared math

TEST(HdMath, DetSinCosMatchLibm) {
  for (float x = -200.0f; x <= 200.0f; x += 0.0137f) {
    EXPECT_NEAR(det_sin(x), std::sin(static_cast<double>(x)), 2e-6) << x;
    EXPECT_NEAR(det_cos(x), std::cos(static_cast<double>(x)), 2e-6) << x;
  }
}

TEST(Slabs, SlabOfDepthAgreesWithBoundaries) {
  std::mt19937 rng(7);
  for (int slabs : {1, 2, 4, 16, 63, 64}) {
    for (int trial = 0; trial < 20; ++trial) {
      std::uniform_real_distribution<float> u(0.0f, 100.0f);
      float a = u(rng), b = u(rng);
      if (a > b) std::swap(a, b);
      const SlabRange r = make_slab_range(a, b, slabs);
      for (int k = 0; k < 200; ++k) {
        const float d = a + (b - a) * (k / 199.0f);
        const uint32_t s = slab_of_depth(r, d);
        ASSERT_LT(s, static_cast<uint32_t>(slabs));
        EXPECT_LE(slab_boundary(r, static_cast<int>(s)), d);
        EXPECT_GT(slab_boundary(r, static_cast<int>(s) + 1), d);
      }
      // Boundaries themselves go to the slab they open.
      for (int s = 1; s < slabs; ++s) EXPECT_EQ(slab_of_depth(r, slab_boundary(r, s)), static_cast<uint32_t>(s));
    }
  }
  EXPECT_EQ(slab_of_depth(make_slab_range(1.0f, 2.0f, 16), kStraddleDepth), 0u);
  // An empty reduction (nothing in front) still gives a usable range.
  const SlabRange empty = make_slab_range(INFINITY, -INFINITY, 16);
  EXPECT_LT(empty.z_near, empty.z_far);
}

TEST(BuildOps, ReferencePackingRoundTrips) {
  const uint32_t tris[] = {0u, 1u, 123456789u, 0xFFFFFFFEu};
  const uint32_t rows[] = {0u, 1u, 269u, (1u << 26) - 1};
  for (uint32_t t : tris) {
    for (uint32_t r : rows) {
      for (uint32_t s : {0u, 1u, 15u, 63u}) {
        const TriangleRef ref = pack_ref(t, r, s);
        EXPECT_EQ(ref_triangle(ref), t);
        EXPECT_EQ(ref_row(ref), r);
        EXPECT_EQ(ref_slab(ref), s);
      }
    }
  }
}

TEST(Bin, CullsBehindDegenerateAndOffScreen) {
  ViewParams v;
  v.tan_half_fovy = 0.41421356f;
  v.aspect = 1.0f;
  v.width = v.height = 64;
  const Vec3 a{-0.1f, -0.1f, -2.0f}, b{0.1f, -0.1f, -2.0f}, c{0.0f, 0.1f, -2.0f};
  EXPECT_FALSE(is_culled(bin_triangle(v, 8, 8, a, b, c).range));
  // Entirely behind the eye.
  EXPECT_TRUE(is_culled(bin_triangle(v, 8, 8, -a, -b, -c).range));
  // Zero area.
  EXPECT_TRUE(is_culled(bin_triangle(v, 8, 8, a, b, a * 0.5f + b * 0.5f).range));
  // Off screen to the right.
  const Vec3 off{30.0f, 0.0f, 0.0f};
  EXPECT_TRUE(is_culled(bin_triangle(v, 8, 8, a + off, b + off, c + off).range));
  // NaN.
  EXPECT_TRUE(is_culled(bin_triangle(v, 8, 8, Vec3{NAN, 0, -1}, b, c).range));
  // Crossing the camera plane: whole screen, slab 0.
  const BinResult cross = bin_triangle(v, 8, 8, Vec3{-1, 0, 1}, Vec3{1, 0, 1}, Vec3{0, 0.1f, -3});
  EXPECT_EQ(cross.range.x0, 0);
  EXPECT_EQ(cross.range.y0, 0);
  EXPECT_EQ(cross.range.x1, 7);
  EXPECT_EQ(cross.range.y1, 7);
  EXPECT_EQ(cross.nearest_depth, kStraddleDepth);
}

// Binning is conservative: every pixel whose centre ray the caster's own test (intersect_watertight) hits lies in
// the triangle's pixel box (where the casters skip the test for other pixels) and so in a tile of its range. The
// triangles are built to sit on the edge of that: the vertex that bounds the projected box in x and in y is put on a
// pixel centre, or within 1e-4 pixel of one, so rounding in the projection or in the ray test decides whether that
// pixel is hit. The other two vertices lie beyond it (0.2 to 30 pixels away), or one of them just in front of the
// eye, where it projects far off screen. Without the bin margin (constants.h) this test fails.
TEST(Bin, EveryPixelTheRayTestHitsIsInThePixelBoxAndTheTileRange) {
  struct Frame {
    int width, height;
  };
  const float kOffsets[] = {-1e-4f, -1e-5f, -1e-6f, 0.0f, 1e-6f, 1e-5f, 1e-4f};
  std::mt19937 rng(20261123);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  uint64_t edge_pixels_hit = 0;
  for (const Frame frame : {Frame{37, 29}, Frame{64, 48}, Frame{1024, 768}, Frame{3840, 2160}}) {
    ViewParams v;
    v.tan_half_fovy = 0.41421356f;
    v.aspect = static_cast<float>(frame.width) / static_cast<float>(frame.height);
    v.width = frame.width;
    v.height = frame.height;
    const int tiles_x = (frame.width + kTileSize - 1) / kTileSize, tiles_y = (frame.height + kTileSize - 1) / kTileSize;
    const float W = static_cast<float>(frame.width), H = static_cast<float>(frame.height);
    // The view-space point that projects to continuous screen position (sx, sy) at view depth d.
    auto at = [&](float sx, float sy, float d) {
      return Vec3{(sx / W * 2.0f - 1.0f) * v.tan_half_fovy * v.aspect * d, (1.0f - sy / H * 2.0f) * v.tan_half_fovy * d,
                  -d};
    };
    for (int k = 0; k < 20000; ++k) {
      // The bounding vertex: on (or next to) the centre of pixel (px, py), anywhere in the frame.
      const int px = static_cast<int>(unit(rng) * (W - 1.0f)), py = static_cast<int>(unit(rng) * (H - 1.0f));
      const float dx = kOffsets[k % 7], dy = kOffsets[(k / 7) % 7];
      const float d = 0.5f + unit(rng) * (k % 5 == 0 ? 1e4f : 50.0f);
      // The others beyond it, to the right or left and below or above (so it bounds the box on both axes).
      const float sx = unit(rng) < 0.5f ? 1.0f : -1.0f, sy = unit(rng) < 0.5f ? 1.0f : -1.0f;
      const float size = 0.2f + unit(rng) * 30.0f;
      Vec3 p[3];
      p[0] = at(px + 0.5f + dx, py + 0.5f + dy, d);
      p[1] = at(px + 0.5f + dx + sx * size, py + 0.5f + dy + sy * size * unit(rng), d * (1.0f + 0.02f * unit(rng)));
      p[2] = at(px + 0.5f + dx + sx * size * unit(rng), py + 0.5f + dy + sy * size, d * (1.0f + 0.02f * unit(rng)));
      if (k % 3 == 0) {  // instead, a vertex just in front of the eye, off the axis on the far side: it projects far away
        const float tiny = std::pow(10.0f, -1.0f - 4.0f * unit(rng));
        p[1] = Vec3{sx * (0.05f + 0.2f * unit(rng)), -sy * (0.05f + 0.2f * unit(rng)) * 0.1f, -tiny};
      }
      const BinResult b = bin_triangle(v, tiles_x, tiles_y, p[0], p[1], p[2]);
      // Pixels within two of the bounding vertex: the ones rounding decides, and their neighbours.
      for (int y = std::max(0, py - 2); y <= std::min(frame.height - 1, py + 2); ++y) {
        for (int x = std::max(0, px - 2); x <= std::min(frame.width - 1, px + 2); ++x) {
          float t = 0.0f, bary[3];
          if (!intersect_watertight(make_ray_shear(pixel_ray_view(v, x, y)), p[0], p[1], p[2], t, bary)) continue;
          edge_pixels_hit += x == px && y == py;
          ASSERT_TRUE(box_holds(b.pixels, x, y))
              << frame.width << "x" << frame.height << ", triangle " << k << " (offsets " << dx << ", " << dy
              << "): pixel (" << x << ", " << y << ") is hit but outside the pixel box [" << b.pixels.x0 << ".."
              << b.pixels.x1 << "] x [" << b.pixels.y0 << ".." << b.pixels.y1 << "]";
          const int tx = x / kTileSize, ty = y / kTileSize;
          ASSERT_TRUE(!is_culled(b.range) && b.range.x0 <= tx && tx <= b.range.x1 && b.range.y0 <= ty &&
                      ty <= b.range.y1)
              << frame.width << "x" << frame.height << ", triangle " << k << " (offsets " << dx << ", " << dy
              << "): pixel (" << x << ", " << y << ") is hit but its tile (" << tx << ", " << ty
              << ") is outside the range [" << b.range.x0 << ".." << b.range.x1 << "] x [" << b.range.y0 << ".."
              << b.range.y1 << "]";
        }
      }
    }
  }
  // The bounding vertex's own pixel was hit often: the property was tested where it is decided.
  EXPECT_GT(edge_pixels_hit, 1000u);
}

// The pixel box lies in the frame (it is clamped to it), is empty exactly for culled triangles, and is the whole
// frame for a triangle that crosses the camera plane (its rays may hit anywhere).
TEST(Bin, PixelBoxLiesInTheFrameEmptyWhenCulledWholeFrameWhenStraddling) {
  ViewParams v;
  v.tan_half_fovy = 0.41421356f;
  v.width = 101;
  v.height = 77;
  v.aspect = 101.0f / 77.0f;
  const int tiles_x = (v.width + kTileSize - 1) / kTileSize, tiles_y = (v.height + kTileSize - 1) / kTileSize;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> coord(-3.0f, 3.0f), depth(-4.0f, 0.5f);
  int binned = 0, straddling = 0;
  for (int k = 0; k < 20000; ++k) {
    Vec3 p[3];
    for (Vec3& q : p) q = Vec3{coord(rng), coord(rng), depth(rng)};
    const BinResult b = bin_triangle(v, tiles_x, tiles_y, p[0], p[1], p[2]);
    if (is_culled(b.range)) {
      EXPECT_GT(b.pixels.x0, b.pixels.x1) << "triangle " << k << ": culled, but its pixel box is not empty";
      continue;
    }
    ++binned;
    ASSERT_TRUE(0 <= b.pixels.x0 && b.pixels.x0 <= b.pixels.x1 && b.pixels.x1 < v.width && 0 <= b.pixels.y0 &&
                b.pixels.y0 <= b.pixels.y1 && b.pixels.y1 < v.height)
        << "triangle " << k;
    if (b.nearest_depth == kStraddleDepth) {
      ++straddling;
      EXPECT_TRUE(b.pixels.x0 == 0 && b.pixels.y0 == 0 && b.pixels.x1 == v.width - 1 && b.pixels.y1 == v.height - 1)
          << "triangle " << k << " crosses the camera plane but its box is not the whole frame";
    }
  }
  EXPECT_GT(binned, 1000);
  EXPECT_GT(straddling, 100);
}

// ---------------------------------------------------------------- vertex normals

// A vertex with more triangles than kWarpSumValence is summed in lanes (frame_params.h); its normal is still the
// normalized sum of its triangles' face normals, here against that sum in double precision. The rim vertices (two
// triangles each) are summed one after another.
TEST(VertexNormals, AManyTriangleVertexSummedInLanesIsTheNormalizedSum) {
  constexpr int kSides = 3000;
  static_assert(kSides > kWarpSumValence, "the apex is summed in lanes");
  const Scene s = cone_scene(kSides);
  auto r = make_renderer(Backend::cpu);
  r->set_mesh(s.mesh);
  std::vector<uint8_t> pixels;
  r->render(settings_for(s, 64, 48, 4, Shading::phong), host_surface(pixels, 64, 48));
  const std::vector<glm::vec3> normals = r->last_vertex_normals();
  ASSERT_EQ(normals.size(), s.mesh.positions.size());
  auto expected_normal = [&](uint32_t vertex) {
    glm::dvec3 sum(0.0);
    for (size_t t = 0; t < s.mesh.triangle_count(); ++t) {
      const uint32_t* i = &s.mesh.indices[3 * t];
      if (i[0] != vertex && i[1] != vertex && i[2] != vertex) continue;
      const glm::dvec3 a(s.mesh.positions[i[0]]), b(s.mesh.positions[i[1]]), c(s.mesh.positions[i[2]]);
      sum += glm::cross(b - a, c - a);
    }
    return glm::normalize(sum);
  };
  for (uint32_t vertex : {0u, 1u, 1000u, static_cast<uint32_t>(kSides)}) {
    const glm::dvec3 want = expected_normal(vertex);
    const glm::dvec3 got(normals[vertex]);
    EXPECT_LT(glm::length(got - want), 1e-5) << "vertex " << vertex << ": (" << got.x << ", " << got.y << ", "
                                             << got.z << ") against (" << want.x << ", " << want.y << ", " << want.z
                                             << ")";
  }
}

// ---------------------------------------------------------------- meshes

TEST(Mesh, ProceduralCountsAreNearTheTarget) {
  for (const char* name : {"sphere", "torus", "torus_knot", "stress"}) {
    for (uint64_t target : {2000ull, 50000ull}) {
      const Mesh m = make_procedural_mesh(name, target);
      EXPECT_NO_THROW(validate_mesh(m)) << name;
      const double ratio = static_cast<double>(m.triangle_count()) / static_cast<double>(target);
      EXPECT_GT(ratio, 0.7) << name << " " << target;
      EXPECT_LT(ratio, 1.4) << name << " " << target;
    }
  }
  EXPECT_THROW(make_procedural_mesh("teapot", 100), std::invalid_argument);
  EXPECT_THROW(make_procedural_mesh("sphere", 0), std::invalid_argument);
  EXPECT_THROW(make_procedural_mesh("sphere", uint64_t(1) << 40), std::invalid_argument);
}

TEST(Mesh, StressSceneCrossesTheDefaultCameraPlane) {
  const Mesh m = make_procedural_mesh("stress", 3000);
  const Camera cam = frame_mesh(m);
  const glm::vec3 forward = glm::normalize(cam.target - cam.eye);
  // Triangle 0 has vertices on both sides of the plane through the eye.
  int in_front = 0, behind = 0;
  for (int k = 0; k < 3; ++k) {
    const float d = glm::dot(m.positions[m.indices[k]] - cam.eye, forward);
    (d > 0 ? in_front : behind)++;
  }
  EXPECT_GT(in_front, 0);
  EXPECT_GT(behind, 0);
  // The camera frames the dense sphere (radius 1), not the huge triangles.
  EXPECT_LT(glm::length(cam.eye - cam.target), 4.0f);
}

TEST(Mesh, ValidateNamesTheProblem) {
  Mesh m;
  m.name = "bad";
  auto message = [&]() -> std::string {
    try {
      validate_mesh(m);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(message().find("no triangles"), std::string::npos);
  m.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  m.indices = {0, 1, 2, 0, 2, 3};
  EXPECT_NE(message().find("triangle 1"), std::string::npos) << message();
  m.indices = {0, 1, 2};
  m.positions[2].y = NAN;
  EXPECT_NE(message().find("vertex 2"), std::string::npos) << message();
  m.positions[2].y = 1;
  EXPECT_EQ(message(), "");
}

// ---------------------------------------------------------------- cpu backend vs oracle

struct Rendered {
  FrameStats stats;
  FrameExtras extras;
  FrameStructure structure;
  std::vector<glm::vec3> deformed;
};

Rendered render_cpu(const Scene& s, int w, int h, int slabs, RendererOptions options = {},
                    Shading shading = Shading::phong) {
  auto r = make_renderer(Backend::cpu, options);
  r->set_mesh(s.mesh);
  std::vector<uint8_t> pixels;
  const Surface surface = host_surface(pixels, w, h);
  Rendered out;
  out.stats = r->render(settings_for(s, w, h, slabs, shading), surface, &out.extras);
  out.structure = r->last_structure();
  out.deformed = r->last_deformed_positions();
  return out;
}

// `stacked`: the scene's triangles overlap within rounding of each other's depth (a deep stack), so any pixel may be
// a tie; no mismatch may be unjustified still.
void expect_matches_oracle(const Scene& s, const Rendered& r, int w, int h, bool stacked = false) {
  const OracleImage oracle = oracle_cast(r.deformed, s.mesh.indices, s.camera, w, h);
  const OracleComparison cmp = compare_with_oracle(oracle, r.deformed, s.mesh.indices, s.camera, r.extras);
  EXPECT_TRUE(cmp.ok()) << s.label << " " << w << "x" << h << ": " << cmp.unjustified << " unjustified ID mismatches, "
                        << cmp.depth_errors << " depth errors of " << cmp.pixels << " pixels\n"
                        << cmp.log;
  // Justified mismatches (ties, grazing rays) are rare: a handful of pixels on shared edges and silhouettes.
  if (!stacked) {
    EXPECT_LE(cmp.id_mismatches, std::max<uint64_t>(3, cmp.pixels / 100)) << s.label << "\n" << cmp.log;
  }
  EXPECT_LE(cmp.max_depth_rel_error, 1e-5);
  uint64_t hits = 0;
  for (uint32_t id : r.extras.triangle_id) hits += id != 0xFFFFFFFFu ? 1 : 0;
  EXPECT_EQ(r.stats.pixels_hit, hits);
}

// The structure's internal consistency: every binned triangle appears exactly once in every tile of its range,
// in the cell of its slab, and nowhere else.
void expect_structure_consistent(const FrameStructure& st, uint64_t triangles) {
  const uint64_t cells = static_cast<uint64_t>(st.tiles_x) * st.tiles_y * st.slabs;
  ASSERT_EQ(st.cell_offsets.size(), cells + 1);
  ASSERT_EQ(st.cell_offsets.back(), st.cell_triangles.size());
  std::vector<uint64_t> seen(triangles, 0);
  for (int ty = 0; ty < st.tiles_y; ++ty) {
    for (int tx = 0; tx < st.tiles_x; ++tx) {
      for (int s = 0; s < st.slabs; ++s) {
        const uint64_t c = (static_cast<uint64_t>(ty) * st.tiles_x + tx) * st.slabs + s;
        for (uint64_t k = st.cell_offsets[c]; k < st.cell_offsets[c + 1]; ++k) {
          const uint32_t t = st.cell_triangles[k];
          ASSERT_LT(t, triangles);
          const int32_t* r = &st.tile_range[4 * static_cast<size_t>(t)];
          ASSERT_TRUE(r[0] <= tx && tx <= r[2] && r[1] <= ty && ty <= r[3]) << "triangle " << t;
          ASSERT_EQ(st.slab_of_triangle[t], s) << "triangle " << t;
          ++seen[t];
        }
      }
    }
  }
  for (uint64_t t = 0; t < triangles; ++t) {
    const int32_t* r = &st.tile_range[4 * t];
    const uint64_t area = r[0] > r[2] ? 0 : static_cast<uint64_t>(r[2] - r[0] + 1) * (r[3] - r[1] + 1);
    ASSERT_EQ(seen[t], area) << "triangle " << t;
  }
}

struct OracleCase {
  const char* name;
  uint64_t triangles;
  Deformer deformer;
};

class CpuVsOracle : public ::testing::TestWithParam<std::tuple<OracleCase, std::pair<int, int>, int>> {};

TEST_P(CpuVsOracle, IdenticalIdsAndDepth) {
  const auto& [c, size, slabs] = GetParam();
  const Scene s = procedural_scene(c.name, c.triangles, c.deformer, 0.7f);
  const Rendered r = render_cpu(s, size.first, size.second, slabs);
  expect_matches_oracle(s, r, size.first, size.second);
  expect_structure_consistent(r.structure, s.mesh.triangle_count());
}

INSTANTIATE_TEST_SUITE_P(
    Scenes, CpuVsOracle,
    ::testing::Combine(::testing::Values(OracleCase{"sphere", 1500, Deformer::none},
                                         OracleCase{"torus", 2000, Deformer::twist},
                                         OracleCase{"torus_knot", 2500, Deformer::wave},
                                         OracleCase{"stress", 2000, Deformer::none},
                                         OracleCase{"sphere", 1200, Deformer::pulse},
                                         OracleCase{"torus", 1500, Deformer::bend}),
                       ::testing::Values(std::make_pair(37, 29), std::make_pair(64, 48), std::make_pair(101, 77)),
                       ::testing::Values(1, 4, 16)));

TEST(CpuBackend, CameraInsideAndNearTheMesh) {
  Scene s = procedural_scene("sphere", 2000);
  for (const glm::vec3 eye : {glm::vec3(0.0f, 0.0f, 0.0f), glm::vec3(0.2f, 0.1f, 0.5f), glm::vec3(0.0f, 0.0f, 1.02f),
                              glm::vec3(0.0f, 0.0f, 0.999f)}) {
    s.camera.eye = eye;
    s.camera.target = eye + glm::vec3(0.0f, -0.1f, -1.0f);
    s.label = "sphere, eye inside/near";
    for (int slabs : {1, 16}) {
      const Rendered r = render_cpu(s, 53, 41, slabs);
      expect_matches_oracle(s, r, 53, 41);
      expect_structure_consistent(r.structure, s.mesh.triangle_count());
    }
  }
}

TEST(CpuBackend, StressSceneFromInsideTheCrossingTriangle) {
  // A camera whose plane many huge triangles cross, looking along the floor.
  Scene s = procedural_scene("stress", 3000);
  s.camera.eye = glm::vec3(0.3f, -0.5f, 3.5f);
  s.camera.target = glm::vec3(0.0f, -0.6f, 0.0f);
  const Rendered r = render_cpu(s, 64, 48, 16);
  expect_matches_oracle(s, r, 64, 48);
}

TEST(CpuBackend, FullScreenTriangle) {
  const Scene s = full_screen_triangle_scene();
  for (int slabs : {1, 16}) {
    const Rendered r = render_cpu(s, 37, 29, slabs);
    for (uint32_t id : r.extras.triangle_id) ASSERT_EQ(id, 0u);
    expect_matches_oracle(s, r, 37, 29);
    EXPECT_EQ(r.stats.triangles_binned, 1u);
    EXPECT_EQ(r.stats.references, static_cast<uint64_t>(5 * 4));  // every tile of 37x29
  }
}

TEST(CpuBackend, TenThousandHugeTrianglesWithBoundedMemory) {
  const Scene s = huge_triangles_scene(10000, 11);
  const int w = 64, h = 48;
  const Rendered r = render_cpu(s, w, h, 16);
  expect_matches_oracle(s, r, w, h);
  // At most one reference per (triangle, tile): the memory the build needs is bounded by that.
  EXPECT_LE(r.stats.references, r.stats.triangles_binned * 8 * 6);
  EXPECT_EQ(r.structure.cell_triangles.size(), r.stats.references);
  // Slabs pay off: far fewer tests than every ray against every reference of its tile.
  EXPECT_LT(r.stats.ray_triangle_tests, r.stats.references * 64);
}

// Deep stacks (scenes.h: stacked_scene): the oracle decides every pixel, and the work stays bounded: copies are
// culled, and a ray takes at most a few groups of a deep cell however many triangles it holds.
TEST(CpuBackend, DeepStacksMatchTheOracleWithBoundedWork) {
  const int layers = static_cast<int>(kDepthSortedCell) + 800;
  for (const std::string kind : {"coincident", "coplanar", "layered"}) {
    const Scene s = stacked_scene(kind, layers);
    for (int slabs : {1, 16}) {
      SCOPED_TRACE(kind + ", " + std::to_string(slabs) + " slabs");
      const int w = 32, h = 24;
      const Rendered r = render_cpu(s, w, h, slabs);
      expect_matches_oracle(s, r, w, h, /*stacked=*/true);
      expect_structure_consistent(r.structure, s.mesh.triangle_count());
      EXPECT_EQ(r.stats.hidden_duplicates, kind == "coincident" ? uint64_t(layers) - 2 : 0u);
      if (kind != "coincident") {
        EXPECT_GT(r.stats.depth_sorted_cells, 0u);
      }
      // Unsorted, each pixel would test every layer; sorted, one group or two.
      EXPECT_LE(r.stats.ray_triangle_tests, uint64_t(w) * h * 2 * kDepthGroup);
    }
  }
}

// The cpu backend on any number of threads renders the same frame, bit for bit: image, IDs, depth, structure and
// every statistic (parallel.h: per-thread integer counters merged in order).
TEST(CpuBackend, AnyThreadCountRendersTheSameFrame) {
  for (const Scene& s : {procedural_scene("torus_knot", 30000, Deformer::twist, 0.4f),
                         stacked_scene("layered", static_cast<int>(kDepthSortedCell) + 800)}) {
    const auto render_with = [&](int threads) {
      RendererOptions options;
      options.threads = threads;
      auto r = make_renderer(Backend::cpu, options);
      r->set_mesh(s.mesh);
      std::vector<uint8_t> pixels;
      const Surface surface = host_surface(pixels, 203, 157);
      Rendered out;
      out.stats = r->render(settings_for(s, 203, 157, 16), surface, &out.extras);
      out.structure = r->last_structure();
      return std::make_pair(out, pixels);
    };
    const auto [one, one_pixels] = render_with(1);
    for (int threads : {2, 3, 7}) {
      SCOPED_TRACE(s.label + ", " + std::to_string(threads) + " threads");
      const auto [many, many_pixels] = render_with(threads);
      EXPECT_TRUE(many_pixels == one_pixels) << "the image differs";
      EXPECT_EQ(many.extras.triangle_id, one.extras.triangle_id);
      EXPECT_EQ(0, std::memcmp(many.extras.depth.data(), one.extras.depth.data(), one.extras.depth.size() * 4));
      EXPECT_EQ(many.structure.cell_triangles, one.structure.cell_triangles);
      expect_same_counts(many.stats, one.stats);
      EXPECT_EQ(many.structure.z_near, one.structure.z_near);
      EXPECT_EQ(many.structure.z_far, one.structure.z_far);
    }
  }
}

TEST(CpuBackend, GrowsTheReferenceBufferAndRedoesTheFrame) {
  const Scene s = procedural_scene("stress", 2000);
  RendererOptions tiny;
  tiny.initial_reference_capacity = 16;
  const Rendered small = render_cpu(s, 64, 48, 4, tiny);
  EXPECT_GE(small.stats.frame_redone, 1);
  const Rendered normal = render_cpu(s, 64, 48, 4);
  EXPECT_EQ(normal.stats.frame_redone, 0);
  EXPECT_EQ(small.extras.triangle_id, normal.extras.triangle_id);
  EXPECT_EQ(small.extras.depth, normal.extras.depth);
  EXPECT_EQ(small.structure.cell_triangles, normal.structure.cell_triangles);
  expect_matches_oracle(s, small, 64, 48);
}

TEST(CpuBackend, StatsAreConsistent) {
  const Scene s = procedural_scene("torus", 3000, Deformer::twist, 0.3f);
  const Rendered one = render_cpu(s, 64, 48, 1);
  const Rendered many = render_cpu(s, 64, 48, 16);
  for (const Rendered* r : {&one, &many}) {
    const FrameStats& st = r->stats;
    EXPECT_EQ(st.triangles_in, s.mesh.triangle_count());
    EXPECT_LE(st.triangles_binned, st.triangles_in);
    EXPECT_GT(st.triangles_binned, 0u);
    EXPECT_GE(st.references, st.triangles_binned);
    EXPECT_LE(st.max_refs_per_tile, st.references);
    EXPECT_GT(st.nonempty_cells, 0u);
    EXPECT_LE(st.nonempty_cells, static_cast<uint64_t>(8 * 6) * r->structure.slabs);
    EXPECT_GT(st.pixels_hit, 0u);
    EXPECT_GE(st.ms.total, 0.0f);
  }
  // One slab: every ray tests every reference of its tile.
  uint64_t expected = 0;
  for (int py = 0; py < 48; ++py) {
    for (int px = 0; px < 64; ++px) {
      const uint64_t c = static_cast<uint64_t>(py / 8) * 8 + px / 8;
      expected += one.structure.cell_offsets[c + 1] - one.structure.cell_offsets[c];
    }
  }
  EXPECT_EQ(one.stats.ray_triangle_tests, expected);
  EXPECT_EQ(one.stats.references, many.stats.references);
  EXPECT_LT(many.stats.ray_triangle_tests, one.stats.ray_triangle_tests);
  EXPECT_EQ(one.extras.triangle_id, many.extras.triangle_id);
}

TEST(CpuBackend, WritesOnlyInsideThePitchedSurfaceAndEveryShading) {
  const Scene s = procedural_scene("torus_knot", 2000, Deformer::wave, 1.0f);
  auto r = make_renderer(Backend::cpu);
  r->set_mesh(s.mesh);
  for (Shading mode : {Shading::phong, Shading::flat, Shading::depth, Shading::normals, Shading::triangle_id,
                       Shading::slab, Shading::ray_tests, Shading::tile_triangles}) {
    std::vector<uint8_t> pixels;
    const Surface surface = host_surface(pixels, 37, 29, 20);
    r->render(settings_for(s, 37, 29, 16, mode), surface);
    std::set<uint32_t> colours;
    for (int y = 0; y < 29; ++y) {
      for (size_t b = 4 * 37; b < surface.pitch_bytes; ++b) {
        ASSERT_EQ(pixels[y * surface.pitch_bytes + b], 0xAB) << "padding written, shading " << int(mode);
      }
      for (int x = 0; x < 37; ++x) {
        uint32_t c;
        std::memcpy(&c, &pixels[y * surface.pitch_bytes + 4 * x], 4);
        EXPECT_EQ(c >> 24, 255u);
        colours.insert(c);
      }
    }
    EXPECT_GT(colours.size(), 2u) << "shading " << int(mode);
  }
}

TEST(CpuBackend, RendersDeterministically) {
  const Scene s = procedural_scene("stress", 2000, Deformer::twist, 0.4f);
  const Rendered a = render_cpu(s, 64, 48, 16), b = render_cpu(s, 64, 48, 16);
  EXPECT_EQ(a.extras.triangle_id, b.extras.triangle_id);
  EXPECT_EQ(a.extras.depth, b.extras.depth);
  EXPECT_EQ(a.structure.cell_triangles, b.structure.cell_triangles);
}

TEST(CpuBackend, DeformersMoveTheMeshAndNoneDoesNot) {
  const Mesh m = make_procedural_mesh("torus", 1000);
  for (Deformer d : {Deformer::none, Deformer::twist, Deformer::bend, Deformer::wave, Deformer::pulse}) {
    Scene s = procedural_scene("torus", 1000, d, 0.5f);
    const Rendered r = render_cpu(s, 16, 16, 4);
    float moved = 0;
    for (size_t v = 0; v < m.positions.size(); ++v) moved = std::max(moved, glm::length(r.deformed[v] - m.positions[v]));
    if (d == Deformer::none) {
      EXPECT_EQ(moved, 0.0f);
    } else {
      EXPECT_GT(moved, 0.01f) << int(d);
    }
  }
}

TEST(CpuBackend, RejectsBadSettings) {
  auto r = make_renderer(Backend::cpu);
  r->set_mesh(make_procedural_mesh("sphere", 100));
  std::vector<uint8_t> pixels;
  const Surface surface = host_surface(pixels, 16, 16);
  FrameSettings f;
  f.width = f.height = 16;
  f.slabs = 0;
  EXPECT_THROW(r->render(f, surface), std::invalid_argument);
  f.slabs = 65;
  EXPECT_THROW(r->render(f, surface), std::invalid_argument);
  f.slabs = 16;
  f.camera.target = f.camera.eye;
  EXPECT_THROW(r->render(f, surface), std::invalid_argument);
}

TEST(Factory, CudaWithoutDeviceThrowsAClearError) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0) GTEST_SKIP() << "a CUDA device exists here";
  try {
    make_renderer(Backend::cuda);
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cpu"), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------- scale-free (render/scale_free.h)

TEST(CpuBackend, AScenesSizeChangesNoTriangleIdFrom2ToTheMinus66To2ToThe66) { expect_scale_free(Backend::cpu); }

}  // namespace
}  // namespace slabcast::test
