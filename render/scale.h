// Scale-free geometry on the host: lengths and directions of vectors of any finite float size, and the power of two
// that brings a scene to unit size.
//
// A power-of-two factor changes a float's exponent and nothing else (in the normal range), so scaling by one before
// squaring and back after gives exactly the result the plain formula gives where that does not overflow, and a
// correct one where it would (coordinates beyond about 1.8e19 square past the largest float; below about 1e-19
// their squares lose bits as denormals). The renderer uses this to make a scene scaled by 2^k give the very same
// triangle IDs as the scene itself.
#pragma once
#include <glm/glm.hpp>

#include <algorithm>
#include <cmath>

namespace slabcast {

// The largest |component|.
inline float max_abs(const glm::vec3& v) { return std::max(std::fabs(v.x), std::max(std::fabs(v.y), std::fabs(v.z))); }

// v * 2^e exactly (ldexp per component: no overflow of the factor itself).
inline glm::vec3 scaled_by_pow2(const glm::vec3& v, int e) {
  return glm::vec3(std::ldexp(v.x, e), std::ldexp(v.y, e), std::ldexp(v.z, e));
}

// The exponent e with 2^e <= x < 2^(e+1) for a positive finite x; 0 otherwise.
inline int pow2_exponent(float x) { return (x > 0.0f && std::isfinite(x)) ? std::ilogb(x) : 0; }

// |v| without overflow or underflow on the way (the plain formula's bits wherever that one is exact).
inline float length_without_overflow(const glm::vec3& v) {
  const float m = max_abs(v);
  if (!(m > 0.0f) || !std::isfinite(m)) return glm::length(v);
  const int e = pow2_exponent(m);
  return std::ldexp(glm::length(scaled_by_pow2(v, -e)), e);
}

// v / |v| likewise; the zero vector for a zero or non-finite v.
inline glm::vec3 normalize_without_overflow(const glm::vec3& v) {
  const float m = max_abs(v);
  if (!(m > 0.0f) || !std::isfinite(m)) return glm::vec3(0.0f);
  return glm::normalize(scaled_by_pow2(v, -pow2_exponent(m)));
}

}  // namespace slabcast
