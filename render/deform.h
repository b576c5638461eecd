// Deformers (design.md, frame step 1): rest position -> deformed position, one call per vertex.
// Parameters are relative to the rest mesh's bounds, so `amount` means the same on any model.
// `time` is an input (seconds): the same (amount, time) always gives the same mesh.
#pragma once
#include <cstdint>

#include "render/hd_math.h"

namespace slabcast {

// The same values as render/renderer.h's Deformer (uint8_t), duplicated here as plain ints so that device
// code does not need GLM; static_asserts in frame_setup.cpp keep the two in step.
enum class DeformKind : uint8_t { none = 0, twist = 1, bend = 2, wave = 3, pulse = 4 };

struct DeformFrame {
  DeformKind kind = DeformKind::none;
  float amount = 0;
  float time = 0;
  Vec3 center{0, 0, 0};  // centre of the rest mesh's bounding box
  float radius = 1;      // half its diagonal (> 0)
};

namespace detail {
constexpr float kPi = 3.14159265358979f;
SC_HD Vec3 rotate_about_y(Vec3 d, float angle) {
  float s, c;
  sin_cos(angle, s, c);
  return Vec3{d.x * c + d.z * s, d.y, d.z * c - d.x * s};
}
SC_HD Vec3 rotate_about_z(Vec3 d, float angle) {
  float s, c;
  sin_cos(angle, s, c);
  return Vec3{d.x * c - d.y * s, d.x * s + d.y * c, d.z};
}
}  // namespace detail

SC_HD Vec3 deform_vertex(const DeformFrame& f, Vec3 p) {
  const Vec3 d = p - f.center;
  const float inv_r = sc_div(1.0f, f.radius);
  switch (f.kind) {
    case DeformKind::twist: {  // rotation about +Y growing with height; swings with time
      const float angle = f.amount * (d.y * inv_r) * (0.5f * detail::kPi) * det_cos(f.time);
      return f.center + detail::rotate_about_y(d, angle);
    }
    case DeformKind::bend: {  // rotation about +Z growing with |x|: the X axis bends into an arc
      const float h = d.x * inv_r;
      const float angle = f.amount * 0.5f * h * sc_abs(h) * det_cos(f.time);
      return f.center + detail::rotate_about_z(d, angle);
    }
    case DeformKind::wave: {  // travelling wave along X and Z, displacing Y
      const float k = 2.0f * detail::kPi;
      const float w = det_sin(k * d.x * inv_r + 3.0f * f.time) * det_cos(k * d.z * inv_r + 2.0f * f.time);
      return Vec3{p.x, p.y + f.amount * 0.08f * f.radius * w, p.z};
    }
    case DeformKind::pulse: {  // radial breathing with a ripple outward from the centre
      const float dist = sc_sqrt(dot(d, d)) * inv_r;
      const float scale = 1.0f + f.amount * 0.1f * det_sin(6.0f * dist - 4.0f * f.time);
      return f.center + d * scale;
    }
    case DeformKind::none:
    default:
      return p;
  }
}

}  // namespace slabcast
