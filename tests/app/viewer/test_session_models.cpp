// The viewer's session (cpu label, headless in an EGL context; skipped without one): choosing a model from the list
// puts its file in the path field (empty for a procedural one); a click picks a pixel, whose triangle, distance,
// vertices and hit point the next frame reads back, the same as a cpu render of that frame shows.
#include "app/gl/egl_context.h"
#include "app/viewer/session.h"
#include "tests/app/viewer/session_oom_util.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "app/gl/gl_util.h"
#include "render/renderer.h"
#include <string>

namespace slabcast::viewer {
namespace {

TEST(SessionModels, ChoosingAModelShowsItsPathInTheField) {
  std::unique_ptr<gl::EglContext> egl;
  try {
    egl = std::make_unique<gl::EglContext>(-1);
  } catch (const std::exception& e) {
    GTEST_SKIP() << "no OpenGL 4.5 context through EGL: " << e.what();
  }
  Session session(session_test::still_torus_options(2000, Backend::cpu), egl->on_cuda_device(), egl->description(),
                  /*windowed=*/false);
  int file_model = -1, procedural_model = -1;
  for (size_t i = 0; i < session.models.size(); ++i) {
    if (!session.models[i].path.empty() && session.models[i].path.find("pawn") != std::string::npos) {
      file_model = static_cast<int>(i);
    }
    if (session.models[i].path.empty() && procedural_model < 0) procedural_model = static_cast<int>(i);
  }
  ASSERT_GE(file_model, 0) << "assets/pawn.obj is not in the model list";
  ASSERT_GE(procedural_model, 0);

  session.path_field = "/somewhere/else.obj";  // typed earlier, never loaded
  session.choose_model(file_model);
  session.wait_for_loading();
  EXPECT_EQ(session.path_field, session.models[static_cast<size_t>(file_model)].path);
  EXPECT_EQ(session.model_index, file_model);
  EXPECT_EQ(session.last_error, "");
  EXPECT_NE(session.mesh_name.find("pawn"), std::string::npos) << session.mesh_name;

  session.choose_model(procedural_model);
  session.wait_for_loading();
  EXPECT_EQ(session.path_field, "");
  EXPECT_EQ(session.model_index, procedural_model);

  session.choose_model(static_cast<int>(session.models.size()));  // out of range: nothing changes
  EXPECT_EQ(session.model_index, procedural_model);
}

// A click's pixel: the next frame reads back what its ray hit, the same as a cpu render of that frame.
TEST(SessionPick, AClickShowsThePixelsTriangleAndHitPoint) {
  std::unique_ptr<gl::EglContext> egl;
  try {
    egl = std::make_unique<gl::EglContext>(-1);
  } catch (const std::exception& e) {
    GTEST_SKIP() << "no OpenGL 4.5 context through EGL: " << e.what();
  }
  const int w = 96, h = 64;
  Session session(session_test::still_torus_options(3000, Backend::cpu), egl->on_cuda_device(), egl->description(),
                  /*windowed=*/false);
  gl::OffscreenTarget target(w, h);
  session_test::frame(session, target, w, h);
  EXPECT_FALSE(session.picked.done);
  session.request_pick(50.5, 30.5);  // framebuffer position: pixel (50, 30)
  session_test::frame(session, target, w, h);
  const Session::Pick& p = session.picked;
  ASSERT_TRUE(p.done);
  EXPECT_EQ(p.px, 50);
  EXPECT_EQ(p.py, 30);
  EXPECT_EQ(p.tile_x, 6);
  EXPECT_EQ(p.tile_y, 3);

  // The same frame on a cpu renderer of its own.
  std::unique_ptr<Renderer> renderer = make_renderer(Backend::cpu);
  renderer->set_mesh(*session.mesh());
  std::vector<uint8_t> pixels(4 * w * h);
  FrameExtras extras;
  renderer->render(session.settings, Surface{pixels.data(), w, h, 4 * static_cast<size_t>(w)}, &extras);
  const size_t pixel = 30 * static_cast<size_t>(w) + 50;
  ASSERT_NE(extras.triangle_id[pixel], 0xFFFFFFFFu) << "the middle of the torus image should be a hit";
  EXPECT_EQ(p.triangle, extras.triangle_id[pixel]);
  EXPECT_EQ(p.distance, extras.depth[pixel]);
  const Mesh& mesh = *session.mesh();
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(p.vertices[k], mesh.indices[3 * static_cast<size_t>(p.triangle) + static_cast<size_t>(k)]);
    EXPECT_EQ(p.positions[k], mesh.positions[p.vertices[k]]);  // a still torus: deformed = rest
  }
  // The hit point lies in the triangle's plane, at the distance from the eye.
  EXPECT_NEAR(glm::dot(p.point - p.positions[0], p.normal), 0.0f, 1e-4f);
  EXPECT_NEAR(glm::length(p.point - session.settings.camera.eye), p.distance, 1e-4f * p.distance);
  EXPECT_NEAR(glm::length(p.normal), 1.0f, 1e-5f);
  // The slab: where that frame's build put the triangle.
  const FrameStructure structure = renderer->last_structure();
  ASSERT_LT(p.triangle, structure.slab_of_triangle.size());
  EXPECT_EQ(p.slab, structure.slab_of_triangle[p.triangle]);
  EXPECT_EQ(p.slabs, session.settings.slabs);
  EXPECT_LT(p.slab, p.slabs);
}

// A click on the background: no triangle, so no slab either.
TEST(SessionPick, AMissHasNoSlab) {
  std::unique_ptr<gl::EglContext> egl;
  try {
    egl = std::make_unique<gl::EglContext>(-1);
  } catch (const std::exception& e) {
    GTEST_SKIP() << "no OpenGL 4.5 context through EGL: " << e.what();
  }
  const int w = 96, h = 64;
  Session session(session_test::still_torus_options(3000, Backend::cpu), egl->on_cuda_device(), egl->description(),
                  /*windowed=*/false);
  gl::OffscreenTarget target(w, h);
  session_test::frame(session, target, w, h);
  session.request_pick(0.5, 0.5);  // the top-left corner, outside the framed torus
  session_test::frame(session, target, w, h);
  ASSERT_TRUE(session.picked.done);
  EXPECT_EQ(session.picked.triangle, 0xFFFFFFFFu);
  EXPECT_EQ(session.picked.slab, -1);
}

}  // namespace
}  // namespace slabcast::viewer
