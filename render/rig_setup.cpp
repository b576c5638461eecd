#include "render/rig_setup.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "render/stages/deform.h"

namespace slabcast {
namespace {

Vec3 to_vec3(const glm::vec3& v) { return Vec3{v.x, v.y, v.z}; }
bool finite3(const glm::vec3& v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }

}  // namespace

uint64_t FlatRig::bytes() const {
  return positions.size() * sizeof(Vec3) + joints.size() * sizeof(uint32_t) + weights.size() * sizeof(float) +
         morph_targets.size() * sizeof(MorphRange) + morph_deltas.size() * sizeof(Vec3) +
         uint64_t{palette_size} * sizeof(RigMatrix) + uint64_t{morph_weight_count} * sizeof(float);
}

uint64_t flat_rig_bytes(const MeshRig& rig) {
  if (rig.empty()) return 0;
  uint64_t deltas = 0;
  for (const MorphTarget& t : rig.morph_targets) deltas += t.position_deltas.size();
  return rig.positions.size() * sizeof(Vec3) + rig.joints.size() * sizeof(uint32_t) +
         rig.weights.size() * sizeof(float) + rig.morph_targets.size() * sizeof(MorphRange) + deltas * sizeof(Vec3) +
         uint64_t{rig.palette_size} * sizeof(RigMatrix) + uint64_t{rig.morph_weight_count} * sizeof(float);
}

FlatRig flatten_rig(const MeshRig& rig) {
  FlatRig f;
  if (rig.empty()) return f;
  f.positions.reserve(rig.positions.size());
  for (const glm::vec3& p : rig.positions) f.positions.push_back(to_vec3(p));
  f.influences = rig.influences;
  f.joints = rig.joints;
  f.weights = rig.weights;
  for (const MorphTarget& t : rig.morph_targets) {
    f.morph_targets.push_back(MorphRange{t.first_vertex, static_cast<uint32_t>(t.position_deltas.size()), t.weight,
                                         0, f.morph_deltas.size()});
    for (const glm::vec3& d : t.position_deltas) f.morph_deltas.push_back(to_vec3(d));
  }
  f.palette_size = rig.palette_size;
  f.morph_weight_count = rig.morph_weight_count;
  return f;
}

MeshRig unflatten_rig(const FlatRig& f) {
  MeshRig rig;
  for (const Vec3& p : f.positions) rig.positions.emplace_back(p.x, p.y, p.z);
  rig.influences = f.influences;
  rig.joints = f.joints;
  rig.weights = f.weights;
  for (const MorphRange& m : f.morph_targets) {
    MorphTarget t;
    t.first_vertex = m.first_vertex;
    t.weight = m.weight;
    for (uint64_t i = 0; i < m.vertex_count; ++i) {
      const Vec3& d = f.morph_deltas[m.delta_offset + i];
      t.position_deltas.emplace_back(d.x, d.y, d.z);
    }
    rig.morph_targets.push_back(std::move(t));
  }
  rig.palette_size = f.palette_size;
  rig.morph_weight_count = f.morph_weight_count;
  return rig;
}

void validate_rig(const Mesh& mesh) {
  const MeshRig& r = mesh.rig;
  if (r.empty()) return;
  const std::string who = "mesh '" + mesh.name + "': rig: ";
  const size_t V = mesh.positions.size();
  if (r.positions.size() != V) {
    throw std::invalid_argument(who + std::to_string(r.positions.size()) + " positions for " + std::to_string(V) +
                                " vertices");
  }
  if (r.influences < 0 || r.influences > 64) {
    throw std::invalid_argument(who + "influences per vertex must be 0..64, got " + std::to_string(r.influences));
  }
  const size_t n = V * static_cast<size_t>(r.influences);
  if (r.joints.size() != n || r.weights.size() != n) {
    throw std::invalid_argument(who + "joints and weights must have " + std::to_string(n) + " entries (" +
                                std::to_string(r.influences) + " a vertex), got " + std::to_string(r.joints.size()) +
                                " and " + std::to_string(r.weights.size()));
  }
  for (size_t v = 0; v < V; ++v) {
    if (!finite3(r.positions[v])) throw std::invalid_argument(who + "non-finite position at vertex " + std::to_string(v));
  }
  for (size_t k = 0; k < n; ++k) {
    if (r.joints[k] >= r.palette_size) {
      throw std::invalid_argument(who + "vertex " + std::to_string(k / r.influences) + " refers to joint " +
                                  std::to_string(r.joints[k]) + " of a palette of " + std::to_string(r.palette_size));
    }
    if (!std::isfinite(r.weights[k])) {
      throw std::invalid_argument(who + "non-finite weight at vertex " + std::to_string(k / r.influences));
    }
  }
  for (size_t k = 0; k < r.morph_targets.size(); ++k) {
    const MorphTarget& t = r.morph_targets[k];
    if (t.first_vertex > V || t.position_deltas.size() > V - t.first_vertex) {
      throw std::invalid_argument(who + "morph target " + std::to_string(k) + " moves vertices " +
                                  std::to_string(t.first_vertex) + ".." +
                                  std::to_string(t.first_vertex + t.position_deltas.size()) + ", past the " +
                                  std::to_string(V) + " vertices");
    }
    if (t.weight >= r.morph_weight_count) {
      throw std::invalid_argument(who + "morph target " + std::to_string(k) + " uses weight " +
                                  std::to_string(t.weight) + " of " + std::to_string(r.morph_weight_count));
    }
    for (const glm::vec3& d : t.position_deltas) {
      if (!finite3(d)) throw std::invalid_argument(who + "non-finite delta in morph target " + std::to_string(k));
    }
  }
}

void pose_to_device_layout(const FramePose& pose, uint32_t palette_size, uint32_t morph_weight_count,
                           std::vector<RigMatrix>& palette, std::vector<float>& morph_weights) {
  if (pose.palette.size() != palette_size || pose.morph_weights.size() != morph_weight_count) {
    throw std::invalid_argument("slabcast: the pose has " + std::to_string(pose.palette.size()) + " matrices and " +
                                std::to_string(pose.morph_weights.size()) + " morph weights; the mesh's rig needs " +
                                std::to_string(palette_size) + " and " + std::to_string(morph_weight_count));
  }
  palette.resize(palette_size);
  for (size_t j = 0; j < palette.size(); ++j) {
    const glm::mat4& m = pose.palette[j];  // column-major: m[c] is column c
    for (int c = 0; c < 4; ++c) {
      if (!finite3(glm::vec3(m[c]))) {
        throw std::invalid_argument("slabcast: the pose's matrix " + std::to_string(j) + " is not finite");
      }
    }
    palette[j] = RigMatrix{to_vec3(glm::vec3(m[0])), to_vec3(glm::vec3(m[1])), to_vec3(glm::vec3(m[2])),
                           to_vec3(glm::vec3(m[3]))};
  }
  morph_weights = pose.morph_weights;
  for (size_t k = 0; k < morph_weights.size(); ++k) {
    if (!std::isfinite(morph_weights[k])) {
      throw std::invalid_argument("slabcast: the pose's morph weight " + std::to_string(k) + " is not finite");
    }
  }
}

std::vector<glm::vec3> pose_positions(const Mesh& mesh, const FramePose& pose) {
  if (mesh.rig.empty()) return mesh.positions;
  const FlatRig f = flatten_rig(mesh.rig);
  std::vector<RigMatrix> palette;
  std::vector<float> weights;
  pose_to_device_layout(pose, f.palette_size, f.morph_weight_count, palette, weights);
  FrameParams p{};
  p.rig_positions = f.positions.data();
  p.rig_influences = f.influences;
  p.rig_joints = f.joints.data();
  p.rig_weights = f.weights.data();
  p.morph_target_count = static_cast<int64_t>(f.morph_targets.size());
  p.morph_targets = f.morph_targets.data();
  p.morph_deltas = f.morph_deltas.data();
  p.rig_palette = palette.data();
  p.morph_weights = weights.data();
  std::vector<glm::vec3> out(f.positions.size());
  for (size_t v = 0; v < out.size(); ++v) {
    const Vec3 q = posed_vertex(p, static_cast<int64_t>(v));
    out[v] = glm::vec3(q.x, q.y, q.z);
  }
  return out;
}

}  // namespace slabcast
