// The timeline: the overlay's panel for a scene that moves by itself (SceneMotion: a glTF animation, a mesh
// sequence). Play / pause, a scrub over one period, the speed, the glTF file's animations, and for a sequence the
// frame shown, its rate and how often playback waited on the disk.
#pragma once
#include "app/scene_motion.h"
#include "app/viewer/session.h"

#include <cstddef>

namespace slabcast::viewer {

// Where the scene's clock stands within the motion's loop.
struct TimelinePosition {
  double period = 0.0;    // seconds of one loop: an animation's duration, a sequence's frames / fps; 0: no loop
  double within = 0.0;    // the clock's place in the current loop, [0, period); the clock itself when no loop
  double loop_start = 0.0;  // the clock at the start of the current loop
  // A sequence: the frame shown (its first keyframe; the renderer blends towards the next) and how many there are.
  size_t frame = 0, frame_count = 0;
};

// The loop of `motion` that `seconds` (settings.deform.time) is in, as SceneMotion::apply plays it.
TimelinePosition timeline_position(const SceneMotion& motion, double seconds);

// The Timeline panel of the controls (a collapsing section). Only for a scene that moves by itself; a scene moved
// by a deformer alone keeps the Scene section's animate / speed / time controls.
void timeline_section(Session& session);

}  // namespace slabcast::viewer
