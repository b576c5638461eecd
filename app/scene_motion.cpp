#include "app/scene_motion.h"

#include "render/procedural_rig.h"

#include <cmath>
#include <sstream>

namespace slabcast {

SceneMotion SceneMotion::animation(std::shared_ptr<const GltfAnimations> animations, int index) {
  SceneMotion m;
  m.kind_ = Kind::animation;
  m.animations_ = std::move(animations);
  m.index_ = index;
  return m;
}

SceneMotion SceneMotion::procedural_rig(const Mesh& mesh) {
  SceneMotion m;
  m.kind_ = Kind::procedural_rig;
  m.pivots_ = procedural_rig_pivots(mesh);
  return m;
}

SceneMotion SceneMotion::sequence(std::shared_ptr<SequencePlayer> player, bool loop) {
  SceneMotion m;
  m.kind_ = Kind::sequence;
  m.sequence_ = std::move(player);
  m.loop_ = loop;
  return m;
}

void SceneMotion::apply(double seconds, FrameSettings& settings) {
  settings.pose = nullptr;
  settings.keyframes = nullptr;
  switch (kind_) {
    case Kind::none: return;
    case Kind::animation: {
      // An animation loops over its duration (one without keys shows its first moment).
      const double duration = animations_->duration(index_);
      const double t = duration > 0.0 ? seconds - duration * std::floor(seconds / duration) : 0.0;
      pose_ = animations_->pose_at(index_, t);
      settings.pose = &pose_;
      return;
    }
    case Kind::procedural_rig:
      pose_ = procedural_rig_pose(pivots_, static_cast<float>(seconds));
      settings.pose = &pose_;
      return;
    case Kind::sequence:
      keyframes_ = sequence_->at(seconds, loop_);
      settings.keyframes = &keyframes_.keyframes;
      return;
  }
}

std::string SceneMotion::describe() const {
  std::ostringstream s;
  switch (kind_) {
    case Kind::none: return "static";
    case Kind::animation:
      s << "animation " << index_ << " '" << animations_->name(index_) << "' (" << animations_->duration(index_)
        << " s, looping)";
      return s.str();
    case Kind::procedural_rig: s << "a generated rig of " << pivots_.size() << " joints"; return s.str();
    case Kind::sequence:
      s << "a sequence of " << sequence_->frame_count() << " frames at " << sequence_->fps() << " fps"
        << (loop_ ? ", looping" : "");
      return s.str();
  }
  return {};
}

}  // namespace slabcast
