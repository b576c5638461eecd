// Camera and ray generation (docs/architecture.md, "Conventions"): right-handed world, lookAt as GLM, the camera looks
// down -Z of view space with +Y up; pixel (px, py) has py = 0 at the top; the ray through its centre has
// view-space direction normalize(((px+0.5)/W*2-1)*tan(fovy/2)*W/H, (1-(py+0.5)/H*2)*tan(fovy/2), -1).
//
// A frame's rays all pass through the same point of their pixels: (px + ox, py + oy) with ViewParams's pixel offset
// (ox, oy), the centre (0.5, 0.5) unless the frame is one sample of an anti-aliased image (FrameSettings::samples,
// render/stages/resolve.h). The offset is added where 0.5 was, so a centre frame has the very bits it always had.
//
// Both backends intersect in view space: the eye is the origin, so a ray is only its direction and the
// distance t along the normalized direction, times 2^scale_exponent, is the depth output (the view transform is
// rigid up to that power of two).
//
// View space is scaled to the scene's size: view_scale is the power of two 2^-scale_exponent that brings the rest
// mesh's radius (or the camera's distance from it, when larger) into [1, 2). Scaling by a power of two is exact, so
// every view-space value of a scene scaled by 2^k has the very bits of the scene's own, and the frame's triangle IDs
// are the same at any size from about 1e-30 to 1e30: without it the intersection's products of two and three
// coordinates overflow above about 1e13 and lose bits as denormals below about 1e-13.
#pragma once
#include "render/hd_math.h"

namespace slabcast {

// Everything a kernel needs about the camera. Built once per frame on the host (make_view_params in
// frame_setup.h), so the one libm call (tan) is made in one place for both backends.
struct ViewParams {
  Vec3 eye;
  Vec3 right;    // view-space +X in world coordinates (GLM lookAt's s)
  Vec3 up;       // view-space +Y (GLM lookAt's u)
  Vec3 back;     // view-space +Z (= -forward)
  float tan_half_fovy = 0;
  float aspect = 1;  // W / H
  int width = 0, height = 0;
  float view_scale = 1;     // 2^-scale_exponent, see above
  int scale_exponent = 0;
  // Where in its pixel every ray of the frame passes, in pixels from the pixel's top-left corner: the centre unless
  // the frame is one sample of several (stages/resolve.h). Binning (stages/bin.h) reads the same offset, so a
  // triangle's pixel box holds the pixels whose ray through this point can hit it.
  float pixel_offset_x = 0.5f, pixel_offset_y = 0.5f;
};

SC_HD Vec3 world_to_view(const ViewParams& v, Vec3 p) {
  const Vec3 d = p - v.eye;
  return Vec3{dot(v.right, d) * v.view_scale, dot(v.up, d) * v.view_scale, dot(v.back, d) * v.view_scale};
}
// A direction (e.g. a normal) from world to view space: rotation only.
SC_HD Vec3 rotate_to_view(const ViewParams& v, Vec3 d) { return Vec3{dot(v.right, d), dot(v.up, d), dot(v.back, d)}; }

// The normalized view-space direction of pixel (px, py)'s ray, exactly the formula above with the frame's pixel offset
// in place of 0.5 (px + offset is exact for every pixel index: the offsets are multiples of 1/8).
SC_HD Vec3 pixel_ray_view(const ViewParams& v, int px, int py) {
  const float W = static_cast<float>(v.width), H = static_cast<float>(v.height);
  const float a = (sc_div(static_cast<float>(px) + v.pixel_offset_x, W) * 2.0f - 1.0f) * v.tan_half_fovy * v.aspect;
  const float b = (1.0f - sc_div(static_cast<float>(py) + v.pixel_offset_y, H) * 2.0f) * v.tan_half_fovy;
  return normalize(Vec3{a, b, -1.0f});
}

}  // namespace slabcast
