// Anti-aliasing (FrameSettings::samples, render/stages/resolve.h) on the cpu backend: one sample is the pixel-centre
// frame bit for bit; N samples equal the pixel-centre frame of sqrt(N) times the size, box-filtered; an edge blends
// and flat regions keep their colour exactly; the extras stay the centre rays'; bad counts are refused. Progressive
// samples (FrameSettings::progressive_sample): after k + 1 calls the average of the first k + 1 samples, after N the
// N-sample frame bit for bit; a restart at 0 forgets the old sums; a k that does not follow is refused.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "render/camera.h"
#include "render/hd_math.h"
#include "render/renderer.h"
#include "render/scenes.h"
#include "render/shadow_scenes.h"
#include "render/stages/resolve.h"

namespace slabcast::test {
namespace {

struct Image {
  FrameStats stats;
  FrameExtras extras;
  std::vector<uint8_t> rgba;  // W * H * 4, rows packed
};

// One frame into a pitched host surface, rows packed afterwards; extras when `with_extras`.
Image render_image(Renderer& r, const FrameSettings& f, bool with_extras) {
  Image out;
  std::vector<uint8_t> pixels;
  const Surface s = host_surface(pixels, f.width, f.height, 20);
  out.stats = r.render(f, s, with_extras ? &out.extras : nullptr);
  out.rgba.resize(4 * static_cast<size_t>(f.width) * f.height);
  for (int y = 0; y < f.height; ++y) {
    std::memcpy(&out.rgba[4 * static_cast<size_t>(f.width) * y], &pixels[s.pitch_bytes * y],
                4 * static_cast<size_t>(f.width));
    for (size_t b = 4 * static_cast<size_t>(f.width); b < s.pitch_bytes; ++b) {
      EXPECT_EQ(pixels[s.pitch_bytes * y + b], 0xAB) << "row padding written, row " << y;
    }
  }
  return out;
}

// The box filter of a W*side x H*side image down to W x H, as the resolve computes it: (sum + N/2) / N a channel.
std::vector<uint8_t> box_filter(const std::vector<uint8_t>& big, int w, int h, int side) {
  const int big_w = w * side, n = side * side;
  std::vector<uint8_t> small(4 * static_cast<size_t>(w) * h);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      for (int c = 0; c < 4; ++c) {
        uint32_t sum = 0;
        for (int j = 0; j < side; ++j) {
          for (int i = 0; i < side; ++i) sum += big[4 * (static_cast<size_t>(y * side + j) * big_w + x * side + i) + c];
        }
        small[4 * (static_cast<size_t>(y) * w + x) + c] = static_cast<uint8_t>((sum + n / 2) / n);
      }
    }
  }
  return small;
}

uint64_t differing_pixels(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  uint64_t n = 0;
  for (size_t i = 0; i + 3 < a.size(); i += 4) n += std::memcmp(&a[i], &b[i], 4) != 0 ? 1 : 0;
  return n;
}

TEST(SampleOffsets, AreTheCentresOfASquareGrid) {
  EXPECT_EQ(sample_offset(1, 0).x, 0.5f);
  EXPECT_EQ(sample_offset(1, 0).y, 0.5f);
  const float four[2] = {0.25f, 0.75f};
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(sample_offset(4, k).x, four[k % 2]) << k;
    EXPECT_EQ(sample_offset(4, k).y, four[k / 2]) << k;
  }
  const float sixteen[4] = {0.125f, 0.375f, 0.625f, 0.875f};
  for (int k = 0; k < 16; ++k) {
    EXPECT_EQ(sample_offset(16, k).x, sixteen[k % 4]) << k;
    EXPECT_EQ(sample_offset(16, k).y, sixteen[k / 4]) << k;
  }
  for (int n : {1, 4, 16}) EXPECT_TRUE(is_sample_count(n));
  for (int n : {-4, 0, 2, 3, 8, 9, 15, 17, 32, 64}) EXPECT_FALSE(is_sample_count(n)) << n;
}

// The centre offset in place of 0.5 gives the very bits of the formula as it was written with 0.5.
TEST(SampleOffsets, TheCentreRayHasTheBitsOfThePixelCentreFormula) {
  for (const auto& [w, h] : {std::pair<int, int>{64, 48}, {331, 197}, {1920, 1080}, {16384, 7}}) {
    ViewParams v;
    v.width = w;
    v.height = h;
    v.tan_half_fovy = 0.41421356f;
    v.aspect = static_cast<float>(w) / static_cast<float>(h);
    for (int py = 0; py < h; py += std::max(1, h / 37)) {
      for (int px = 0; px < w; px += std::max(1, w / 41)) {
        const float W = static_cast<float>(w), H = static_cast<float>(h);
        const float a = (sc_div(static_cast<float>(px) + 0.5f, W) * 2.0f - 1.0f) * v.tan_half_fovy * v.aspect;
        const float b = (1.0f - sc_div(static_cast<float>(py) + 0.5f, H) * 2.0f) * v.tan_half_fovy;
        const Vec3 expected = normalize(Vec3{a, b, -1.0f});
        const Vec3 got = pixel_ray_view(v, px, py);
        ASSERT_EQ(std::memcmp(&expected, &got, sizeof(Vec3)), 0) << px << "," << py << " of " << w << "x" << h;
      }
    }
  }
}

TEST(Resolve, AUniformColourStaysAndHalvesRoundUp) {
  for (int n : {4, 16}) {
    std::vector<uint8_t> pixel(4);
    std::vector<SampleSum> sum(1);
    const SampleImage image{pixel.data(), 4, 1, 1, sum.data(), n};
    const uint8_t colour[4] = {0, 1, 254, 255};
    for (int k = 0; k < n; ++k) {
      std::memcpy(pixel.data(), colour, 4);
      accumulate_sample(image, 0, 0, k);
    }
    EXPECT_EQ(std::memcmp(pixel.data(), colour, 4), 0) << n << " samples";
    // Half the samples 0, half 1 in the first channel (an exact half: up), one sample 255 in the second (down).
    for (int k = 0; k < n; ++k) {
      pixel = {static_cast<uint8_t>(k < n / 2 ? 0 : 1), static_cast<uint8_t>(k == 0 ? 255 : 0), 10, 255};
      accumulate_sample(image, 0, 0, k);
    }
    EXPECT_EQ(pixel[0], 1) << n;
    EXPECT_EQ(pixel[1], (255 + n / 2) / n) << n;
    EXPECT_EQ(pixel[2], 10) << n;
  }
}

TEST(Samples, OneSampleIsTheFrameWithoutTheField) {
  const Scene s = procedural_scene("torus_knot", 3000, Deformer::twist, 0.7f);
  auto r = make_renderer(Backend::cpu);
  r->set_mesh(s.mesh);
  const FrameSettings plain = settings_for(s, 97, 61, 8);  // samples left at its default
  FrameSettings one = plain;
  one.samples = 1;
  const Image a = render_image(*r, plain, true), b = render_image(*r, one, true);
  EXPECT_EQ(a.rgba, b.rgba);
  EXPECT_EQ(a.extras.triangle_id, b.extras.triangle_id);
  EXPECT_EQ(std::memcmp(a.extras.depth.data(), b.extras.depth.data(), a.extras.depth.size() * sizeof(float)), 0);
  expect_same_counts(a.stats, b.stats);
}

// Sample (i, j) of N passes through ((2i+1)/2s, (2j+1)/2s) of every pixel, s = sqrt(N): exactly the centre of pixel
// (s px + i, s py + j) of the frame s times the size (resolve.h). Each ray's nearest hit does not depend on the
// structure it is cast through, so the N-sample frame is that larger frame box-filtered, bit for bit.
TEST(Samples, EqualTheFrameOfSqrtNTimesTheSizeBoxFiltered) {
  const Scene s = procedural_scene("torus_knot", 3000, Deformer::wave, 0.4f);
  auto r = make_renderer(Backend::cpu);
  r->set_mesh(s.mesh);
  for (const auto& [w, h] : {std::pair<int, int>{48, 40}, {37, 29}}) {
    for (const int n : {4, 16}) {
      const int side = sample_grid_side(n);
      FrameSettings f = settings_for(s, w, h, 8);
      f.samples = n;
      const Image aa = render_image(*r, f, false);
      const Image big = render_image(*r, settings_for(s, w * side, h * side, 8), false);
      const std::string what = std::to_string(w) + "x" + std::to_string(h) + ", " + std::to_string(n) + " samples";
      EXPECT_EQ(differing_pixels(aa.rgba, box_filter(big.rgba, w, h, side)), 0u) << what;
      EXPECT_EQ(aa.stats.pixels_hit, big.stats.pixels_hit) << what << ": the samples' hits are the large frame's";
      EXPECT_GT(differing_pixels(aa.rgba, render_image(*r, settings_for(s, w, h, 8), false).rgba), 0u)
          << what << ": anti-aliasing changed nothing";
    }
  }
}

// The same with shadows from a sun: the shadow rays start at each sample's own hit.
TEST(Samples, WithShadowsEqualTheLargerFrameBoxFiltered) {
  const ShadowScene c{on_floor("torus_knot", 2000), sun(1.0f, 2.0f, 0.5f)};
  auto r = make_renderer(Backend::cpu);
  r->set_mesh(c.scene.mesh);
  FrameSettings f = shadow_settings(c, 40, 32);
  f.samples = 4;
  const Image aa = render_image(*r, f, false);
  const Image big = render_image(*r, shadow_settings(c, 80, 64), false);
  EXPECT_EQ(differing_pixels(aa.rgba, box_filter(big.rgba, 40, 32, 2)), 0u);
}

// A white triangle (the albedo view of a mesh without materials) on the background, one edge across the frame at an
// angle, parallel to the image plane so that its image is an exact line: a pixel the edge passes near the centre of
// is blended, strictly between the two colours; a pixel farther than a pixel from the edge keeps its pure colour.
TEST(Samples, AnEdgeBlendsAndFlatRegionsKeepTheirColour) {
  Mesh m;
  m.name = "edge";
  const glm::vec3 a(-0.7f, -6.0f, 0.0f), b(0.9f, 6.0f, 0.0f);  // the edge, about 8 degrees off vertical
  m.positions = {a, b, {-30.0f, 0.0f, 0.0f}};
  m.indices = {0, 1, 2};
  auto r = make_renderer(Backend::cpu);
  r->set_mesh(m);
  const int w = 120, h = 90;
  // Pixel coordinates of a point of the plane z = 0 seen from the default camera (eye (0,0,3), fovy 45).
  const double t = std::tan(22.5 * 3.14159265358979323846 / 180.0), aspect = double(w) / h;
  const auto sx = [&](glm::vec3 p) { return (p.x / (3.0 * t * aspect) + 1.0) * 0.5 * w; };
  const auto sy = [&](glm::vec3 p) { return (1.0 - p.y / (3.0 * t)) * 0.5 * h; };
  const double ax = sx(a), ay = sy(a), dx = sx(b) - ax, dy = sy(b) - ay, length = std::hypot(dx, dy);
  const double inside_sign = (sx(m.positions[2]) - ax) * dy - (sy(m.positions[2]) - ay) * dx;
  for (const int n : {4, 16}) {
    FrameSettings f;
    f.width = w;
    f.height = h;
    f.shading = Shading::albedo;
    f.samples = n;
    const Image im = render_image(*r, f, false);
    const uint8_t white[4] = {255, 255, 255, 255};
    std::vector<uint8_t> background(4);
    {
      FrameSettings miss = f;  // looking away from the triangle: every pixel the background
      miss.camera.target = glm::vec3(0.0f, 0.0f, 6.0f);
      const Image empty = render_image(*r, miss, false);
      std::memcpy(background.data(), empty.rgba.data(), 4);
      for (size_t i = 0; i < empty.rgba.size(); i += 4) ASSERT_EQ(std::memcmp(&empty.rgba[i], background.data(), 4), 0);
    }
    uint64_t blended = 0, pure = 0;
    for (int py = 0; py < h; ++py) {
      for (int px = 0; px < w; ++px) {
        // Signed distance of the pixel's centre from the edge, in pixels, positive on the triangle's side.
        const double cross = (px + 0.5 - ax) * dy - (py + 0.5 - ay) * dx;
        const double d = (inside_sign > 0 ? cross : -cross) / length;
        const uint8_t* p = &im.rgba[4 * (static_cast<size_t>(py) * w + px)];
        const std::string where = std::to_string(n) + " samples, pixel " + std::to_string(px) + "," +
                                   std::to_string(py) + ", distance " + std::to_string(d);
        if (std::abs(d) > 1.0) {
          ASSERT_EQ(std::memcmp(p, d > 0 ? white : background.data(), 4), 0) << where;
          ++pure;
        } else if (std::abs(d) < 0.2) {
          // Some sample lies on each side: the grid spans at least a quarter pixel either way of the centre.
          ASSERT_NE(std::memcmp(p, white, 4), 0) << where;
          ASSERT_NE(std::memcmp(p, background.data(), 4), 0) << where;
          for (int c = 0; c < 3; ++c) {
            ASSERT_GE(p[c], background[c]) << where;
            ASSERT_LE(p[c], 255) << where;
          }
          ++blended;
        }
      }
    }
    EXPECT_GT(blended, static_cast<uint64_t>(h / 4)) << n;
    EXPECT_GT(pure, static_cast<uint64_t>(w * h / 2)) << n;
  }
}

// --ids, --depth, --shadow-mask: the extras of an N-sample frame are the pixel-centre frame's, and so is everything
// the extras carry; the image is the samples' average.
TEST(Samples, ExtrasAreTheCentreRays) {
  const ShadowScene c{on_floor("torus", 1500, Deformer::twist), point_light(0.4f, 1.6f, 0.3f)};
  auto r = make_renderer(Backend::cpu);
  r->set_mesh(c.scene.mesh);
  const FrameSettings centre = shadow_settings(c, 64, 48);
  const Image one = render_image(*r, centre, true);
  for (const int n : {4, 16}) {
    FrameSettings f = centre;
    f.samples = n;
    const Image aa = render_image(*r, f, true);
    const Image aa_plain = render_image(*r, f, false);
    EXPECT_EQ(aa.extras.triangle_id, one.extras.triangle_id) << n;
    ASSERT_EQ(aa.extras.depth.size(), one.extras.depth.size());
    EXPECT_EQ(std::memcmp(aa.extras.depth.data(), one.extras.depth.data(), one.extras.depth.size() * sizeof(float)), 0)
        << n;
    EXPECT_EQ(aa.extras.ray_tests, one.extras.ray_tests) << n;
    EXPECT_EQ(aa.extras.shadow_mask, one.extras.shadow_mask) << n;
    EXPECT_EQ(aa.rgba, aa_plain.rgba) << n << ": asking for the extras changed the image";
    expect_same_counts(aa.stats, aa_plain.stats);  // the counts are the samples' only
    EXPECT_GT(differing_pixels(aa.rgba, one.rgba), 0u) << n;
  }
}

// Any thread count gives the same anti-aliased frame (the sums are per pixel, the counters merged in order).
TEST(Samples, AnyThreadCountGivesTheSameFrame) {
  const Scene s = procedural_scene("sphere", 3000, Deformer::pulse, 0.3f);
  RendererOptions single;
  single.threads = 1;
  auto a = make_renderer(Backend::cpu, single);
  auto b = make_renderer(Backend::cpu);
  a->set_mesh(s.mesh);
  b->set_mesh(s.mesh);
  FrameSettings f = settings_for(s, 75, 53, 16);
  f.samples = 16;
  const Image x = render_image(*a, f, true), y = render_image(*b, f, true);
  EXPECT_EQ(x.rgba, y.rgba);
  expect_same_counts(x.stats, y.stats);
}

// Sample k of N alone, from the frame s times the size (sample (i, j) is the centre of pixel (s px + i, s py + j)).
std::vector<uint8_t> sample_of_larger_frame(const std::vector<uint8_t>& big, int w, int h, int samples, int k) {
  const int side = sample_grid_side(samples), big_w = w * side;
  std::vector<uint8_t> one(4 * static_cast<size_t>(w) * h);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      const size_t from = 4 * (static_cast<size_t>(y * side + k / side) * big_w + x * side + k % side);
      std::memcpy(&one[4 * (static_cast<size_t>(y) * w + x)], &big[from], 4);
    }
  }
  return one;
}

// The average of the first `count` images, rounded half up: (sum + count / 2) / count a channel.
std::vector<uint8_t> average_of_first(const std::vector<std::vector<uint8_t>>& images, int count) {
  std::vector<uint8_t> mean(images[0].size());
  for (size_t i = 0; i < mean.size(); ++i) {
    uint32_t sum = 0;
    for (int k = 0; k < count; ++k) sum += images[static_cast<size_t>(k)][i];
    mean[i] = static_cast<uint8_t>((sum + static_cast<uint32_t>(count) / 2) / static_cast<uint32_t>(count));
  }
  return mean;
}

// Each progressive frame k shows the average of samples 0..k, the samples taken from the larger frame (not from the
// resolve's own code); after the last one the target holds the N-sample frame's bytes.
TEST(ProgressiveSamples, ShowTheAverageSoFarAndEndAsTheWholeFrame) {
  const Scene s = procedural_scene("torus_knot", 3000, Deformer::wave, 0.4f);
  auto r = make_renderer(Backend::cpu);
  r->set_mesh(s.mesh);
  for (const auto& [w, h] : {std::pair<int, int>{48, 40}, {37, 29}}) {
    for (const int n : {4, 16}) {
      const int side = sample_grid_side(n);
      const Image big = render_image(*r, settings_for(s, w * side, h * side, 8), false);
      std::vector<std::vector<uint8_t>> singles;
      for (int k = 0; k < n; ++k) singles.push_back(sample_of_larger_frame(big.rgba, w, h, n, k));
      FrameSettings f = settings_for(s, w, h, 8);
      f.samples = n;
      const Image whole = render_image(*r, f, false);
      for (int k = 0; k < n; ++k) {
        f.progressive_sample = k;
        const Image step = render_image(*r, f, false);
        const std::string what = std::to_string(w) + "x" + std::to_string(h) + ", sample " + std::to_string(k) +
                                 " of " + std::to_string(n);
        EXPECT_EQ(differing_pixels(step.rgba, average_of_first(singles, k + 1)), 0u) << what;
        if (k + 1 < n) {
          EXPECT_GT(differing_pixels(step.rgba, whole.rgba), 0u) << what << ": whole too early";
        }
      }
      EXPECT_EQ(differing_pixels(average_of_first(singles, n), whole.rgba), 0u) << "the samples are the frame's";
    }
  }
}

// A restart at 0 (the camera moved) forgets the sums of the samples before: the frames then are the new view's.
// Extras stay the centre rays', the statistics one sample's.
TEST(ProgressiveSamples, ARestartForgetsTheSamplesBefore) {
  const Scene s = procedural_scene("torus", 2000, Deformer::twist, 0.3f);
  auto r = make_renderer(Backend::cpu);
  r->set_mesh(s.mesh);
  FrameSettings moved = settings_for(s, 40, 32, 8);
  moved.samples = 4;
  moved.camera.eye += glm::vec3(0.4f, 0.2f, 0.0f);
  const Image whole = render_image(*r, moved, false);
  FrameSettings moved_centre = moved;
  moved_centre.samples = 1;
  const Image centre = render_image(*r, moved_centre, true);
  FrameSettings f = settings_for(s, 40, 32, 8);
  f.samples = 4;
  for (int k = 0; k < 3; ++k) {
    f.progressive_sample = k;
    render_image(*r, f, false);
  }
  moved.progressive_sample = 0;
  const Image first = render_image(*r, moved, true);
  EXPECT_EQ(first.extras.triangle_id, centre.extras.triangle_id);
  EXPECT_GT(first.stats.pixels_hit, 0u);
  EXPECT_LT(first.stats.pixels_hit, 40u * 32u) << "one sample's hits, not the samples' sum";
  Image last;
  for (int k = 1; k < 4; ++k) {
    moved.progressive_sample = k;
    last = render_image(*r, moved, false);
  }
  EXPECT_EQ(last.rgba, whole.rgba);
}

// The sums hold only the progression of the call before: a k > 0 after anything else is refused, and so is a k
// outside 0..N-1.
TEST(ProgressiveSamples, ASampleThatDoesNotFollowIsRefused) {
  const Scene s = procedural_scene("sphere", 500);
  auto r = make_renderer(Backend::cpu);
  r->set_mesh(s.mesh);
  FrameSettings f = settings_for(s, 24, 16, 4);
  f.samples = 4;
  std::vector<uint8_t> pixels;
  const auto render = [&](const FrameSettings& settings) {
    r->render(settings, host_surface(pixels, settings.width, settings.height), nullptr);
  };
  const auto refused = [&](const FrameSettings& settings, const std::string& what) {
    EXPECT_THROW(render(settings), std::logic_error) << what;
  };
  FrameSettings next = f;
  next.progressive_sample = 1;
  refused(next, "sample 1 first");
  f.progressive_sample = 0;
  render(f);
  next.progressive_sample = 2;
  refused(next, "sample 2 after 0");  // and the refusal forgot the progression:
  next.progressive_sample = 1;
  refused(next, "sample 1 after a refusal");
  render(f);
  FrameSettings other_size = next;
  other_size.width = 32;
  refused(other_size, "sample 1 at another size");
  render(f);
  FrameSettings other_count = next;
  other_count.samples = 16;
  refused(other_count, "sample 1 of another count");
  render(f);
  FrameSettings whole = f;
  whole.progressive_sample = -1;
  render(whole);
  refused(next, "sample 1 after a whole frame");
  render(f);
  r->set_mesh(s.mesh);
  refused(next, "sample 1 after a new mesh");
  render(f);
  EXPECT_NO_THROW(render(next));
  for (const int k : {-2, 4, 16}) {
    FrameSettings bad = f;
    bad.progressive_sample = k;
    EXPECT_THROW(render(bad), std::invalid_argument) << k;
  }
  FrameSettings single = settings_for(s, 24, 16, 4);
  single.progressive_sample = 0;  // one sample: the frame itself
  EXPECT_NO_THROW(render(single));
}

TEST(Samples, ACountOtherThanOneFourOrSixteenIsRefused) {
  const Scene s = procedural_scene("sphere", 500);
  auto r = make_renderer(Backend::cpu);
  r->set_mesh(s.mesh);
  for (const int n : {0, -1, 2, 3, 8, 9, 32}) {
    FrameSettings f = settings_for(s, 16, 16, 4);
    f.samples = n;
    std::vector<uint8_t> pixels;
    try {
      r->render(f, host_surface(pixels, 16, 16), nullptr);
      ADD_FAILURE() << n << " samples were accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("samples must be 1, 4 or 16, got " + std::to_string(n)), std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace slabcast::test
