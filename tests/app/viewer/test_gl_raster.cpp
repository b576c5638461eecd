// The OpenGL hardware-raster reference (app/gl/gl_raster.h) on an EGL device (Mesa's software device where
// there is no NVIDIA GPU), against the cpu ray caster, which is independent code: a rasterizer with a depth buffer
// on one side, slabs + ray-triangle tests on the other.
//
// What must agree, and why these bounds:
//   * Triangle IDs: both sample each pixel at its centre through the same camera, so they can disagree only where
//     a pixel centre lies on (or within rounding of) the edge between two triangles: GL's exact edge functions
//     with the top-left rule there, the ray caster's float ray-triangle test. Such pixels touch an ID edge in one
//     of the images by construction. So: agreement >= 99% (the scenes have a few thousand triangles at 200x150:
//     roughly a third of the hit pixels lie next to an edge, and only a few of those differ), and no differing
//     pixel away from every edge (0): such a pixel would be a real visibility error (wrong depth order, a hole,
//     a clipped triangle, a flipped image).
//   * Deformed positions: the vertex shader is a line-by-line port of render/stages/deform.h with contraction forbidden
//     (`precise`); only GLSL's division may be a few ulp off IEEE, so 1e-5 of the scene's size is generous.
//   * Colour (flat shading): the same headlight formula with the face normal from screen derivatives instead of
//     the exact cross product: a few 1/255 steps where both show the same triangle away from edges.
// Every test that needs GL reports SKIPPED (not passed) when no EGL context can be made.
#include "app/gl/cuda_interop.h"
#include "app/gl/egl_context.h"
#include "app/gl/gl_raster.h"
#include "app/viewer/session.h"
#include "render/frame_setup.h"
#include "render/stages/shade.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace slabcast::test {
namespace {

using gl::compare_triangle_ids;
using gl::EglContext;
using gl::GlRaster;
using gl::IdAgreement;

constexpr uint32_t kMiss = 0xFFFFFFFFu;

// ---------------------------------------------------------------------------------------------- compare_triangle_ids

TEST(CompareTriangleIds, IdenticalImagesAgreeEverywhere) {
  const std::vector<uint32_t> ids = {1, 1, 2, 2, 1, 1, 2, 2, kMiss, kMiss, kMiss, kMiss};
  const IdAgreement a = compare_triangle_ids(ids, ids, 4, 3);
  EXPECT_EQ(a.pixels, 12u);
  EXPECT_EQ(a.equal, 12u);
  EXPECT_EQ(a.differing, 0u);
  EXPECT_EQ(a.differing_off_edges, 0u);
  EXPECT_DOUBLE_EQ(a.fraction(), 1.0);
}

TEST(CompareTriangleIds, ADifferenceInsideAUniformRegionIsOffEdges) {
  // 5x5 of ID 7; the other image differs at the centre only. In `a` the centre's 3x3 is uniform; in `b` the
  // centre itself differs from its neighbours, so it is next to an edge in b.
  std::vector<uint32_t> a(25, 7u), b(25, 7u);
  b[12] = 9u;
  IdAgreement r = compare_triangle_ids(a, b, 5, 5);
  EXPECT_EQ(r.differing, 1u);
  EXPECT_EQ(r.differing_off_edges, 0u) << "the odd pixel is an ID edge in b";

  // Both uniform in their neighbourhoods but different IDs: a 5x5 of 7 against a 5x5 of 8. Every pixel differs;
  // none is next to an edge (no image has one).
  std::vector<uint32_t> c(25, 8u);
  r = compare_triangle_ids(a, c, 5, 5);
  EXPECT_EQ(r.equal, 0u);
  EXPECT_EQ(r.differing, 25u);
  EXPECT_EQ(r.differing_off_edges, 25u);
  EXPECT_DOUBLE_EQ(r.fraction(), 0.0);
}

TEST(CompareTriangleIds, DifferencesAlongAnEdgeAreOnEdges) {
  // a: left 3 columns ID 1, right 3 columns ID 2. b: the boundary moved one column right. The differing column
  // (x = 3) is next to the edge in both. A pixel far from the edge in a region of a different ID is off edges.
  const int w = 6, h = 4;
  std::vector<uint32_t> a(w * h), b(w * h);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      a[y * w + x] = x < 3 ? 1u : 2u;
      b[y * w + x] = x < 4 ? 1u : 2u;
    }
  }
  IdAgreement r = compare_triangle_ids(a, b, w, h);
  EXPECT_EQ(r.differing, static_cast<uint64_t>(h));
  EXPECT_EQ(r.differing_off_edges, 0u);
  EXPECT_NEAR(r.fraction(), double(w * h - h) / double(w * h), 1e-12);

  // Diagonal neighbours count: a single pixel of another ID at (0, 0) makes (1, 1) "next to an edge".
  std::vector<uint32_t> uniform(9, 5u), corner(9, 5u), centre(9, 5u);
  corner[0] = 6u;
  centre[4] = 4u;
  r = compare_triangle_ids(corner, centre, 3, 3);
  EXPECT_EQ(r.differing, 2u);  // (0, 0) and (1, 1)
  EXPECT_EQ(r.differing_off_edges, 0u);
}

TEST(CompareTriangleIds, EmptyImageAndSizeMismatch) {
  const IdAgreement empty = compare_triangle_ids({}, {}, 0, 0);
  EXPECT_EQ(empty.pixels, 0u);
  EXPECT_DOUBLE_EQ(empty.fraction(), 1.0);
  EXPECT_THROW(compare_triangle_ids(std::vector<uint32_t>(6), std::vector<uint32_t>(5), 3, 2), std::invalid_argument);
  EXPECT_THROW(compare_triangle_ids(std::vector<uint32_t>(6), std::vector<uint32_t>(6), 2, 2), std::invalid_argument);
}

// ---------------------------------------------------------------------------------------------- GL fixture

// The EGL device to test on: NVIDIA's, where a CUDA device exists (the GPU the benchmark compares on: its GLSL
// compiler and rasterizer), else Mesa's software device (EglContext falls back to it by itself).
int preferred_egl_cuda_device() { return gl::cuda_device_or_none(); }

// An EGL context for one test, or a skip saying why none could be made.
class GlRasterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    try {
      egl_ = std::make_unique<EglContext>(preferred_egl_cuda_device());
    } catch (const std::exception& e) {
      GTEST_SKIP() << "no OpenGL 4.5 context through EGL: " << e.what();
    }
  }
  void TearDown() override { egl_.reset(); }
  std::unique_ptr<EglContext> egl_;
};

struct CpuFrame {
  std::vector<uint8_t> color;
  std::vector<uint32_t> ids;
};
CpuFrame render_cpu(const Mesh& mesh, const FrameSettings& settings) {
  std::unique_ptr<Renderer> renderer = make_renderer(Backend::cpu);
  renderer->set_mesh(mesh);
  CpuFrame out;
  const size_t pitch = static_cast<size_t>(settings.width) * 4;
  out.color.assign(pitch * static_cast<size_t>(settings.height), 0);
  FrameExtras extras;
  renderer->render(settings, Surface{out.color.data(), settings.width, settings.height, pitch}, &extras);
  out.ids = std::move(extras.triangle_id);
  return out;
}

size_t count_hits(const std::vector<uint32_t>& ids) {
  return static_cast<size_t>(std::count_if(ids.begin(), ids.end(), [](uint32_t id) { return id != kMiss; }));
}

// ---------------------------------------------------------------------------------------------- visibility

struct SceneCase {
  const char* mesh;
  uint64_t triangles;
  Deformer deformer;
  float time;
};
std::string scene_name(const ::testing::TestParamInfo<SceneCase>& info) {
  static const char* const kDeformers[] = {"none", "twist", "bend", "wave", "pulse"};
  std::ostringstream name;
  name << info.param.mesh << "_" << kDeformers[static_cast<int>(info.param.deformer)] << "_"
       << static_cast<int>(info.param.time * 10.0f);
  return name.str();
}

class GlRasterVisibility : public GlRasterTest, public ::testing::WithParamInterface<SceneCase> {};

TEST_P(GlRasterVisibility, TriangleIdsAgreeWithTheCpuRayCasterExceptAtEdges) {
  const SceneCase& c = GetParam();
  const Mesh mesh = make_procedural_mesh(c.mesh, c.triangles);
  FrameSettings settings;
  settings.width = 200;  // not multiples of the 8-pixel tile: partial tiles on the right and at the bottom
  settings.height = 150;
  settings.camera = frame_mesh(mesh);
  settings.deform = {c.deformer, 1.0f, c.time};
  settings.shading = Shading::flat;

  GlRaster raster(mesh);
  const float ms = raster.render(settings);
  EXPECT_TRUE(std::isnan(ms) || ms > 0.0f) << "a GPU time, or NaN where the GL timer is unusable: " << ms;
  ASSERT_EQ(raster.width(), settings.width);
  ASSERT_EQ(raster.height(), settings.height);
  const std::vector<uint32_t> gl_ids = raster.read_triangle_ids();
  const CpuFrame cpu = render_cpu(mesh, settings);
  ASSERT_EQ(gl_ids.size(), cpu.ids.size());

  // Not a vacuous agreement: the model fills a good part of the frame with many triangles.
  const size_t pixels = gl_ids.size();
  EXPECT_GT(count_hits(cpu.ids), pixels / 10) << mesh.name;
  EXPECT_GT(std::set<uint32_t>(cpu.ids.begin(), cpu.ids.end()).size(), 100u) << mesh.name;

  const IdAgreement a = compare_triangle_ids(gl_ids, cpu.ids, settings.width, settings.height);
  RecordProperty("agreement", std::to_string(a.fraction()));
  RecordProperty("differing", std::to_string(a.differing));
  EXPECT_GE(a.fraction(), 0.99) << mesh.name << ": " << a.differing << " of " << a.pixels << " pixels differ";
  EXPECT_EQ(a.differing_off_edges, 0u) << mesh.name << ": differing pixels away from every triangle edge";

  // The colour is the same headlight: where both show the same triangle away from edges, within a few steps.
  const std::vector<uint8_t> gl_color = raster.read_color();
  ASSERT_EQ(gl_color.size(), cpu.color.size());
  int worst = 0;
  size_t compared = 0;
  for (int y = 1; y + 1 < settings.height; ++y) {
    for (int x = 1; x + 1 < settings.width; ++x) {
      const size_t i = static_cast<size_t>(y) * static_cast<size_t>(settings.width) + static_cast<size_t>(x);
      bool interior = true;
      for (int dy = -1; dy <= 1 && interior; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
          const size_t j = static_cast<size_t>(static_cast<int64_t>(i) + dy * settings.width + dx);
          if (cpu.ids[j] != cpu.ids[i] || gl_ids[j] != cpu.ids[i]) interior = false;
        }
      }
      if (!interior) continue;
      ++compared;
      for (int k = 0; k < 4; ++k) {
        worst = std::max(worst, std::abs(int(gl_color[4 * i + k]) - int(cpu.color[4 * i + k])));
      }
    }
  }
  EXPECT_GT(compared, pixels / 20) << mesh.name;
  RecordProperty("worst_colour_step", worst);
  EXPECT_LE(worst, 4) << mesh.name << ": flat-shaded colour differs by " << worst << " steps";
}

INSTANTIATE_TEST_SUITE_P(Scenes, GlRasterVisibility,
                         ::testing::Values(SceneCase{"sphere", 3000, Deformer::none, 0.0f},
                                           SceneCase{"sphere", 3000, Deformer::wave, 0.7f},
                                           SceneCase{"sphere", 3000, Deformer::twist, 1.3f},
                                           SceneCase{"torus", 4000, Deformer::none, 0.0f},
                                           SceneCase{"torus", 4000, Deformer::wave, 0.7f},
                                           SceneCase{"torus", 4000, Deformer::twist, 1.3f},
                                           SceneCase{"stress", 3000, Deformer::none, 0.0f},
                                           SceneCase{"stress", 3000, Deformer::wave, 0.7f},
                                           SceneCase{"stress", 3000, Deformer::twist, 1.3f}),
                         scene_name);

// ---------------------------------------------------------------------------------------------- the shadow map

// The sun's shadow map (gl_raster.h): where both frames hit the same triangle, its mask agrees with the ray caster's
// exact one except near shadow edges (its texels' aliasing and its bias); both show shadow and light; a frame
// without shadows has no mask.
TEST_F(GlRasterTest, SunShadowMapAgreesWithTheExactMaskButForItsAliasing) {
  Mesh mesh = make_procedural_mesh("torus_knot", 6000);
  add_floor(mesh);
  FrameSettings settings;
  settings.width = 192;
  settings.height = 144;
  settings.camera = frame_mesh(mesh);
  settings.camera.eye = settings.camera.target + glm::vec3(1.6f, 2.0f, 3.2f);
  settings.light = Light{LightType::sun, glm::vec3(1.0f, 2.0f, 0.5f)};
  settings.shadows = true;
  GlRaster raster(mesh);
  raster.set_shadow_map_size(1024);
  raster.render(settings);
  const std::vector<uint8_t> map_mask = raster.read_shadow_mask();
  const std::vector<uint32_t> map_ids = raster.read_triangle_ids();
  std::unique_ptr<Renderer> renderer = make_renderer(Backend::cpu);
  renderer->set_mesh(mesh);
  std::vector<uint8_t> color(4 * static_cast<size_t>(settings.width) * settings.height);
  FrameExtras exact;
  renderer->render(settings, Surface{color.data(), settings.width, settings.height, 4 * size_t(settings.width)}, &exact);
  ASSERT_EQ(map_mask.size(), exact.shadow_mask.size());
  size_t compared = 0, wrong = 0, map_shadowed = 0, map_lit = 0;
  for (size_t i = 0; i < map_mask.size(); ++i) {
    EXPECT_EQ(map_mask[i] == 128, map_ids[i] == kMiss) << "pixel " << i;
    if (map_mask[i] == 128 || exact.shadow_mask[i] == 128 || map_ids[i] != exact.triangle_id[i]) continue;
    ++compared;
    wrong += map_mask[i] != exact.shadow_mask[i] ? 1 : 0;
    map_shadowed += map_mask[i] == 0 ? 1 : 0;
    map_lit += map_mask[i] == 255 ? 1 : 0;
  }
  RecordProperty("shadow_map_wrong", std::to_string(wrong));
  EXPECT_GT(compared, map_mask.size() / 4);
  EXPECT_GT(map_shadowed, compared / 50);
  EXPECT_GT(map_lit, compared / 4);
  EXPECT_LE(wrong, compared / 20) << wrong << " of " << compared << " pixels differ from the exact mask";
  settings.shadows = false;
  raster.render(settings);
  EXPECT_TRUE(raster.read_shadow_mask().empty());
}

// ---------------------------------------------------------------------------------------------- the deformer

TEST_F(GlRasterTest, VertexShaderDeformerMatchesRenderDeform) {
  const Mesh mesh = make_procedural_mesh("torus", 4000);
  const MeshBounds bounds = rest_bounds(mesh);
  GlRaster raster(mesh);
  std::unique_ptr<Renderer> cpu = make_renderer(Backend::cpu);
  cpu->set_mesh(mesh);
  std::vector<uint8_t> scratch(64 * 48 * 4);
  const Deformer kinds[] = {Deformer::none, Deformer::twist, Deformer::bend, Deformer::wave, Deformer::pulse};
  for (const Deformer kind : kinds) {
    for (const float time : {0.0f, 0.45f, 2.9f, 37.0f}) {
      FrameSettings settings;
      settings.width = 64;
      settings.height = 48;
      settings.camera = frame_mesh(mesh);
      settings.deform = {kind, 1.5f, time};
      cpu->render(settings, Surface{scratch.data(), 64, 48, 64 * 4});
      const std::vector<glm::vec3> expected = cpu->last_deformed_positions();
      const std::vector<glm::vec3> got = raster.deformed_positions(settings.deform);
      ASSERT_EQ(got.size(), mesh.positions.size());
      ASSERT_EQ(expected.size(), mesh.positions.size());
      float worst = 0.0f, moved = 0.0f;
      size_t worst_vertex = 0;
      for (size_t v = 0; v < got.size(); ++v) {
        const float scale = std::max(glm::length(expected[v]), bounds.radius);
        const float error = glm::length(got[v] - expected[v]) / scale;
        if (error > worst) {
          worst = error;
          worst_vertex = v;
        }
        moved = std::max(moved, glm::length(expected[v] - mesh.positions[v]));
      }
      RecordProperty("worst_relative_error_" + std::to_string(static_cast<int>(kind)) + "_" +
                         std::to_string(static_cast<int>(time * 100.0f)),
                     (std::ostringstream() << worst).str());
      EXPECT_LE(worst, 1e-5f) << "deformer " << static_cast<int>(kind) << " at t = " << time << ": vertex "
                              << worst_vertex << " GL (" << got[worst_vertex].x << ", " << got[worst_vertex].y
                              << ", " << got[worst_vertex].z << ") vs (" << expected[worst_vertex].x << ", "
                              << expected[worst_vertex].y << ", " << expected[worst_vertex].z << ")";
      // The comparison means something: every deformer but none really moves the mesh at these times
      // (cos(37) and the waves are far from zero), and none leaves it exactly at rest.
      if (kind == Deformer::none) {
        EXPECT_EQ(moved, 0.0f);
      } else {
        EXPECT_GT(moved, 0.01f * bounds.radius) << "deformer " << static_cast<int>(kind) << " at t = " << time;
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------- conventions

// One triangle facing the camera that covers only the upper half of the picture, plus an exact duplicate: the
// first rows of the ID image (the top) hit, the last rows miss; on equal depth the lower ID wins everywhere.
TEST_F(GlRasterTest, RowZeroIsTheTopAndEqualDepthKeepsTheLowerId) {
  Mesh mesh;
  mesh.name = "upper-half triangle pair";
  // At z = 0 in front of the default camera (eye (0, 0, 3), 45 degrees: the view spans about +-1.24 in y).
  mesh.positions = {{-3.0f, 0.1f, 0.0f}, {3.0f, 0.1f, 0.0f}, {0.0f, 6.0f, 0.0f}};
  mesh.indices = {0, 1, 2, 0, 1, 2};
  FrameSettings settings;
  settings.width = 41;
  settings.height = 31;
  GlRaster raster(mesh);
  raster.render(settings);
  const std::vector<uint32_t> ids = raster.read_triangle_ids();
  ASSERT_EQ(ids.size(), 41u * 31u);
  for (int x = 0; x < 41; ++x) {
    EXPECT_EQ(ids[static_cast<size_t>(x)], 0u) << "top row, x = " << x;
    EXPECT_EQ(ids[static_cast<size_t>(30 * 41 + x)], kMiss) << "bottom row, x = " << x;
  }
  EXPECT_EQ(std::count(ids.begin(), ids.end(), 1u), 0) << "the duplicate (ID 1) must never win over ID 0";
  // The cpu ray caster agrees exactly on this scene (no edge crosses a pixel centre: y = 0.1 is not on one).
  const CpuFrame cpu = render_cpu(mesh, settings);
  const IdAgreement a = compare_triangle_ids(ids, cpu.ids, 41, 31);
  EXPECT_EQ(a.differing_off_edges, 0u);
  EXPECT_GE(a.fraction(), 0.95);  // at most the one row along y = 0.1 may differ
  // Colour rows are flipped the same way: the top row is lit, the bottom row is the background.
  const std::vector<uint8_t> color = raster.read_color();
  const uint8_t* bottom = &color[static_cast<size_t>(30 * 41) * 4];
  EXPECT_EQ(bottom[0], kBackground.r);
  EXPECT_EQ(bottom[1], kBackground.g);
  EXPECT_EQ(bottom[2], kBackground.b);
  EXPECT_NE(color[0], kBackground.r);
}

TEST_F(GlRasterTest, EmptyAndDegenerateMeshesDrawOnlyBackground) {
  FrameSettings settings;
  settings.width = 33;
  settings.height = 17;
  Mesh empty;
  empty.name = "empty";
  Mesh degenerate;  // zero-area triangles: a point repeated, and three collinear vertices
  degenerate.name = "degenerate";
  degenerate.positions = {{0.0f, 0.0f, 0.0f}, {0.5f, 0.5f, 0.0f}, {1.0f, 1.0f, 0.0f}};
  degenerate.indices = {0, 0, 0, 0, 1, 2, 2, 1, 0};
  for (const Mesh* mesh : {&empty, &degenerate}) {
    GlRaster raster(*mesh);
    raster.render(settings);
    const std::vector<uint32_t> ids = raster.read_triangle_ids();
    ASSERT_EQ(ids.size(), 33u * 17u) << mesh->name;
    EXPECT_EQ(count_hits(ids), 0u) << mesh->name;
    const std::vector<uint8_t> color = raster.read_color();
    ASSERT_EQ(color.size(), 33u * 17u * 4u) << mesh->name;
    for (size_t i = 0; i < color.size(); i += 4) {
      ASSERT_EQ(color[i], kBackground.r) << mesh->name << " pixel " << i / 4;
      ASSERT_EQ(color[i + 1], kBackground.g) << mesh->name << " pixel " << i / 4;
      ASSERT_EQ(color[i + 2], kBackground.b) << mesh->name << " pixel " << i / 4;
      ASSERT_EQ(color[i + 3], 255) << mesh->name << " pixel " << i / 4;
    }
  }
}

TEST_F(GlRasterTest, BadInputsThrowNamingTheMesh) {
  Mesh mesh;
  mesh.name = "broken.obj";
  mesh.positions = {{0.0f, 0.0f, 0.0f}, {1.0f, 0.0f, 0.0f}, {0.0f, 1.0f, 0.0f}};
  mesh.indices = {0, 1, 7};
  try {
    GlRaster raster(mesh);
    FAIL() << "an out-of-range index was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("broken.obj"), std::string::npos) << e.what();
  }
  mesh.indices = {0, 1, 2};
  GlRaster raster(mesh);
  FrameSettings settings;
  settings.width = 0;
  EXPECT_THROW(raster.render(settings), std::invalid_argument);
}

TEST_F(GlRasterTest, ResizesAndLeavesTheCallersGlStateAlone) {
  const Mesh mesh = make_procedural_mesh("sphere", 2000);
  GlRaster raster(mesh);
  FrameSettings settings;
  settings.camera = frame_mesh(mesh);
  gl::OffscreenTarget target(50, 40);
  target.bind();
  glViewport(3, 4, 20, 10);
  for (const auto& [w, h] : {std::pair{64, 48}, std::pair{17, 99}, std::pair{64, 48}}) {
    settings.width = w;
    settings.height = h;
    raster.render_untimed(settings);
    EXPECT_EQ(raster.width(), w);
    EXPECT_EQ(raster.height(), h);
    EXPECT_EQ(raster.read_triangle_ids().size(), static_cast<size_t>(w * h));
    EXPECT_GT(count_hits(raster.read_triangle_ids()), static_cast<size_t>(w * h / 10));
  }
  GLint framebuffer = 0, viewport[4] = {}, clip_depth = 0;
  glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &framebuffer);
  glGetIntegerv(GL_VIEWPORT, viewport);
  glGetIntegerv(GL_CLIP_DEPTH_MODE, &clip_depth);
  EXPECT_EQ(static_cast<GLuint>(framebuffer), target.framebuffer());
  EXPECT_EQ(viewport[0], 3);
  EXPECT_EQ(viewport[2], 20);
  EXPECT_EQ(clip_depth, GL_NEGATIVE_ONE_TO_ONE);
  EXPECT_EQ(glIsEnabled(GL_DEPTH_TEST), GL_FALSE);

  // The blit puts the picture into the bound framebuffer the right way up (read back top-down as PNGs are).
  settings.width = 50;
  settings.height = 40;
  raster.render(settings);
  target.bind();
  raster.blit_to_bound_framebuffer(50, 40);
  EXPECT_EQ(gl::read_pixels_top_down(50, 40), raster.read_color());
}

// The command line's entry point makes its own context (so no fixture: one EglContext at a time).
TEST(GlRasterFrame, OneFrameInItsOwnContextMatchesTheRayCaster) {
  try {
    EglContext probe(preferred_egl_cuda_device());
  } catch (const std::exception& e) {
    GTEST_SKIP() << "no OpenGL 4.5 context through EGL: " << e.what();
  }
  const Mesh mesh = make_procedural_mesh("torus", 4000);
  FrameSettings settings;
  settings.width = 120;
  settings.height = 90;
  settings.camera = frame_mesh(mesh);
  settings.deform = {Deformer::pulse, 1.0f, 0.3f};
  const gl::GlRasterFrame frame = gl::render_gl_raster_frame(mesh, settings, preferred_egl_cuda_device(),
                                                                       /*warmup=*/2);
  EXPECT_EQ(frame.width, 120);
  EXPECT_EQ(frame.height, 90);
  EXPECT_EQ(frame.color.size(), 120u * 90u * 4u);
  EXPECT_GE(frame.gpu_ms, 0.0f);
  EXPECT_FALSE(frame.gl_description.empty());
  const CpuFrame cpu = render_cpu(mesh, settings);
  const IdAgreement a = compare_triangle_ids(frame.triangle_ids, cpu.ids, 120, 90);
  EXPECT_GT(count_hits(cpu.ids), 120u * 90u / 10u);
  EXPECT_GE(a.fraction(), 0.99);
  EXPECT_EQ(a.differing_off_edges, 0u);
}

// ---------------------------------------------------------------------------------------------- the viewer

// The viewer's third backend choice: the session draws through GlRaster and blits its colour into the bound
// framebuffer (at resolution scale 1 an exact copy, the right way up), and switching back gives the ray caster's
// frame again.
TEST_F(GlRasterTest, ViewerSessionShowsTheReferenceAndSwitchesBack) {
  ViewOptions options;
  options.scene.procedural_name = "sphere";
  options.scene.procedural_triangles = 20000;
  options.frame.width = 320;
  options.frame.height = 240;
  options.frame.deform = {Deformer::twist, 1.0f, 0.5f};
  options.frame.shading = Shading::flat;
  options.backend = Backend::cpu;
  options.gl_raster = true;
  options.headless = true;
  options.animate = false;
  const int w = options.frame.width, h = options.frame.height;

  const Mesh mesh = make_procedural_mesh("sphere", 20000);
  FrameSettings settings = options.frame;
  // As the headless session frames it: the whole image's aspect and the deformer's reach.
  settings.camera = frame_mesh(mesh, settings.camera.fovy_degrees, static_cast<float>(w) / h, settings.deform);
  GlRaster raster(mesh);
  raster.render(settings);
  const std::vector<uint8_t> reference = raster.read_color();
  const CpuFrame cpu = render_cpu(mesh, settings);
  ASSERT_NE(reference, cpu.color) << "the two frames must differ for the switch to be seen";

  viewer::Session session(options, egl_->on_cuda_device(), egl_->description(), /*windowed=*/false);
  gl::OffscreenTarget target(w, h);
  auto frame = [&] {
    target.bind();
    session.render_and_present(w, h);
    return gl::read_pixels_top_down(w, h);
  };
  ASSERT_TRUE(session.gl_raster);
  EXPECT_EQ(frame(), reference) << "the session's gl-raster frame is not the reference's colour";
  EXPECT_EQ(session.render_width(), w);
  EXPECT_EQ(session.render_height(), h);
  EXPECT_EQ(session.stats.triangles_in, mesh.triangle_count());

  session.set_gl_raster(false);
  EXPECT_FALSE(session.gl_raster);
  EXPECT_EQ(frame(), cpu.color) << "back on the cpu ray caster";
  session.set_gl_raster(true);
  EXPECT_TRUE(session.gl_raster) << session.last_error;
  EXPECT_EQ(frame(), reference);
}

}  // namespace
}  // namespace slabcast::test
