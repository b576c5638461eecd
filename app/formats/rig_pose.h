// A plain C++ evaluation of a MeshRig's vertex animation (render/renderer.h), written apart from the renderer's deform
// stage (render/stages/deform.h), so that each checks the other within float rounding.
//
//   1. morph:  p' = p, then for each morph target in Mesh::rig.morph_targets order, for each of its vertices,
//              p' += weight x delta (weight = pose.morph_weights[target.weight]; one multiply, then one add per
//              coordinate).
//   2. skin:   (influences > 0) s = (0, 0, 0), then for i = 0 .. influences - 1 in order:
//              s += weights[v * influences + i] x (palette[joints[...]] x (p', 1)).xyz, where the matrix-vector
//              product is GLM's own (mat4 x vec4).
//              influences = 0: the position is p'.
// Header-only, so that tests of app/ and render/ use the very same code.
#pragma once
#include "render/renderer.h"

#include <glm/glm.hpp>

#include <cstddef>
#include <stdexcept>
#include <vector>

namespace slabcast {

// The posed positions of `mesh` (Mesh::rig.positions moved by Mesh::rig at `pose`). An empty rig gives
// Mesh::positions.
// Throws std::invalid_argument when the pose or the rig does not fit the mesh (palette or weight count, a joint
// past the palette, a target past the vertices).
inline std::vector<glm::vec3> apply_rig(const Mesh& mesh, const FramePose& pose) {
  const MeshRig& rig = mesh.rig;
  if (rig.empty()) return mesh.positions;
  std::vector<glm::vec3> p = rig.positions;
  if (pose.palette.size() < rig.palette_size || pose.morph_weights.size() < rig.morph_weight_count)
    throw std::invalid_argument("apply_rig: the pose has fewer palette matrices or morph weights than the rig needs");

  for (const MorphTarget& t : rig.morph_targets) {
    if (t.weight >= rig.morph_weight_count || size_t(t.first_vertex) + t.position_deltas.size() > p.size())
      throw std::invalid_argument("apply_rig: a morph target lies outside the mesh or its weights");
    const float w = pose.morph_weights[t.weight];
    for (size_t i = 0; i < t.position_deltas.size(); ++i) p[t.first_vertex + i] += w * t.position_deltas[i];
  }
  if (rig.influences == 0) return p;

  const size_t n = size_t(rig.influences);
  if (rig.joints.size() != p.size() * n || rig.weights.size() != p.size() * n)
    throw std::invalid_argument("apply_rig: the rig's joints and weights do not have influences per vertex");
  std::vector<glm::vec3> out(p.size());
  for (size_t v = 0; v < p.size(); ++v) {
    glm::vec3 s(0.0f);
    for (size_t i = 0; i < n; ++i) {
      const uint32_t j = rig.joints[v * n + i];
      if (j >= rig.palette_size) throw std::invalid_argument("apply_rig: a joint lies past the palette");
      const glm::mat4& m = pose.palette[j];
      const glm::vec4 q = m * glm::vec4(p[v], 1.0f);
      s += rig.weights[v * n + i] * glm::vec3(q);
    }
    out[v] = s;
  }
  return out;
}

}  // namespace slabcast
