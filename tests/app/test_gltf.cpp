// app/formats/gltf_*: the shipped animated scene (assets/animated.gltf and .glb, written by
// assets/make-animated-gltf.py, whose docstring lists every number used here) against positions computed by hand
// in this file: triangle order, static bake, appearance, the rig's layout, posed world positions of LINEAR, STEP and
// CUBICSPLINE channels between and outside their keys; .gltf = .glb; broken files end in clear errors.
#include "app/formats/gltf_animation.h"
#include "app/formats/gltf_mesh.h"
#include "app/formats/rig_pose.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace slabcast {
namespace {

const std::string kAssets = std::string(SLABCAST_SOURCE_DIR) + "/assets/";
constexpr float kTol = 1e-5f;

// ---- the scene's layout (make-animated-gltf.py): flattened vertex ranges and palette entries ----
constexpr uint32_t kQuadFirst = 0, kTriFirst = 4, kStripFirst = 7, kBladeFirst = 11, kArmFirst = 15, kMorphFirst = 23;
constexpr size_t kVertices = 26, kTriangles = 14;
const double kS = std::sqrt(0.5);

glm::vec3 rot_z(glm::vec3 p, double degrees) {  // rotation about +Z, by hand
  const double a = degrees * M_PI / 180.0;
  return glm::vec3(float(std::cos(a) * p.x - std::sin(a) * p.y), float(std::sin(a) * p.x + std::cos(a) * p.y), p.z);
}
// Hermite basis (glTF Appendix C), written out again here rather than taken from the evaluator.
double h00(double u) { return 2 * u * u * u - 3 * u * u + 1; }
double h10(double u) { return u * u * u - 2 * u * u + u; }
double h01(double u) { return -2 * u * u * u + 3 * u * u; }

GltfModel load_animated(const std::string& ext, std::vector<std::string>* warnings = nullptr) {
  return load_gltf_model(kAssets + "animated." + ext, {}, [&](const std::string& w) {
    if (warnings) warnings->push_back(w);
  });
}

std::vector<glm::vec3> world(const GltfModel& m, const std::string& animation, double t) {
  return apply_rig(m.mesh, m.animations->pose_at(m.animations->find_animation(animation), t));
}

// Local (authored) positions of the scene's rigged primitives.
glm::vec3 arm_local(int i) { return glm::vec3(float(i / 2), (i % 2) ? 0.5f : 0.0f, 0.0f); }
const glm::vec3 kBlade[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {-1, 0, 0}};
const glm::vec3 kMorph[3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};

#define EXPECT_VEC3_NEAR(actual, expected)                                                       \
  do {                                                                                           \
    const glm::vec3 a_ = (actual), e_ = (expected);                                              \
    EXPECT_NEAR(a_.x, e_.x, kTol) << #actual;                                                    \
    EXPECT_NEAR(a_.y, e_.y, kTol) << #actual;                                                    \
    EXPECT_NEAR(a_.z, e_.z, kTol) << #actual;                                                    \
  } while (0)

// The static parts at rest, the same in every pose: quad and tri under static_parent T(5,0,0) S(2).
void expect_static_parts(const std::vector<glm::vec3>& w) {
  const glm::vec3 quad[4] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
  for (int i = 0; i < 4; ++i) EXPECT_VEC3_NEAR(w[kQuadFirst + i], glm::vec3(5, 0, 0) + 2.0f * quad[i]);
  // static_child adds T(0,1,0) inside the parent's scale; tri's vertex 1 comes from the sparse accessor.
  const glm::vec3 tri[3] = {{0, 0, 0}, {2, 0, 0}, {0, 1, 0}};
  for (int i = 0; i < 3; ++i) EXPECT_VEC3_NEAR(w[kTriFirst + i], glm::vec3(5, 2, 0) + 2.0f * tri[i]);
  const glm::vec3 strip[4] = {{0, 0, 1}, {1, 0, 1}, {0, 1, 1}, {1, 1, 1}};
  for (int i = 0; i < 4; ++i) EXPECT_VEC3_NEAR(w[kStripFirst + i], glm::vec3(5, 2, 0) + 2.0f * strip[i]);
}

TEST(GltfScene, TrianglesFollowRootsThenChildrenThenPrimitivesThenIndices) {
  std::vector<std::string> warnings;
  const GltfModel m = load_animated("gltf", &warnings);
  ASSERT_EQ(m.mesh.positions.size(), kVertices);
  ASSERT_EQ(m.mesh.triangle_count(), kTriangles);
  std::vector<uint32_t> expected = {0, 1, 2, 0, 2, 3,  // quad (static_parent, the first root)
                                    4, 5, 6,           // tri primitive 0 (static_child), not indexed
                                    7, 8, 9, 8, 10, 9,  // tri primitive 1: strip, the odd triangle flipped
                                    12, 13, 11, 13, 14, 11};  // blade (spinner): fan
  for (uint32_t i = 0; i < 3; ++i) {  // arm (skinned)
    const uint32_t a = kArmFirst + 2 * i;
    expected.insert(expected.end(), {a, a + 2, a + 3, a, a + 3, a + 1});
  }
  expected.insert(expected.end(), {23, 24, 25});  // morph_tri (morpher), not indexed
  EXPECT_EQ(m.mesh.indices, expected);
  EXPECT_EQ(m.mesh.name, "animated.gltf");
  // Points are skipped with one warning naming the file.
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("animated.gltf"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("mesh 2 primitive 1"), std::string::npos) << warnings[0];
}

TEST(GltfScene, StaticNodesAreBakedAndTheRestPoseIsAsAuthored) {
  const GltfModel m = load_animated("gltf");
  ASSERT_TRUE(m.animations);
  // In the rig's space static vertices are world positions already, rigged ones local; Mesh::positions is the
  // rest pose in world space.
  expect_static_parts(m.mesh.rig.positions);
  const std::vector<glm::vec3> w = apply_rig(m.mesh, m.animations->rest_pose());
  expect_static_parts(w);
  EXPECT_EQ(m.mesh.positions, w);
  for (int i = 0; i < 4; ++i) EXPECT_VEC3_NEAR(w[kBladeFirst + i], kBlade[i] + glm::vec3(0, 4, 0));
  // The skinned node's translation (100, 0, 0) is ignored; the inverse binds undo the joints' rest globals.
  for (int i = 0; i < 8; ++i) EXPECT_VEC3_NEAR(w[kArmFirst + i], arm_local(i));
  // morpher: node weights [0.5, 0] override the mesh's [0.25, 0]; then T(0, 0, -3).
  for (int i = 0; i < 3; ++i) EXPECT_VEC3_NEAR(w[kMorphFirst + i], kMorph[i] + glm::vec3(0, 0, 0.5f - 3.0f));

  // load_gltf: the same rest pose, static.
  const Mesh baked = load_gltf(kAssets + "animated.gltf");
  EXPECT_TRUE(baked.rig.empty());
  ASSERT_EQ(baked.positions.size(), w.size());
  for (size_t v = 0; v < w.size(); ++v) EXPECT_EQ(baked.positions[v], w[v]) << "vertex " << v;
  EXPECT_EQ(baked.indices, m.mesh.indices);
}

TEST(GltfScene, RigIsUniformWithTwoWeightSets) {
  const GltfModel m = load_animated("gltf");
  const MeshRig& r = m.mesh.rig;
  ASSERT_EQ(r.influences, 8);  // 2 sets x 4
  // Palette: identity, spinner, skin (root, mid, tip), morpher: in scene order.
  ASSERT_EQ(r.palette_size, 6u);
  ASSERT_EQ(r.morph_weight_count, 2u);
  ASSERT_EQ(r.joints.size(), kVertices * 8);
  ASSERT_EQ(r.weights.size(), kVertices * 8);
  for (uint32_t v = 0; v < kVertices; ++v) {
    const uint32_t* j = &r.joints[v * 8];
    const float* w = &r.weights[v * 8];
    for (int k = 0; k < 8; ++k) EXPECT_LT(j[k], r.palette_size);
    if (v < kBladeFirst) {
      EXPECT_EQ(j[0], 0u);
      EXPECT_EQ(w[0], 1.0f);
    } else if (v < kArmFirst) {
      EXPECT_EQ(j[0], 1u);
      EXPECT_EQ(w[0], 1.0f);
    } else if (v < kMorphFirst) {
      const int x = int(v - kArmFirst) / 2;
      const float w0[4][2] = {{1, 0}, {0, 1}, {0, 0.6f}, {0, 0}};
      const float w1[4] = {0, 0, 102.0f / 255.0f, 1};
      EXPECT_EQ(j[0], 2u);  // root
      EXPECT_EQ(j[1], 3u);  // mid
      EXPECT_EQ(j[4], 4u);  // tip, from JOINTS_1
      EXPECT_EQ(w[0], w0[x][0]);
      EXPECT_EQ(w[1], w0[x][1]);
      EXPECT_NEAR(w[4], w1[x], 1e-7);
      continue;
    } else {
      EXPECT_EQ(j[0], 5u);
      EXPECT_EQ(w[0], 1.0f);
    }
    for (int k = 1; k < 8; ++k) EXPECT_EQ(w[k], 0.0f);
  }
  ASSERT_EQ(r.morph_targets.size(), 2u);
  EXPECT_EQ(r.morph_targets[0].first_vertex, kMorphFirst);
  EXPECT_EQ(r.morph_targets[0].weight, 0u);
  EXPECT_EQ(r.morph_targets[1].weight, 1u);
  const std::vector<glm::vec3> sparse = {{0, 0, 0}, {0, 0, 0}, {0, 1, 0}};
  EXPECT_EQ(r.morph_targets[1].position_deltas, sparse);
}

TEST(GltfScene, Appearance) {
  const GltfModel m = load_animated("gltf");
  const Mesh& mesh = m.mesh;
  ASSERT_EQ(mesh.materials.size(), 3u);  // textured, red, default white
  EXPECT_EQ(mesh.materials[0].texture, 0);
  EXPECT_EQ(mesh.materials[1].base_color, glm::vec4(0.8f, 0.1f, 0.1f, 1.0f));
  EXPECT_EQ(mesh.materials[1].texture, -1);
  EXPECT_EQ(mesh.materials[2].base_color, glm::vec4(1.0f));
  const std::vector<uint32_t> mats = {0, 0, 1, 2, 2, 1, 1, 2, 2, 2, 2, 2, 2, 2};
  EXPECT_EQ(mesh.triangle_materials, mats);
  // The 2x2 RGB PNG as RGBA8, top row first: red, green / blue, white.
  ASSERT_EQ(mesh.textures.size(), 1u);
  EXPECT_EQ(mesh.textures[0].width, 2);
  EXPECT_EQ(mesh.textures[0].height, 2);
  const std::vector<uint8_t> rgba = {255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255};
  EXPECT_EQ(mesh.textures[0].rgba, rgba);
  // Corner UVs: the quad's as stored, (0, 0) for untextured triangles.
  ASSERT_EQ(mesh.corner_uvs.size(), 3 * kTriangles);
  const glm::vec2 uv[4] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
  const int corners[6] = {0, 1, 2, 0, 2, 3};
  for (int c = 0; c < 6; ++c) EXPECT_EQ(mesh.corner_uvs[size_t(c)], uv[corners[c]]);
  for (size_t c = 6; c < mesh.corner_uvs.size(); ++c) EXPECT_EQ(mesh.corner_uvs[c], glm::vec2(0.0f));
  // COLOR_0 (float RGB) rounded to 8 bits; white elsewhere.
  ASSERT_EQ(mesh.vertex_colors.size(), kVertices);
  auto rgba_of = [&](size_t v) {
    const Color8 c = mesh.vertex_colors[v];
    return std::vector<int>{c.r, c.g, c.b, c.a};
  };
  EXPECT_EQ(rgba_of(0), (std::vector<int>{255, 0, 0, 255}));
  EXPECT_EQ(rgba_of(2), (std::vector<int>{0, 0, 255, 255}));
  EXPECT_EQ(rgba_of(3), (std::vector<int>{128, 128, 128, 255}));
  EXPECT_EQ(rgba_of(4), (std::vector<int>{255, 255, 255, 255}));
}

// ---- poses ----

TEST(GltfAnimation, LinearJointRotationAndRootTranslation) {
  const GltfModel m = load_animated("glb");
  // "bend": joint_mid rotates identity -> 90 deg about Z over t = 0..1; joint_root moves (0,0,0) -> (0,2,0) over
  // 0..2. A vertex bound to mid or tip (tip = mid x T(1,0,0), inverse bind T(-2,0,0): the same matrix) turns about
  // the mid joint at (1, root_y, 0).
  struct Case { double t, degrees, root_y; };
  for (const Case c :
       {Case{1.0, 90, 1.0}, Case{0.5, 45, 0.5}, Case{0.25, 22.5, 0.25}, Case{-1, 0, 0}, Case{5, 90, 2}}) {
    SCOPED_TRACE("t = " + std::to_string(c.t));
    const std::vector<glm::vec3> w = world(m, "bend", c.t);
    expect_static_parts(w);
    for (int i = 0; i < 8; ++i) {
      const glm::vec3 p = arm_local(i);
      const glm::vec3 root = p + glm::vec3(0, float(c.root_y), 0);
      const glm::vec3 turned = rot_z(p - glm::vec3(1, 0, 0), c.degrees) + glm::vec3(1, float(c.root_y), 0);
      EXPECT_VEC3_NEAR(w[kArmFirst + i], i / 2 == 0 ? root : turned);
    }
    for (int i = 0; i < 4; ++i) EXPECT_VEC3_NEAR(w[kBladeFirst + i], kBlade[i] + glm::vec3(0, 4, 0));
  }
}

TEST(GltfAnimation, StepHoldsEachKeyUntilTheNext) {
  const GltfModel m = load_animated("gltf");
  // "steps": spinner translation (0,4,0) | (1,4,0) at 1 | (2,4,0) at 2; rotation identity | Rz90 at 1; morpher
  // weights [0,0] | [1,0.5] at 1.
  struct Case { double t, tx, degrees, w0, w1; };
  for (const Case c : {Case{-1, 0, 0, 0, 0}, Case{0.5, 0, 0, 0, 0}, Case{0.999, 0, 0, 0, 0}, Case{1.0, 1, 90, 1, 0.5},
                       Case{1.5, 1, 90, 1, 0.5}, Case{2.0, 2, 90, 1, 0.5}, Case{7, 2, 90, 1, 0.5}}) {
    SCOPED_TRACE("t = " + std::to_string(c.t));
    const std::vector<glm::vec3> w = world(m, "steps", c.t);
    for (int i = 0; i < 4; ++i)
      EXPECT_VEC3_NEAR(w[kBladeFirst + i], rot_z(kBlade[i], c.degrees) + glm::vec3(float(c.tx), 4, 0));
    const glm::vec3 d0(0, 0, 1), d1[3] = {{0, 0, 0}, {0, 0, 0}, {0, 1, 0}};
    for (int i = 0; i < 3; ++i)
      EXPECT_VEC3_NEAR(w[kMorphFirst + i],
                       kMorph[i] + float(c.w0) * d0 + float(c.w1) * d1[i] + glm::vec3(0, 0, -3));
    for (int i = 0; i < 8; ++i) EXPECT_VEC3_NEAR(w[kArmFirst + i], arm_local(i));  // not animated here: at rest
  }
}

TEST(GltfAnimation, CubicSplineUsesTangentsScaledByKeySpacing) {
  const GltfModel m = load_animated("gltf");
  // "smooth": spinner scale keys t = 0, 2: v0 = 1 with out-tangent 1, v1 = 3 with in-tangent 0 (key spacing d = 2);
  // spinner translation y: 4 -> 6 over 0..1, tangents 0; joint_mid rotation identity -> Rz90 over 0..1, tangents 0
  // (normalized after); morpher weights [0,0] -> [1,1] over 0..1, tangents 0.
  for (double t : {-0.5, 0.25, 0.5, 1.0, 1.5, 4.0}) {
    SCOPED_TRACE("t = " + std::to_string(t));
    const double us = std::min(std::max(t / 2.0, 0.0), 1.0), u1 = std::min(std::max(t, 0.0), 1.0);
    const double scale = h00(us) * 1 + h10(us) * 2.0 * 1 + h01(us) * 3;
    const double ty = 4 + 2 * h01(u1);
    // q = h00 (0,0,0,1) + h01 (0,0,s,s), normalized: a rotation about Z by 2 atan2(z, w).
    const double degrees = 2 * std::atan2(h01(u1) * kS, h00(u1) + h01(u1) * kS) * 180.0 / M_PI;
    const double weight = h01(u1);
    const std::vector<glm::vec3> w = world(m, "smooth", t);
    for (int i = 0; i < 4; ++i)
      EXPECT_VEC3_NEAR(w[kBladeFirst + i], float(scale) * kBlade[i] + glm::vec3(0, float(ty), 0));
    for (int i = 2; i < 8; ++i)
      EXPECT_VEC3_NEAR(w[kArmFirst + i], rot_z(arm_local(i) - glm::vec3(1, 0, 0), degrees) + glm::vec3(1, 0, 0));
    EXPECT_VEC3_NEAR(w[kMorphFirst + 2], kMorph[2] + float(weight) * glm::vec3(0, 1, 1) + glm::vec3(0, 0, -3));
  }
  // Spot values of the formulas above: scale 2.25 at t = 1 (u = 0.5), 1.59375 at t = 0.5.
  EXPECT_VEC3_NEAR(world(m, "smooth", 1.0)[kBladeFirst + 1], glm::vec3(2.25f, 6, 0));
  EXPECT_VEC3_NEAR(world(m, "smooth", 0.5)[kBladeFirst + 1], glm::vec3(1.59375f, 5, 0));
}

TEST(GltfAnimation, SampleChannelDirectly) {
  GltfChannel ch;
  ch.width = 1;
  ch.times = {1, 3};
  ch.values = {0, 10};
  double v = -1;
  for (auto [t, want] : {std::pair{0.0, 0.0}, {1.0, 0.0}, {2.0, 5.0}, {2.5, 7.5}, {3.0, 10.0}, {9.0, 10.0}}) {
    sample_channel(ch, t, &v);
    EXPECT_DOUBLE_EQ(v, want) << "linear at " << t;
  }
  ch.interpolation = GltfInterpolation::step;
  sample_channel(ch, 2.9, &v);
  EXPECT_EQ(v, 0.0);
  // Slerp takes the shorter arc: identity -> -Rz90 (the same rotation as Rz90) passes Rz45, not Rz135.
  GltfChannel r;
  r.path = GltfPath::rotation;
  r.width = 4;
  r.times = {0, 1};
  r.values = {0, 0, 0, 1, 0, 0, -kS, -kS};
  double q[4];
  sample_channel(r, 0.5, q);
  const double angle = 2 * std::atan2(q[2], q[3]) * 180.0 / M_PI;
  EXPECT_NEAR(std::fmod(angle + 360.0, 360.0), 45.0, 1e-9) << q[0] << " " << q[1] << " " << q[2] << " " << q[3];
  EXPECT_NEAR(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], 1.0, 1e-12);
}

TEST(GltfAnimation, NamesDurationsAndFind) {
  const GltfModel m = load_animated("gltf");
  const GltfAnimations& a = *m.animations;
  ASSERT_EQ(a.count(), 3);
  EXPECT_EQ(a.name(0), "bend");
  EXPECT_EQ(a.duration(0), 2.0);
  EXPECT_EQ(a.duration(1), 2.0);
  EXPECT_EQ(a.duration(2), 2.0);
  EXPECT_EQ(a.find_animation("steps"), 1);
  EXPECT_EQ(a.find_animation("2"), 2);
  try {
    a.find_animation("walk");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    const std::string msg = e.what();
    for (const char* want : {"animated.gltf", "'walk'", "0 'bend'", "1 'steps'", "2 'smooth'"})
      EXPECT_NE(msg.find(want), std::string::npos) << msg;
  }
  EXPECT_THROW(a.pose_at(3, 0.0), std::out_of_range);
}

TEST(GltfScene, GltfAndGlbGiveTheSameMesh) {
  const GltfModel a = load_animated("gltf"), b = load_animated("glb");
  EXPECT_EQ(a.mesh.positions, b.mesh.positions);
  EXPECT_EQ(a.mesh.indices, b.mesh.indices);
  EXPECT_EQ(a.mesh.corner_uvs, b.mesh.corner_uvs);
  ASSERT_EQ(a.mesh.vertex_colors.size(), b.mesh.vertex_colors.size());
  EXPECT_EQ(0, std::memcmp(a.mesh.vertex_colors.data(), b.mesh.vertex_colors.data(), a.mesh.vertex_colors.size() * 4));
  EXPECT_EQ(a.mesh.triangle_materials, b.mesh.triangle_materials);
  ASSERT_EQ(a.mesh.materials.size(), b.mesh.materials.size());
  for (size_t i = 0; i < a.mesh.materials.size(); ++i) {
    EXPECT_EQ(a.mesh.materials[i].base_color, b.mesh.materials[i].base_color);
    EXPECT_EQ(a.mesh.materials[i].texture, b.mesh.materials[i].texture);
  }
  ASSERT_EQ(a.mesh.textures.size(), b.mesh.textures.size());
  EXPECT_EQ(a.mesh.textures[0].rgba, b.mesh.textures[0].rgba);
  EXPECT_EQ(a.mesh.rig.joints, b.mesh.rig.joints);
  EXPECT_EQ(a.mesh.rig.weights, b.mesh.rig.weights);
  ASSERT_EQ(a.mesh.rig.morph_targets.size(), b.mesh.rig.morph_targets.size());
  for (size_t i = 0; i < a.mesh.rig.morph_targets.size(); ++i)
    EXPECT_EQ(a.mesh.rig.morph_targets[i].position_deltas, b.mesh.rig.morph_targets[i].position_deltas);
  for (int anim = 0; anim < 3; ++anim)
    EXPECT_EQ(apply_rig(a.mesh, a.animations->pose_at(anim, 0.7)), apply_rig(b.mesh, b.animations->pose_at(anim, 0.7)));
}

TEST(GltfScene, ProgressRunsFromZeroToOne) {
  std::vector<double> seen;
  load_gltf(kAssets + "animated.glb", [&](double f) { seen.push_back(f); });
  ASSERT_GE(seen.size(), 2u);
  EXPECT_EQ(seen.front(), 0.0);
  EXPECT_EQ(seen.back(), 1.0);
  for (size_t i = 1; i < seen.size(); ++i) EXPECT_GE(seen[i], seen[i - 1]);
}

// ---- small hand-made files ----

std::string temp_dir() {
  const std::string dir = ::testing::TempDir() + "slabcast_gltf_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  return dir;
}

std::string write_file(const std::string& name, const std::string& bytes) {
  const std::string path = temp_dir() + "/" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

std::string base64(const std::string& in) {
  static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < in.size(); i += 3) {
    uint32_t n = uint32_t(uint8_t(in[i])) << 16;
    if (i + 1 < in.size()) n |= uint32_t(uint8_t(in[i + 1])) << 8;
    if (i + 2 < in.size()) n |= uint8_t(in[i + 2]);
    out += k[(n >> 18) & 63];
    out += k[(n >> 12) & 63];
    out += i + 1 < in.size() ? k[(n >> 6) & 63] : '=';
    out += i + 2 < in.size() ? k[n & 63] : '=';
  }
  return out;
}

// One triangle: 3 float positions then 3 u16 indices (+2 bytes padding) in a data-URI buffer. `edit` rewrites
// the JSON text to break it.
struct Tri {
  std::vector<float> pos = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  std::vector<uint16_t> idx = {0, 1, 2};
  std::string position_count = "3";
  std::string buffer_uri;  // empty: a data URI of the bytes
  std::string extra_json;  // appended to the top-level object
  std::string primitive_extra;
  std::vector<float> tail;     // more floats after the indices (from byte 44), for views_extra
  std::string accessors_extra, views_extra, mesh_extra;
};

std::string tri_gltf(const Tri& t) {
  std::string bytes(reinterpret_cast<const char*>(t.pos.data()), t.pos.size() * 4);
  bytes.append(reinterpret_cast<const char*>(t.idx.data()), t.idx.size() * 2);
  while (bytes.size() % 4) bytes.push_back('\0');
  bytes.append(reinterpret_cast<const char*>(t.tail.data()), t.tail.size() * 4);
  const std::string uri = t.buffer_uri.empty() ? "data:application/octet-stream;base64," + base64(bytes) : t.buffer_uri;
  return R"({"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
 "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1)" +
         t.primitive_extra + R"(}])" + t.mesh_extra + R"(}],
 "accessors": [{"bufferView": 0, "componentType": 5126, "count": )" +
         t.position_count + R"(, "type": "VEC3"},
               {"bufferView": 1, "componentType": 5123, "count": )" +
         std::to_string(t.idx.size()) + R"(, "type": "SCALAR"})" + t.accessors_extra + R"(],
 "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 36},
                 {"buffer": 0, "byteOffset": 36, "byteLength": )" +
         std::to_string(t.idx.size() * 2) + "}" + t.views_extra + R"(],
 "buffers": [{"byteLength": )" +
         std::to_string(bytes.size()) + R"(, "uri": ")" + uri + "\"}]" + t.extra_json + "}";
}

std::string load_error(const std::string& path) {
  try {
    load_gltf(path);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return {};
}

void expect_error(const std::string& path, std::initializer_list<const char*> parts) {
  const std::string msg = load_error(path);
  ASSERT_FALSE(msg.empty()) << path << " loaded";
  EXPECT_EQ(msg.rfind(path + ": ", 0), 0u) << msg;
  for (const char* p : parts) EXPECT_NE(msg.find(p), std::string::npos) << "'" << p << "' not in: " << msg;
}

TEST(GltfBroken, TheHandMadeTriangleLoads) {
  const Mesh m = load_gltf(write_file("ok.gltf", tri_gltf(Tri{})));
  EXPECT_EQ(m.triangle_count(), 1u);
  EXPECT_TRUE(m.rig.empty());
  EXPECT_TRUE(m.materials.empty() || m.materials.size() == 1u);
}

TEST(GltfBroken, ClearErrors) {
  Tri out_of_range;
  out_of_range.idx = {0, 1, 7};
  expect_error(write_file("index.gltf", tri_gltf(out_of_range)), {"index 7", "out of range", "mesh 0 primitive 0"});

  Tri too_many;
  too_many.position_count = "4";  // 48 bytes from a 36-byte view
  expect_error(write_file("bounds.gltf", tri_gltf(too_many)), {"out of bounds", "POSITION", "mesh 0 primitive 0"});

  Tri missing;
  missing.buffer_uri = "nowhere.bin";
  expect_error(write_file("missing.gltf", tri_gltf(missing)), {"nowhere.bin"});

  Tri nan;
  nan.pos[4] = std::nanf("");
  expect_error(write_file("nan.gltf", tri_gltf(nan)), {"non-finite", "POSITION"});

  std::string no_position = tri_gltf(Tri{});
  no_position.replace(no_position.find("\"POSITION\""), 10, "\"NORMAL\"");
  expect_error(write_file("noposition.gltf", no_position), {"no POSITION", "mesh 0 primitive 0"});

  expect_error(write_file("bad.gltf", "{\"asset\": {\"version\": \"2.0\"}, \"nodes\": [ oops"), {"not a valid glTF"});
  expect_error(write_file("empty.gltf", ""), {});
  expect_error(temp_dir() + "/absent.gltf", {"no such file"});
  expect_error(temp_dir(), {"directory"});

  Tri draco;
  draco.extra_json = R"(, "extensionsRequired": ["KHR_draco_mesh_compression"])";
  expect_error(write_file("draco.gltf", tri_gltf(draco)), {"KHR_draco_mesh_compression"});

  Tri cycle;
  cycle.extra_json = "";
  std::string cyclic = tri_gltf(cycle);
  cyclic.replace(cyclic.find("\"nodes\": [{\"mesh\": 0}]"), 22,
                 R"("nodes": [{"mesh": 0}, {"children": [2]}, {"children": [1]}])");
  expect_error(write_file("cycle.gltf", cyclic), {"node"});
}

TEST(GltfBroken, TruncatedAndDamagedGlb) {
  std::ifstream in(kAssets + "animated.glb", std::ios::binary);
  const std::string glb((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(glb.size(), 1000u);
  for (size_t keep : {size_t(0), size_t(4), size_t(11), size_t(19), size_t(100), glb.size() / 2, glb.size() - 1}) {
    SCOPED_TRACE("kept " + std::to_string(keep) + " bytes");
    const std::string msg = load_error(write_file("cut.glb", glb.substr(0, keep)));
    EXPECT_FALSE(msg.empty());
    if (keep >= 4) {
      EXPECT_NE(msg.find("truncated"), std::string::npos) << msg;
    }
  }
  std::string bad_json = glb;
  bad_json[20] = '#';  // the JSON chunk's first byte
  EXPECT_NE(load_error(write_file("badjson.glb", bad_json)).find("not a valid glTF"), std::string::npos);
  std::string version = glb;
  version[4] = 1;
  EXPECT_NE(load_error(write_file("v1.glb", version)).find("version 1"), std::string::npos);
  std::string chunk = glb;
  chunk[12] = char(0xFF);  // the JSON chunk's length now runs past the file
  chunk[13] = char(0xFF);
  EXPECT_NE(load_error(write_file("chunk.glb", chunk)).find("truncated"), std::string::npos);
}

TEST(GltfBroken, AnUndecodableImageIsAWarning) {
  Tri t;
  t.primitive_extra = R"(, "material": 0)";
  t.extra_json = R"(, "materials": [{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}],
    "textures": [{"source": 0}], "images": [{"uri": "data:image/png;base64,AAAAAAAA"}])";
  std::vector<std::string> warnings;
  const Mesh m = load_gltf(write_file("badimage.gltf", tri_gltf(t)), {},
                           [&](const std::string& w) { warnings.push_back(w); });
  ASSERT_EQ(m.materials.size(), 1u);
  EXPECT_EQ(m.materials[0].texture, -1);
  EXPECT_TRUE(m.textures.empty());
  bool named = false;
  for (const std::string& w : warnings) named |= w.find("image 0") != std::string::npos;
  EXPECT_TRUE(named) << (warnings.empty() ? "no warning" : warnings[0]);
}

// A morph target without any animation: the rest weights are baked in and the rig is empty.
TEST(GltfScene, MorphTargetsWithoutAnimationAreBaked) {
  Tri t;
  t.tail = {0, 0, 1, 0, 0, 1, 0, 0, 1};  // deltas (0, 0, 1) at bytes 44..80
  t.views_extra = R"(, {"buffer": 0, "byteOffset": 44, "byteLength": 36})";
  t.accessors_extra = R"(, {"bufferView": 2, "componentType": 5126, "count": 3, "type": "VEC3"})";
  t.primitive_extra = R"(, "targets": [{"POSITION": 2}])";
  t.mesh_extra = R"(, "weights": [0.25])";
  const std::string text = tri_gltf(t);
  const GltfModel m = load_gltf_model(write_file("morph.gltf", text));
  EXPECT_FALSE(m.animations);
  EXPECT_TRUE(m.mesh.rig.empty());
  ASSERT_EQ(m.mesh.positions.size(), 3u);
  EXPECT_VEC3_NEAR(m.mesh.positions[1], glm::vec3(1, 0, 0.25f));
}

}  // namespace
}  // namespace slabcast
