#include "app/viewer/timeline.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

namespace slabcast::viewer {

namespace {

constexpr float kMaxTimeScale = 4.0f;  // the speed slider's range, as the Scene section's

// The length of one loop of `motion`, or 0 when it has none (a generated rig moves without repeating).
double period_of(const SceneMotion& motion) {
  if (const GltfAnimations* animations = motion.animations()) {
    return std::max(animations->duration(motion.animation_index()), 0.0);
  }
  if (const SequencePlayer* player = motion.sequence_player()) {
    return static_cast<double>(player->frame_count()) / player->fps();
  }
  return 0.0;
}

void animation_combo(Session& s, const GltfAnimations& animations) {
  const std::vector<std::string> labels = animations.describe();  // "NAME (1.50 s)"
  const int shown = s.motion().animation_index();
  const char* preview = shown >= 0 && static_cast<size_t>(shown) < labels.size() ? labels[static_cast<size_t>(shown)].c_str() : "";
  if (!ImGui::BeginCombo("animation", preview)) return;
  for (size_t i = 0; i < labels.size(); ++i) {
    const bool selected = static_cast<int>(i) == shown;
    if (ImGui::Selectable(labels[i].c_str(), selected) && !selected) s.choose_animation(static_cast<int>(i));
  }
  ImGui::EndCombo();
}

void sequence_rows(const SequencePlayer& player, const TimelinePosition& at) {
  // The file too: frames are numbered from 1 here, their files often from 0.
  const std::string file = std::filesystem::path(player.frames()[at.frame]).filename().string();
  ImGui::Text("frame %zu of %zu (%s)", at.frame + 1, at.frame_count, file.c_str());
  ImGui::Text("%.4g fps", player.fps());
  // A wait means the frame was not decoded in time: playback was held up by the disk (or the decoding).
  const SequenceStalls stalls = player.stalls();
  if (stalls.waits == 0) {
    ImGui::TextDisabled("never waited for a frame to load");
  } else {
    ImGui::Text("waited for frames %llu %s, %.2f s in all", static_cast<unsigned long long>(stalls.waits),
                stalls.waits == 1 ? "time" : "times", stalls.wait_seconds);
  }
}

}  // namespace

TimelinePosition timeline_position(const SceneMotion& motion, double seconds) {
  TimelinePosition at;
  at.period = period_of(motion);
  if (at.period > 0.0) {
    at.loop_start = at.period * std::floor(seconds / at.period);
    at.within = std::clamp(seconds - at.loop_start, 0.0, at.period);
  } else {
    at.within = seconds;
  }
  if (const SequencePlayer* player = motion.sequence_player()) {
    at.frame_count = player->frame_count();
    // As SequencePlayer::at(seconds, loop) picks its first keyframe.
    const double k = std::floor(at.within * player->fps());
    at.frame = std::min(static_cast<size_t>(std::max(k, 0.0)), at.frame_count - 1);
  }
  return at;
}

void timeline_section(Session& s) {
  const SceneMotion& motion = s.motion();
  if (!motion.moves() || !ImGui::CollapsingHeader("Timeline", ImGuiTreeNodeFlags_DefaultOpen)) return;
  ImGui::TextDisabled("%s", motion.describe().c_str());
  if (s.gl_raster) ImGui::TextDisabled("(the gl-raster reference draws the mesh at rest)");

  ImGui::Checkbox("play (Space)", &s.animate);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(90.0f);
  ImGui::SliderFloat("speed", &s.time_scale, 0.0f, kMaxTimeScale, "%.2fx");

  const TimelinePosition at = timeline_position(motion, s.settings.deform.time);
  if (at.period > 0.0) {
    // The scrub moves within the current loop, so the deformers' clock (the same one) does not jump back to 0.
    float within = static_cast<float>(at.within);
    if (ImGui::SliderFloat("time", &within, 0.0f, static_cast<float>(at.period), "%.2f s")) {
      s.settings.deform.time = static_cast<float>(at.loop_start + std::clamp(static_cast<double>(within), 0.0, at.period));
    }
  } else {
    ImGui::DragFloat("time (s)", &s.settings.deform.time, 0.01f, 0.0f, 0.0f, "%.2f");
  }

  if (const GltfAnimations* animations = motion.animations()) animation_combo(s, *animations);
  if (const SequencePlayer* player = motion.sequence_player()) sequence_rows(*player, at);
}

}  // namespace slabcast::viewer
