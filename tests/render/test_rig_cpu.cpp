// The rig (skinning and morph targets, renderer.h's MeshRig) on the cpu backend: posed positions against values
// worked out by hand and against an independent glm evaluation, the rest pose without a pose, the checks of rigs
// and poses, and a floor under a rigged mesh.
#include <glm/gtc/matrix_transform.hpp>
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "render/procedural_rig.h"
#include "render/renderer.h"
#include "render/scenes.h"

namespace slabcast::test {
namespace {

// Renders one frame and returns the deformed positions.
std::vector<glm::vec3> posed(Renderer& r, const Mesh& mesh, const FramePose* pose, Deformer deformer = Deformer::none) {
  FrameSettings f;
  f.width = 32;
  f.height = 24;
  f.camera = frame_mesh(mesh);
  f.deform.kind = deformer;
  f.pose = pose;
  std::vector<uint8_t> pixels;
  r.render(f, host_surface(pixels, f.width, f.height));
  return r.last_deformed_positions();
}

void expect_near(const glm::vec3& got, const glm::vec3& want, float tolerance, const std::string& what) {
  EXPECT_NEAR(got.x, want.x, tolerance) << what;
  EXPECT_NEAR(got.y, want.y, tolerance) << what;
  EXPECT_NEAR(got.z, want.z, tolerance) << what;
}

// Two triangles; joint 0 moves by +1 in x, joint 1 turns a quarter about +Z; one morph target lifts vertices 1 and 2.
Mesh hand_rig() {
  Mesh m;
  m.name = "hand rig";
  m.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}};
  m.indices = {0, 1, 2, 2, 1, 3};
  m.rig.positions = m.positions;
  m.rig.influences = 2;
  m.rig.joints = {0, 1, 0, 1, 0, 1, 0, 1};
  m.rig.weights = {1.0f, 0.0f,   // v0: joint 0 only
                   0.5f, 0.5f,   // v1: half each
                   0.0f, 0.0f,   // v2: no weight, not skinned
                   0.0f, 1.0f};  // v3: joint 1 only
  m.rig.palette_size = 2;
  m.rig.morph_weight_count = 1;
  MorphTarget lift;
  lift.first_vertex = 1;
  lift.weight = 0;
  lift.position_deltas = {{0, 0, 1}, {0, 0, 1}};
  m.rig.morph_targets.push_back(lift);
  return m;
}

FramePose hand_pose() {
  FramePose pose;
  pose.palette = {glm::translate(glm::mat4(1.0f), glm::vec3(1, 0, 0)),
                  glm::rotate(glm::mat4(1.0f), glm::radians(90.0f), glm::vec3(0, 0, 1))};
  pose.morph_weights = {0.5f};
  return pose;
}

TEST(Rig, PosesAsWorkedOutByHand) {
  const Mesh m = hand_rig();
  const FramePose pose = hand_pose();
  auto r = make_renderer(Backend::cpu);
  r->set_mesh(m);
  const std::vector<glm::vec3> p = posed(*r, m, &pose);
  ASSERT_EQ(p.size(), 4u);
  // v0: (0,0,0) + (1,0,0). v1: lifted to (1,0,0.5), then half (2,0,0.5) and half (0,1,0.5). v2: lifted, unskinned.
  // v3: (1,1,0) turned a quarter: (-1,1,0).
  expect_near(p[0], {1, 0, 0}, 1e-6f, "v0");
  expect_near(p[1], {1, 0.5f, 0.5f}, 1e-6f, "v1");
  expect_near(p[2], {0, 1, 0.5f}, 1e-6f, "v2");
  expect_near(p[3], {-1, 1, 0}, 1e-6f, "v3");
}

TEST(Rig, WithoutAPoseTheMeshShowsItsRestPositions) {
  Mesh m = hand_rig();
  for (glm::vec3& p : m.positions) p += glm::vec3(0, 0, -2);  // the world rest pose differs from the rig's space
  auto r = make_renderer(Backend::cpu);
  r->set_mesh(m);
  EXPECT_EQ(posed(*r, m, nullptr), m.positions);
  const FramePose pose = hand_pose();
  EXPECT_NE(posed(*r, m, &pose), m.positions);
  EXPECT_EQ(posed(*r, m, nullptr), m.positions);  // and back
}

// The procedural rig against glm's own evaluation of the formula, and a deformer on top of it.
TEST(Rig, ProceduralRigMatchesAnIndependentEvaluation) {
  Mesh m = make_procedural_mesh("torus_knot", 4000);
  add_procedural_rig(m, 6);
  ASSERT_EQ(m.rig.influences, 4);
  auto r = make_renderer(Backend::cpu);
  r->set_mesh(m);
  for (float t : {0.0f, 0.7f, 2.9f}) {
    const FramePose pose = procedural_rig_pose(m, t);
    const std::vector<glm::vec3> got = posed(*r, m, &pose);
    float moved = 0.0f;
    for (size_t v = 0; v < m.positions.size(); ++v) {
      glm::vec3 q = m.rig.positions[v];
      for (const MorphTarget& target : m.rig.morph_targets) {
        if (v >= target.first_vertex && v - target.first_vertex < target.position_deltas.size()) {
          q += pose.morph_weights[target.weight] * target.position_deltas[v - target.first_vertex];
        }
      }
      glm::vec4 want(0.0f);
      float weight_sum = 0.0f;
      for (int i = 0; i < m.rig.influences; ++i) {
        const float w = m.rig.weights[4 * v + static_cast<size_t>(i)];
        want += w * (pose.palette[m.rig.joints[4 * v + static_cast<size_t>(i)]] * glm::vec4(q, 1.0f));
        weight_sum += w;
      }
      ASSERT_NEAR(weight_sum, 1.0f, 1e-5f);
      expect_near(got[v], glm::vec3(want), 2e-5f, "t " + std::to_string(t) + " vertex " + std::to_string(v));
      if (::testing::Test::HasFailure()) return;
      moved = std::max(moved, glm::length(got[v] - m.positions[v]));
    }
    if (t > 0.0f) {
      EXPECT_GT(moved, 0.01f) << "the pose at t " << t << " should move the mesh";
    }
  }
  // A procedural deformer applies on top of the pose.
  const FramePose pose = procedural_rig_pose(m, 0.7f);
  EXPECT_NE(posed(*r, m, &pose, Deformer::wave), posed(*r, m, &pose));
}

TEST(Rig, BadRigsAndPosesAreRefusedWithClearMessages) {
  auto r = make_renderer(Backend::cpu);
  auto refused = [&](Mesh m, const std::string& words) {
    try {
      r->set_mesh(m);
      ADD_FAILURE() << "accepted a rig with " << words;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  Mesh m = hand_rig();
  m.rig.joints[3] = 2;
  refused(m, "refers to joint 2 of a palette of 2");
  m = hand_rig();
  m.rig.morph_targets[0].first_vertex = 3;
  refused(m, "past the 4 vertices");
  m = hand_rig();
  m.rig.weights.pop_back();
  refused(m, "joints and weights must have 8 entries");
  m = hand_rig();
  m.rig.positions.pop_back();
  refused(m, "3 positions for 4 vertices");
  m = hand_rig();
  m.rig.weights[0] = NAN;
  refused(m, "non-finite weight at vertex 0");

  m = hand_rig();
  r->set_mesh(m);
  FramePose pose = hand_pose();
  pose.palette.pop_back();
  EXPECT_THROW(posed(*r, m, &pose), std::invalid_argument);
  pose = hand_pose();
  pose.morph_weights[0] = INFINITY;
  EXPECT_THROW(posed(*r, m, &pose), std::invalid_argument);
  pose = hand_pose();
  EXPECT_NO_THROW(posed(*r, m, &pose));  // the renderer still works
}

TEST(Rig, AFloorUnderARiggedMeshStaysPut) {
  Mesh m = hand_rig();
  add_floor(m);
  ASSERT_EQ(m.positions.size(), 8u);
  auto r = make_renderer(Backend::cpu);
  r->set_mesh(m);
  const FramePose pose = hand_pose();
  const std::vector<glm::vec3> p = posed(*r, m, &pose);
  for (size_t v = 4; v < 8; ++v) EXPECT_EQ(p[v], m.positions[v]) << v;
  expect_near(p[3], {-1, 1, 0}, 1e-6f, "v3");
}

}  // namespace
}  // namespace slabcast::test
