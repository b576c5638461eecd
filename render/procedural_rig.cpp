#include "render/procedural_rig.h"

#include <glm/gtc/matrix_transform.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace slabcast {
namespace {

struct HeightRange {
  glm::vec3 lo, hi;
};

HeightRange box_of(const std::vector<glm::vec3>& positions) {
  HeightRange b{positions.front(), positions.front()};
  for (const glm::vec3& p : positions) {
    b.lo = glm::min(b.lo, p);
    b.hi = glm::max(b.hi, p);
  }
  return b;
}

// Joint j's pivot: evenly spaced up the box's centre line.
glm::vec3 pivot(const HeightRange& b, int j, int joints) {
  const float s = static_cast<float>(j) / static_cast<float>(joints - 1);
  const glm::vec3 c = (b.lo + b.hi) * 0.5f;
  return glm::vec3(c.x, b.lo.y + s * (b.hi.y - b.lo.y), c.z);
}

}  // namespace

void add_procedural_rig(Mesh& mesh, int joints) {
  if (joints < 4) throw std::invalid_argument("slabcast: a procedural rig needs at least 4 joints, got " + std::to_string(joints));
  if (!mesh.rig.empty()) throw std::invalid_argument("slabcast: mesh '" + mesh.name + "' already has a rig");
  if (mesh.positions.empty()) return;
  const HeightRange b = box_of(mesh.positions);
  const float height = std::max(b.hi.y - b.lo.y, 1e-30f);
  const float radius = glm::length(b.hi - b.lo) * 0.5f;
  const glm::vec3 centre = (b.lo + b.hi) * 0.5f;
  MeshRig& rig = mesh.rig;
  rig.positions = mesh.positions;
  rig.influences = 4;
  rig.palette_size = static_cast<uint32_t>(joints);
  rig.morph_weight_count = 2;
  const size_t V = mesh.positions.size();
  rig.joints.resize(4 * V);
  rig.weights.resize(4 * V);
  MorphTarget bulge, ripple;
  bulge.weight = 0;
  ripple.weight = 1;
  bulge.position_deltas.resize(V);
  ripple.position_deltas.resize(V);
  for (size_t v = 0; v < V; ++v) {
    const glm::vec3 p = mesh.positions[v];
    // Position along the chain in joint spacings; the four joints around it by uniform cubic B-spline weights.
    const float s = std::clamp((p.y - b.lo.y) / height, 0.0f, 1.0f) * static_cast<float>(joints - 1);
    const int j1 = std::min(static_cast<int>(s), joints - 2);
    const float f = s - static_cast<float>(j1);
    const float w[4] = {(1 - f) * (1 - f) * (1 - f) / 6, (3 * f * f * f - 6 * f * f + 4) / 6,
                        (-3 * f * f * f + 3 * f * f + 3 * f + 1) / 6, f * f * f / 6};
    for (int i = 0; i < 4; ++i) {
      rig.joints[4 * v + i] = static_cast<uint32_t>(std::clamp(j1 - 1 + i, 0, joints - 1));
      rig.weights[4 * v + i] = w[i];
    }
    bulge.position_deltas[v] = (p - centre) * 0.15f;
    ripple.position_deltas[v] = glm::vec3(0.0f, 0.0f, 0.06f * radius * std::sin(12.0f * (p.y - b.lo.y) / height));
  }
  rig.morph_targets.push_back(std::move(bulge));
  rig.morph_targets.push_back(std::move(ripple));
}

std::vector<glm::vec3> procedural_rig_pivots(const Mesh& mesh) {
  std::vector<glm::vec3> pivots;
  const MeshRig& rig = mesh.rig;
  if (rig.empty()) return pivots;
  const int joints = static_cast<int>(rig.palette_size);
  const HeightRange b = box_of(rig.positions);
  for (int j = 0; j < joints; ++j) pivots.push_back(pivot(b, j, joints));
  return pivots;
}

FramePose procedural_rig_pose(const Mesh& mesh, float seconds) {
  return procedural_rig_pose(procedural_rig_pivots(mesh), seconds);
}

FramePose procedural_rig_pose(const std::vector<glm::vec3>& pivots, float seconds) {
  FramePose pose;
  if (pivots.empty()) return pose;
  const int joints = static_cast<int>(pivots.size());
  glm::mat4 chain(1.0f);  // the parent's global transform
  for (int j = 0; j < joints; ++j) {
    const float angle = 1.4f / static_cast<float>(joints) * std::sin(seconds * 1.7f + 0.6f * static_cast<float>(j));
    const glm::vec3 at = pivots[static_cast<size_t>(j)];
    const glm::mat4 local = glm::translate(glm::mat4(1.0f), at) *
                            glm::rotate(glm::mat4(1.0f), angle, glm::vec3(0.0f, 0.0f, 1.0f)) *
                            glm::translate(glm::mat4(1.0f), -at);
    chain = chain * local;
    pose.palette.push_back(chain);
  }
  pose.morph_weights = {0.5f + 0.5f * std::sin(seconds * 2.3f), 0.5f + 0.5f * std::cos(seconds * 1.3f)};
  return pose;
}

}  // namespace slabcast
