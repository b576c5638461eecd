// The user displacement (renderer.h's Displacement) and the vertex selection (Renderer::select_vertices) on the cpu
// backend: the displacement stacks on the deformer vertex for vertex, draws the image of the mesh moved by hand,
// changes nothing when absent, is copied only for a new key and refuses bad input; the selection equals a brute-force
// loop over the projected vertices, agrees with an independent double-precision projection, and never takes a
// vertex behind the camera.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "render/camera.h"
#include "render/frame_setup.h"
#include "render/renderer.h"
#include "render/scenes.h"
#include "render/stages/select.h"

namespace slabcast::test {
namespace {

constexpr int kWidth = 96, kHeight = 72;

struct Rendered {
  std::vector<uint8_t> rgba;  // rows packed
  FrameExtras extras;
  std::vector<glm::vec3> deformed;
};

Rendered render(Renderer& r, const FrameSettings& f) {
  Rendered out;
  std::vector<uint8_t> pixels;
  const Surface s = host_surface(pixels, f.width, f.height);
  r.render(f, s, &out.extras);
  for (int y = 0; y < f.height; ++y) {
    out.rgba.insert(out.rgba.end(), pixels.begin() + static_cast<std::ptrdiff_t>(s.pitch_bytes * y),
                    pixels.begin() + static_cast<std::ptrdiff_t>(s.pitch_bytes * y + 4 * static_cast<size_t>(f.width)));
  }
  out.deformed = r.last_deformed_positions();
  return out;
}

// A displacement that touches some vertices by a fixed offset and weights others by 0, 1/3, 2/3 and 1.
struct TestDisplacement {
  std::vector<glm::vec3> offsets;
  std::vector<float> weights;
  Displacement d;
  TestDisplacement(size_t vertices, uint64_t key, glm::vec3 offset) : offsets(vertices), weights(vertices) {
    for (size_t v = 0; v < vertices; ++v) {
      offsets[v] = v % 5 == 0 ? glm::vec3(0.01f * static_cast<float>(v % 3), 0.0f, -0.02f) : glm::vec3(0.0f);
      weights[v] = static_cast<float>(v % 4) / 3.0f;
    }
    d.key = key;
    d.offsets = offsets.data();
    d.weights = weights.data();
    d.offset = offset;
  }
  // Where the deform stage puts vertex v that the other deformers left at p (the same float operations).
  glm::vec3 moved(size_t v, glm::vec3 p) const {
    p = p + offsets[v];
    if (weights[v] != 0.0f) p = p + weights[v] * d.offset;
    return p;
  }
};

TEST(Displacement, StacksOnTheDeformerVertexForVertex) {
  const Scene s = procedural_scene("torus", 2000, Deformer::twist, 0.4f);
  std::unique_ptr<Renderer> r = make_renderer(Backend::cpu);
  r->set_mesh(s.mesh);
  FrameSettings f = settings_for(s, kWidth, kHeight, 8);
  const Rendered plain = render(*r, f);
  const TestDisplacement t(s.mesh.positions.size(), 1, glm::vec3(0.1f, -0.05f, 0.2f));
  f.displacement = &t.d;
  const Rendered displaced = render(*r, f);
  ASSERT_EQ(displaced.deformed.size(), plain.deformed.size());
  size_t moved = 0;
  for (size_t v = 0; v < plain.deformed.size(); ++v) {
    ASSERT_EQ(displaced.deformed[v], t.moved(v, plain.deformed[v])) << "vertex " << v;
    moved += displaced.deformed[v] != plain.deformed[v] ? 1 : 0;
  }
  EXPECT_GT(moved, plain.deformed.size() / 2);
  EXPECT_NE(displaced.rgba, plain.rgba);
}

TEST(Displacement, DrawsTheMeshMovedByHand) {
  const Scene s = procedural_scene("torus", 3000);
  const TestDisplacement t(s.mesh.positions.size(), 7, glm::vec3(0.15f, 0.1f, -0.1f));
  Mesh by_hand = s.mesh;
  for (size_t v = 0; v < by_hand.positions.size(); ++v) by_hand.positions[v] = t.moved(v, s.mesh.positions[v]);
  std::unique_ptr<Renderer> r = make_renderer(Backend::cpu), reference = make_renderer(Backend::cpu);
  r->set_mesh(s.mesh);
  reference->set_mesh(by_hand);
  FrameSettings f = settings_for(s, kWidth, kHeight, 8);
  const Rendered expected = render(*reference, f);
  f.displacement = &t.d;
  const Rendered displaced = render(*r, f);
  EXPECT_EQ(displaced.deformed, by_hand.positions);
  EXPECT_EQ(displaced.extras.triangle_id, expected.extras.triangle_id);
  EXPECT_EQ(displaced.rgba, expected.rgba);
}

TEST(Displacement, AbsentOrAllZeroChangesNothing) {
  const Scene s = procedural_scene("torus", 2000, Deformer::wave, 0.7f);
  std::unique_ptr<Renderer> r = make_renderer(Backend::cpu);
  r->set_mesh(s.mesh);
  FrameSettings f = settings_for(s, kWidth, kHeight, 8);
  const Rendered plain = render(*r, f);
  const std::vector<float> zero(s.mesh.positions.size(), 0.0f);
  Displacement d;
  d.key = 3;
  d.weights = zero.data();
  d.offset = glm::vec3(1.0f, 2.0f, 3.0f);
  f.displacement = &d;
  const Rendered zero_weights = render(*r, f);
  EXPECT_EQ(zero_weights.deformed, plain.deformed);
  EXPECT_EQ(zero_weights.rgba, plain.rgba);
  // A displaced frame leaves nothing behind for the next frame without one.
  const TestDisplacement t(s.mesh.positions.size(), 4, glm::vec3(0.2f, 0.0f, 0.0f));
  f.displacement = &t.d;
  EXPECT_NE(render(*r, f).rgba, plain.rgba);
  f.displacement = nullptr;
  const Rendered after = render(*r, f);
  EXPECT_EQ(after.deformed, plain.deformed);
  EXPECT_EQ(after.rgba, plain.rgba);
}

TEST(Displacement, CopiesTheArraysOnlyForANewKey) {
  const Scene s = procedural_scene("torus", 1000);
  std::unique_ptr<Renderer> r = make_renderer(Backend::cpu);
  r->set_mesh(s.mesh);
  FrameSettings f = settings_for(s, 40, 30, 4);
  TestDisplacement t(s.mesh.positions.size(), 10, glm::vec3(0.1f, 0.0f, 0.0f));
  f.displacement = &t.d;
  const std::vector<glm::vec3> first = render(*r, f).deformed;
  // The same key: the renderer keeps the arrays it copied, whatever the caller's now hold.
  const TestDisplacement original = t;
  for (float& w : t.weights) w = 1.0f;
  EXPECT_EQ(render(*r, f).deformed, first);
  // The offset is read every frame.
  t.d.offset = glm::vec3(0.0f, 0.3f, 0.0f);
  TestDisplacement expected = original;
  expected.d.offset = t.d.offset;
  std::vector<glm::vec3> now = render(*r, f).deformed;
  for (size_t v = 0; v < now.size(); ++v) ASSERT_EQ(now[v], expected.moved(v, s.mesh.positions[v])) << v;
  // A new key: the caller's arrays as they are now.
  t.d.key = 11;
  now = render(*r, f).deformed;
  for (size_t v = 0; v < now.size(); ++v) ASSERT_EQ(now[v], t.moved(v, s.mesh.positions[v])) << v;
  // A new mesh forgets the key.
  r->set_mesh(s.mesh);
  t.d.key = 10;
  now = render(*r, f).deformed;
  for (size_t v = 0; v < now.size(); ++v) ASSERT_EQ(now[v], t.moved(v, s.mesh.positions[v])) << v;
}

TEST(Displacement, RefusesBadInput) {
  const Scene s = procedural_scene("torus", 1000);
  std::unique_ptr<Renderer> r = make_renderer(Backend::cpu);
  r->set_mesh(s.mesh);
  FrameSettings f = settings_for(s, 40, 30, 4);
  std::vector<uint8_t> pixels;
  const Surface surface = host_surface(pixels, f.width, f.height);
  TestDisplacement t(s.mesh.positions.size(), 1, glm::vec3(0.1f, 0.0f, 0.0f));
  f.displacement = &t.d;
  t.weights[5] = 1.5f;
  EXPECT_THROW(r->render(f, surface), std::invalid_argument);
  t.weights[5] = 0.5f;
  t.offsets[9].y = NAN;
  t.d.key = 2;
  EXPECT_THROW(r->render(f, surface), std::invalid_argument);
  t.offsets[9].y = 0.0f;
  t.d.key = 3;
  t.d.offset.z = INFINITY;
  EXPECT_THROW(r->render(f, surface), std::invalid_argument);
  t.d.offset.z = 0.0f;
  EXPECT_NO_THROW(r->render(f, surface));
}

// ---- selection ----

// The brute force: every vertex of the frame projected as the renderer's view space holds it, tested against the
// closed rectangle by plain comparisons; records as select_vertices gives them.
std::vector<SelectedVertex> brute_force_selection(const std::vector<glm::vec3>& deformed, const Mesh& mesh,
                                                  const FrameSettings& f, const ImageRect& rect) {
  const MeshBounds bounds = rest_bounds(mesh);
  const ViewParams view = make_view_params(f.camera, f.width, f.height, &bounds);
  std::vector<SelectedVertex> out;
  for (size_t v = 0; v < deformed.size(); ++v) {
    const ViewVertex q{world_to_view(view, Vec3{deformed[v].x, deformed[v].y, deformed[v].z}), 0.0f};
    float x = 0, y = 0, depth = 0;
    project_vertex_one(view, &q, 0, &x, &y, &depth);
    if (!(depth > 0.0f)) continue;
    if (x >= rect.x_min && x <= rect.x_max && y >= rect.y_min && y <= rect.y_max) {
      out.push_back(SelectedVertex{static_cast<uint32_t>(v), x, y, std::ldexp(depth, view.scale_exponent)});
    }
  }
  return out;
}

void expect_same_selection(const std::vector<SelectedVertex>& a, const std::vector<SelectedVertex>& b,
                           const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].vertex, b[i].vertex) << i;
    EXPECT_EQ(a[i].x, b[i].x) << i;
    EXPECT_EQ(a[i].y, b[i].y) << i;
    EXPECT_EQ(a[i].depth, b[i].depth) << i;
  }
}

// The double-precision projection of a world point: (x, y) in pixels and the depth along the view axis.
glm::dvec3 project_in_double(const Camera& c, int w, int h, glm::vec3 p) {
  const glm::dvec3 eye(c.eye), forward = glm::normalize(glm::dvec3(c.target) - eye);
  const glm::dvec3 right = glm::normalize(glm::cross(forward, glm::dvec3(c.up)));
  const glm::dvec3 up = glm::cross(right, forward);
  const glm::dvec3 d = glm::dvec3(p) - eye;
  const double depth = glm::dot(d, forward);
  const double t = std::tan(glm::radians(static_cast<double>(c.fovy_degrees)) / 2.0);
  const double aspect = static_cast<double>(w) / h;
  return {(glm::dot(d, right) / depth / (t * aspect) + 1.0) * 0.5 * w, (1.0 - glm::dot(d, up) / depth / t) * 0.5 * h,
          depth};
}

TEST(SelectVertices, EqualsTheBruteForceAndTheProjectionInDouble) {
  const Scene s = procedural_scene("torus_knot", 4000, Deformer::wave, 0.3f);
  std::unique_ptr<Renderer> r = make_renderer(Backend::cpu);
  r->set_mesh(s.mesh);
  EXPECT_TRUE(r->select_vertices(ImageRect{0, 0, kWidth, kHeight}).empty()) << "no frame yet";
  const FrameSettings f = settings_for(s, kWidth, kHeight, 8);
  const Rendered frame = render(*r, f);
  const std::vector<ImageRect> rects = {
      {30.0f, 20.0f, 60.0f, 50.0f},  {0.0f, 0.0f, kWidth, kHeight}, {47.5f, 0.0f, 48.5f, kHeight},
      {-1e30f, -1e30f, 1e30f, 1e30f}, {60.0f, 20.0f, 30.0f, 50.0f},  {200.0f, 200.0f, 300.0f, 300.0f},
      {40.0f, 30.0f, 40.0f, 30.0f},   {NAN, 0.0f, kWidth, kHeight}};
  for (const ImageRect& rect : rects) {
    const std::string what = "rect (" + std::to_string(rect.x_min) + ", " + std::to_string(rect.y_min) + ") - (" +
                             std::to_string(rect.x_max) + ", " + std::to_string(rect.y_max) + ")";
    const std::vector<SelectedVertex> selected = r->select_vertices(rect);
    expect_same_selection(selected, brute_force_selection(frame.deformed, s.mesh, f, rect), what);
    // Independently: each selected vertex lies in the rectangle, each other one outside it, up to rounding.
    std::vector<bool> in(frame.deformed.size(), false);
    for (const SelectedVertex& v : selected) in[v.vertex] = true;
    for (size_t v = 0; v < frame.deformed.size(); ++v) {
      const glm::dvec3 p = project_in_double(f.camera, kWidth, kHeight, frame.deformed[v]);
      const double e = 1e-3;
      const bool surely_in = p.z > 0 && p.x >= rect.x_min + e && p.x <= rect.x_max - e && p.y >= rect.y_min + e &&
                             p.y <= rect.y_max - e;
      const bool surely_out = !(p.z > 0) || p.x < rect.x_min - e || p.x > rect.x_max + e || p.y < rect.y_min - e ||
                              p.y > rect.y_max + e;
      if (surely_in) {
        EXPECT_TRUE(in[v]) << what << ": vertex " << v << " at " << p.x << ", " << p.y;
      }
      if (surely_out && !std::isnan(rect.x_min)) {
        EXPECT_FALSE(in[v]) << what << ": vertex " << v;
      }
    }
  }
  const size_t in_rect = r->select_vertices(rects[0]).size(), in_image = r->select_vertices(rects[1]).size();
  EXPECT_GT(in_rect, 0u);
  EXPECT_GT(in_image, in_rect);
  EXPECT_TRUE(r->select_vertices(rects[4]).empty()) << "min above max";
}

TEST(SelectVertices, NeverTakesAVertexBehindTheCamera) {
  // The camera at the sphere's centre looking along -Z: half of the vertices lie behind it.
  const Scene s = procedural_scene("sphere", 3000);
  std::unique_ptr<Renderer> r = make_renderer(Backend::cpu);
  r->set_mesh(s.mesh);
  FrameSettings f = settings_for(s, kWidth, kHeight, 8);
  f.camera.eye = glm::vec3(0.0f, 0.0f, 0.01f);
  f.camera.target = glm::vec3(0.0f, 0.0f, -1.0f);
  f.camera.fovy_degrees = 120.0f;
  const Rendered frame = render(*r, f);
  const ImageRect everywhere{-INFINITY, -INFINITY, INFINITY, INFINITY};
  const std::vector<SelectedVertex> selected = r->select_vertices(everywhere);
  expect_same_selection(selected, brute_force_selection(frame.deformed, s.mesh, f, everywhere), "everywhere");
  size_t in_front = 0;
  for (const glm::vec3& p : frame.deformed) in_front += p.z < 0.01f ? 1 : 0;
  EXPECT_GT(in_front, 0u);
  EXPECT_LT(in_front, frame.deformed.size());
  EXPECT_EQ(selected.size(), in_front);
  for (const SelectedVertex& v : selected) {
    EXPECT_GT(v.depth, 0.0f);
    EXPECT_LT(frame.deformed[v.vertex].z, 0.01f);
  }
}

TEST(SelectVertices, FollowsTheDisplacedVertices) {
  const Scene s = procedural_scene("torus", 2000);
  std::unique_ptr<Renderer> r = make_renderer(Backend::cpu);
  r->set_mesh(s.mesh);
  FrameSettings f = settings_for(s, kWidth, kHeight, 8);
  render(*r, f);
  const ImageRect left{0.0f, 0.0f, kWidth / 2.0f, kHeight};
  const std::vector<SelectedVertex> before = r->select_vertices(left);
  ASSERT_FALSE(before.empty());
  // Everything moves far to the right: nothing is left in the left half.
  const std::vector<float> ones(s.mesh.positions.size(), 1.0f);
  Displacement d;
  d.key = 1;
  d.weights = ones.data();
  d.offset = 100.0f * glm::normalize(glm::cross(s.camera.target - s.camera.eye, s.camera.up));
  f.displacement = &d;
  const Rendered moved = render(*r, f);
  expect_same_selection(r->select_vertices(left), brute_force_selection(moved.deformed, s.mesh, f, left), "moved");
  EXPECT_TRUE(r->select_vertices(left).empty());
}

}  // namespace
}  // namespace slabcast::test
