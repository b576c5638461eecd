// gpu tests (label gpu; SKIPPED without a CUDA device): the cuda backend against the cpu backend stage by stage
// (deformed vertices, tile ranges, slabs, depth range, cell offsets, cell contents, statistics, image), and
// against the brute-force oracle. Both backends run the same float operations (render/hd_math.h), so the
// integer outputs must be identical and the images too.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "common/quick_mode.h"
#include "render/constants.h"
#include "render/oracle.h"
#include "render/renderer.h"
#include "render/scenes.h"

namespace slabcast::test {
namespace {

#define ASSERT_CUDA(call) ASSERT_EQ((call), cudaSuccess) << #call

struct Frame {
  FrameStats stats;
  FrameExtras extras;
  FrameStructure structure;
  std::vector<glm::vec3> deformed;
  std::vector<glm::vec3> vertex_normals;  // only where the shading uses them (else the buffers are not written)
  std::vector<uint8_t> rgba;  // W * H * 4, rows packed
};

// A pitched device surface whose padding is checked for stray writes.
class DeviceSurface {
 public:
  DeviceSurface(int w, int h) : w_(w), h_(h) {
    pitch_ = 4 * static_cast<size_t>(w) + 20;  // not a multiple of 8 or 16 pixels
    if (cudaMalloc(&ptr_, pitch_ * h) != cudaSuccess) throw std::runtime_error("cudaMalloc surface");
    if (cudaMemset(ptr_, 0xAB, pitch_ * h) != cudaSuccess) throw std::runtime_error("cudaMemset surface");
  }
  ~DeviceSurface() { cudaFree(ptr_); }
  Surface surface() const { return Surface{static_cast<uint8_t*>(ptr_), w_, h_, pitch_}; }
  // Rows packed; returns false if any padding byte changed.
  bool download(std::vector<uint8_t>& rgba) const {
    std::vector<uint8_t> all(pitch_ * h_);
    if (cudaMemcpy(all.data(), ptr_, all.size(), cudaMemcpyDeviceToHost) != cudaSuccess) return false;
    rgba.resize(4 * static_cast<size_t>(w_) * h_);
    bool padding_ok = true;
    for (int y = 0; y < h_; ++y) {
      std::memcpy(&rgba[4 * static_cast<size_t>(w_) * y], &all[pitch_ * y], 4 * static_cast<size_t>(w_));
      for (size_t b = 4 * static_cast<size_t>(w_); b < pitch_; ++b) padding_ok = padding_ok && all[pitch_ * y + b] == 0xAB;
    }
    return padding_ok;
  }

 private:
  void* ptr_ = nullptr;
  int w_, h_;
  size_t pitch_;
};

Frame render_frame(Renderer& r, const FrameSettings& f) {
  Frame out;
  if (r.backend() == Backend::cuda) {
    DeviceSurface ds(f.width, f.height);
    out.stats = r.render(f, ds.surface(), &out.extras);
    EXPECT_TRUE(ds.download(out.rgba)) << "the cuda backend wrote into the surface's row padding";
  } else {
    std::vector<uint8_t> pixels;
    const Surface s = host_surface(pixels, f.width, f.height, 20);
    out.stats = r.render(f, s, &out.extras);
    out.rgba.resize(4 * static_cast<size_t>(f.width) * f.height);
    for (int y = 0; y < f.height; ++y) {
      std::memcpy(&out.rgba[4 * static_cast<size_t>(f.width) * y], &pixels[s.pitch_bytes * y],
                  4 * static_cast<size_t>(f.width));
    }
  }
  out.structure = r.last_structure();
  out.deformed = r.last_deformed_positions();
  if (f.shading == Shading::phong || f.shading == Shading::normals) out.vertex_normals = r.last_vertex_normals();
  return out;
}

// Stage by stage: every integer intermediate exactly, cell contents as sets, then the image.
void expect_same_frame(const Frame& cpu, const Frame& gpu, const std::string& what) {
  SCOPED_TRACE(what);
  // 1. deform
  ASSERT_EQ(cpu.deformed.size(), gpu.deformed.size());
  for (size_t v = 0; v < cpu.deformed.size(); ++v) {
    ASSERT_EQ(std::memcmp(&cpu.deformed[v], &gpu.deformed[v], sizeof(glm::vec3)), 0) << "deformed vertex " << v;
  }
  ASSERT_EQ(cpu.vertex_normals.size(), gpu.vertex_normals.size());
  for (size_t v = 0; v < cpu.vertex_normals.size(); ++v) {
    ASSERT_EQ(std::memcmp(&cpu.vertex_normals[v], &gpu.vertex_normals[v], sizeof(glm::vec3)), 0)
        << "vertex normal " << v << ": cpu (" << cpu.vertex_normals[v].x << ", " << cpu.vertex_normals[v].y << ", "
        << cpu.vertex_normals[v].z << "), cuda (" << gpu.vertex_normals[v].x << ", " << gpu.vertex_normals[v].y
        << ", " << gpu.vertex_normals[v].z << ")";
  }
  // 2. bin
  const FrameStructure &a = cpu.structure, &b = gpu.structure;
  ASSERT_EQ(a.tiles_x, b.tiles_x);
  ASSERT_EQ(a.tiles_y, b.tiles_y);
  ASSERT_EQ(a.slabs, b.slabs);
  EXPECT_EQ(a.z_near, b.z_near);
  EXPECT_EQ(a.z_far, b.z_far);
  ASSERT_EQ(a.tile_range, b.tile_range) << "tile ranges differ";
  ASSERT_EQ(a.slab_of_triangle.size(), b.slab_of_triangle.size());
  for (size_t t = 0; t < a.slab_of_triangle.size(); ++t) {
    if (a.tile_range[4 * t] > a.tile_range[4 * t + 2]) continue;  // culled: slab undefined
    ASSERT_EQ(a.slab_of_triangle[t], b.slab_of_triangle[t]) << "slab of triangle " << t;
  }
  // 3. build
  ASSERT_EQ(a.cell_offsets, b.cell_offsets) << "cell offsets differ";
  ASSERT_EQ(a.cell_triangles.size(), b.cell_triangles.size());
  for (size_t c = 0; c + 1 < a.cell_offsets.size(); ++c) {
    std::vector<uint32_t> x(a.cell_triangles.begin() + a.cell_offsets[c], a.cell_triangles.begin() + a.cell_offsets[c + 1]);
    std::vector<uint32_t> y(b.cell_triangles.begin() + b.cell_offsets[c], b.cell_triangles.begin() + b.cell_offsets[c + 1]);
    std::sort(x.begin(), x.end());
    std::sort(y.begin(), y.end());
    ASSERT_EQ(x, y) << "contents of cell " << c;
  }
  // 4. cast
  ASSERT_EQ(cpu.extras.triangle_id.size(), gpu.extras.triangle_id.size());
  uint64_t id_mismatch = 0, depth_bad = 0;
  for (size_t i = 0; i < cpu.extras.triangle_id.size(); ++i) {
    if (cpu.extras.triangle_id[i] != gpu.extras.triangle_id[i]) {
      ++id_mismatch;
      continue;
    }
    const float x = cpu.extras.depth[i], y = gpu.extras.depth[i];
    if (std::isinf(x) ? !std::isinf(y) : !(std::abs(x - y) <= 1e-5f * x)) ++depth_bad;
  }
  EXPECT_EQ(id_mismatch, 0u) << "pixels whose triangle ID differs between cpu and cuda";
  EXPECT_EQ(depth_bad, 0u) << "pixels whose depth differs by more than 1e-5 relative";
  // statistics
  EXPECT_EQ(cpu.stats.triangles_in, gpu.stats.triangles_in);
  EXPECT_EQ(cpu.stats.triangles_binned, gpu.stats.triangles_binned);
  EXPECT_EQ(cpu.stats.references, gpu.stats.references);
  EXPECT_EQ(cpu.stats.nonempty_cells, gpu.stats.nonempty_cells);
  EXPECT_EQ(cpu.stats.max_refs_per_tile, gpu.stats.max_refs_per_tile);
  EXPECT_EQ(cpu.stats.ray_triangle_tests, gpu.stats.ray_triangle_tests);
  EXPECT_EQ(cpu.stats.pixels_hit, gpu.stats.pixels_hit);
  // 5. shade: the same operations on both sides; allow one step of rounding per channel.
  ASSERT_EQ(cpu.rgba.size(), gpu.rgba.size());
  int worst = 0;
  for (size_t i = 0; i < cpu.rgba.size(); ++i) worst = std::max(worst, std::abs(int(cpu.rgba[i]) - int(gpu.rgba[i])));
  EXPECT_LE(worst, 1) << "largest colour channel difference";
}

struct GpuCase {
  const char* name;
  uint64_t triangles;
  Deformer deformer;
};

class CudaVsCpu : public ::testing::TestWithParam<std::tuple<GpuCase, std::pair<int, int>, int>> {};

TEST_P(CudaVsCpu, StageByStage) {
  const auto& [c, size, slabs] = GetParam();
  // Under the sanitizers one size per scene and slab count is enough to reach every kernel and path.
  if (slabtest::quick_mode() && size.first != 64) GTEST_SKIP() << "SLABCAST_TEST_QUICK: only 64x48";
  const Scene s = procedural_scene(c.name, c.triangles, c.deformer, 0.9f);
  auto cpu = make_renderer(Backend::cpu);
  auto gpu = make_renderer(Backend::cuda);
  cpu->set_mesh(s.mesh);
  gpu->set_mesh(s.mesh);
  const FrameSettings f = settings_for(s, size.first, size.second, slabs);
  const Frame a = render_frame(*cpu, f), b = render_frame(*gpu, f);
  expect_same_frame(a, b, s.label + " " + std::to_string(size.first) + "x" + std::to_string(size.second) + " slabs " +
                              std::to_string(slabs));
  const OracleImage oracle = oracle_cast(b.deformed, s.mesh.indices, s.camera, size.first, size.second);
  const OracleComparison cmp = compare_with_oracle(oracle, b.deformed, s.mesh.indices, s.camera, b.extras);
  EXPECT_TRUE(cmp.ok()) << cmp.unjustified << " unjustified, " << cmp.depth_errors << " depth errors\n" << cmp.log;
}

INSTANTIATE_TEST_SUITE_P(
    Scenes, CudaVsCpu,
    ::testing::Combine(::testing::Values(GpuCase{"sphere", 3000, Deformer::none},
                                         GpuCase{"torus", 4000, Deformer::twist},
                                         GpuCase{"torus_knot", 6000, Deformer::wave},
                                         GpuCase{"stress", 3000, Deformer::bend},
                                         GpuCase{"sphere", 20000, Deformer::pulse}),
                       ::testing::Values(std::make_pair(37, 29), std::make_pair(64, 48), std::make_pair(101, 77),
                                         std::make_pair(257, 131)),
                       ::testing::Values(1, 4, 16)));

// A vertex with thousands of triangles is summed by a warp's lanes; the cpu backend does the same additions, so the
// normals (and everything after them) agree bit for bit. Cones of one side past the sequential limit to 5000.
TEST(CudaBackend, ManyTriangleVerticesGetTheCpuNormals) {
  for (int sides : {kWarpSumValence + 1, 1000, 5000}) {
    const Scene s = cone_scene(sides);
    auto cpu = make_renderer(Backend::cpu);
    auto gpu = make_renderer(Backend::cuda);
    cpu->set_mesh(s.mesh);
    gpu->set_mesh(s.mesh);
    for (Shading mode : {Shading::phong, Shading::normals}) {
      const FrameSettings f = settings_for(s, 101, 77, 4, mode);
      const Frame a = render_frame(*cpu, f), b = render_frame(*gpu, f);
      ASSERT_EQ(a.vertex_normals.size(), s.mesh.positions.size());
      expect_same_frame(a, b, s.label + (mode == Shading::phong ? ", phong" : ", normals"));
    }
  }
}

TEST(CudaBackend, EveryShadingMatchesTheCpu) {
  const Scene s = procedural_scene("torus_knot", 5000, Deformer::twist, 0.2f);
  auto cpu = make_renderer(Backend::cpu);
  auto gpu = make_renderer(Backend::cuda);
  cpu->set_mesh(s.mesh);
  gpu->set_mesh(s.mesh);
  for (Shading mode : {Shading::phong, Shading::flat, Shading::depth, Shading::normals, Shading::triangle_id,
                       Shading::slab, Shading::ray_tests, Shading::tile_triangles}) {
    const FrameSettings f = settings_for(s, 101, 77, 16, mode);
    expect_same_frame(render_frame(*cpu, f), render_frame(*gpu, f), "shading " + std::to_string(int(mode)));
  }
}

TEST(CudaBackend, ReusesBuffersAcrossSizesSlabsAndTimes) {
  const Scene s = procedural_scene("stress", 5000, Deformer::wave);
  auto cpu = make_renderer(Backend::cpu);
  auto gpu = make_renderer(Backend::cuda);
  cpu->set_mesh(s.mesh);
  gpu->set_mesh(s.mesh);
  const int sizes[][3] = {{64, 48, 16}, {37, 29, 4}, {200, 120, 64}, {37, 29, 1}, {64, 48, 16}};
  float time = 0.0f;
  for (const auto& z : sizes) {
    FrameSettings f = settings_for(s, z[0], z[1], z[2]);
    f.deform.time = time += 0.37f;
    expect_same_frame(render_frame(*cpu, f), render_frame(*gpu, f),
                      std::to_string(z[0]) + "x" + std::to_string(z[1]) + " slabs " + std::to_string(z[2]));
  }
  EXPECT_GT(gpu->device_bytes_in_use(), 0u);
  // A second mesh on the same renderer.
  const Scene t = procedural_scene("torus", 3000, Deformer::pulse, 1.0f);
  cpu->set_mesh(t.mesh);
  gpu->set_mesh(t.mesh);
  const FrameSettings f = settings_for(t, 64, 48, 16);
  expect_same_frame(render_frame(*cpu, f), render_frame(*gpu, f), "second mesh");
}

// Frames more than 2048 pixels wide have more than 256 tile columns, so L1's stable split by column
// (prim::multi_split -> split_pairs) takes the two 8-bit passes instead of one: 2056 px = 257 columns, and
// 3840 px = 480, the width of 4K. Short frames keep the cpu backend quick.
TEST(CudaBackend, FramesOfMoreThan256TileColumnsMatchTheCpu) {
  const Scene s = procedural_scene("torus_knot", 6000, Deformer::wave);
  auto cpu = make_renderer(Backend::cpu);
  auto gpu = make_renderer(Backend::cuda);
  cpu->set_mesh(s.mesh);
  gpu->set_mesh(s.mesh);
  for (const auto& [w, h] : {std::make_pair(2056, 40), std::make_pair(3840, 24)}) {
    const FrameSettings f = settings_for(s, w, h, 4);
    const Frame a = render_frame(*cpu, f), b = render_frame(*gpu, f);
    EXPECT_GT(b.stats.references, 0u);
    expect_same_frame(a, b, std::to_string(w) + "x" + std::to_string(h));
  }
}

// The frame graph is captured once per shape of frame and relaunched with each frame's arguments: frames of one shape
// (same size, slabs, mesh) at other times, from other cameras, in other shadings, each against the cpu; then another
// mesh with exactly as many triangles and vertices (same shape, new buffers), which must not reuse the old graph.
TEST(CudaBackend, FramesOfOneShapeFollowTheirOwnSettings) {
  Scene s = procedural_scene("sphere", 20000, Deformer::twist);
  auto cpu = make_renderer(Backend::cpu);
  auto gpu = make_renderer(Backend::cuda);
  cpu->set_mesh(s.mesh);
  gpu->set_mesh(s.mesh);
  const Shading shadings[] = {Shading::phong, Shading::normals, Shading::phong, Shading::depth, Shading::slab};
  for (int k = 0; k < 5; ++k) {
    FrameSettings f = settings_for(s, 101, 77, 8, shadings[k]);
    f.deform.time = 0.3f * static_cast<float>(k);
    f.camera.eye += glm::vec3(0.2f * static_cast<float>(k), -0.1f * static_cast<float>(k), 0.0f);
    expect_same_frame(render_frame(*cpu, f), render_frame(*gpu, f), "frame " + std::to_string(k));
  }
  for (glm::vec3& v : s.mesh.positions) v = glm::vec3(v.x * 0.5f, v.y, v.z * 0.8f);  // same counts, another mesh
  cpu->set_mesh(s.mesh);
  gpu->set_mesh(s.mesh);
  const FrameSettings f = settings_for(s, 101, 77, 8);
  expect_same_frame(render_frame(*cpu, f), render_frame(*gpu, f), "another mesh of the same size");
}

TEST(CudaBackend, TinyInitialCapacityGrowsAndRedoes) {
  const Scene s = procedural_scene("stress", 4000, Deformer::twist, 0.5f);
  RendererOptions tiny;
  tiny.initial_reference_capacity = 7;
  auto cpu = make_renderer(Backend::cpu);
  auto gpu = make_renderer(Backend::cuda, tiny);
  cpu->set_mesh(s.mesh);
  gpu->set_mesh(s.mesh);
  const FrameSettings f = settings_for(s, 101, 77, 16);
  const Frame a = render_frame(*cpu, f), b = render_frame(*gpu, f);
  EXPECT_GE(b.stats.frame_redone, 1);
  expect_same_frame(a, b, "after growing from 7 references");
  // The grown buffer serves the next frame without a redo.
  const Frame c = render_frame(*gpu, f);
  EXPECT_EQ(c.stats.frame_redone, 0);
  expect_same_frame(a, c, "next frame");
}

TEST(CudaBackend, TenThousandHugeTriangles) {
  const Scene s = huge_triangles_scene(10000, 5);
  auto cpu = make_renderer(Backend::cpu);
  auto gpu = make_renderer(Backend::cuda);
  cpu->set_mesh(s.mesh);
  gpu->set_mesh(s.mesh);
  const FrameSettings f = settings_for(s, 101, 77, 16);
  const Frame a = render_frame(*cpu, f), b = render_frame(*gpu, f);
  expect_same_frame(a, b, "10,000 huge triangles");
  EXPECT_LE(b.stats.references, b.stats.triangles_binned * 13 * 10);
}

TEST(CudaBackend, FullScreenTriangleAndCameraInside) {
  const Scene full = full_screen_triangle_scene();
  Scene inside = procedural_scene("sphere", 5000);
  inside.camera.eye = glm::vec3(0.1f, 0.0f, 0.2f);
  inside.camera.target = glm::vec3(0.0f, 0.0f, -1.0f);
  for (const Scene* s : std::vector<const Scene*>{&full, &inside}) {
    auto cpu = make_renderer(Backend::cpu);
    auto gpu = make_renderer(Backend::cuda);
    cpu->set_mesh(s->mesh);
    gpu->set_mesh(s->mesh);
    for (int slabs : {1, 16}) {
      const FrameSettings f = settings_for(*s, 37, 29, slabs);
      const Frame b = render_frame(*gpu, f);
      expect_same_frame(render_frame(*cpu, f), b, s->label);
      EXPECT_EQ(b.stats.pixels_hit, 37u * 29u) << s->label;
    }
  }
}

TEST(CudaBackend, SyncStagesDebugSwitch) {
  ASSERT_EQ(setenv("SLABCAST_SYNC_STAGES", "1", 1), 0);
  const Scene s = procedural_scene("sphere", 2000);
  auto gpu = make_renderer(Backend::cuda);
  auto cpu = make_renderer(Backend::cpu);
  unsetenv("SLABCAST_SYNC_STAGES");
  gpu->set_mesh(s.mesh);
  cpu->set_mesh(s.mesh);
  const FrameSettings f = settings_for(s, 64, 48, 16);
  expect_same_frame(render_frame(*cpu, f), render_frame(*gpu, f), "SLABCAST_SYNC_STAGES=1");
}

// The frame graph changes how the GPU launches the frame, never the result: the ungraphed frame against the cpu, on a
// light scene (few triangles a tile, huge ones among them) and a heavy one.
TEST(CudaBackend, TheUngraphedFrameMatchesTheCpu) {
  const std::vector<std::tuple<Scene, int, int>> cases = {
      {procedural_scene("stress", 3000, Deformer::bend), 257, 131},
      {procedural_scene("sphere", 20000, Deformer::pulse), 101, 77}};
  for (const auto& [s, w, h] : cases) {
    auto cpu = make_renderer(Backend::cpu);
    cpu->set_mesh(s.mesh);
    const FrameSettings f = settings_for(s, w, h, 8);
    const Frame expected = render_frame(*cpu, f);
    ASSERT_EQ(setenv("SLABCAST_FRAME_GRAPH", "0", 1), 0);
    auto ungraphed = make_renderer(Backend::cuda);
    unsetenv("SLABCAST_FRAME_GRAPH");
    ungraphed->set_mesh(s.mesh);
    expect_same_frame(expected, render_frame(*ungraphed, f), s.label + " with SLABCAST_FRAME_GRAPH=0");
  }
}

TEST(CudaBackend, StageTimesArePositive) {
  const Scene s = procedural_scene("sphere", 100000);
  auto gpu = make_renderer(Backend::cuda);
  gpu->set_mesh(s.mesh);
  const Frame b = render_frame(*gpu, settings_for(s, 512, 512, 16));
  const StageTimes& ms = b.stats.ms;
  for (float x : {ms.deform, ms.bin, ms.l1, ms.l2, ms.l3, ms.cast, ms.shade}) EXPECT_GE(x, 0.0f);
  EXPECT_GT(ms.total, 0.0f);
  EXPECT_GE(ms.total + 1e-3f, ms.deform + ms.bin + ms.l1 + ms.l2 + ms.l3 + ms.cast + ms.shade);
}

}  // namespace
}  // namespace slabcast::test
