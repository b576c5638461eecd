// Watertight ray-triangle intersection (Woop, Benthin, Wald, "Watertight Ray/Triangle Intersection",
// JCGT 2013). Rays start at the view-space origin (the eye). Shared edges are never missed by both of their
// triangles, so a mesh has no cracks; the double-precision fallback for U, V or W exactly zero is the paper's.
#pragma once
#include "render/hd_math.h"

namespace slabcast {

// Per-ray constants: the dominant axis kz, the two others (kx, ky, swapped to keep the winding), and the
// shear that maps the ray onto +Z.
struct RayShear {
  int kx, ky, kz;
  float sx, sy, sz;
};

SC_HD RayShear make_ray_shear(Vec3 dir) {
  const float ax = sc_abs(dir.x), ay = sc_abs(dir.y), az = sc_abs(dir.z);
  int kz = ax > ay ? (ax > az ? 0 : 2) : (ay > az ? 1 : 2);
  int kx = kz + 1 == 3 ? 0 : kz + 1;
  int ky = kx + 1 == 3 ? 0 : kx + 1;
  const float dz = component(dir, kz);
  if (dz < 0.0f) {
    const int tmp = kx;
    kx = ky;
    ky = tmp;
  }
  RayShear r;
  r.kx = kx;
  r.ky = ky;
  r.kz = kz;
  r.sx = sc_div(component(dir, kx), dz);
  r.sy = sc_div(component(dir, ky), dz);
  r.sz = sc_div(1.0f, dz);
  return r;
}

// A vertex in the ray's axis order: (component kx, component ky, component kz). Exact (it only moves floats).
SC_HD Vec3 to_ray_axes(const RayShear& r, Vec3 v) {
  return Vec3{component(v, r.kx), component(v, r.ky), component(v, r.kz)};
}

// The test on vertices already in the ray's axis order (to_ray_axes). A caster whose rays share their axes puts
// each triangle in that order once, for all of them, instead of once per ray; both forms do the same arithmetic.
SC_HD bool intersect_watertight_ray_axes(const RayShear& r, Vec3 a, Vec3 b, Vec3 c, float& t_out, float bary[3]) {
  const float az_ = a.z, bz_ = b.z, cz_ = c.z;
  const float ax = a.x - r.sx * az_;
  const float ay = a.y - r.sy * az_;
  const float bx = b.x - r.sx * bz_;
  const float by = b.y - r.sy * bz_;
  const float cx = c.x - r.sx * cz_;
  const float cy = c.y - r.sy * cz_;

  float u = cx * by - cy * bx;
  float v = ax * cy - ay * cx;
  float w = bx * ay - by * ax;
  if (u == 0.0f || v == 0.0f || w == 0.0f) {  // on an edge in float: decide in double (the paper's fallback)
    u = static_cast<float>(static_cast<double>(cx) * by - static_cast<double>(cy) * bx);
    v = static_cast<float>(static_cast<double>(ax) * cy - static_cast<double>(ay) * cx);
    w = static_cast<float>(static_cast<double>(bx) * ay - static_cast<double>(by) * ax);
  }
  if ((u < 0.0f || v < 0.0f || w < 0.0f) && (u > 0.0f || v > 0.0f || w > 0.0f)) return false;
  const float det = u + v + w;
  if (det == 0.0f) return false;

  const float tz = u * (r.sz * az_) + v * (r.sz * bz_) + w * (r.sz * cz_);
  const float t = sc_div(tz, det);
  if (!(t > 0.0f) || !sc_isfinite(t)) return false;
  t_out = t;
  const float inv = sc_div(1.0f, det);
  bary[0] = u * inv;
  bary[1] = v * inv;
  bary[2] = w * inv;
  return true;
}

// Intersect the ray (origin 0) with triangle (a, b, c). On a hit with t > 0 returns true and writes the
// distance t along the ray and the barycentric weights (of a, b, c; they sum to 1).
SC_HD bool intersect_watertight(const RayShear& r, Vec3 a, Vec3 b, Vec3 c, float& t_out, float bary[3]) {
  return intersect_watertight_ray_axes(r, to_ray_axes(r, a), to_ray_axes(r, b), to_ray_axes(r, c), t_out, bary);
}

// The nearest-hit rule shared by every caster: smaller t wins; on equal t the lower triangle ID wins.
SC_HD bool closer_hit(float t, uint32_t id, float best_t, uint32_t best_id) {
  return t < best_t || (t == best_t && id < best_id);
}

}  // namespace slabcast
