// Progressive anti-aliasing in the viewer's session (cpu label, headless in an EGL context; skipped without one):
// with refine_samples, a resting image gains one sample a frame until it is the N-sample frame of `slabcast render`,
// bit for bit, and then stays; a camera move or the clock moving a deformer starts again at one sample.
#include "app/gl/egl_context.h"
#include "app/viewer/session.h"
#include "tests/app/viewer/session_oom_util.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "app/gl/gl_util.h"
#include "render/renderer.h"

namespace slabcast::viewer {
namespace {

// The frame of `settings` rendered whole by a cpu renderer of its own, top row first.
std::vector<uint8_t> whole_frame(const Mesh& mesh, const FrameSettings& settings) {
  std::unique_ptr<Renderer> renderer = make_renderer(Backend::cpu);
  renderer->set_mesh(mesh);
  std::vector<uint8_t> pixels(4 * static_cast<size_t>(settings.width) * settings.height);
  renderer->render(settings, Surface{pixels.data(), settings.width, settings.height, 4 * size_t(settings.width)});
  return pixels;
}

TEST(SessionSamples, RestingRefinesToTheWholeFrameAndAChangeRestarts) {
  std::unique_ptr<gl::EglContext> egl;
  try {
    egl = std::make_unique<gl::EglContext>(-1);
  } catch (const std::exception& e) {
    GTEST_SKIP() << "no OpenGL 4.5 context through EGL: " << e.what();
  }
  const int w = 80, h = 60;
  ViewOptions options = session_test::still_torus_options(3000, Backend::cpu);
  options.frame.samples = 4;
  Session session(options, egl->on_cuda_device(), egl->description(), /*windowed=*/false);
  EXPECT_FALSE(session.refine_samples) << "headless frames render all their samples, as `slabcast render` does";
  EXPECT_EQ(session.samples_in_image(), 4);
  session.refine_samples = true;
  gl::OffscreenTarget target(w, h);

  std::vector<uint8_t> shown;
  for (int k = 1; k <= 4; ++k) {
    shown = session_test::frame(session, target, w, h);
    EXPECT_EQ(session.samples_in_image(), k);
    if (k < 4) {
      EXPECT_NE(shown, whole_frame(*session.mesh(), session.settings)) << k << " samples: whole too early";
    }
  }
  EXPECT_EQ(shown, whole_frame(*session.mesh(), session.settings)) << "after 4 frames: the 4-sample frame";
  // At rest with every sample in: nothing more to render, the same image on screen.
  const uint64_t tests_before = session.stats.ray_triangle_tests;
  EXPECT_EQ(session_test::frame(session, target, w, h), shown);
  EXPECT_EQ(session.samples_in_image(), 4);
  EXPECT_EQ(session.stats.ray_triangle_tests, tests_before);

  // The camera moves: one sample again, then the new view refines.
  session.camera.orbit(12.0f, 0.0f);
  session_test::frame(session, target, w, h);
  EXPECT_EQ(session.samples_in_image(), 1);
  session_test::frame(session, target, w, h);
  EXPECT_EQ(session.samples_in_image(), 2);

  // The clock moves a deformer: every frame one sample, the newest time's.
  session.settings.deform = DeformParams{Deformer::twist, 1.0f, 0.0f};
  session.animate = true;
  for (int frame = 0; frame < 3; ++frame) {
    session.advance_time(1.0 / 30.0);
    session_test::frame(session, target, w, h);
    EXPECT_EQ(session.samples_in_image(), 1) << frame;
  }
  // The clock stops: the image refines again.
  session.animate = false;
  session.advance_time(1.0 / 30.0);
  session_test::frame(session, target, w, h);
  EXPECT_EQ(session.samples_in_image(), 2);
}

}  // namespace
}  // namespace slabcast::viewer
