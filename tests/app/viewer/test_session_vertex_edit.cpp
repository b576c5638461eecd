// Selecting and moving vertices in the viewer (cpu label): VertexEdit against a cpu renderer of its own (no GL), then
// the session's gestures headless in an EGL context (skipped without one). A rectangle selects what a brute-force
// loop over the projected vertices selects; moving the selection moves exactly those vertices by the drag's offset,
// their neighbours on the image partly and smoothly, and nothing else; the move stacks on a deformer; clearing the
// selection keeps the displacement, resetting the displacement brings every vertex back.
#include "app/gl/egl_context.h"
#include "app/gl/gl_util.h"
#include "app/viewer/session.h"
#include "app/viewer/vertex_edit.h"
#include "render/camera.h"
#include "render/frame_setup.h"
#include "render/renderer.h"
#include "render/stages/select.h"
#include "tests/app/viewer/session_oom_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <utility>
#include <vector>

namespace slabcast::viewer {
namespace {

constexpr int kWidth = 96, kHeight = 64;

// The vertices of `deformed` that project into `rect` of a frame of `camera`, by a plain loop (the projection as the
// renderer's select stage computes it, stages/select.h).
std::vector<uint32_t> brute_force_selection(const std::vector<glm::vec3>& deformed, const Mesh& mesh,
                                            const Camera& camera, int w, int h, const ImageRect& rect) {
  const MeshBounds bounds = rest_bounds(mesh);
  const ViewParams view = make_view_params(camera, w, h, &bounds);
  std::vector<uint32_t> out;
  for (size_t v = 0; v < deformed.size(); ++v) {
    const ViewVertex q{world_to_view(view, Vec3{deformed[v].x, deformed[v].y, deformed[v].z}), 0.0f};
    float x = 0, y = 0, depth = 0;
    project_vertex_one(view, &q, 0, &x, &y, &depth);
    if (depth > 0.0f && x >= rect.x_min && x <= rect.x_max && y >= rect.y_min && y <= rect.y_max) {
      out.push_back(static_cast<uint32_t>(v));
    }
  }
  return out;
}

std::vector<uint32_t> indices_of(const std::vector<SelectedVertex>& s) {
  std::vector<uint32_t> out;
  for (const SelectedVertex& v : s) out.push_back(v.vertex);
  return out;
}

struct Still {
  Mesh mesh = make_procedural_mesh("torus", 3000);
  std::unique_ptr<Renderer> renderer = make_renderer(Backend::cpu);
  FrameSettings frame;
  Still() {
    renderer->set_mesh(mesh);
    frame.width = kWidth;
    frame.height = kHeight;
    frame.camera = frame_mesh(mesh, frame.camera.fovy_degrees, static_cast<float>(kWidth) / kHeight);
  }
  std::vector<glm::vec3> render(const Displacement* d) {
    frame.displacement = d;
    std::vector<uint8_t> pixels(4 * static_cast<size_t>(kWidth) * kHeight);
    renderer->render(frame, Surface{pixels.data(), kWidth, kHeight, 4 * static_cast<size_t>(kWidth)});
    return renderer->last_deformed_positions();
  }
};

TEST(VertexEdit, SelectsWhatABruteForceLoopSelects) {
  Still s;
  const std::vector<glm::vec3> rest = s.render(nullptr);
  VertexEdit e;
  e.reset(s.mesh.positions.size());
  EXPECT_EQ(e.displacement(), nullptr);
  e.begin_rectangle(60.0f, 40.0f);
  e.extend_rectangle(30.0f, 20.0f);  // dragged up and left: the rectangle is still (30, 20) - (60, 40)
  const ImageRect r = e.rectangle();
  EXPECT_EQ(r.x_min, 30.0f);
  EXPECT_EQ(r.y_max, 40.0f);
  e.refresh(*s.renderer);
  const std::vector<uint32_t> expected = brute_force_selection(rest, s.mesh, s.frame.camera, kWidth, kHeight, r);
  EXPECT_GT(expected.size(), 10u);
  EXPECT_EQ(indices_of(e.selection()), expected);
  e.clear_selection();
  EXPECT_FALSE(e.has_rectangle());
  EXPECT_TRUE(e.selection().empty());
}

TEST(VertexEdit, MovingMovesTheSelectionWithASmoothFalloff) {
  Still s;
  s.frame.deform = DeformParams{Deformer::wave, 0.8f, 0.3f};  // the move stacks on a deformer
  const std::vector<glm::vec3> before = s.render(nullptr);
  VertexEdit e;
  e.reset(s.mesh.positions.size());
  e.begin_rectangle(38.0f, 24.0f);
  e.extend_rectangle(58.0f, 40.0f);
  e.refresh(*s.renderer);
  const std::vector<uint32_t> selected = indices_of(e.selection());
  ASSERT_FALSE(selected.empty());
  e.begin_move(*s.renderer);
  ASSERT_TRUE(e.moving());
  // Weights: 1 on the selection, in (0, 1) near it, 0 far away; never outside [0, 1].
  const std::vector<float>& w = e.move_weights();
  ASSERT_EQ(w.size(), s.mesh.positions.size());
  std::vector<bool> is_selected(w.size(), false);
  for (uint32_t v : selected) is_selected[v] = true;
  size_t partial = 0, zero = 0;
  for (size_t v = 0; v < w.size(); ++v) {
    ASSERT_GE(w[v], 0.0f);
    ASSERT_LE(w[v], 1.0f);
    if (is_selected[v]) {
      EXPECT_EQ(w[v], 1.0f) << v;
    }
    partial += w[v] > 0.0f && w[v] < 1.0f ? 1 : 0;
    zero += w[v] == 0.0f ? 1 : 0;
  }
  EXPECT_GT(partial, 0u);
  EXPECT_GT(zero, 0u);
  // The weight falls as the distance from the rectangle grows.
  const ImageRect r = e.rectangle();
  std::vector<std::pair<float, float>> by_distance;  // (distance, weight) of the vertices about the rectangle
  for (const SelectedVertex& v : s.renderer->select_vertices({20.0f, 6.0f, 76.0f, 58.0f})) {
    const float dx = std::max({r.x_min - v.x, 0.0f, v.x - r.x_max}), dy = std::max({r.y_min - v.y, 0.0f, v.y - r.y_max});
    by_distance.emplace_back(std::sqrt(dx * dx + dy * dy), w[v.vertex]);
  }
  std::sort(by_distance.begin(), by_distance.end());
  for (size_t i = 1; i < by_distance.size(); ++i) {
    ASSERT_LE(by_distance[i].second, by_distance[i - 1].second) << "at distance " << by_distance[i].first;
  }
  EXPECT_EQ(by_distance.back().second, 0.0f) << "the falloff ends within 18 pixels of a 20 x 16 rectangle";

  e.move(12.0f, -6.0f, s.frame.camera, kHeight);
  const Displacement* d = e.displacement();
  ASSERT_NE(d, nullptr);
  const glm::vec3 offset = d->offset;
  EXPECT_GT(glm::length(offset), 0.0f);
  // In the camera plane: no component along the view direction, to rounding.
  const glm::vec3 forward = glm::normalize(s.frame.camera.target - s.frame.camera.eye);
  EXPECT_LT(std::abs(glm::dot(offset, forward)), 1e-5f * glm::length(offset));
  const std::vector<glm::vec3> moving = s.render(d);
  for (size_t v = 0; v < w.size(); ++v) {
    if (is_selected[v]) {
      ASSERT_EQ(moving[v], before[v] + offset) << "selected vertex " << v;
    } else if (w[v] == 0.0f) {
      ASSERT_EQ(moving[v], before[v]) << "far vertex " << v;
    } else {
      ASSERT_LT(glm::length(moving[v] - before[v]), glm::length(offset)) << "falloff vertex " << v;
      ASSERT_GT(glm::length(moving[v] - before[v]), 0.0f) << "falloff vertex " << v;
    }
  }
  // The rectangle went along: still over the moved vertices.
  EXPECT_EQ(e.rectangle().x_min, 50.0f);
  EXPECT_EQ(e.rectangle().y_min, 18.0f);
  e.end_move();
  EXPECT_FALSE(e.moving());
  EXPECT_TRUE(e.move_weights().empty());
  const std::vector<glm::vec3> after = s.render(e.displacement());
  for (size_t v = 0; v < w.size(); ++v) {
    ASSERT_LT(glm::length(after[v] - moving[v]), 1e-5f) << "the ended move keeps vertex " << v << " where it was";
  }
  // Clearing the selection keeps the displacement; resetting it brings every vertex back.
  e.clear_selection();
  EXPECT_NE(e.displacement(), nullptr);
  e.reset_displacement();
  EXPECT_EQ(e.displacement(), nullptr);
  EXPECT_EQ(s.render(e.displacement()), before);
}

// The gestures through the session, on its own renderer and frames (headless, cpu backend).
TEST(SessionVertexEdit, ShiftDragSelectsMovesAndResets) {
  std::unique_ptr<gl::EglContext> egl;
  try {
    egl = std::make_unique<gl::EglContext>(-1);
  } catch (const std::exception& e) {
    GTEST_SKIP() << "no OpenGL 4.5 context through EGL: " << e.what();
  }
  ViewOptions options = session_test::still_torus_options(3000, Backend::cpu);
  options.frame.deform = DeformParams{Deformer::none, 0.0f, 0.0f};
  Session session(options, egl->on_cuda_device(), egl->description(), /*windowed=*/false);
  gl::OffscreenTarget target(kWidth, kHeight);
  session_test::frame(session, target, kWidth, kHeight);
  const std::vector<glm::vec3> rest = session.deformed_positions();

  // A rectangle dragged from (30, 20) to (60, 44); the next frame's query selects what the brute force does.
  session.begin_vertex_drag(30.0, 20.0);
  session.continue_vertex_drag(60.0, 44.0, 30.0, 24.0);
  session.end_vertex_drag(/*dragged=*/true);
  EXPECT_FALSE(session.vertex_dragging());
  session_test::frame(session, target, kWidth, kHeight);
  const ImageRect rect{30.0f, 20.0f, 60.0f, 44.0f};
  const std::vector<uint32_t> expected =
      brute_force_selection(rest, *session.mesh(), session.settings.camera, kWidth, kHeight, rect);
  ASSERT_GT(expected.size(), 10u);
  EXPECT_EQ(indices_of(session.vertex_edit.selection()), expected);

  // A drag that starts inside the rectangle moves the selection.
  session.begin_vertex_drag(45.0, 30.0);
  session.continue_vertex_drag(53.0, 30.0, 8.0, 0.0);
  const std::vector<float> weights = session.vertex_edit.move_weights();
  session.end_vertex_drag(/*dragged=*/true);
  session_test::frame(session, target, kWidth, kHeight);
  const std::vector<glm::vec3> moved = session.deformed_positions();
  ASSERT_EQ(weights.size(), rest.size());
  const glm::vec3 right = glm::normalize(glm::cross(session.settings.camera.target - session.settings.camera.eye,
                                                    session.settings.camera.up));
  glm::vec3 offset(0.0f);
  for (uint32_t v : expected) {
    EXPECT_EQ(weights[v], 1.0f);
    offset = moved[v] - rest[v];
  }
  EXPECT_GT(glm::dot(offset, right), 0.0f) << "a drag to the right moves the selection right";
  for (size_t v = 0; v < rest.size(); ++v) {
    if (weights[v] == 0.0f) {
      ASSERT_EQ(moved[v], rest[v]) << v;
    } else if (weights[v] == 1.0f) {
      ASSERT_LT(glm::length(moved[v] - rest[v] - offset), 1e-5f) << v;
    }
  }
  // The rectangle followed, and still holds the moved vertices (but for a few at other depths than the median one,
  // which perspective moves by more or fewer pixels).
  EXPECT_EQ(session.vertex_edit.rectangle().x_min, 38.0f);
  std::vector<bool> was_selected(rest.size(), false);
  for (uint32_t v : expected) was_selected[v] = true;
  size_t still = 0;
  for (const SelectedVertex& v : session.vertex_edit.selection()) still += was_selected[v.vertex] ? 1 : 0;
  EXPECT_GT(still, expected.size() * 9 / 10);

  // A Shift + click without a drag clears the selection; the displacement stays until it is reset.
  session.begin_vertex_drag(5.0, 5.0);
  session.end_vertex_drag(/*dragged=*/false);
  EXPECT_FALSE(session.vertex_edit.has_rectangle());
  session_test::frame(session, target, kWidth, kHeight);
  EXPECT_EQ(session.deformed_positions(), moved);
  session.vertex_edit.reset_displacement();
  session_test::frame(session, target, kWidth, kHeight);
  EXPECT_EQ(session.deformed_positions(), rest);
}

}  // namespace
}  // namespace slabcast::viewer
