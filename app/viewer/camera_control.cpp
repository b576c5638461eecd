#include "app/viewer/camera_control.h"

#include <glm/gtc/quaternion.hpp>

#include <algorithm>
#include <cmath>

namespace slabcast::viewer {

namespace {
constexpr float kMinDistance = 1e-4f;  // zoom stops here: at 0 the view direction would be undefined

glm::vec3 safe_normalize(glm::vec3 v, glm::vec3 fallback) {
  const float length = glm::length(v);
  return length > 0.0f && std::isfinite(length) ? v / length : fallback;
}
}  // namespace

void CameraControl::set_home(const Camera& home) {
  home_ = home;
  camera_ = home;
}

void CameraControl::orbit(float dx_pixels, float dy_pixels) {
  const glm::vec3 up = safe_normalize(camera_.up, {0.0f, 1.0f, 0.0f});
  const glm::vec3 offset = camera_.eye - camera_.target;  // from target to eye
  const float distance = glm::length(offset);
  if (!(distance > 0.0f)) return;
  const glm::vec3 back = offset / distance;

  // Pitch: the angle of `back` above the plane perpendicular to `up`, clamped short of the poles.
  const float pitch = std::asin(std::clamp(glm::dot(back, up), -1.0f, 1.0f));
  const float new_pitch = std::clamp(pitch + dy_pixels * kOrbitRadiansPerPixel, -kMaxPitchRadians, kMaxPitchRadians);
  const glm::vec3 right = safe_normalize(glm::cross(up, back), glm::vec3(1.0f, 0.0f, 0.0f));
  const glm::quat pitch_turn = glm::angleAxis(new_pitch - pitch, -right);
  // Yaw: about `up`; dragging right turns the camera to the left around the model, so the model follows the mouse.
  const glm::quat yaw_turn = glm::angleAxis(-dx_pixels * kOrbitRadiansPerPixel, up);
  camera_.eye = camera_.target + (yaw_turn * (pitch_turn * back)) * distance;
}

void CameraControl::pan(float dx_pixels, float dy_pixels, int viewport_height) {
  if (viewport_height <= 0) return;
  const glm::vec3 forward = safe_normalize(camera_.target - camera_.eye, {0.0f, 0.0f, -1.0f});
  const glm::vec3 right = safe_normalize(glm::cross(forward, camera_.up), {1.0f, 0.0f, 0.0f});
  const glm::vec3 view_up = glm::cross(right, forward);
  // World units per pixel at the target's depth: the view spans 2 d tan(fovy / 2) vertically.
  const float distance = glm::length(camera_.target - camera_.eye);
  const float per_pixel =
      2.0f * distance * std::tan(glm::radians(camera_.fovy_degrees) * 0.5f) / static_cast<float>(viewport_height);
  const glm::vec3 shift = (-dx_pixels * right + dy_pixels * view_up) * per_pixel;
  camera_.eye += shift;
  camera_.target += shift;
}

void CameraControl::zoom(float steps) {
  const glm::vec3 offset = camera_.eye - camera_.target;
  const float distance = glm::length(offset);
  if (!(distance > 0.0f)) return;
  const float new_distance = std::max(distance * std::pow(kZoomFactorPerStep, steps), kMinDistance);
  camera_.eye = camera_.target + offset * (new_distance / distance);
}

}  // namespace slabcast::viewer
