// gpu tests (label gpu; SKIPPED without a CUDA device): frames with an appearance (materials, textures with their mip
// pyramids, vertex colours) on the cuda backend equal the cpu backend's stage by stage and, image, bit for bit.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "render/appearance_scenes.h"
#include "render/cuda_vs_cpu.h"
#include "render/renderer.h"
#include "render/scenes.h"

namespace slabcast::test {
namespace {

using CudaAppearance = CudaVsCpuFixture;

// Stage by stage as every gpu test, then the image without the one-step allowance.
void expect_identical(const Frame& cpu, const Frame& gpu, const std::string& what) {
  expect_same_frame(cpu, gpu, what);
  EXPECT_TRUE(cpu.rgba == gpu.rgba) << what << ": the images differ";
}

TEST_F(CudaAppearance, TexturedColouredMaterialScenesAreBitIdentical) {
  const Scene scenes[] = {appearance_scene("torus", 4000, Deformer::twist, 0.7f),
                          appearance_scene("sphere", 20000, Deformer::wave, 1.3f),
                          appearance_scene("stress", 3000, Deformer::none, 0.0f)};
  for (const Scene& s : scenes) {
    make_renderers();
    set_mesh(s.mesh);
    for (const auto& [w, h] : {std::make_pair(64, 48), std::make_pair(203, 157)}) {
      for (Shading mode : {Shading::albedo, Shading::phong, Shading::flat}) {
        FrameSettings f = settings_for(s, w, h, 8, mode);
        const Frames r = render_both(f);
        expect_identical(r.cpu, r.gpu, s.label + " " + std::to_string(w) + "x" + std::to_string(h) + " shading " +
                                             std::to_string(static_cast<int>(mode)));
      }
      // The lit path after the shadow stages (a kernel of its own shades there).
      FrameSettings f = settings_for(s, w, h, 8, Shading::phong);
      f.shadows = true;
      f.light = Light{LightType::sun, glm::vec3(1.0f, 2.0f, 0.5f)};
      const Frames r = render_both(f);
      expect_identical(r.cpu, r.gpu, s.label + " with shadows");
    }
  }
}

TEST_F(CudaAppearance, QuadsAtEveryLevelOfDetailAreBitIdentical) {
  for (float distance : {1.5f, 3.0f, 7.0f, 24.0f, 200.0f}) {
    Scene s = textured_quad(distance, {checker_texture(64, 64), random_texture(37, 23, 4)}, 3.0f, -0.25f, 0.4f);
    s.mesh.vertex_colors = {Color8{255, 0, 0, 255}, Color8{0, 255, 0, 255}, Color8{0, 0, 255, 255},
                            Color8{255, 255, 255, 255}};
    s.mesh.materials.push_back(Material{glm::vec4(0.3f, 0.6f, 0.9f, 1.0f), 1});
    s.mesh.triangle_materials = {0, 1};
    s.camera.eye = glm::vec3(0.4f * distance, 0.2f * distance, distance);  // oblique: anisotropic footprints
    make_renderers();
    set_mesh(s.mesh);
    for (int size : {61, 128}) {
      const Frames r = render_both(settings_for(s, size, size, 4, Shading::albedo));
      expect_identical(r.cpu, r.gpu,
                       "quad at " + std::to_string(distance) + ", " + std::to_string(size) + " pixels");
    }
  }
}

// The textured path adds no stage: the caster still shades as it casts (no shade kernel, so the shade stage reads 0
// ms), and the structure and the cast do the same work as for the mesh without its appearance.
TEST_F(CudaAppearance, TexturedPathAddsNoStage) {
  const Scene textured = appearance_scene("torus", 4000, Deformer::none, 0.0f);
  Scene bare = textured;
  bare.mesh.materials.clear();
  bare.mesh.triangle_materials.clear();
  make_renderers();
  set_mesh(textured.mesh);
  const Frames t = render_both(settings_for(textured, 128, 96, 8, Shading::phong));
  EXPECT_EQ(t.gpu.stats.ms.shade, 0.0f);
  make_renderers();
  set_mesh(bare.mesh);
  const Frames b = render_both(settings_for(bare, 128, 96, 8, Shading::phong));
  EXPECT_EQ(b.gpu.stats.ms.shade, 0.0f);
  expect_same_counts(t.gpu.stats, b.gpu.stats);
  // A mesh whose appearance goes unused renders the bare mesh's image on both backends.
  EXPECT_TRUE(b.cpu.rgba == b.gpu.rgba);
}

// The appearance's device memory is counted with the mesh's, and released with it.
TEST_F(CudaAppearance, AppearanceMemoryIsCountedAndReleased) {
  const Scene textured = appearance_scene("sphere", 3000, Deformer::none, 0.0f);
  Scene bare = textured;
  bare.mesh.materials.clear();
  bare.mesh.triangle_materials.clear();
  auto r = make_renderer(Backend::cuda);
  r->set_mesh(bare.mesh);
  const size_t without = r->device_bytes_in_use();
  r->set_mesh(textured.mesh);
  const size_t with = r->device_bytes_in_use();
  EXPECT_GT(with, without + 4 * (37 * 23 + 64 * 64));
  r->set_mesh(bare.mesh);
  EXPECT_EQ(r->device_bytes_in_use(), without);
}

}  // namespace
}  // namespace slabcast::test
