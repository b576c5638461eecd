// gpu tests (label gpu; SKIPPED without a CUDA device): the heat views (shaded by a kernel of their own after the cast,
// their scale the frame's largest count) and the wireframe on the cuda backend equal the cpu backend's, stage by stage
// and, image, bit for bit; so does a frame with a background colour of its own.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "render/cuda_vs_cpu.h"
#include "render/renderer.h"
#include "render/scenes.h"
#include "render/views.h"

namespace slabcast::test {
namespace {

using CudaViews = CudaVsCpuFixture;

void expect_identical(const Frame& cpu, const Frame& gpu, const std::string& what) {
  expect_same_frame(cpu, gpu, what);
  EXPECT_TRUE(cpu.rgba == gpu.rgba) << what << ": the images differ";
}

std::string size_label(int w, int h) { return std::to_string(w) + "x" + std::to_string(h); }

TEST_F(CudaViews, HeatViewsAndTheirScaleAreBitIdentical) {
  const Scene scenes[] = {procedural_scene("torus_knot", 6000, Deformer::wave, 0.8f),
                          procedural_scene("sphere", 20000, Deformer::pulse, 0.3f)};
  for (const Scene& s : scenes) {
    make_renderers();
    set_mesh(s.mesh);
    for (const auto& [w, h] : {std::make_pair(64, 48), std::make_pair(203, 157)}) {
      for (Shading mode : {Shading::ray_tests, Shading::tile_triangles}) {
        FrameSettings f = settings_for(s, w, h, 8, mode);
        const std::string what = s.label + " " + size_label(w, h) + " view " + std::to_string(int(mode));
        const Frames r = render_both(f);
        expect_identical(r.cpu, r.gpu, what);
        EXPECT_GT(r.gpu.stats.heat_max, 0u) << what;
        // After the shadow stages (the shade kernel is theirs then), and with the wireframe over the heat.
        f.shadows = true;
        f.light = Light{LightType::sun, glm::vec3(1.0f, 2.0f, 0.5f)};
        f.wireframe = true;
        const Frames rs = render_both(f);
        expect_identical(rs.cpu, rs.gpu, what + " with shadows and wireframe");
      }
      // Back to a view the caster shades: the frame graph's shape changes back too.
      const Frames back = render_both(settings_for(s, w, h, 8, Shading::phong));
      expect_identical(back.cpu, back.gpu, s.label + " phong after the heat views");
    }
  }
}

TEST_F(CudaViews, WireframeIsBitIdentical) {
  const Scene scenes[] = {procedural_scene("torus", 4000, Deformer::twist, 0.7f), head_on_quad(1.5f),
                          head_on_quad(6.0f)};
  for (const Scene& s : scenes) {
    make_renderers();
    set_mesh(s.mesh);
    for (const auto& [w, h] : {std::make_pair(61, 61), std::make_pair(256, 192)}) {
      for (Shading mode : {Shading::phong, Shading::flat, Shading::depth, Shading::normals, Shading::albedo}) {
        FrameSettings f = settings_for(s, w, h, 8, mode);
        f.wireframe = true;
        const Frames r = render_both(f);
        expect_identical(r.cpu, r.gpu, s.label + " " + size_label(w, h) + " wireframe view " + std::to_string(int(mode)));
      }
    }
  }
}

TEST_F(CudaViews, BackgroundIsBitIdentical) {
  const Scene s = procedural_scene("torus", 4000, Deformer::twist, 0.7f);
  make_renderers();
  set_mesh(s.mesh);
  for (const auto& [w, h] : {std::make_pair(61, 61), std::make_pair(256, 192)}) {
    // The caster's own shading, the shade pass after the cast (shadows) and a view the caster shades.
    for (const bool shadows : {false, true}) {
      for (Shading mode : {Shading::phong, Shading::depth}) {
        FrameSettings f = settings_for(s, w, h, 8, mode);
        f.background = Color8{250, 128, 3, 255};
        f.shadows = shadows;
        f.light = Light{LightType::sun, glm::vec3(1.0f, 2.0f, 0.5f)};
        const Frames r = render_both(f);
        expect_identical(r.cpu, r.gpu, s.label + " " + size_label(w, h) + " background, view " +
                                           std::to_string(int(mode)) + (shadows ? " with shadows" : ""));
        // The next frame of the same shape with another colour: the frame graph takes the new parameters.
        f.background = Color8{0, 0, 0, 255};
        const Frames again = render_both(f);
        expect_identical(again.cpu, again.gpu, s.label + " black background");
        EXPECT_FALSE(r.gpu.rgba == again.gpu.rgba) << "the background should change the image";
      }
    }
  }
}

}  // namespace
}  // namespace slabcast::test
