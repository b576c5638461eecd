// Shadows on the cpu backend against the exact test (shadow_oracle.h), and their light-space pieces.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "render/constants.h"
#include "render/frame_setup.h"
#include "render/renderer.h"
#include "render/shadow_oracle.h"
#include "render/shadow_scenes.h"
#include "render/stages/shadow.h"

namespace slabcast::test {
namespace {

TEST(ShadowMath, OrderedKeysOrderAsTheFloats) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1e6f, 1e6f);
  for (int i = 0; i < 10000; ++i) {
    const float a = u(rng) * (i % 3 == 0 ? 1e-30f : 1.0f), b = u(rng);
    EXPECT_EQ(a < b, ordered_key(a) < ordered_key(b)) << a << " " << b;
    EXPECT_EQ(from_ordered_key(ordered_key(a)), a);
  }
  EXPECT_LT(ordered_key(-0.0f), ordered_key(1e-45f));
}

TEST(ShadowMath, LightCellIsMonotoneAndInRange) {
  std::mt19937 rng(4);
  std::uniform_real_distribution<float> u(-3.0f, 3.0f);
  for (int i = 0; i < 2000; ++i) {
    const float lo = u(rng), x = u(rng), y = u(rng);
    // Spans of every kind: none (one sample), one ulp (a product by a huge number of cells a unit), wide.
    const float hi = i % 10 == 0 ? lo : (i % 10 == 1 ? std::nextafter(lo, 4.0f) : lo + std::abs(u(rng)));
    const int grid = 1 + i % 700;
    const float cells = cells_per_unit(lo, hi, grid);
    const int cx = light_cell(x, lo, cells, grid), cy = light_cell(y, lo, cells, grid);
    EXPECT_GE(cx, 0);
    EXPECT_LT(cx, grid);
    if (x <= y) {
      EXPECT_LE(cx, cy);
    }
  }
}

// Every direction from a point light lands on the cube face of its largest component, inside [-1, 1]^2, and a
// triangle around that direction has a box on that face that holds it.
TEST(ShadowMath, CubeFaceBoxesHoldTheirTrianglesDirections) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-2.0f, 2.0f), small(-0.05f, 0.05f);
  LightFrame L;
  L.kind = LightKind::point;
  L.position = Vec3{0.3f, -0.2f, 0.1f};
  for (int i = 0; i < 5000; ++i) {
    const Vec3 q{u(rng), u(rng), u(rng)};
    LightCoord c;
    ASSERT_TRUE(light_coord(L, q, c));
    EXPECT_LE(std::abs(c.u), 1.0f);
    EXPECT_LE(std::abs(c.v), 1.0f);
    // A triangle around q, partly beyond the face's edges sometimes.
    const float k = i % 2 ? 1.0f : 20.0f;
    const Vec3 a = q + Vec3{small(rng) * k, small(rng) * k, small(rng) * k};
    const Vec3 b = q + Vec3{small(rng) * k, small(rng) * k, small(rng) * k};
    const Vec3 d = q * 3.0f - a - b;  // q is the triangle's centroid
    LightBox box;
    ASSERT_TRUE(cube_face_box(L.position, c.face, a, b, d, box)) << i;
    EXPECT_LE(box.u0, c.u);
    EXPECT_GE(box.u1, c.u);
    EXPECT_LE(box.v0, c.v);
    EXPECT_GE(box.v1, c.v);
  }
}

// Every point of a triangle, wherever it lies around a point light (inside one face's pyramid, across faces, behind
// the light, around it), lands on a face whose box for the triangle holds it and lies no nearer than the box's depth:
// the triangles left whole, those found outside a face and those clipped alike.
TEST(ShadowMath, CubeFaceBoxesHoldEveryPointOfTheirTriangles) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-2.0f, 2.0f), unit(0.0f, 1.0f);
  LightFrame L;
  L.kind = LightKind::point;
  L.position = Vec3{0.3f, -0.2f, 0.1f};
  const float sizes[] = {0.01f, 0.2f, 1.0f, 4.0f};
  int across_faces = 0;  // triangles that reach more than one face: the clipped ones
  for (int i = 0; i < 4000; ++i) {
    const Vec3 centre{u(rng), u(rng), u(rng)};
    const float size = sizes[i % 4];
    const Vec3 a = centre + Vec3{u(rng), u(rng), u(rng)} * size, b = centre + Vec3{u(rng), u(rng), u(rng)} * size,
               d = centre + Vec3{u(rng), u(rng), u(rng)} * size;
    LightBox boxes[kMaxLightFaces];
    bool reaches[kMaxLightFaces];
    int faces_reached = 0;
    for (int f = 0; f < kMaxLightFaces; ++f) {
      reaches[f] = cube_face_box(L.position, f, a, b, d, boxes[f]);
      faces_reached += reaches[f] ? 1 : 0;
    }
    across_faces += faces_reached > 1 ? 1 : 0;
    for (int k = 0; k < 64; ++k) {
      float w0 = unit(rng), w1 = unit(rng);
      if (w0 + w1 > 1.0f) {
        w0 = 1.0f - w0;
        w1 = 1.0f - w1;
      }
      const Vec3 q = a * w0 + b * w1 + d * (1.0f - w0 - w1);
      LightCoord c;
      if (!light_coord(L, q, c)) continue;
      ASSERT_TRUE(reaches[c.face]) << "triangle " << i << ", point " << k << ", face " << c.face;
      const LightBox& box = boxes[c.face];
      EXPECT_TRUE(box_holds(box, c.u, c.v, c.depth)) << "triangle " << i << ", point " << k << ", face " << c.face;
    }
  }
  EXPECT_GT(across_faces, 1000);  // well represented
}

// Light space's tiles a side (docs/architecture.md, "Light space"): a tile per 4 pixels or per 8 triangles, whichever
// gives more, shared by a point light's six faces; at most 2047 a side for a sun and 341 (2047 / 6) for a point
// light's faces.
TEST(ShadowMath, LightGridsFollowTheTileDensityAndTheirBound) {
  FrameSettings s;
  s.shadows = true;
  const auto grid = [&](LightType type, int width, int height, uint64_t triangles) {
    s.light.type = type;
    s.width = width;
    s.height = height;
    const FrameSize size = frame_size(s, triangles);
    EXPECT_EQ(size.light_faces, type == LightType::sun ? 1 : 6);
    return size.light_grid;
  };
  EXPECT_EQ(grid(LightType::sun, 1024, 1024, 871414), 512);          // 262,144 tiles by the pixels
  EXPECT_EQ(grid(LightType::sun, 1024, 1024, 16000000), 1415);        // 2M tiles by the triangles
  EXPECT_EQ(grid(LightType::sun, 3840, 2160, 16000000), 1440);        // 2,073,600 tiles by the pixels
  EXPECT_EQ(grid(LightType::sun, 8192, 8192, 1000), 2047);            // bounded
  EXPECT_EQ(grid(LightType::point, 1024, 1024, 871414), 210);         // 43,690.7 tiles a face
  EXPECT_EQ(grid(LightType::point, 1024, 1024, 4000000), 289);        // 83,333.3 a face
  EXPECT_EQ(grid(LightType::point, 3840, 2160, 871414), 341);         // 345,600 wanted a face: bounded
  EXPECT_EQ(grid(LightType::headlight, 1024, 1024, 871414), 210);     // a point light at the eye
  EXPECT_EQ(grid(LightType::sun, 4, 4, 1), 2);                        // 4 tiles
}

// A sun along (1, 2, 1) and a point light, as make_light_frame sets them up (unit direction, orthonormal axes).
LightFrame test_light(LightKind kind) {
  LightFrame L;
  L.kind = kind;
  L.faces = kind == LightKind::sun ? 1 : kMaxLightFaces;
  if (kind == LightKind::sun) {
    L.direction = normalize_or_zero(Vec3{1.0f, 2.0f, 1.0f});
    L.axis_u = normalize_or_zero(cross(L.direction, Vec3{0.0f, 0.0f, 1.0f}));
    L.axis_v = cross(L.direction, L.axis_u);
  } else {
    L.position = Vec3{0.3f, -0.2f, 0.1f};
  }
  return L;
}

// Triangle tv's box on each face of L (stages/shadow.h: light_box_one).
std::vector<LightBox> boxes_of(const LightFrame& L, TriangleVerts tv) {
  std::vector<LightBox> boxes(kMaxLightFaces);
  FrameParams p{};
  p.light = L;
  p.tri_verts = &tv;
  p.num_triangles = 1;
  p.light_boxes = boxes.data();
  light_box_one(p, 0);
  return boxes;
}

// A triangle that blocks a sample has, on the sample's face, a box that holds the sample's coordinate and light depth
// (the test and the tiles leave nothing out that blocks); a triangle wholly deeper than the sample, by a hundredth of
// the scene, has a box that leaves the sample out by its depth (the bound does cull).
TEST(ShadowMath, LightDepthBoundsKeepEveryBlockerAndLeaveOutWhatLiesBeyond) {
  std::mt19937 rng(8);
  std::uniform_real_distribution<float> u(-2.0f, 2.0f), small(-0.05f, 0.05f), along(0.01f, 0.99f);
  for (const LightKind kind : {LightKind::sun, LightKind::point}) {
    const LightFrame L = test_light(kind);
    int blocking = 0, beyond_checked = 0;
    for (int i = 0; i < 4000; ++i) {
      const Vec3 p{u(rng), u(rng), u(rng)};
      LightCoord c;
      if (!light_coord(L, p, c)) continue;
      // x on the shadow ray (towards the light), y beyond p (away from it), each a triangle's centroid.
      const float s = along(rng);
      const Vec3 x = kind == LightKind::sun ? p + L.direction * (2.0f * s) : L.position + (p - L.position) * s;
      const Vec3 y =
          kind == LightKind::sun ? p - L.direction * (0.01f + s) : L.position + (p - L.position) * (1.01f + s);
      const float k = i % 2 ? 1.0f : 10.0f;
      const Vec3 a{small(rng) * k, small(rng) * k, small(rng) * k}, b{small(rng) * k, small(rng) * k, small(rng) * k};
      const TriangleVerts front{x + a, x + b, x - a - b}, behind{y + a, y + b, y - a - b};
      if (blocks(make_shadow_ray(L, p), front)) {
        ++blocking;
        const LightBox box = boxes_of(L, front)[static_cast<size_t>(c.face)];
        EXPECT_TRUE(box_holds(box, c.u, c.v, c.depth)) << i << ": near " << box.near << " depth " << c.depth;
      }
      // The behind triangle's depth on the sample's face, in double: when every corner lies deeper than the sample
      // by more than a thousandth, its bound must leave the sample out.
      double corners_min = INFINITY;
      for (const Vec3 v : {behind.a, behind.b, behind.c}) {
        double depth = 0.0;
        if (kind == LightKind::sun) {
          depth = -(double(v.x) * L.direction.x + double(v.y) * L.direction.y + double(v.z) * L.direction.z);
        } else {
          const double d[3] = {double(v.x) - L.position.x, double(v.y) - L.position.y, double(v.z) - L.position.z};
          depth = (c.face & 1 ? -1.0 : 1.0) * d[c.face / 2];
        }
        corners_min = std::min(corners_min, depth);
      }
      const LightBox beyond = boxes_of(L, behind)[static_cast<size_t>(c.face)];
      if (corners_min > double(c.depth) + 1e-3 && beyond.u0 <= beyond.u1) {
        ++beyond_checked;
        EXPECT_GT(beyond.near, c.depth) << i;
      }
    }
    EXPECT_GT(blocking, 3000) << "most centroids on the ray block it";
    EXPECT_GT(beyond_checked, 1000);
  }
}

// A triangle goes to the tiles its box covers that hold a sample no nearer the light than its nearest point: not to
// a tile without samples, nor to one whose samples all lie nearer the light; to one whose deepest sample lies at its
// near bound or deeper.
TEST(ShadowMath, TrianglesGoOnlyToTilesWithASampleTheyCanBlock) {
  LightFrame L = test_light(LightKind::sun);
  L.grid = 2;
  LightFaceKeys faces[kMaxLightFaces] = {};
  accumulate_face(faces[0], 0.0f, 0.0f);
  accumulate_face(faces[0], 1.0f, 1.0f);
  const LightBox box{-0.5f, 1.5f, -0.5f, 1.5f, 0.5f};  // over all four tiles
  const uint32_t tile_depth[4] = {0, ordered_key(0.4f), ordered_key(0.5f), ordered_key(3.0f)};
  const LightFaceGrid grid = face_grid(faces[0], L.grid);
  const LightTileEmitter emitter{LightTiles{&box, 1, &L, &grid, tile_depth}};
  std::vector<uint64_t> keys;
  auto emit = [&](uint32_t bucket, uint64_t key) {
    EXPECT_EQ(bucket, 0u);
    keys.push_back(key);
  };
  emitter(0, emit);
  EXPECT_EQ(keys, (std::vector<uint64_t>{light_key(2, 0), light_key(3, 0)}));
}

// The walk over a triangle's light tiles (LightTiles: the cpu emitter's and the cuda count's and scatter's) reaches
// exactly the tiles a double loop over every face's cells finds, once each, face by face and column by column: for
// triangles whose boxes miss some faces, cover one cell or many, on faces with samples or without, over tiles with and
// without samples deep enough. for_each_reached sends the same tiles, or, for a triangle covering more than
// kLargeLightTriangle tiles (the finer grid's wide boxes), the large triangles' list alone.
TEST(ShadowMath, TileWalkReachesEveryTileOfTheTriangleOnceInOrder) {
  std::mt19937 rng(6);
  std::uniform_real_distribution<float> coord(-1.2f, 1.2f);
  for (const LightKind kind : {LightKind::sun, LightKind::point}) {
    LightFrame L = test_light(kind);
    const int64_t triangles = 40;
    int large_triangles = 0;
    for (int trial = 0; trial < 100; ++trial) {
      L.grid = trial % 4 == 3 ? 24 : 5;
      LightFaceKeys faces[kMaxLightFaces] = {};
      for (int f = 0; f < L.faces; ++f) {
        if (rng() % 4 == 0) continue;  // a face without samples
        accumulate_face(faces[f], -1.0f + 0.1f * static_cast<float>(rng() % 5), -1.0f);
        accumulate_face(faces[f], 1.0f, 1.0f - 0.1f * static_cast<float>(rng() % 5));
      }
      std::vector<uint32_t> tile_depth(light_tile_count(L));
      for (uint32_t& d : tile_depth) d = rng() % 3 == 0 ? 0 : ordered_key(static_cast<float>(rng() % 4));
      std::vector<LightBox> boxes(static_cast<size_t>(L.faces) * triangles);
      for (LightBox& b : boxes) {
        const float u0 = coord(rng), v0 = coord(rng);
        const float w = rng() % 3 == 0 ? 0.01f : 0.6f * static_cast<float>(rng() % 4);
        b = rng() % 5 == 0 ? empty_light_box() : LightBox{u0, u0 + w, v0, v0 + w, static_cast<float>(rng() % 4)};
      }
      LightFaceGrid grids[kMaxLightFaces];
      for (int f = 0; f < L.faces; ++f) grids[f] = face_grid(faces[f], L.grid);
      const LightTiles tiles{boxes.data(), triangles, &L, grids, tile_depth.data()};
      for (int64_t i = 0; i < triangles; ++i) {
        std::vector<uint32_t> expected;
        uint64_t covered = 0;
        for (int f = 0; f < L.faces; ++f) {
          const LightBox& b = boxes[static_cast<size_t>(f * triangles + i)];
          LightCells c;
          if (!light_cells(b, grids[f], L.grid, c)) continue;
          covered += static_cast<uint64_t>(c.u1 - c.u0 + 1) * static_cast<uint64_t>(c.v1 - c.v0 + 1);
          for (int cu = c.u0; cu <= c.u1; ++cu) {
            for (int cv = c.v0; cv <= c.v1; ++cv) {
              const uint32_t t = light_tile(f, cu, cv, L.grid);
              if (tile_reaches(tile_depth[t], b.near)) expected.push_back(t);
            }
          }
        }
        std::vector<uint64_t> sent;
        const uint32_t count = tiles.for_each_reached(i, [&](uint64_t tile) { sent.push_back(tile); });
        std::vector<uint64_t> goes_to(expected.begin(), expected.end());
        if (covered > kLargeLightTriangle) {
          goes_to = {light_tile_count(L)};
          ++large_triangles;
        }
        EXPECT_EQ(sent, goes_to) << (kind == LightKind::sun ? "sun" : "point") << " trial " << trial << " " << i;
        EXPECT_EQ(count, sent.size());
      }
    }
    EXPECT_GT(large_triangles, 0) << "no triangle was large: the large list went untested";
  }
}

class CpuShadows : public ::testing::TestWithParam<int> {};

TEST_P(CpuShadows, MatchTheExactTest) {
  const ShadowScene c = shadow_scenes()[static_cast<size_t>(GetParam())];
  SCOPED_TRACE(shadow_case_label(c));
  const FrameSettings f = shadow_settings(c, 96, 80);
  auto renderer = make_renderer(Backend::cpu);
  renderer->set_mesh(c.scene.mesh);
  std::vector<uint8_t> pixels(4 * 96 * 80);
  std::vector<uint8_t> poison_mask(96 * 80, 77);
  FrameExtras extras;
  extras.shadow_mask = poison_mask;  // the renderer must replace it
  const FrameStats stats = renderer->render(f, Surface{pixels.data(), 96, 80, 4 * 96}, &extras);
  ASSERT_EQ(extras.shadow_mask.size(), size_t(96 * 80));
  const std::vector<ShadowTruth> truth =
      oracle_shadows(renderer->last_deformed_positions(), c.scene.mesh.indices, f.camera, f.width, f.height,
                     oracle_light(c.light, f.camera), extras.triangle_id);
  const ShadowComparison r = compare_shadows(truth, extras.shadow_mask, f.width);
  EXPECT_TRUE(r.ok()) << r.wrong << " wrong pixels of " << r.samples << " samples\n" << r.log;
  // Each case is a real test of both answers, except where only one can occur.
  EXPECT_GT(r.samples, 500u);
  EXPECT_LE(r.rounding, r.samples / 50) << "rounding cases";
  if (c.light.type == LightType::headlight) {
    EXPECT_EQ(r.shadowed, 0u);
  } else if (c.scene.label.find("closed room") == std::string::npos || c.light.type == LightType::point) {
    EXPECT_GT(r.shadowed, 20u);
    EXPECT_GT(r.lit, 20u);
  } else {
    EXPECT_GT(r.shadowed, r.samples / 2);  // a sun outside a closed room: its walls shadow almost everything
  }
  EXPECT_EQ(stats.shadow_samples, stats.pixels_hit);
  EXPECT_GT(stats.light_references, 0u);
  EXPECT_GT(stats.shadow_tests, 0u);
}

INSTANTIATE_TEST_SUITE_P(Scenes, CpuShadows, ::testing::Range(0, static_cast<int>(shadow_scenes().size())));

// The shadow view shows the mask; the phong view keeps only the ambient term in shadow.
TEST(CpuShadowShading, ShadowViewIsTheMaskAndShadowedPixelsAreAmbient) {
  const ShadowScene c = shadow_scenes()[0];
  FrameSettings f = shadow_settings(c, 64, 64);
  auto renderer = make_renderer(Backend::cpu);
  renderer->set_mesh(c.scene.mesh);
  std::vector<uint8_t> phong(4 * 64 * 64), view(4 * 64 * 64);
  FrameExtras extras;
  renderer->render(f, Surface{phong.data(), 64, 64, 4 * 64}, &extras);
  f.shading = Shading::shadow;
  f.shadows = false;  // the shadow view turns them on itself
  FrameExtras extras_view;
  renderer->render(f, Surface{view.data(), 64, 64, 4 * 64}, &extras_view);
  ASSERT_EQ(extras_view.shadow_mask, extras.shadow_mask);
  int shadowed = 0;
  for (size_t i = 0; i < extras.shadow_mask.size(); ++i) {
    const uint8_t m = extras.shadow_mask[i];
    EXPECT_EQ(view[4 * i], m);
    EXPECT_EQ(view[4 * i + 1], m);
    if (m == 0) {
      ++shadowed;
      EXPECT_EQ(phong[4 * i], static_cast<uint8_t>(0.08f * 255.0f + 0.5f)) << "pixel " << i;  // ambient only
    }
  }
  EXPECT_GT(shadowed, 10);
}

// Without --shadows no mask is made and the frame is as before; the stage times and statistics stay 0.
TEST(CpuShadowShading, NoShadowsNoMask) {
  ShadowScene c = shadow_scenes()[0];
  FrameSettings f = shadow_settings(c, 48, 48);
  f.shadows = false;
  auto renderer = make_renderer(Backend::cpu);
  renderer->set_mesh(c.scene.mesh);
  std::vector<uint8_t> pixels(4 * 48 * 48);
  FrameExtras extras;
  extras.shadow_mask.assign(10, 1);
  const FrameStats stats = renderer->render(f, Surface{pixels.data(), 48, 48, 4 * 48}, &extras);
  EXPECT_TRUE(extras.shadow_mask.empty());
  EXPECT_EQ(stats.shadow_samples, 0u);
  EXPECT_EQ(stats.shadow_tests, 0u);
  EXPECT_EQ(stats.ms.shadow_test, 0.0f);
}

// The light's vector is checked: a zero sun and a non-finite point are refused with a message.
TEST(CpuShadowShading, BadLightsAreRefused) {
  ShadowScene c = shadow_scenes()[0];
  auto renderer = make_renderer(Backend::cpu);
  renderer->set_mesh(c.scene.mesh);
  std::vector<uint8_t> pixels(4 * 16 * 16);
  FrameSettings f = shadow_settings(c, 16, 16);
  f.light = sun(0.0f, 0.0f, 0.0f);
  EXPECT_THROW(renderer->render(f, Surface{pixels.data(), 16, 16, 64}), std::invalid_argument);
  f.light = point_light(0.0f, NAN, 0.0f);
  EXPECT_THROW(renderer->render(f, Surface{pixels.data(), 16, 16, 64}), std::invalid_argument);
}

// Any thread count gives the same mask and counts.
TEST(CpuShadowShading, SameMaskOnAnyThreadCount) {
  const ShadowScene c = shadow_scenes()[2];
  const FrameSettings f = shadow_settings(c, 80, 64);
  FrameExtras one, four;
  FrameStats s1, s4;
  for (int threads : {1, 4}) {
    RendererOptions o;
    o.threads = threads;
    auto r = make_renderer(Backend::cpu, o);
    r->set_mesh(c.scene.mesh);
    std::vector<uint8_t> pixels(4 * 80 * 64);
    (threads == 1 ? s1 : s4) = r->render(f, Surface{pixels.data(), 80, 64, 4 * 80}, threads == 1 ? &one : &four);
  }
  EXPECT_EQ(one.shadow_mask, four.shadow_mask);
  expect_same_counts(s1, s4);
}

}  // namespace
}  // namespace slabcast::test
