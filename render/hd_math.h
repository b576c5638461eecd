// Small __host__ __device__ vector math shared by both backends.
//
// Both backends must do the same float operations in the same order, so that the cpu backend's structure and
// image equal the GPU's bit for bit. Three rules make that hold:
//   1. only +, -, *, /, sqrt, floor, min/max and conversions are used (all correctly rounded or exact on both
//      the host and the device); CUDA's sinf/cosf/powf and libm's differ in the last bit, so sin/cos are
//      computed here from a polynomial (det_sin / det_cos) and powers by repeated multiplication;
//   2. the build turns off contraction into fused multiply-add (-fmad=false for nvcc, -ffp-contract=off for
//      the host compiler: render/CMakeLists.txt);
//   3. nothing here reads libm's transcendental functions; the host computes tan(fovy/2) etc. once per frame
//      and passes the values to both backends.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define SC_HD __host__ __device__ __forceinline__
#else
#define SC_HD inline
#endif

namespace slabcast {

struct Vec3 {
  float x, y, z;
};

SC_HD Vec3 make_vec3(float x, float y, float z) { return Vec3{x, y, z}; }
SC_HD Vec3 operator+(Vec3 a, Vec3 b) { return Vec3{a.x + b.x, a.y + b.y, a.z + b.z}; }
SC_HD Vec3 operator-(Vec3 a, Vec3 b) { return Vec3{a.x - b.x, a.y - b.y, a.z - b.z}; }
SC_HD Vec3 operator-(Vec3 a) { return Vec3{-a.x, -a.y, -a.z}; }
SC_HD Vec3 operator*(Vec3 a, float s) { return Vec3{a.x * s, a.y * s, a.z * s}; }
SC_HD Vec3 operator*(float s, Vec3 a) { return Vec3{a.x * s, a.y * s, a.z * s}; }
SC_HD float dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
SC_HD Vec3 cross(Vec3 a, Vec3 b) {
  return Vec3{a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
// Component k (0, 1, 2) without taking the address of a member (keeps the vector in registers on the GPU).
SC_HD float component(Vec3 v, int k) { return k == 0 ? v.x : (k == 1 ? v.y : v.z); }

SC_HD float sc_sqrt(float x) {
#if defined(__CUDA_ARCH__)
  return __fsqrt_rn(x);  // IEEE round-to-nearest, same as the host's sqrtf (independent of -prec-sqrt)
#else
  return std::sqrt(x);
#endif
}
SC_HD float sc_min(float a, float b) { return a < b ? a : b; }
SC_HD float sc_max(float a, float b) { return a > b ? a : b; }
SC_HD float sc_abs(float a) { return a < 0.0f ? -a : a; }
SC_HD float sc_clamp(float x, float lo, float hi) { return x < lo ? lo : (x > hi ? hi : x); }
SC_HD bool sc_isfinite(float x) { return x - x == 0.0f; }  // false for inf and NaN; no libm, same on both sides
SC_HD float sc_floor(float x) { return floorf(x); }
// The bits of one trivially copyable value as another of the same size (std::bit_cast, which C++17 lacks): no
// aliasing through pointers; nvcc and the host compiler both turn the copy into a register move.
template <typename To, typename From>
SC_HD To sc_bit_cast(const From& from) {
  static_assert(sizeof(To) == sizeof(From), "a bit cast keeps the size");
  To to;
  memcpy(&to, &from, sizeof to);
  return to;
}
SC_HD float sc_div(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fdiv_rn(a, b);  // IEEE division regardless of -prec-div
#else
  return a / b;
#endif
}

// A zero vector stays zero (degenerate normals shade as unlit instead of NaN).
SC_HD Vec3 normalize_or_zero(Vec3 v) {
  const float len2 = dot(v, v);
  if (!(len2 > 0.0f)) return Vec3{0.0f, 0.0f, 0.0f};
  const float inv = sc_div(1.0f, sc_sqrt(len2));
  return v * inv;
}
SC_HD Vec3 normalize(Vec3 v) {
  const float len = sc_sqrt(dot(v, v));
  return Vec3{sc_div(v.x, len), sc_div(v.y, len), sc_div(v.z, len)};
}

// sin and cos from fixed polynomials, bit-identical on host and device (see the banner).
// Range reduction to [-pi/4, pi/4] with a three-part pi/2 (Cody-Waite); accurate to a few ulp for |x| < 1e4,
// which is all the deformers need (they are animation, not numerics).
namespace detail {
constexpr float kTwoOverPi = 0.636619772367581343f;
// pi/2 in three parts of few significant bits each (Cephes' sinf constants doubled), so that k * part is exact
// for the quadrant counts k the deformers produce.
constexpr float kPiOver2A = 1.5703125f;
constexpr float kPiOver2B = 4.837512969970703125e-4f;
constexpr float kPiOver2C = 7.54978995489188216e-8f;
SC_HD float sin_poly(float r) {  // sin on [-pi/4, pi/4]
  const float r2 = r * r;
  return r + r * r2 * (-1.6666654611e-1f + r2 * (8.3321608736e-3f + r2 * -1.9515295891e-4f));
}
SC_HD float cos_poly(float r) {  // cos on [-pi/4, pi/4]
  const float r2 = r * r;
  return 1.0f - 0.5f * r2 + r2 * r2 * (4.166664568298827e-2f + r2 * (-1.388731625493765e-3f + r2 * 2.443315711809948e-5f));
}
SC_HD void sin_cos(float x, float& s, float& c) {
  const float k = sc_floor(x * kTwoOverPi + 0.5f);
  const float r = ((x - k * kPiOver2A) - k * kPiOver2B) - k * kPiOver2C;
  const float sp = sin_poly(r), cp = cos_poly(r);
  const int q = static_cast<int>(k - 4.0f * sc_floor(k * 0.25f));  // k mod 4 in 0..3
  switch (q) {
    case 0: s = sp; c = cp; break;
    case 1: s = cp; c = -sp; break;
    case 2: s = -sp; c = -cp; break;
    default: s = -cp; c = sp; break;
  }
}
}  // namespace detail

SC_HD float det_sin(float x) { float s, c; detail::sin_cos(x, s, c); return s; }
SC_HD float det_cos(float x) { float s, c; detail::sin_cos(x, s, c); return c; }

// log2(x) from the float's exponent and a series for its mantissa, bit-identical on host and device (log2f differs
// between libm and CUDA). x = m 2^e with m in [sqrt(1/2), sqrt(2)); log2(m) = 2 atanh(s) / ln 2, s = (m-1)/(m+1),
// |s| < 0.172, by its series to s^9: within 1e-7 of log2(m). Not a finite positive x: -128 for x <= 0 (and NaN),
// +128 for +inf (the callers clamp to far smaller ranges).
SC_HD float det_log2(float x) {
  if (!(x > 0.0f)) return -128.0f;
  if (!sc_isfinite(x)) return 128.0f;
  int bias = 0;
  if (x < 1.17549435e-38f) {  // a denormal: scale into the normal range first (exact)
    x = x * 18446744073709551616.0f;  // 2^64
    bias = 64;
  }
  const uint32_t bits = sc_bit_cast<uint32_t>(x);
  int e = static_cast<int>((bits >> 23) & 0xffu) - 127 - bias;
  float m = sc_bit_cast<float>((bits & 0x7fffffu) | 0x3f800000u);  // [1, 2)
  if (m > 1.41421356f) {
    m = m * 0.5f;
    e += 1;
  }
  const float s = sc_div(m - 1.0f, m + 1.0f);
  const float s2 = s * s;
  const float series = 1.0f + s2 * (0.333333333f + s2 * (0.2f + s2 * (0.142857143f + s2 * 0.111111111f)));
  constexpr float kTwoOverLn2 = 2.88539008f;  // 2 / ln 2
  return static_cast<float>(e) + s * series * kTwoOverLn2;
}

}  // namespace slabcast
