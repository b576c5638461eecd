// gpu tests (label gpu; SKIPPED without a CUDA device): the cuda backend against the cpu backend stage by stage
// (cuda_vs_cpu.h: deformed vertices, tile ranges, slabs, depth range, cell offsets, cell contents, statistics, image),
// and against the brute-force oracle. The sweep's larger frame sizes are test_render_gpu_large.cpp's (label large).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "render/constants.h"
#include "render/cuda_vs_cpu.h"
#include "render/renderer.h"
#include "render/scale_free.h"
#include "render/scenes.h"

namespace slabcast::test {
namespace {

using CudaBackend = CudaVsCpuFixture;

class CudaVsCpu : public CudaVsCpuFixture, public ::testing::WithParamInterface<SceneCase> {};

TEST_P(CudaVsCpu, StageByStage) { expect_scene_matches(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Scenes, CudaVsCpu,
                         ::testing::Combine(::testing::ValuesIn(gpu_scenes()),
                                            ::testing::Values(std::make_pair(37, 29), std::make_pair(64, 48)),
                                            ::testing::Values(1, 4, 16)));

// A vertex with thousands of triangles is summed by a warp's lanes; the cpu backend does the same additions, so the
// normals (and everything after them) agree bit for bit. Cones of one side past the sequential limit to 5000.
TEST_F(CudaBackend, ManyTriangleVerticesGetTheCpuNormals) {
  for (int sides : {kWarpSumValence + 1, 1000, 5000}) {
    const Scene s = cone_scene(sides);
    make_renderers();
    set_mesh(s.mesh);
    for (Shading mode : {Shading::phong, Shading::normals}) {
      const Frames r = render_both(settings_for(s, 101, 77, 4, mode));
      ASSERT_EQ(r.cpu.vertex_normals.size(), s.mesh.positions.size());
      expect_same_frame(r.cpu, r.gpu, s.label + (mode == Shading::phong ? ", phong" : ", normals"));
    }
  }
}

TEST_F(CudaBackend, EveryShadingMatchesTheCpu) {
  const Scene s = procedural_scene("torus_knot", 5000, Deformer::twist, 0.2f);
  set_mesh(s.mesh);
  for (Shading mode : {Shading::phong, Shading::flat, Shading::depth, Shading::normals, Shading::triangle_id,
                       Shading::slab, Shading::ray_tests, Shading::tile_triangles}) {
    expect_same(settings_for(s, 101, 77, 16, mode), "shading " + std::to_string(int(mode)));
  }
}

TEST_F(CudaBackend, ReusesBuffersAcrossSizesSlabsAndTimes) {
  const Scene s = procedural_scene("stress", 5000, Deformer::wave);
  set_mesh(s.mesh);
  const int sizes[][3] = {{64, 48, 16}, {37, 29, 4}, {200, 120, 64}, {37, 29, 1}, {64, 48, 16}};
  float time = 0.0f;
  for (const auto& z : sizes) {
    FrameSettings f = settings_for(s, z[0], z[1], z[2]);
    f.deform.time = time += 0.37f;
    expect_same(f, std::to_string(z[0]) + "x" + std::to_string(z[1]) + " slabs " + std::to_string(z[2]));
  }
  EXPECT_GT(gpu->device_bytes_in_use(), 0u);
  // A second mesh on the same renderers.
  const Scene t = procedural_scene("torus", 3000, Deformer::pulse, 1.0f);
  set_mesh(t.mesh);
  expect_same(settings_for(t, 64, 48, 16), "second mesh");
}

// Frames more than 2048 pixels wide have more than 256 tile columns, so L1's stable split by column
// (prim::multi_split -> split_pairs) takes the two 8-bit passes instead of one: 2056 px = 257 columns, and
// 3840 px = 480, the width of 4K. Short frames keep the cpu backend quick.
TEST_F(CudaBackend, FramesOfMoreThan256TileColumnsMatchTheCpu) {
  const Scene s = procedural_scene("torus_knot", 6000, Deformer::wave);
  set_mesh(s.mesh);
  for (const auto& [w, h] : {std::make_pair(2056, 40), std::make_pair(3840, 24)}) {
    const Frames r = expect_same(settings_for(s, w, h, 4), std::to_string(w) + "x" + std::to_string(h));
    EXPECT_GT(r.gpu.stats.references, 0u);
  }
}

// The frame graph is captured once per shape of frame and relaunched with each frame's arguments: frames of one shape
// (same size, slabs, mesh) at other times, from other cameras, in other shadings, each against the cpu; then another
// mesh with exactly as many triangles and vertices (same shape, new buffers), which must not reuse the old graph.
TEST_F(CudaBackend, FramesOfOneShapeFollowTheirOwnSettings) {
  Scene s = procedural_scene("sphere", 20000, Deformer::twist);
  set_mesh(s.mesh);
  const Shading shadings[] = {Shading::phong, Shading::normals, Shading::phong, Shading::depth, Shading::slab};
  for (int k = 0; k < 5; ++k) {
    FrameSettings f = settings_for(s, 101, 77, 8, shadings[k]);
    f.deform.time = 0.3f * static_cast<float>(k);
    f.camera.eye += glm::vec3(0.2f * static_cast<float>(k), -0.1f * static_cast<float>(k), 0.0f);
    expect_same(f, "frame " + std::to_string(k));
  }
  for (glm::vec3& v : s.mesh.positions) v = glm::vec3(v.x * 0.5f, v.y, v.z * 0.8f);  // same counts, another mesh
  set_mesh(s.mesh);
  expect_same(settings_for(s, 101, 77, 8), "another mesh of the same size");
}

TEST_F(CudaBackend, TinyInitialCapacityGrowsAndRedoes) {
  const Scene s = procedural_scene("stress", 4000, Deformer::twist, 0.5f);
  RendererOptions tiny;
  tiny.initial_reference_capacity = 7;
  make_renderers(tiny);
  set_mesh(s.mesh);
  const FrameSettings f = settings_for(s, 101, 77, 16);
  const Frames r = expect_same(f, "after growing from 7 references");
  EXPECT_GE(r.gpu.stats.frame_redone, 1);
  // The grown buffer serves the next frame without a redo.
  const Frame next = render_frame(*gpu, f);
  EXPECT_EQ(next.stats.frame_redone, 0);
  expect_same_frame(r.cpu, next, "next frame");
}

TEST_F(CudaBackend, TenThousandHugeTriangles) {
  const Scene s = huge_triangles_scene(10000, 5);
  set_mesh(s.mesh);
  const Frames r = expect_same(settings_for(s, 101, 77, 16), "10,000 huge triangles");
  EXPECT_LE(r.gpu.stats.references, r.gpu.stats.triangles_binned * 13 * 10);
}

TEST_F(CudaBackend, FullScreenTriangleAndCameraInside) {
  const Scene full = full_screen_triangle_scene();
  Scene inside = procedural_scene("sphere", 5000);
  inside.camera.eye = glm::vec3(0.1f, 0.0f, 0.2f);
  inside.camera.target = glm::vec3(0.0f, 0.0f, -1.0f);
  for (const Scene* s : std::vector<const Scene*>{&full, &inside}) {
    make_renderers();
    set_mesh(s->mesh);
    for (int slabs : {1, 16}) {
      const Frames r = expect_same(settings_for(*s, 37, 29, slabs), s->label);
      EXPECT_EQ(r.gpu.stats.pixels_hit, 37u * 29u) << s->label;
    }
  }
}

TEST_F(CudaBackend, SyncStagesDebugSwitch) {
  ASSERT_EQ(setenv("SLABCAST_SYNC_STAGES", "1", 1), 0);
  const Scene s = procedural_scene("sphere", 2000);
  make_renderers();  // the cuda renderer reads the switch when it is made
  unsetenv("SLABCAST_SYNC_STAGES");
  set_mesh(s.mesh);
  expect_same(settings_for(s, 64, 48, 16), "SLABCAST_SYNC_STAGES=1");
}

// The frame graph changes how the GPU launches the frame, never the result: the ungraphed frame against the cpu, on a
// light scene (few triangles a tile, huge ones among them) and a heavy one.
TEST_F(CudaBackend, TheUngraphedFrameMatchesTheCpu) {
  const std::vector<std::tuple<Scene, int, int>> cases = {
      {procedural_scene("stress", 3000, Deformer::bend), 257, 131},
      {procedural_scene("sphere", 20000, Deformer::pulse), 101, 77}};
  for (const auto& [s, w, h] : cases) {
    ASSERT_EQ(setenv("SLABCAST_FRAME_GRAPH", "0", 1), 0);
    make_renderers();  // the cuda renderer reads the switch when it is made
    unsetenv("SLABCAST_FRAME_GRAPH");
    set_mesh(s.mesh);
    expect_same(settings_for(s, w, h, 8), s.label + " with SLABCAST_FRAME_GRAPH=0");
  }
}

// Deep cells: sorted by the cast block on the GPU, by std::sort on the cpu; the same groups, hits and test counts.
TEST_F(CudaBackend, DeepStacksMatchTheCpu) {
  const int layers = static_cast<int>(kDepthSortedCell) + 800;
  for (const std::string kind : {"coincident", "coplanar", "layered"}) {
    const Scene s = stacked_scene(kind, layers);
    set_mesh(s.mesh);
    for (int slabs : {1, 16}) {
      const Frames r = expect_same(settings_for(s, 32, 24, slabs), kind + ", " + std::to_string(slabs) + " slabs");
      if (kind == "coincident") {
        EXPECT_EQ(r.gpu.stats.hidden_duplicates, uint64_t(layers) - 2);  // what is left is no deep cell
      } else {
        EXPECT_GT(r.gpu.stats.depth_sorted_cells, 0u);
      }
    }
  }
}

TEST_F(CudaBackend, AScenesSizeChangesNoTriangleIdFrom2ToTheMinus66To2ToThe66) { expect_scale_free(Backend::cuda); }

// A frame whose stages are not timed runs another frame graph (without the stage events): frames that alternate between
// the two, with shadows, in a heat view (its own shade kernel) and shaded by the caster, each against the cpu; the
// untimed ones report a total and no stage.
TEST_F(CudaBackend, FramesWithoutStageTimesAreTheSameFrames) {
  const Scene s = procedural_scene("sphere", 20000, Deformer::twist);
  set_mesh(s.mesh);
  const Shading shadings[] = {Shading::phong, Shading::ray_tests, Shading::phong};
  for (int view = 0; view < 3; ++view) {
    for (int k = 0; k < 4; ++k) {
      FrameSettings f = settings_for(s, 101, 77, 8, shadings[view]);
      f.shadows = view == 2;
      f.deform.time = 0.25f * static_cast<float>(k);
      f.stage_times = k % 2 == 1;
      const std::string what = "view " + std::to_string(view) + ", frame " + std::to_string(k);
      const Frames r = expect_same(f, what);
      const StageTimes& ms = r.gpu.stats.ms;
      EXPECT_GT(ms.total, 0.0f) << what;
      const float stages = ms.deform + ms.bin + ms.l1 + ms.l2 + ms.l3 + ms.cast + ms.shadow_samples +
                           ms.shadow_bin + ms.shadow_test + ms.shade;
      if (f.stage_times) {
        EXPECT_GT(ms.cast, 0.0f) << what;
        EXPECT_GE(ms.total + 1e-3f, stages) << what;
      } else {
        EXPECT_EQ(stages, 0.0f) << what;
      }
    }
  }
}

TEST_F(CudaBackend, StageTimesArePositive) {  // the cuda renderer alone
  const Scene s = procedural_scene("sphere", 100000);
  gpu = make_renderer(Backend::cuda);
  gpu->set_mesh(s.mesh);
  const Frame b = render_frame(*gpu, settings_for(s, 512, 512, 16));
  const StageTimes& ms = b.stats.ms;
  for (float x : {ms.deform, ms.bin, ms.l1, ms.l2, ms.l3, ms.cast, ms.shade}) EXPECT_GE(x, 0.0f);
  EXPECT_GT(ms.total, 0.0f);
  EXPECT_GE(ms.total + 1e-3f, ms.deform + ms.bin + ms.l1 + ms.l2 + ms.l3 + ms.cast + ms.shade);
}

}  // namespace
}  // namespace slabcast::test
