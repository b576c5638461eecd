// cpu tests: the heat views' colour scale (log, fitted to the frame: FrameStats::heat_max) against the per-pixel counts
// the frame reports, the wireframe (edges about a pixel wide at any distance, nothing else changed), and the
// background colour of the misses.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "render/renderer.h"
#include "render/scenes.h"
#include "render/views.h"

namespace slabcast::test {
namespace {

// The scale as the task defines it, in double precision with libm: the renderer's float and det_log2 must land on the
// same 8-bit colour, give or take one step of rounding.
Color8 expected_heat(uint64_t value, uint64_t max) {
  const double position = max == 0 ? 0.0 : std::log2(1.0 + double(value)) / std::log2(1.0 + double(max));
  return heat_scale_color(static_cast<float>(position));
}

int channel_difference(const uint8_t* got, const Color8& want) {
  return std::max({std::abs(got[0] - want.r), std::abs(got[1] - want.g), std::abs(got[2] - want.b)});
}

bool is_colour(const uint8_t* got, uint8_t r, uint8_t g, uint8_t b) { return got[0] == r && got[1] == g && got[2] == b; }

TEST(HeatViews, RayTestsAreALogScaleFromZeroToTheFramesMost) {
  const Scene s = procedural_scene("torus", 4000, Deformer::twist, 0.4f);
  auto r = make_renderer(Backend::cpu);
  r->set_mesh(s.mesh);
  const int w = 96, h = 72;
  const HostFrame f = render_on_host(*r, settings_for(s, w, h, 8, Shading::ray_tests));
  ASSERT_EQ(f.extras.ray_tests.size(), size_t(w) * h);
  uint64_t sum = 0, most = 0, zeros = 0;
  for (uint32_t t : f.extras.ray_tests) {
    sum += t;
    most = std::max<uint64_t>(most, t);
    zeros += t == 0 ? 1 : 0;
  }
  EXPECT_EQ(sum, f.stats.ray_triangle_tests) << "the per-pixel counts are the frame's total's terms";
  EXPECT_EQ(f.stats.heat_max, most) << "the scale's top is the frame's most tests of one pixel";
  ASSERT_GT(most, 8u);
  ASSERT_GT(zeros, 0u) << "the scene should leave some rays without a test (empty tiles)";
  int worst = 0;
  uint64_t mid_scale = 0;
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      const uint32_t t = f.extras.ray_tests[size_t(y) * w + x];
      const uint8_t* got = f.pixel(w, x, y);
      if (t == most) {
        EXPECT_TRUE(is_colour(got, 255, 0, 0)) << "the brightest pixel is red at " << x << "," << y;
      }
      if (t == 0) {
        EXPECT_TRUE(is_colour(got, 0, 0, 255)) << "a pixel without tests is blue at " << x << "," << y;
      }
      worst = std::max(worst, channel_difference(got, expected_heat(t, most)));
      // Around the scale's middle on a log scale lies sqrt(1 + most) - 1: far below most / 2.
      const double position = std::log2(1.0 + t) / std::log2(1.0 + double(most));
      if (position > 0.4 && position < 0.6) ++mid_scale;
    }
  }
  EXPECT_LE(worst, 1) << "largest channel difference from heat(log2(1 + tests) / log2(1 + most))";
  EXPECT_GT(mid_scale, 0u) << "some pixels should lie in the scale's middle";
}

TEST(HeatViews, TileTrianglesAreALogScaleFromZeroToTheFramesFullestTile) {
  const Scene s = procedural_scene("sphere", 6000);
  auto r = make_renderer(Backend::cpu);
  r->set_mesh(s.mesh);
  const int w = 83, h = 61, slabs = 4;  // partial tiles on the right and at the bottom
  const HostFrame f = render_on_host(*r, settings_for(s, w, h, slabs, Shading::tile_triangles));
  const FrameStructure st = r->last_structure();
  const auto tile_refs = [&](int tx, int ty) {
    const uint64_t first = (uint64_t(ty) * st.tiles_x + tx) * st.slabs;
    return st.cell_offsets[first + st.slabs] - st.cell_offsets[first];
  };
  uint64_t most = 0;
  for (int ty = 0; ty < st.tiles_y; ++ty) {
    for (int tx = 0; tx < st.tiles_x; ++tx) most = std::max(most, tile_refs(tx, ty));
  }
  EXPECT_EQ(f.stats.heat_max, most);
  EXPECT_EQ(f.stats.heat_max, f.stats.max_refs_per_tile);
  int worst = 0;
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      const uint64_t refs = tile_refs(x / 8, y / 8);
      const uint8_t* got = f.pixel(w, x, y);
      if (refs == most) {
        EXPECT_TRUE(is_colour(got, 255, 0, 0)) << "the fullest tile is red at " << x << "," << y;
      }
      if (refs == 0) {
        EXPECT_TRUE(is_colour(got, 0, 0, 255)) << "an empty tile is blue at " << x << "," << y;
      }
      worst = std::max(worst, channel_difference(got, expected_heat(refs, most)));
    }
  }
  EXPECT_LE(worst, 1);
}

TEST(HeatViews, LegendValueIsZeroOutsideTheHeatViews) {
  const Scene s = procedural_scene("sphere", 2000);
  auto r = make_renderer(Backend::cpu);
  r->set_mesh(s.mesh);
  for (Shading mode : {Shading::phong, Shading::depth, Shading::slab}) {
    EXPECT_EQ(render_on_host(*r, settings_for(s, 32, 32, 4, mode)).stats.heat_max, 0u);
  }
}

TEST(HeatViews, ScalePositionEndsAndSteps) {
  EXPECT_EQ(heat_scale_position(0, 1000), 0.0f);
  EXPECT_EQ(heat_scale_position(1000, 1000), 1.0f);
  EXPECT_EQ(heat_scale_position(0, 0), 0.0f);
  EXPECT_NEAR(heat_scale_position(15, 255), 0.5f, 1e-6f);  // log2(16) / log2(256)
  EXPECT_NEAR(heat_scale_position(3, 255), 0.25f, 1e-6f);
  const Color8 blue = heat_scale_color(0.0f), red = heat_scale_color(1.0f), green = heat_scale_color(0.5f);
  EXPECT_TRUE(blue.r == 0 && blue.g == 0 && blue.b == 255);
  EXPECT_TRUE(red.r == 255 && red.g == 0 && red.b == 0);
  EXPECT_TRUE(green.r == 0 && green.g == 255 && green.b == 0);
}

// ---- wireframe ----

struct WireframePair {
  HostFrame plain, wire;
};

WireframePair render_quad(float distance, int size, Shading shading) {
  const Scene s = head_on_quad(distance);
  auto r = make_renderer(Backend::cpu);
  r->set_mesh(s.mesh);
  FrameSettings f = settings_for(s, size, size, 4, shading);
  WireframePair out;
  out.plain = render_on_host(*r, f);
  f.wireframe = true;
  out.wire = render_on_host(*r, f);
  return out;
}

bool darkened(const uint8_t* wire, const uint8_t* plain) {
  return wire[0] + wire[1] + wire[2] < (plain[0] + plain[1] + plain[2]) / 2;
}
bool unchanged(const uint8_t* wire, const uint8_t* plain) { return std::memcmp(wire, plain, 4) == 0; }

// The diagonal (-1, -1) .. (1, 1) runs through the pixel centres with x + y = size - 1 (the quad fills the view).
TEST(Wireframe, TheDiagonalIsAboutTwoPixelsWideAtTwoDistancesAndTheRestUnchanged) {
  constexpr int kSize = 96;
  double mean_width[2] = {0, 0};
  int k = 0;
  for (float distance : {1.5f, 2.2f}) {
    SCOPED_TRACE("distance " + std::to_string(distance));
    const WireframePair p = render_quad(distance, kSize, Shading::flat);
    int rows = 0, total = 0;
    for (int y = 2; y < kSize - 2; ++y) {
      int count = 0;
      for (int x = 0; x < kSize; ++x) {
        const uint8_t *w = p.wire.pixel(kSize, x, y), *o = p.plain.pixel(kSize, x, y);
        const int from_diagonal = std::abs(x + y - (kSize - 1));  // in pixels along the row
        if (from_diagonal > 3) {
          EXPECT_TRUE(unchanged(w, o)) << "pixel " << x << "," << y << " away from every edge changed";
        } else if (!unchanged(w, o)) {
          EXPECT_TRUE(darkened(w, o)) << "a wireframe pixel is darker: " << x << "," << y;
          ++count;
        }
      }
      // One pixel footprint on each side of the edge: a band two pixels wide across the line, 2 sqrt(2) along a row.
      EXPECT_GE(count, 2) << "row " << y;
      EXPECT_LE(count, 3) << "row " << y;
      total += count;
      ++rows;
    }
    mean_width[k++] = total / double(rows) / std::sqrt(2.0);  // across the line, in pixels
  }
  EXPECT_NEAR(mean_width[0], 2.0, 0.25);
  EXPECT_NEAR(mean_width[1], 2.0, 0.25);
}

TEST(Wireframe, TheOutlineIsOnePixelAndTheBackgroundUnchanged) {
  constexpr int kSize = 96;
  const WireframePair p = render_quad(6.0f, kSize, Shading::depth);  // the quad covers the view's middle third
  int rows_crossing = 0, rows_outlined = 0;
  for (int y = 0; y < kSize; ++y) {
    int first_hit = -1;
    for (int x = 0; x < kSize; ++x) {
      const uint8_t *w = p.wire.pixel(kSize, x, y), *o = p.plain.pixel(kSize, x, y);
      const bool hit = !(o[0] == 28 && o[1] == 30 && o[2] == 38);  // shade.h's background
      if (!hit) {
        EXPECT_TRUE(unchanged(w, o)) << "background pixel " << x << "," << y;
      }
      if (hit && first_hit < 0) first_hit = x;
    }
    if (first_hit < 0) continue;
    ++rows_crossing;
    // The quad's left edge: its first pixel lies within a pixel of it, and the one after is inside the line.
    rows_outlined += darkened(p.wire.pixel(kSize, first_hit, y), p.plain.pixel(kSize, first_hit, y)) ? 1 : 0;
  }
  ASSERT_GT(rows_crossing, kSize / 4);
  EXPECT_GE(rows_outlined, rows_crossing - 2) << "the silhouette's pixels are darkened on (almost) every row";
}

TEST(Wireframe, OffLeavesEveryViewAsItWas) {
  const Scene s = procedural_scene("torus", 3000);
  auto r = make_renderer(Backend::cpu);
  r->set_mesh(s.mesh);
  for (Shading mode : {Shading::phong, Shading::normals, Shading::ray_tests}) {
    FrameSettings f = settings_for(s, 48, 40, 4, mode);
    const HostFrame a = render_on_host(*r, f);
    f.wireframe = false;  // the default, spelt out
    const HostFrame b = render_on_host(*r, f);
    EXPECT_TRUE(a.rgba == b.rgba);
    f.wireframe = true;
    const HostFrame c = render_on_host(*r, f);
    EXPECT_FALSE(a.rgba == c.rgba) << "the wireframe should show in view " << int(mode);
    EXPECT_TRUE(a.extras.triangle_id == c.extras.triangle_id) << "the wireframe changes colours only";
  }
}

TEST(Background, EveryMissIsTheGivenColourAndNothingElseChanges) {
  const Scene s = procedural_scene("torus", 3000);
  auto r = make_renderer(Backend::cpu);
  r->set_mesh(s.mesh);
  const int w = 64, h = 48;
  for (Shading mode : {Shading::phong, Shading::depth, Shading::normals, Shading::triangle_id, Shading::slab,
                       Shading::albedo}) {
    FrameSettings f = settings_for(s, w, h, 4, mode);
    const HostFrame plain = render_on_host(*r, f);
    f.background = Color8{200, 10, 77, 0};  // the alpha is ignored: the image stays opaque
    const HostFrame coloured = render_on_host(*r, f);
    ASSERT_TRUE(plain.extras.triangle_id == coloured.extras.triangle_id) << "the background changes colours only";
    int misses = 0;
    for (int y = 0; y < h; ++y) {
      for (int x = 0; x < w; ++x) {
        const uint8_t* got = coloured.pixel(w, x, y);
        const uint8_t* before = plain.pixel(w, x, y);
        if (coloured.extras.triangle_id[size_t(y) * w + x] == 0xFFFFFFFFu) {
          ++misses;
          ASSERT_TRUE(is_colour(got, 200, 10, 77) && got[3] == 255) << "miss at " << x << "," << y << " view " << int(mode);
          ASSERT_TRUE(is_colour(before, kDefaultBackground.r, kDefaultBackground.g, kDefaultBackground.b))
              << "the default background at " << x << "," << y;
        } else {
          ASSERT_TRUE(std::equal(got, got + 4, before)) << "hit at " << x << "," << y << " view " << int(mode);
        }
      }
    }
    EXPECT_GT(misses, w * h / 10) << "the scene should leave some pixels empty";
  }
}

TEST(Background, WithShadowsAndWireframeTheMissesStillTakeIt) {
  const Scene s = procedural_scene("torus", 3000);
  auto r = make_renderer(Backend::cpu);
  r->set_mesh(s.mesh);
  const int w = 40, h = 40;
  FrameSettings f = settings_for(s, w, h, 4, Shading::phong);
  f.shadows = true;  // shaded after the cast, by a pass of its own
  f.wireframe = true;
  f.light = Light{LightType::sun, glm::vec3(1.0f, 2.0f, 0.5f)};
  f.background = Color8{1, 2, 3, 255};
  const HostFrame frame = render_on_host(*r, f);
  int misses = 0;
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      if (frame.extras.triangle_id[size_t(y) * w + x] != 0xFFFFFFFFu) continue;
      ++misses;
      ASSERT_TRUE(is_colour(frame.pixel(w, x, y), 1, 2, 3)) << x << "," << y;
    }
  }
  EXPECT_GT(misses, 0);
}

}  // namespace
}  // namespace slabcast::test
