#version 450 core
// The hardware-raster reference (app/gl/gl_raster.h), vertex stage: the GLSL twin of render/stages/deform.h's
// deform_vertex, then the camera of render/camera.h as a projection.
//
// The deformer must give the CUDA deformer's positions (the tests compare them within 1e-5 relative), so it is a
// line-by-line port: the same polynomial sin/cos (det_sin / det_cos of render/hd_math.h, not GLSL's sin/cos,
// whose precision is unspecified), the same operation order, 1/radius computed on the host as the CPU does, and
// every intermediate `precise`, so that the compiler may not fuse a*b+c into an fma (the renderer is built with
// contraction off). What remains is GLSL's division, which may be a few ulp off IEEE.
//
// Projection: view space is GLM lookAt's (right, up, back) basis around the eye, as make_view_params builds it.
// Clip x, y follow pixel_ray_view: pixel centre (px + 0.5) / W * 2 - 1 = x_view / (depth * tan(fovy/2) * aspect),
// which is exactly GL's viewport mapping of NDC x (and of NDC y, GL's row 0 being the bottom). Depth is
// reversed and infinite (clip z = near, w = depth; with glClipControl's zero-to-one range the stored depth is
// near / depth, into a float depth buffer): nothing beyond the near plane is clipped, however far, and a float
// buffer keeps its relative precision at every distance.

layout(location = 0) in vec3 a_rest;  // rest position, world space

layout(location = 0) uniform int u_kind;           // render/stages/deform.h's DeformKind: 0 none .. 4 pulse
layout(location = 1) uniform float u_amount;
layout(location = 2) uniform float u_time;
layout(location = 3) uniform vec3 u_center;        // centre of the rest mesh's bounding box
layout(location = 4) uniform float u_inv_radius;   // 1 / (half its diagonal), as the CPU computes it
layout(location = 5) uniform float u_radius;
layout(location = 6) uniform vec3 u_eye;
layout(location = 7) uniform vec3 u_right;         // view-space +X in world coordinates
layout(location = 8) uniform vec3 u_up;            // view-space +Y
layout(location = 9) uniform vec3 u_back;          // view-space +Z (= -forward)
layout(location = 10) uniform vec2 u_ndc_scale;    // 1 / (tan(fovy/2) * aspect), 1 / tan(fovy/2)
layout(location = 11) uniform float u_near;        // the near plane (view depth), tiny: see gl_raster.cpp
// The shadow map's pass from a sun (orthographic): (far, 1 / (far - near)) of the light's depths, stored reversed
// (nearer the sun = larger). y = 0: the camera's perspective pass.
layout(location = 14) uniform vec2 u_ortho_depth;

out vec3 v_view;  // view-space position: the fragment stage's ray direction and face normal
// World-space deformed position: the fragment stage's world normal, and what transform feedback captures when
// the tests compare this deformer with render/stages/deform.h's.
layout(xfb_buffer = 0, xfb_offset = 0) out vec3 v_world;

// ---- det_sin / det_cos (render/hd_math.h): Cody-Waite reduction to [-pi/4, pi/4], fixed polynomials ----
const float kTwoOverPi = 0.636619772367581343;
const float kPiOver2A = 1.5703125;
const float kPiOver2B = 4.837512969970703125e-4;
const float kPiOver2C = 7.54978995489188216e-8;
const float kPi = 3.14159265358979;

float sin_poly(float r) {
  precise float r2 = r * r;
  precise float p = r + r * r2 * (-1.6666654611e-1 + r2 * (8.3321608736e-3 + r2 * -1.9515295891e-4));
  return p;
}
float cos_poly(float r) {
  precise float r2 = r * r;
  precise float p = 1.0 - 0.5 * r2 +
                    r2 * r2 * (4.166664568298827e-2 + r2 * (-1.388731625493765e-3 + r2 * 2.443315711809948e-5));
  return p;
}
void sin_cos(float x, out float s, out float c) {
  precise float k = floor(x * kTwoOverPi + 0.5);
  precise float r = ((x - k * kPiOver2A) - k * kPiOver2B) - k * kPiOver2C;
  precise float sp = sin_poly(r);
  precise float cp = cos_poly(r);
  precise float q_float = k - 4.0 * floor(k * 0.25);  // k mod 4 in 0..3
  int q = int(q_float);
  if (q == 0) { s = sp; c = cp; }
  else if (q == 1) { s = cp; c = -sp; }
  else if (q == 2) { s = -sp; c = -cp; }
  else { s = -cp; c = sp; }
}
float det_sin(float x) { float s, c; sin_cos(x, s, c); return s; }
float det_cos(float x) { float s, c; sin_cos(x, s, c); return c; }

// ---- deform_vertex (render/stages/deform.h) ----
vec3 rotate_about_y(vec3 d, float angle) {
  float s, c;
  sin_cos(angle, s, c);
  precise vec3 r = vec3(d.x * c + d.z * s, d.y, d.z * c - d.x * s);
  return r;
}
vec3 rotate_about_z(vec3 d, float angle) {
  float s, c;
  sin_cos(angle, s, c);
  precise vec3 r = vec3(d.x * c - d.y * s, d.x * s + d.y * c, d.z);
  return r;
}

vec3 deform_vertex(vec3 p) {
  precise vec3 d = p - u_center;
  if (u_kind == 1) {  // twist: rotation about +Y growing with height; swings with time
    precise float angle = u_amount * (d.y * u_inv_radius) * (0.5 * kPi) * det_cos(u_time);
    precise vec3 out_p = u_center + rotate_about_y(d, angle);
    return out_p;
  }
  if (u_kind == 2) {  // bend: rotation about +Z growing with |x|
    precise float h = d.x * u_inv_radius;
    precise float angle = u_amount * 0.5 * h * abs(h) * det_cos(u_time);
    precise vec3 out_p = u_center + rotate_about_z(d, angle);
    return out_p;
  }
  if (u_kind == 3) {  // wave: travelling wave along X and Z, displacing Y
    const float k = 2.0 * kPi;
    precise float w = det_sin(k * d.x * u_inv_radius + 3.0 * u_time) * det_cos(k * d.z * u_inv_radius + 2.0 * u_time);
    precise vec3 out_p = vec3(p.x, p.y + u_amount * 0.08 * u_radius * w, p.z);
    return out_p;
  }
  if (u_kind == 4) {  // pulse: radial breathing with a ripple outward from the centre
    precise float dist = sqrt(d.x * d.x + d.y * d.y + d.z * d.z) * u_inv_radius;  // dot() in the CPU's order
    precise float scale = 1.0 + u_amount * 0.1 * det_sin(6.0 * dist - 4.0 * u_time);
    precise vec3 out_p = u_center + d * scale;
    return out_p;
  }
  return p;
}

void main() {
  precise vec3 world = deform_vertex(a_rest);
  precise vec3 rel = world - u_eye;
  precise vec3 view = vec3(dot(u_right, rel), dot(u_up, rel), dot(u_back, rel));
  v_world = world;
  v_view = view;
  float depth = -view.z;  // positive in front of the camera
  if (u_ortho_depth.y > 0.0) {
    gl_Position = vec4(view.x * u_ndc_scale.x, view.y * u_ndc_scale.y, (u_ortho_depth.x - depth) * u_ortho_depth.y, 1.0);
  } else {
    gl_Position = vec4(view.x * u_ndc_scale.x, view.y * u_ndc_scale.y, u_near, depth);
  }
}
