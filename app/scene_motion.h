// What makes a loaded scene move by itself, evaluated at a frame's time (the same time the procedural deformers
// use, FrameSettings::deform.time): a glTF animation posing the mesh's rig, a generated rig (benchmarks), or a mesh
// sequence's two keyframes. Procedural deformers apply on top of any of them.
#pragma once
#include "app/formats/gltf_animation.h"
#include "app/formats/mesh_sequence.h"
#include "render/renderer.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace slabcast {

class SceneMotion {
 public:
  SceneMotion() = default;  // nothing moves
  static SceneMotion animation(std::shared_ptr<const GltfAnimations> animations, int index);
  static SceneMotion procedural_rig(const Mesh& mesh);
  static SceneMotion sequence(std::shared_ptr<SequencePlayer> player, bool loop);

  // Points settings.pose or settings.keyframes at this scene's state at `seconds`; what they point to stays valid
  // until the next call. A sequence's frame that is still decoding is waited for; a broken one throws
  // std::runtime_error naming its file.
  void apply(double seconds, FrameSettings& settings);

  bool moves() const { return kind_ != Kind::none; }
  std::string describe() const;  // for the log: "animation 'bend' (2 s)", "sequence of 8 frames at 24 fps", ...
  // The glTF animations (null for other kinds), and the one shown; choose() switches it (the viewer's timeline).
  const GltfAnimations* animations() const { return animations_.get(); }
  int animation_index() const { return index_; }
  void choose(int index) { index_ = index; }
  const SequencePlayer* sequence_player() const { return sequence_.get(); }

 private:
  enum class Kind { none, animation, procedural_rig, sequence };
  Kind kind_ = Kind::none;
  std::shared_ptr<const GltfAnimations> animations_;
  int index_ = 0;
  std::vector<glm::vec3> pivots_;  // procedural rig
  std::shared_ptr<SequencePlayer> sequence_;
  bool loop_ = true;
  FramePose pose_;
  KeyframeRequest keyframes_;
};

}  // namespace slabcast
