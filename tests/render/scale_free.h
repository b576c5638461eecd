// Scale-free rendering (render/camera.h): a scene scaled by a power of two 2^k, seen by its default camera, gives the
// very same triangle IDs and image as the scene itself, depths and deformed vertices scaled by exactly 2^k, and no
// NaN anywhere, from 2^-66 to 2^66 (about 1e-20 to 1e20). A power of two scales every float exactly, so anything
// but identical results is the renderer's own doing.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "render/cuda_vs_cpu.h"
#include "render/renderer.h"
#include "render/scenes.h"

namespace slabcast::test {

inline Mesh scaled_by_pow2(const Mesh& mesh, int exponent) {
  Mesh out = mesh;
  for (glm::vec3& p : out.positions) {
    p = glm::vec3(std::ldexp(p.x, exponent), std::ldexp(p.y, exponent), std::ldexp(p.z, exponent));
  }
  return out;
}

inline void expect_scale_free(Backend backend) {
  const std::vector<int> exponents = {-66, -65, -50, -40, -31, -20, -13, -1, 1, 13, 20, 31, 40, 50, 65, 66};
  for (const Deformer deformer : {Deformer::none, Deformer::twist, Deformer::bend, Deformer::wave, Deformer::pulse}) {
    const Scene base = procedural_scene("torus_knot", 4000, deformer, 0.7f);
    FrameSettings settings;
    settings.width = 96;
    settings.height = 72;
    settings.slabs = 8;
    settings.deform = base.deform;
    settings.shading = Shading::phong;
    std::unique_ptr<Renderer> renderer = make_renderer(backend);
    renderer->set_mesh(base.mesh);
    settings.camera = base.camera;
    const Frame reference = render_frame(*renderer, settings);
    uint64_t hits = 0;
    for (uint32_t id : reference.extras.triangle_id) hits += id != kNoHit;
    ASSERT_GT(hits, reference.extras.triangle_id.size() / 10) << "the framed model covers a good part of the frame";
    for (const int exponent : exponents) {
      SCOPED_TRACE("deformer " + std::to_string(static_cast<int>(deformer)) + " at 2^" + std::to_string(exponent));
      const Mesh scaled = scaled_by_pow2(base.mesh, exponent);
      renderer->set_mesh(scaled);
      settings.camera = frame_mesh(scaled);
      const Frame frame = render_frame(*renderer, settings);
      ASSERT_EQ(frame.extras.triangle_id.size(), reference.extras.triangle_id.size());
      uint64_t ids_differ = 0, depths_differ = 0;
      for (size_t i = 0; i < frame.extras.triangle_id.size(); ++i) {
        ids_differ += frame.extras.triangle_id[i] != reference.extras.triangle_id[i];
        const float expected = std::ldexp(reference.extras.depth[i], exponent);
        depths_differ += std::memcmp(&frame.extras.depth[i], &expected, sizeof(float)) != 0;
      }
      EXPECT_EQ(ids_differ, 0u) << "pixels whose triangle ID differs from the unit-size scene's";
      EXPECT_EQ(depths_differ, 0u) << "pixels whose depth is not the unit-size scene's times 2^" << exponent;
      EXPECT_TRUE(frame.rgba == reference.rgba) << "the image differs";
      ASSERT_EQ(frame.deformed.size(), reference.deformed.size());
      uint64_t deformed_differ = 0, not_finite = 0;
      for (size_t v = 0; v < frame.deformed.size(); ++v) {
        const glm::vec3 p = frame.deformed[v], q = reference.deformed[v];
        not_finite += !(std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z));
        deformed_differ += p.x != std::ldexp(q.x, exponent) || p.y != std::ldexp(q.y, exponent) ||
                           p.z != std::ldexp(q.z, exponent);
      }
      EXPECT_EQ(not_finite, 0u) << "deformed vertices that are not finite";
      EXPECT_EQ(deformed_differ, 0u) << "deformed vertices that are not the unit-size scene's times 2^" << exponent;
      if (::testing::Test::HasFailure()) return;  // one scale's report is enough
    }
  }
}

}  // namespace slabcast::test
