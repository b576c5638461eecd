// Procedural meshes and validation (renderer.h); the default camera is framing.cpp's.
#include <glm/glm.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "render/appearance.h"
#include "render/backends.h"
#include "render/renderer.h"
#include "render/rig_setup.h"

namespace slabcast {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr uint64_t kMaxProceduralTriangles = uint64_t(1) << 30;
// Host bytes a procedural mesh takes while it is built: 12 of indices and about 6 of positions (a vertex per two
// triangles) per triangle, and the index vector's growth, which copies it into one twice its size.
constexpr uint64_t kProceduralBuildBytesPerTriangle = 30;

glm::vec3 vec3d(double x, double y, double z) {
  return glm::vec3(static_cast<float>(x), static_cast<float>(y), static_cast<float>(z));
}

// A closed (u periodic, v periodic) grid of nu x nv quads, two triangles each, vertex (i, j) = at(i, j).
template <typename At>
void add_periodic_grid(Mesh& m, int nu, int nv, At at) {
  const uint32_t base = static_cast<uint32_t>(m.positions.size());
  for (int i = 0; i < nu; ++i) {
    for (int j = 0; j < nv; ++j) m.positions.push_back(at(i, j));
  }
  auto id = [&](int i, int j) { return base + static_cast<uint32_t>((i % nu) * nv + (j % nv)); };
  for (int i = 0; i < nu; ++i) {
    for (int j = 0; j < nv; ++j) {
      const uint32_t a = id(i, j), b = id(i + 1, j), c = id(i + 1, j + 1), d = id(i, j + 1);
      m.indices.insert(m.indices.end(), {a, b, c, a, c, d});
    }
  }
}

// UV sphere of radius 1 at `center`: `stacks` rings of latitude, `slices` of longitude, triangle fans at the
// poles: 2 * slices * (stacks - 1) triangles, outward (counter-clockwise) winding.
void add_uv_sphere(Mesh& m, int stacks, int slices, glm::vec3 center, float radius) {
  const uint32_t base = static_cast<uint32_t>(m.positions.size());
  m.positions.push_back(center + glm::vec3(0, radius, 0));
  for (int i = 1; i < stacks; ++i) {
    const double theta = kPi * i / stacks;
    for (int j = 0; j < slices; ++j) {
      const double phi = 2.0 * kPi * j / slices;
      m.positions.push_back(center + radius * vec3d(std::sin(theta) * std::cos(phi), std::cos(theta),
                                                    -std::sin(theta) * std::sin(phi)));
    }
  }
  m.positions.push_back(center + glm::vec3(0, -radius, 0));
  const uint32_t south = static_cast<uint32_t>(m.positions.size() - 1);
  auto ring = [&](int i, int j) { return base + 1 + static_cast<uint32_t>((i - 1) * slices + (j % slices)); };
  for (int j = 0; j < slices; ++j) m.indices.insert(m.indices.end(), {base, ring(1, j), ring(1, j + 1)});
  for (int i = 1; i + 1 < stacks; ++i) {
    for (int j = 0; j < slices; ++j) {
      const uint32_t a = ring(i, j), b = ring(i + 1, j), c = ring(i + 1, j + 1), d = ring(i, j + 1);
      m.indices.insert(m.indices.end(), {a, b, c, a, c, d});
    }
  }
  for (int j = 0; j < slices; ++j) {
    m.indices.insert(m.indices.end(), {ring(stacks - 1, j), south, ring(stacks - 1, j + 1)});
  }
}

Mesh sphere(uint64_t triangles) {  // 2 * (2n) * (n - 1) ~ 4 n^2 triangles
  const int n = std::max(2, static_cast<int>(std::lround(std::sqrt(static_cast<double>(triangles) / 4.0))));
  Mesh m;
  add_uv_sphere(m, n, 2 * n, glm::vec3(0.0f), 1.0f);
  return m;
}

Mesh torus(uint64_t triangles) {  // 2 * (3n) * n triangles
  const int n = std::max(3, static_cast<int>(std::lround(std::sqrt(static_cast<double>(triangles) / 6.0))));
  const double R = 1.0, r = 0.35;
  Mesh m;
  add_periodic_grid(m, 3 * n, n, [&](int i, int j) {
    const double u = 2.0 * kPi * i / (3 * n), v = 2.0 * kPi * j / n;
    return vec3d((R + r * std::cos(v)) * std::cos(u), r * std::sin(v), -(R + r * std::cos(v)) * std::sin(u));
  });
  return m;
}

Mesh torus_knot(uint64_t triangles) {  // (2, 3) knot, a tube of 2 * (8n) * n triangles
  const int n = std::max(3, static_cast<int>(std::lround(std::sqrt(static_cast<double>(triangles) / 16.0))));
  const int along = 8 * n;
  const double p = 2.0, q = 3.0, tube = 0.13;
  auto curve = [&](double s) {
    const double rr = (2.0 + std::cos(q * s)) / 3.0;
    return glm::dvec3(rr * std::cos(p * s), rr * std::sin(p * s), -std::sin(q * s) / 3.0);
  };
  Mesh m;
  add_periodic_grid(m, along, n, [&](int i, int j) {
    const double s = 2.0 * kPi * i / along, h = 1e-4;
    const glm::dvec3 c = curve(s);
    const glm::dvec3 tangent = glm::normalize(curve(s + h) - curve(s - h));
    const glm::dvec3 accel = curve(s + h) - 2.0 * c + curve(s - h);
    const glm::dvec3 binormal = glm::normalize(glm::cross(tangent, accel));
    const glm::dvec3 normal = glm::cross(binormal, tangent);
    const double v = 2.0 * kPi * j / n;
    const glm::dvec3 pos = c + tube * (std::cos(v) * normal + std::sin(v) * binormal);
    return vec3d(pos.x, pos.y, pos.z);
  });
  return m;
}

// The stress scene: a dense unit sphere at the origin behind a few huge triangles. Seen from frame_mesh's
// camera (eye on +Z at about 2.7, framing the sphere: the huge triangles do not count, see framing_points):
//   0  a floor through the sphere's lower part that crosses the camera plane (a vertex behind the eye)
//   1  a long sliver from just in front of the sphere to far behind it (spans every slab's depth)
//   2  a thin band across the whole screen in front of the sphere
//   3  a huge backdrop behind the sphere, covering part of the screen
//   4  a huge triangle entirely behind the camera (culled)
//   5  a huge zero-area triangle (culled as degenerate)
// then the sphere.
Mesh stress(uint64_t triangles) {
  Mesh m;
  const glm::vec3 big[6][3] = {
      {{-6.0f, -0.7f, -4.0f}, {6.0f, -0.7f, -4.0f}, {0.0f, -0.7f, 8.0f}},
      {{0.25f, -0.9f, 1.6f}, {1.5f, 1.2f, -5.0f}, {1.1f, 1.4f, -5.2f}},
      {{-8.0f, 0.15f, 0.9f}, {8.0f, 0.22f, 0.9f}, {0.0f, 0.32f, 1.1f}},
      {{-20.0f, -15.0f, -8.0f}, {20.0f, -15.0f, -8.0f}, {-20.0f, 25.0f, -8.0f}},
      {{-5.0f, -5.0f, 9.0f}, {5.0f, -5.0f, 9.0f}, {0.0f, 5.0f, 9.0f}},
      {{-4.0f, 0.0f, 0.5f}, {0.0f, 0.0f, 0.5f}, {4.0f, 0.0f, 0.5f}},
  };
  for (const auto& tri : big) {
    for (const glm::vec3& v : tri) {
      m.indices.push_back(static_cast<uint32_t>(m.positions.size()));
      m.positions.push_back(v);
    }
  }
  const uint64_t rest = triangles > 6 + 8 ? triangles - 6 : 8;
  const int n = std::max(2, static_cast<int>(std::lround(std::sqrt(static_cast<double>(rest) / 4.0))));
  add_uv_sphere(m, n, 2 * n, glm::vec3(0.0f), 1.0f);
  return m;
}

}  // namespace

Mesh make_procedural_mesh(const std::string& name, uint64_t triangles) {
  if (triangles == 0 || triangles > kMaxProceduralTriangles) {
    throw std::invalid_argument("procedural mesh '" + name + "': triangle count " + std::to_string(triangles) +
                                " is out of range 1.." + std::to_string(kMaxProceduralTriangles));
  }
  if (name != "sphere" && name != "torus" && name != "torus_knot" && name != "stress") {
    throw std::invalid_argument("unknown procedural mesh '" + name + "' (sphere, torus, torus_knot, stress)");
  }
  const std::string label = name + ":" + std::to_string(triangles);
  check_host_memory(label, triangles * kProceduralBuildBytesPerTriangle, "building the mesh");
  Mesh m;
  try {
    if (name == "sphere") {
      m = sphere(triangles);
    } else if (name == "torus") {
      m = torus(triangles);
    } else if (name == "torus_knot") {
      m = torus_knot(triangles);
    } else {
      m = stress(triangles);
    }
  } catch (const std::bad_alloc&) {  // the check above passed, but the memory went elsewhere (or a limit is set)
    uint64_t available = 0, total = 0;
    host_memory_info(&available, &total);
    throw OutOfMemory(out_of_memory_message("host", label, triangles * kProceduralBuildBytesPerTriangle,
                                            "building the mesh", available, total));
  }
  m.name = label;
  return m;
}

void add_floor(Mesh& mesh) {
  if (mesh.positions.empty()) return;
  glm::vec3 lo = mesh.positions[0], hi = mesh.positions[0];
  for (const glm::vec3& p : mesh.positions) {
    lo = glm::min(lo, p);
    hi = glm::max(hi, p);
  }
  const glm::vec3 c = (lo + hi) * 0.5f;
  float half_x = hi.x - lo.x, half_z = hi.z - lo.z;  // twice the footprint's half sides: 4x its area
  const float side = std::max(half_x, half_z);
  if (!(side > 0.0f)) half_x = half_z = std::max(1.0f, hi.y - lo.y);
  if (!(half_x > 0.0f)) half_x = side;
  if (!(half_z > 0.0f)) half_z = side;
  const uint32_t v = static_cast<uint32_t>(mesh.positions.size());
  mesh.positions.push_back({c.x - half_x, lo.y, c.z - half_z});
  mesh.positions.push_back({c.x - half_x, lo.y, c.z + half_z});
  mesh.positions.push_back({c.x + half_x, lo.y, c.z + half_z});
  mesh.positions.push_back({c.x + half_x, lo.y, c.z - half_z});
  for (uint32_t i : {0u, 1u, 2u, 0u, 2u, 3u}) mesh.indices.push_back(v + i);  // counter-clockwise seen from +Y
  if (!mesh.rig.empty()) {  // the floor stays put: its rig positions are world positions, with no joint weight
    for (int k = 0; k < 4; ++k) {
      mesh.rig.positions.push_back(mesh.positions[v + k]);
      for (int i = 0; i < mesh.rig.influences; ++i) {
        mesh.rig.joints.push_back(0);
        mesh.rig.weights.push_back(0.0f);
      }
    }
  }
  if (!mesh.corner_uvs.empty()) mesh.corner_uvs.resize(mesh.indices.size(), glm::vec2(0.0f));
  if (!mesh.vertex_colors.empty()) mesh.vertex_colors.resize(mesh.positions.size(), Color8{});
  if (!mesh.triangle_materials.empty() || !mesh.materials.empty()) {  // the floor gets a white material of its own
    mesh.triangle_materials.resize(mesh.triangle_count() - 2, 0);
    mesh.materials.push_back(Material{});
    mesh.triangle_materials.resize(mesh.triangle_count(), static_cast<uint32_t>(mesh.materials.size() - 1));
  }
  mesh.name += "+floor";
}

void validate_mesh(const Mesh& mesh) {
  const std::string who = "mesh '" + mesh.name + "': ";
  if (mesh.indices.size() % 3 != 0) {
    throw std::invalid_argument(who + "index count " + std::to_string(mesh.indices.size()) +
                                " is not a multiple of 3");
  }
  if (mesh.triangle_count() == 0) throw std::invalid_argument(who + "no triangles");
  if (mesh.triangle_count() >= 0xFFFFFFFFull) {
    throw std::invalid_argument(who + std::to_string(mesh.triangle_count()) +
                                " triangles; at most 4294967294 (IDs are 32-bit, 0xFFFFFFFF means miss)");
  }
  for (size_t i = 0; i < mesh.indices.size(); ++i) {
    if (mesh.indices[i] >= mesh.positions.size()) {
      throw std::invalid_argument(who + "index out of range at triangle " + std::to_string(i / 3) + ": vertex " +
                                  std::to_string(mesh.indices[i]) + " of " + std::to_string(mesh.positions.size()));
    }
  }
  for (size_t v = 0; v < mesh.positions.size(); ++v) {
    const glm::vec3& p = mesh.positions[v];
    if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z)) {
      throw std::invalid_argument(who + "non-finite coordinate at vertex " + std::to_string(v));
    }
  }
  validate_rig(mesh);
  validate_appearance(mesh);
}

}  // namespace slabcast
