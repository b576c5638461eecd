// The CUDA-vs-CPU fixture of the gpu render tests: a scene's mesh on both backends, one frame rendered on each, and the
// two results compared stage by stage (deformed vertices and normals, tile ranges, slabs, depth range, cell offsets,
// cell contents, hits, statistics, image). Both backends run the same float operations (render/hd_math.h), so the
// integer outputs must be identical and the images too.
//
//   TEST_F(CudaVsCpuFixture, Something) {
//     const Scene s = procedural_scene("torus", 3000);
//     set_mesh(s.mesh);                                        // both renderers, made on first use
//     const Frames r = expect_same(settings_for(s, 64, 48, 16), "64x48");
//     EXPECT_GT(r.gpu.stats.references, 0u);
//   }
#pragma once
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common/device_buffer.h"
#include "common/quick_mode.h"
#include "render/oracle.h"
#include "render/renderer.h"
#include "render/scenes.h"

namespace slabcast::test {

// One backend's frame, downloaded.
struct Frame {
  FrameStats stats;
  FrameExtras extras;
  FrameStructure structure;
  std::vector<glm::vec3> deformed;
  std::vector<glm::vec3> vertex_normals;  // only where the shading uses them (else the buffers are not written)
  std::vector<uint8_t> rgba;              // W * H * 4, rows packed
};

// A pitched device surface; its row padding (poisoned with the rest on allocation) is checked for stray writes.
class DeviceSurface {
 public:
  DeviceSurface(int w, int h)
      : w_(w), h_(h), pitch_(4 * static_cast<size_t>(w) + 20),  // not a multiple of 8 or 16 pixels
        pixels_(pitch_ * static_cast<size_t>(h)) {}
  Surface surface() const { return Surface{pixels_.get(), w_, h_, pitch_}; }
  // Rows packed; returns false if any padding byte changed.
  bool download(std::vector<uint8_t>& rgba) const {
    const std::vector<uint8_t> all = pixels_.download();
    rgba.resize(4 * static_cast<size_t>(w_) * h_);
    bool padding_ok = all.size() == pitch_ * static_cast<size_t>(h_);
    for (int y = 0; padding_ok && y < h_; ++y) {
      std::memcpy(&rgba[4 * static_cast<size_t>(w_) * y], &all[pitch_ * y], 4 * static_cast<size_t>(w_));
      for (size_t b = 4 * static_cast<size_t>(w_); b < pitch_; ++b) {
        padding_ok = padding_ok && all[pitch_ * y + b] == slabtest::kPoisonByte;
      }
    }
    return padding_ok;
  }

 private:
  int w_, h_;
  size_t pitch_;
  slabtest::DeviceBuffer<uint8_t> pixels_;
};

// One frame on `r` into a pitched surface (device memory for cuda, host memory for cpu), everything downloaded.
inline Frame render_frame(Renderer& r, const FrameSettings& f) {
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
inline void expect_same_frame(const Frame& cpu, const Frame& gpu, const std::string& what) {
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
    std::vector<uint32_t> x(a.cell_triangles.begin() + a.cell_offsets[c],
                            a.cell_triangles.begin() + a.cell_offsets[c + 1]);
    std::vector<uint32_t> y(b.cell_triangles.begin() + b.cell_offsets[c],
                            b.cell_triangles.begin() + b.cell_offsets[c + 1]);
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
  EXPECT_TRUE(cpu.extras.ray_tests == gpu.extras.ray_tests) << "per-pixel ray tests differ between cpu and cuda";
  expect_same_counts(cpu.stats, gpu.stats);
  // 4b. shadows
  ASSERT_EQ(cpu.extras.shadow_mask.size(), gpu.extras.shadow_mask.size());
  uint64_t mask_mismatch = 0;
  for (size_t i = 0; i < cpu.extras.shadow_mask.size(); ++i) {
    mask_mismatch += cpu.extras.shadow_mask[i] != gpu.extras.shadow_mask[i] ? 1 : 0;
  }
  EXPECT_EQ(mask_mismatch, 0u) << "pixels whose shadow mask differs between cpu and cuda";
  // 5. shade: the same operations on both sides; allow one step of rounding per channel.
  ASSERT_EQ(cpu.rgba.size(), gpu.rgba.size());
  int worst = 0;
  for (size_t i = 0; i < cpu.rgba.size(); ++i) worst = std::max(worst, std::abs(int(cpu.rgba[i]) - int(gpu.rgba[i])));
  EXPECT_LE(worst, 1) << "largest colour channel difference";
}

// A procedural scene of the stage-by-stage sweep, with the frame size and slab count it is rendered at.
struct GpuCase {
  const char* name;
  uint64_t triangles;
  Deformer deformer;
};
using SceneCase = std::tuple<GpuCase, std::pair<int, int>, int>;

// The sweep's scenes (every procedural mesh and every deformer).
inline std::vector<GpuCase> gpu_scenes() {
  return {GpuCase{"sphere", 3000, Deformer::none}, GpuCase{"torus", 4000, Deformer::twist},
          GpuCase{"torus_knot", 6000, Deformer::wave}, GpuCase{"stress", 3000, Deformer::bend},
          GpuCase{"sphere", 20000, Deformer::pulse}};
}

// The fixture: a cpu renderer and a cuda renderer holding the same mesh.
class CudaVsCpuFixture : public ::testing::Test {
 protected:
  struct Frames {
    Frame cpu, gpu;
  };

  // New renderers on both backends (the cuda one with `cuda_options`); the previous ones and their mesh are gone.
  void make_renderers(const RendererOptions& cuda_options = RendererOptions{}) {
    cpu = make_renderer(Backend::cpu);
    gpu = make_renderer(Backend::cuda, cuda_options);
  }
  // The mesh on both renderers (made first if there are none).
  void set_mesh(const Mesh& mesh) {
    if (!cpu || !gpu) make_renderers();
    cpu->set_mesh(mesh);
    gpu->set_mesh(mesh);
  }
  // One frame on each backend.
  Frames render_both(const FrameSettings& f) {
    Frames r;
    r.cpu = render_frame(*cpu, f);
    r.gpu = render_frame(*gpu, f);
    return r;
  }
  // One frame on each backend, compared stage by stage (`what` names the frame in failures).
  Frames expect_same(const FrameSettings& f, const std::string& what) {
    Frames r = render_both(f);
    expect_same_frame(r.cpu, r.gpu, what);
    return r;
  }

  // A scene of the sweep on fresh renderers: both backends stage by stage, and the cuda frame against the
  // brute-force oracle.
  void expect_scene_matches(const SceneCase& scene) {
    const auto& [c, size, slabs] = scene;
    // Under the sanitizers one size per scene and slab count is enough to reach every kernel and path.
    if (slabtest::quick_mode() && size.first != 64) GTEST_SKIP() << "SLABCAST_TEST_QUICK: only 64x48";
    const Scene s = procedural_scene(c.name, c.triangles, c.deformer, 0.9f);
    make_renderers();
    set_mesh(s.mesh);
    const FrameSettings f = settings_for(s, size.first, size.second, slabs);
    const Frames r = expect_same(f, s.label + " " + std::to_string(size.first) + "x" + std::to_string(size.second) +
                                        " slabs " + std::to_string(slabs));
    const OracleImage oracle = oracle_cast(r.gpu.deformed, s.mesh.indices, s.camera, size.first, size.second);
    const OracleComparison cmp = compare_with_oracle(oracle, r.gpu.deformed, s.mesh.indices, s.camera, r.gpu.extras);
    EXPECT_TRUE(cmp.ok()) << cmp.unjustified << " unjustified, " << cmp.depth_errors << " depth errors\n" << cmp.log;
  }

  std::unique_ptr<Renderer> cpu, gpu;
};

}  // namespace slabcast::test
