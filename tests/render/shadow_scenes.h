// Scenes of the shadow tests (cpu vs the exact test, cuda vs cpu): each a mesh, a camera and a light.
#pragma once
#include <glm/glm.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "render/renderer.h"
#include "render/scenes.h"

namespace slabcast::test {

struct ShadowScene {
  Scene scene;
  Light light;
};

inline Light sun(float x, float y, float z) { return Light{LightType::sun, glm::vec3(x, y, z)}; }
inline Light point_light(float x, float y, float z) { return Light{LightType::point, glm::vec3(x, y, z)}; }

// The model on a floor (render/renderer.h: add_floor), seen from above at an angle.
inline Scene on_floor(const std::string& name, uint64_t triangles, Deformer deformer = Deformer::none) {
  Scene s = procedural_scene(name, triangles, deformer, 0.7f);
  add_floor(s.mesh);
  s.camera = frame_mesh(s.mesh);
  s.camera.eye = s.camera.target + glm::vec3(1.6f, 2.0f, 3.2f);
  s.label = s.mesh.name + (deformer == Deformer::none ? "" : " deformed");
  return s;
}

// Inside a closed box room of 12 triangles (its walls cross the camera plane), a torus knot; the camera inside.
inline Scene room_scene() {
  Scene s = procedural_scene("torus_knot", 1200);
  const float r = 3.0f;
  const glm::vec3 c[8] = {{-r, -r, -r}, {r, -r, -r}, {r, r, -r}, {-r, r, -r},
                          {-r, -r, r},  {r, -r, r},  {r, r, r},  {-r, r, r}};
  const uint32_t v = static_cast<uint32_t>(s.mesh.positions.size());
  for (const glm::vec3& p : c) s.mesh.positions.push_back(p);
  const uint32_t faces[12][3] = {{0, 2, 1}, {0, 3, 2}, {4, 5, 6}, {4, 6, 7}, {0, 1, 5}, {0, 5, 4},
                                 {3, 6, 2}, {3, 7, 6}, {0, 4, 7}, {0, 7, 3}, {1, 2, 6}, {1, 6, 5}};
  for (const auto& f : faces) s.mesh.indices.insert(s.mesh.indices.end(), {v + f[0], v + f[1], v + f[2]});
  s.mesh.name = "room";
  s.label = "torus knot in a closed room, camera inside";
  s.camera = Camera{};
  s.camera.eye = glm::vec3(0.5f, 0.8f, 2.4f);
  s.camera.target = glm::vec3(0.0f, 0.0f, 0.0f);
  s.camera.fovy_degrees = 80.0f;
  return s;
}

// The torus knot on a floor under a cloud of `slivers` long, thin triangles of random heading, between the knot's top
// and half its height above it, each from `reach` / 4 to 5 `reach` / 4 of the knot's width long: their light-space
// boxes are wide, so light tiles hold long lists (several rounds of the cuda test's warps), and most of a list misses
// a given shadow ray, so a sample's first blocker lies deep in it. Long slivers cover so many light tiles that they
// go to the large triangles' list instead, which then is hundreds long.
inline Scene sliver_cloud_scene(int slivers, float reach) {
  Scene s = procedural_scene("torus_knot", 2000, Deformer::none, 0.7f);
  glm::vec3 lo = s.mesh.positions[0], hi = lo;
  for (const glm::vec3& p : s.mesh.positions) {
    lo = glm::min(lo, p);
    hi = glm::max(hi, p);
  }
  add_floor(s.mesh);
  const glm::vec3 size = hi - lo;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  for (int i = 0; i < slivers; ++i) {
    const glm::vec3 centre(lo.x + size.x * unit(rng), hi.y + 0.5f * size.y * unit(rng), lo.z + size.z * unit(rng));
    const float heading = 6.2831853f * unit(rng), length = reach * size.x * (0.25f + unit(rng));
    const glm::vec3 along(std::cos(heading), 0.0f, std::sin(heading)), across(-along.z, 0.0f, along.x);
    const uint32_t v = static_cast<uint32_t>(s.mesh.positions.size());
    s.mesh.positions.push_back(centre - along * (0.5f * length));
    s.mesh.positions.push_back(centre + along * (0.5f * length) + across * (0.01f * length));
    s.mesh.positions.push_back(centre + along * (0.5f * length) - across * (0.01f * length) +
                               glm::vec3(0.0f, 0.02f * length, 0.0f));
    s.mesh.indices.insert(s.mesh.indices.end(), {v, v + 1, v + 2});
  }
  s.camera = frame_mesh(s.mesh);
  s.camera.eye = s.camera.target + glm::vec3(1.6f, 2.0f, 3.2f);
  s.mesh.name = "sliver_cloud";
  s.label = "torus knot on a floor under " + std::to_string(slivers) + " slivers";
  return s;
}

// The shadow cases: suns and point lights, a point light inside a closed mesh, behind the camera, the headlight,
// a deforming mesh, the camera inside a room, the stress scene (huge triangles and slivers).
inline std::vector<ShadowScene> shadow_scenes() {
  std::vector<ShadowScene> v;
  v.push_back({on_floor("torus_knot", 2000), sun(1.0f, 2.0f, 0.5f)});
  v.push_back({on_floor("torus_knot", 2000), sun(-3.0f, 0.4f, 1.0f)});  // low sun: long shadows, grazing floor
  v.push_back({on_floor("torus", 1500, Deformer::twist), point_light(0.4f, 1.6f, 0.3f)});
  {
    Scene s = on_floor("sphere", 800);
    v.push_back({s, point_light(0.1f, 0.2f, -0.1f)});  // inside the closed sphere
  }
  {
    Scene s = on_floor("torus_knot", 2000, Deformer::wave);
    v.push_back({s, point_light(s.camera.eye.x * 1.5f, s.camera.eye.y * 1.5f, s.camera.eye.z * 1.5f)});  // behind
  }
  v.push_back({on_floor("torus_knot", 2000), Light{}});  // headlight: everything lit but rounding cases
  v.push_back({room_scene(), point_light(-1.0f, 2.0f, 1.0f)});
  v.push_back({room_scene(), sun(0.3f, 1.0f, 0.2f)});  // the room's walls shadow everything inside
  {
    // Seen from where the case was set up: the unit sphere's bounding-sphere fit, 1.05 / sin(22.5 degrees) on +Z, a
    // little farther than frame_mesh's eye. The share of rounding cases (the slivers and the zero-area triangle
    // graze shadow rays) moves with the view; there it is under the test's bound.
    Scene s = procedural_scene("stress", 1500);
    s.camera.target = glm::vec3(0.0f);
    s.camera.eye = glm::vec3(0.0f, 0.0f, 2.74378228f);
    v.push_back({s, sun(0.5f, 1.0f, 2.0f)});
  }
  return v;
}

inline std::string shadow_case_label(const ShadowScene& c) {
  const char* kind = c.light.type == LightType::sun ? "sun" : c.light.type == LightType::point ? "point" : "headlight";
  return c.scene.label + ", " + kind;
}

inline FrameSettings shadow_settings(const ShadowScene& c, int width, int height) {
  FrameSettings f;
  f.width = width;
  f.height = height;
  f.camera = c.scene.camera;
  f.deform = c.scene.deform;
  f.slabs = 8;
  f.light = c.light;
  f.shadows = true;
  return f;
}

}  // namespace slabcast::test
