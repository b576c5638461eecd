// Mouse camera of the viewer: orbit around the target, pan in the view plane, zoom towards the target.
// Pure maths on render::Camera (no GL, no window), so it is unit-tested on its own.
#pragma once
#include "render/renderer.h"

namespace slabcast::viewer {

class CameraControl {
 public:
  // How far the camera turns per pixel of mouse motion, and how much one wheel step moves it.
  static constexpr float kOrbitRadiansPerPixel = 0.005f;
  static constexpr float kZoomFactorPerStep = 0.9f;  // distance multiplied by this per wheel step towards
  static constexpr float kMaxPitchRadians = 1.55f;   // just short of the poles, where `up` would flip

  CameraControl() = default;
  explicit CameraControl(const Camera& home) { set_home(home); }

  // The camera the view starts from and returns to on reset(); also makes it current.
  void set_home(const Camera& home);
  void reset() { camera_ = home_; }

  // Orbit around the target about `up` (horizontal motion) and about the view's right axis (vertical motion);
  // the distance to the target is kept and the pitch stays within kMaxPitchRadians of the horizon.
  void orbit(float dx_pixels, float dy_pixels);
  // Moves eye and target together so the point under the cursor follows it (at the target's depth).
  void pan(float dx_pixels, float dy_pixels, int viewport_height);
  // Positive steps move towards the target (never through it).
  void zoom(float steps);

  const Camera& camera() const { return camera_; }
  const Camera& home() const { return home_; }

 private:
  Camera home_;
  Camera camera_;
};

}  // namespace slabcast::viewer
