// glTF 2.0 animations evaluated into the renderer's FramePose (render/renderer.h: MeshRig, FramePose).
//
// app/formats/gltf_mesh.h builds a GltfAnimations next to the Mesh whose rig it drives: the node hierarchy with each
// node's rest transform and rest morph weights, the animations' channels, and what each palette entry and each morph
// weight of the rig stands for. pose_at(animation, t) then
//   1. starts every node at its rest TRS (or matrix) and rest morph weights,
//   2. overwrites the components the animation's channels target with their values at t (below),
//   3. composes the node globals down the hierarchy (global = parent's global x T x R x S), in double,
//   4. fills FramePose::palette[k] = global(entry k's node) x entry k's inverse bind matrix (identity for entry 0,
//      the static vertices' entry; identity inverse bind for a node entry), and FramePose::morph_weights[k] = the
//      weight of slot k's (node, target).
//
// Sampling, per the glTF 2.0 specification (Appendix C): keys t_0 < ... < t_n-1; before t_0 the first value, from
// t_n-1 on the last (clamped); between t_k and t_k+1, with d = t_k+1 - t_k and u = (t - t_k) / d:
//   STEP         v_k
//   LINEAR       (1 - u) v_k + u v_k+1; rotations by slerp of the unit quaternions along the shorter arc
//   CUBICSPLINE  each key stores (in-tangent a, value v, out-tangent b); the Hermite spline
//                (2u^3 - 3u^2 + 1) v_k + (u^3 - 2u^2 + u) d b_k + (-2u^3 + 3u^2) v_k+1 + (u^3 - u^2) d a_k+1;
//                a rotation so computed is normalized afterwards.
#pragma once
#include "render/renderer.h"

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace slabcast {

enum class GltfInterpolation : uint8_t { linear, step, cubic_spline };
enum class GltfPath : uint8_t { translation, rotation, scale, weights };

// One node of the file (all of them, also those outside the scene: a skin's joints may be anywhere).
struct GltfNode {
  std::string name;
  int parent = -1;                        // the node whose `children` list this one; -1 for a root
  bool has_matrix = false;                // the node gives `matrix` (then it is never animated), not TRS
  glm::dmat4 matrix{1.0};
  glm::dvec3 translation{0.0};
  glm::dquat rotation{1.0, 0.0, 0.0, 0.0};  // glm's (w, x, y, z) order: identity
  glm::dvec3 scale{1.0};
  std::vector<double> weights;            // rest morph weights: node.weights, else its mesh's weights, else 0s
};

// One channel: the values of `path` of `node` over time.
struct GltfChannel {
  int node = 0;
  GltfPath path = GltfPath::translation;
  GltfInterpolation interpolation = GltfInterpolation::linear;
  int width = 3;               // numbers per value: 3 (translation, scale), 4 (rotation, x y z w), targets (weights)
  std::vector<double> times;   // keys, non-decreasing, at least one
  std::vector<double> values;  // times.size() x width, or for cubic_spline times.size() x 3 x width (a, v, b)
};

struct GltfAnimation {
  std::string name;             // as in the file ("" if unnamed)
  double duration = 0;          // the last key time over its channels (seconds)
  std::vector<GltfChannel> channels;
};

// What FramePose::palette[k] is: global(node) x inverse_bind; node -1: the identity.
struct GltfPaletteEntry {
  int node = -1;
  glm::dmat4 inverse_bind{1.0};
};

// What FramePose::morph_weights[k] is: the weight of morph target `target` of the mesh of `node`.
struct GltfMorphSlot {
  int node = 0;
  int target = 0;
};

// The animations of one file and the pose of its rig at any time. Immutable once built; safe to share.
class GltfAnimations {
 public:
  // `file` names the file in messages. Preconditions (the loader checks them): parents form a forest; every index
  // (channel node, palette node, slot node and target) is in range; a channel's arrays have the sizes stated above.
  GltfAnimations(std::string file, std::vector<GltfNode> nodes, std::vector<GltfAnimation> animations,
                 std::vector<GltfPaletteEntry> palette, std::vector<GltfMorphSlot> morph_slots);

  int count() const { return static_cast<int>(animations_.size()); }
  const std::string& name(int animation) const { return animations_.at(size_t(animation)).name; }
  double duration(int animation) const { return animations_.at(size_t(animation)).duration; }
  // "NAME (1.50 s)" for each animation, "animation 2" for an unnamed one.
  std::vector<std::string> describe() const;

  // The pose of `animation` (0 <= animation < count()) at `seconds`, clamped to its keys. Throws std::out_of_range
  // for a bad animation index.
  FramePose pose_at(int animation, double seconds) const;
  // The pose with no animation applied: every node at its rest transform and rest weights.
  FramePose rest_pose() const;

  // The animation named `name_or_index`, or with that index ("0", "1", ...; a name wins over an index). Throws
  // std::runtime_error "FILE: no animation 'x'; the file has: 0 'bend' (2.00 s), 1 'steps' (2.00 s)".
  int find_animation(const std::string& name_or_index) const;

  // Node globals (world from node) at a time of `animation`, or at rest for animation -1 (tests, tools).
  std::vector<glm::dmat4> node_globals(int animation, double seconds) const;

  const std::vector<GltfNode>& nodes() const { return nodes_; }
  const std::vector<GltfPaletteEntry>& palette_entries() const { return palette_; }
  const std::vector<GltfMorphSlot>& morph_slots() const { return morph_slots_; }

 private:
  FramePose pose_from(const std::vector<glm::dmat4>& globals, const std::vector<std::vector<double>>& weights) const;
  // Local TRS and weights of every node at `seconds` of `animation` (-1: rest), then globals.
  void evaluate(int animation, double seconds, std::vector<glm::dmat4>& globals,
                std::vector<std::vector<double>>& weights) const;

  std::string file_;
  std::vector<GltfNode> nodes_;
  std::vector<int> order_;  // nodes, every parent before its children
  std::vector<GltfAnimation> animations_;
  std::vector<GltfPaletteEntry> palette_;
  std::vector<GltfMorphSlot> morph_slots_;
};

// A channel's value at `seconds` (the sampling rules above) into out[0 .. channel.width). Exposed for tests.
void sample_channel(const GltfChannel& channel, double seconds, double* out);

}  // namespace slabcast
