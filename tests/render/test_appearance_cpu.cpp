// The appearance in the shade stage on the cpu backend (render/stages/texture.h): the mip pyramid, det_log2, the
// ray-cone level of detail, and frames of small meshes built here, checked against the tests' own double-precision
// lookups (appearance_scenes.h), not the renderer's sampler.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>
#include <vector>

#include "render/appearance.h"
#include "render/appearance_scenes.h"
#include "render/hd_math.h"
#include "render/renderer.h"
#include "render/scenes.h"
#include "render/stages/texture.h"

namespace slabcast::test {
namespace {

struct Image {
  int size = 0;
  std::vector<uint8_t> rgba;  // rows packed
  FrameStats stats;
  const uint8_t* at(int x, int y) const { return &rgba[4 * (static_cast<size_t>(y) * size + x)]; }
};

Image render_cpu(const Mesh& mesh, const Camera& camera, int size, Shading shading, bool shadows = false,
                 Light light = Light{}) {
  auto r = make_renderer(Backend::cpu);
  r->set_mesh(mesh);
  FrameSettings f;
  f.width = f.height = size;
  f.camera = camera;
  f.slabs = 4;
  f.shading = shading;
  f.shadows = shadows;
  f.light = light;
  std::vector<uint8_t> pixels;
  const Surface s = host_surface(pixels, size, size, 8);
  Image img;
  img.size = size;
  img.stats = r->render(f, s);
  img.rgba.resize(4 * static_cast<size_t>(size) * size);
  for (int y = 0; y < size; ++y) std::memcpy(&img.rgba[4 * static_cast<size_t>(size) * y], &pixels[s.pitch_bytes * y], 4 * static_cast<size_t>(size));
  return img;
}

// Pixels whose centre ray hits the quad at least `margin` (world units) inside its edges.
template <class F>
void for_quad_pixels(int size, double distance, double margin, F&& f) {
  for (int y = 0; y < size; ++y) {
    for (int x = 0; x < size; ++x) {
      const glm::dvec2 p = quad_hit(x, y, size, distance);
      if (std::abs(p.x) < 1.0 - margin && std::abs(p.y) < 1.0 - margin) f(x, y, p);
    }
  }
}

// ---------------------------------------------------------------- the mip pyramid and the shared math

TEST(MipPyramid, EvenSizeIsTheRoundedMeanOfEach2x2Block) {
  // Channel sums 0+1+1+1 = 3 -> 3/4 rounds to 1; 1+1+2+2 = 6 -> 1.5 rounds up to 2; 255 * 4 stays 255.
  const std::vector<uint8_t> src = {0, 1, 255, 9, 1, 1, 255, 9, /* row 1 */ 1, 2, 255, 9, 1, 2, 255, 10};
  int w = 0, h = 0;
  const std::vector<uint8_t> out = downsample_rgba8(src, 2, 2, &w, &h);
  ASSERT_EQ(w, 1);
  ASSERT_EQ(h, 1);
  EXPECT_EQ(out, (std::vector<uint8_t>{1, 2, 255, 9}));  // 37/4 = 9.25 -> 9
}

TEST(MipPyramid, OddSizesFoldTheLastColumnAndRowIntoTheLastBlock) {
  // 5x3 -> 2x1: texel 0 averages columns 0..1 of rows 0..2, texel 1 columns 2..4 of rows 0..2.
  std::vector<uint8_t> src;
  for (int y = 0; y < 3; ++y) {
    for (int x = 0; x < 5; ++x) src.insert(src.end(), {static_cast<uint8_t>(10 * x + y), 0, 0, 255});
  }
  int w = 0, h = 0;
  const std::vector<uint8_t> out = downsample_rgba8(src, 5, 3, &w, &h);
  ASSERT_EQ(w, 2);
  ASSERT_EQ(h, 1);
  // (0+10)*3 + (0+1+2)*2 = 36 over 6 -> 6; (20+30+40)*3 + (0+1+2)*3 = 279 over 9 -> 31
  EXPECT_EQ(out[0], 6);
  EXPECT_EQ(out[4], 31);
  EXPECT_EQ(out[3], 255);
  // One texel wide: 1x3 -> 1x1 averages the column.
  const std::vector<uint8_t> column = {0, 0, 0, 0, 1, 1, 1, 1, 3, 3, 3, 3};
  const std::vector<uint8_t> one = downsample_rgba8(column, 1, 3, &w, &h);
  ASSERT_EQ(w, 1);
  ASSERT_EQ(h, 1);
  EXPECT_EQ(one[0], 1);  // 4 / 3 -> 1
}

TEST(MipPyramid, PackedLevelsGoDownTo1x1WithTheirOffsets) {
  Scene s = textured_quad(3.0f, {random_texture(5, 3, 1), random_texture(4, 4, 2)});
  const PackedAppearance a = pack_appearance(s.mesh);
  ASSERT_EQ(a.textures.size(), 2u);
  EXPECT_EQ(a.textures[0].first_level, 0u);
  EXPECT_EQ(a.textures[0].levels, 3u);  // 5x3, 2x1, 1x1
  EXPECT_EQ(a.textures[1].first_level, 3u);
  EXPECT_EQ(a.textures[1].levels, 3u);  // 4x4, 2x2, 1x1
  const int sizes[][2] = {{5, 3}, {2, 1}, {1, 1}, {4, 4}, {2, 2}, {1, 1}};
  uint64_t offset = 0;
  for (int l = 0; l < 6; ++l) {
    EXPECT_EQ(a.mip_levels[l].width, sizes[l][0]) << l;
    EXPECT_EQ(a.mip_levels[l].height, sizes[l][1]) << l;
    EXPECT_EQ(a.mip_levels[l].offset, offset) << l;
    offset += static_cast<uint64_t>(sizes[l][0]) * sizes[l][1];
  }
  EXPECT_EQ(a.texels.size(), offset);
  EXPECT_EQ(a.bytes(), appearance_bytes(s.mesh));
  // Level 0 is the texture as stored, r in the low byte.
  const Texture& t = s.mesh.textures[0];
  EXPECT_EQ(a.texels[7], pack_rgba8(t.rgba[28], t.rgba[29], t.rgba[30], t.rgba[31]));
}

TEST(MipPyramid, NoMaterialsPacksNothing) {
  Scene s = textured_quad(3.0f, {random_texture(4, 4, 1)});
  s.mesh.materials.clear();
  EXPECT_TRUE(pack_appearance(s.mesh).empty());
  EXPECT_EQ(appearance_bytes(s.mesh), 0u);
}

TEST(HdMath, DetLog2MatchesLibm) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> exponent(-140.0f, 120.0f);
  for (int i = 0; i < 20000; ++i) {
    const float x = std::exp2(exponent(rng));
    if (!(x > 0.0f)) continue;
    EXPECT_NEAR(det_log2(x), std::log2(static_cast<double>(x)), 2e-5) << x;
  }
  for (int e = -149; e < 128; ++e) EXPECT_EQ(det_log2(std::ldexp(1.0f, e)), static_cast<float>(e)) << e;
  EXPECT_EQ(det_log2(0.0f), -128.0f);
  EXPECT_EQ(det_log2(-1.0f), -128.0f);
  EXPECT_EQ(det_log2(INFINITY), 128.0f);
}

TEST(TextureLod, IsTheRayConeLevel) {
  // A right triangle of legs 1 facing the ray, UV legs 1 on a 64x64 texture: 0.5 log2(4096) = 6; cone width 0.25 at
  // t = 1: -2.
  const MipLevel level0{0, 64, 64};
  const UV a{0, 0}, b{1, 0}, c{0, 1};
  const TriangleVerts facing{{0, 0, -1}, {1, 0, -1}, {0, 1, -1}};
  EXPECT_NEAR(texture_lod(level0, a, b, c, facing, Vec3{0, 0, -1}, 1.0f, 0.25f), 4.0f, 1e-5f);
  // Twice as far: one level coarser. Turned 60 degrees about y (|cos| = 1/2, the same area): one level coarser.
  EXPECT_NEAR(texture_lod(level0, a, b, c, facing, Vec3{0, 0, -1}, 2.0f, 0.25f), 5.0f, 1e-5f);
  const float s3 = std::sqrt(3.0f);
  const TriangleVerts turned{{0, 0, -1}, {0.5f, 0, -1 - 0.5f * s3}, {0, 1, -1}};
  EXPECT_NEAR(texture_lod(level0, a, b, c, turned, Vec3{0, 0, -1}, 1.0f, 0.25f), 5.0f, 1e-4f);
  // Degenerate UVs: level 0 after clamping (a very negative level).
  EXPECT_LT(texture_lod(level0, a, a, a, facing, Vec3{0, 0, -1}, 1.0f, 0.25f), 0.0f);
}

TEST(Appearance, ValidationNamesTheProblem) {
  const auto expect_invalid = [](Mesh m, const char* what) {
    try {
      validate_mesh(m);
      ADD_FAILURE() << "accepted: " << what;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  const Scene s = textured_quad(3.0f, {random_texture(4, 4, 1)});
  EXPECT_NO_THROW(validate_mesh(s.mesh));
  Mesh m = s.mesh;
  m.corner_uvs.pop_back();
  expect_invalid(m, "corner UVs");
  m = s.mesh;
  m.vertex_colors.resize(3);
  expect_invalid(m, "vertex colours");
  m = s.mesh;
  m.triangle_materials = {0, 1};
  expect_invalid(m, "material 1 of triangle 1");
  m = s.mesh;
  m.materials[0].texture = 1;
  expect_invalid(m, "texture 1 of material 0");
  m = s.mesh;
  m.textures[0].rgba.pop_back();
  expect_invalid(m, "texture 'random'");
  m = s.mesh;
  m.corner_uvs[4].x = NAN;
  expect_invalid(m, "non-finite UV");
}

// ---------------------------------------------------------------- frames

constexpr int kSize = 128;

// A 4x4 texture of distinct colours, magnified (16 pixels a texel): every pixel is the test's bilinear lookup of
// level 0 at the pixel's UV, within one step of rounding.
TEST(Albedo, MagnifiedTextureIsBilinearLevel0) {
  std::vector<Color8> texels;
  for (int i = 0; i < 16; ++i) {
    texels.push_back(Color8{static_cast<uint8_t>(16 * i), static_cast<uint8_t>(255 - 13 * i),
                            static_cast<uint8_t>((97 * i) % 256), 255});
  }
  const Texture tex = make_texture("4x4", 4, 4, texels);
  const Scene s = textured_quad(3.0f, {tex});
  const Image img = render_cpu(s.mesh, s.camera, kSize, Shading::albedo);
  int checked = 0, worst = 0;
  for_quad_pixels(kSize, 3.0, 0.02, [&](int x, int y, glm::dvec2 p) {
    const double u = (p.x + 1) / 2, v = (1 - p.y) / 2;
    for (int c = 0; c < 3; ++c) worst = std::max(worst, std::abs(img.at(x, y)[c] - static_cast<int>(std::lround(reference_bilinear(tex, u, v, c)))));
    EXPECT_EQ(img.at(x, y)[3], 255);
    ++checked;
  });
  EXPECT_GT(checked, 3000);
  EXPECT_LE(worst, 1);
  // At 120 pixels the quad spans pixels 30..89, 15 a texel: pixel (37 + 15i, 37 + 15j)'s centre ray meets texel
  // (i, j)'s centre, where the pixel is that texel's colour as stored.
  const Image centred = render_cpu(s.mesh, s.camera, 120, Shading::albedo);
  for (int j = 0; j < 4; ++j) {
    for (int i = 0; i < 4; ++i) {
      const uint8_t* got = centred.at(37 + 15 * i, 37 + 15 * j);
      const Color8 want = texels[4 * j + i];
      EXPECT_EQ(got[0], want.r) << i << "," << j;
      EXPECT_EQ(got[1], want.g) << i << "," << j;
      EXPECT_EQ(got[2], want.b) << i << "," << j;
    }
  }
  // Outside the quad: the background.
  EXPECT_EQ(img.at(2, 2)[0], 28);
}

TEST(Albedo, IsFactorTimesVertexColour) {
  Scene s = textured_quad(3.0f, {});
  s.mesh.materials[0].base_color = glm::vec4(0.5f, 1.0f, 0.2f, 1.0f);
  s.mesh.vertex_colors.assign(4, Color8{200, 100, 50, 255});
  const Image flat = render_cpu(s.mesh, s.camera, kSize, Shading::albedo);
  for_quad_pixels(kSize, 3.0, 0.0, [&](int x, int y, glm::dvec2) {
    ASSERT_EQ(flat.at(x, y)[0], 100);
    ASSERT_EQ(flat.at(x, y)[1], 100);
    ASSERT_EQ(flat.at(x, y)[2], 10);
  });
  // Different colours at the corners: interpolated by the hit's barycentrics (here, in double, per triangle).
  s.mesh.vertex_colors = {Color8{255, 0, 0, 255}, Color8{0, 255, 0, 255}, Color8{0, 0, 255, 255},
                          Color8{255, 255, 255, 255}};
  s.mesh.materials[0].base_color = glm::vec4(1.0f);
  const Image img = render_cpu(s.mesh, s.camera, kSize, Shading::albedo);
  int worst = 0;
  for_quad_pixels(kSize, 3.0, 0.01, [&](int x, int y, glm::dvec2 p) {
    // Triangle (0, 3, 2) holds the points below the diagonal y = -x ... (0, 2, 1) those above it.
    const int tri[2][3] = {{0, 3, 2}, {0, 2, 1}};
    const int t = p.y < -p.x ? 0 : 1;
    if (std::abs(p.y + p.x) < 0.02) return;  // on the diagonal either triangle may own the pixel
    const glm::dvec2 a(s.mesh.positions[tri[t][0]]), b(s.mesh.positions[tri[t][1]]), c(s.mesh.positions[tri[t][2]]);
    const auto cross2 = [](glm::dvec2 e, glm::dvec2 f) { return e.x * f.y - e.y * f.x; };
    const double area = cross2(b - a, c - a);
    const double wa = cross2(b - p, c - p) / area, wb = cross2(c - p, a - p) / area, wc = 1 - wa - wb;
    const Color8 ca = s.mesh.vertex_colors[tri[t][0]], cb = s.mesh.vertex_colors[tri[t][1]], cc = s.mesh.vertex_colors[tri[t][2]];
    const double want[3] = {wa * ca.r + wb * cb.r + wc * cc.r, wa * ca.g + wb * cb.g + wc * cc.g, wa * ca.b + wb * cb.b + wc * cc.b};
    for (int k = 0; k < 3; ++k) worst = std::max(worst, std::abs(img.at(x, y)[k] - static_cast<int>(std::lround(want[k]))));
  });
  EXPECT_LE(worst, 1);
}

TEST(Albedo, IsFactorTimesTextureTimesVertexColour) {
  const Texture tex = make_texture("2x2", 2, 2, {Color8{255, 0, 0, 255}, Color8{0, 255, 0, 255},
                                                 Color8{0, 0, 255, 255}, Color8{255, 255, 255, 255}});
  Scene s = textured_quad(3.0f, {tex});
  s.mesh.materials[0].base_color = glm::vec4(0.5f, 0.5f, 1.0f, 1.0f);
  s.mesh.vertex_colors.assign(4, Color8{255, 102, 51, 255});  // 1, 0.4, 0.2
  const Image img = render_cpu(s.mesh, s.camera, kSize, Shading::albedo);
  const double factor[3] = {0.5 * 1.0, 0.5 * 0.4, 1.0 * 0.2};
  int worst = 0;
  for_quad_pixels(kSize, 3.0, 0.02, [&](int x, int y, glm::dvec2 p) {
    const double u = (p.x + 1) / 2, v = (1 - p.y) / 2;
    for (int c = 0; c < 3; ++c) {
      const int want = static_cast<int>(std::lround(factor[c] * reference_bilinear(tex, u, v, c)));
      worst = std::max(worst, std::abs(img.at(x, y)[c] - want));
    }
  });
  EXPECT_LE(worst, 1);
}

// UVs from -1.5 to 0.5 (the texture twice across, starting mid-way): repeat.
TEST(Albedo, UVsWrapAround) {
  const Texture tex = random_texture(4, 4, 9);
  const Scene s = textured_quad(3.0f, {tex}, 2.0f, -1.5f, -1.5f);
  const Image img = render_cpu(s.mesh, s.camera, kSize, Shading::albedo);
  int worst = 0;
  for_quad_pixels(kSize, 3.0, 0.02, [&](int x, int y, glm::dvec2 p) {
    const double u = -1.5 + (p.x + 1), v = -1.5 + (1 - p.y);
    for (int c = 0; c < 3; ++c) {
      worst = std::max(worst, std::abs(img.at(x, y)[c] - static_cast<int>(std::lround(reference_bilinear(tex, u, v, c)))));
    }
  });
  EXPECT_LE(worst, 1);
  // Half the quad apart, the same UV modulo 1: the same colour.
  EXPECT_EQ(std::memcmp(img.at(40, 40), img.at(72, 40), 4), 0);
  EXPECT_EQ(std::memcmp(img.at(40, 45), img.at(40, 77), 4), 0);
}

// A one-texel checker: far away (a texel is 1/8 pixel) the level of detail is coarse and every pixel is near the
// checker's mean (128 on levels 1 and up); close (two pixels a texel) it is level 0 and no pixel is grey.
TEST(Albedo, MipLevelFollowsThePixelFootprint) {
  const Texture tex = checker_texture(64, 64);
  const Scene far = textured_quad(24.0f, {tex});
  const Image far_img = render_cpu(far.mesh, far.camera, kSize, Shading::albedo);
  int far_pixels = 0;
  for_quad_pixels(kSize, 24.0, 0.15, [&](int x, int y, glm::dvec2) {
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(far_img.at(x, y)[c], 128, 1) << x << "," << y;
    ++far_pixels;
  });
  EXPECT_GT(far_pixels, 20);
  const Scene near = textured_quad(1.5f, {tex});
  const Image near_img = render_cpu(near.mesh, near.camera, kSize, Shading::albedo);
  int near_pixels = 0;
  for_quad_pixels(kSize, 1.5, 0.0, [&](int x, int y, glm::dvec2) {
    EXPECT_GT(std::abs(near_img.at(x, y)[0] - 128), 20) << x << "," << y;
    ++near_pixels;
  });
  EXPECT_GT(near_pixels, 10000);
}

// ---------------------------------------------------------------- lighting and the path without materials

TEST(Albedo, LitShadingTakesTheAlbedoAsItsDiffuseColour) {
  Scene s = textured_quad(3.0f, {});
  s.mesh.materials[0].base_color = glm::vec4(1.0f, 0.0f, 0.0f, 1.0f);
  for (Shading mode : {Shading::phong, Shading::flat}) {
    const Image img = render_cpu(s.mesh, s.camera, kSize, mode);
    const uint8_t* c = img.at(64, 64);
    // Facing the headlight: red gets ambient + diffuse + specular, green and blue the white specular only.
    EXPECT_EQ(c[0], 255);
    EXPECT_EQ(c[1], c[2]);
    EXPECT_GT(c[1], 60);
    EXPECT_LT(c[1], 120);
  }
  // With shadows from a sun behind the camera (the lit path with its mask), the albedo still colours the pixels.
  const Image lit = render_cpu(s.mesh, s.camera, kSize, Shading::phong, true, Light{LightType::sun, glm::vec3(0, 0, 1)});
  EXPECT_EQ(lit.at(64, 64)[1], lit.at(64, 64)[2]);
  EXPECT_GT(lit.at(64, 64)[0], lit.at(64, 64)[1]);
}

TEST(Albedo, WithoutMaterialsIsWhiteAndEveryOtherViewIsUnchanged) {
  Scene bare = textured_quad(3.0f, {});
  bare.mesh.materials.clear();
  bare.mesh.corner_uvs.clear();
  const Image albedo = render_cpu(bare.mesh, bare.camera, kSize, Shading::albedo);
  EXPECT_EQ(albedo.at(64, 64)[0], 255);
  EXPECT_EQ(albedo.at(64, 64)[2], 255);
  EXPECT_EQ(albedo.at(2, 2)[0], 28);  // background

  // Vertex colours without materials show (a coloured PLY has no material): the albedo is the colour.
  Scene coloured = textured_quad(3.0f, {});
  coloured.mesh.materials.clear();
  coloured.mesh.corner_uvs.clear();
  coloured.mesh.vertex_colors.assign(4, Color8{10, 20, 30, 255});
  const Image colours = render_cpu(coloured.mesh, coloured.camera, kSize, Shading::albedo);
  EXPECT_EQ(colours.at(64, 64)[0], 10);
  EXPECT_EQ(colours.at(64, 64)[1], 20);
  EXPECT_EQ(colours.at(64, 64)[2], 30);

  // UVs and textures without materials are not used: the very image of the bare mesh.
  Scene unused = textured_quad(3.0f, {random_texture(4, 4, 2)});
  unused.mesh.materials.clear();
  // The debug views of a mesh with materials do not read them: same images as the bare mesh's, same statistics.
  const Scene textured = textured_quad(3.0f, {random_texture(4, 4, 2)});
  for (Shading mode : {Shading::phong, Shading::flat, Shading::depth, Shading::normals, Shading::triangle_id,
                       Shading::slab, Shading::ray_tests, Shading::tile_triangles}) {
    const Image a = render_cpu(bare.mesh, bare.camera, kSize, mode);
    const Image b = render_cpu(unused.mesh, unused.camera, kSize, mode);
    EXPECT_EQ(a.rgba, b.rgba) << static_cast<int>(mode);
    const Image c = render_cpu(textured.mesh, textured.camera, kSize, mode);
    if (mode != Shading::phong && mode != Shading::flat) {
      EXPECT_EQ(a.rgba, c.rgba) << static_cast<int>(mode);
    }
    // The structure and the cast are the same work with or without an appearance.
    EXPECT_EQ(a.stats.references, c.stats.references);
    EXPECT_EQ(a.stats.ray_triangle_tests, c.stats.ray_triangle_tests);
    EXPECT_EQ(a.stats.pixels_hit, c.stats.pixels_hit);
  }
}

// A deforming procedural mesh with every part of the appearance: the frame is the same for any thread count.
TEST(Albedo, AnyThreadCountRendersTheSameFrame) {
  const Scene s = appearance_scene("torus", 4000, Deformer::twist, 0.7f);
  for (Shading mode : {Shading::albedo, Shading::phong}) {
    std::vector<uint8_t> frames[2];
    for (int k = 0; k < 2; ++k) {
      RendererOptions o;
      o.threads = k == 0 ? 1 : 3;
      auto r = make_renderer(Backend::cpu, o);
      r->set_mesh(s.mesh);
      FrameSettings f = settings_for(s, 96, 80, 8, mode);
      std::vector<uint8_t> pixels;
      r->render(f, host_surface(pixels, 96, 80));
      frames[k] = pixels;
    }
    EXPECT_EQ(frames[0], frames[1]);
  }
}

}  // namespace
}  // namespace slabcast::test
