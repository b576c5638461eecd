// The brute-force shadow test the renderer's shadows are checked against: every sample against every triangle, in
// double precision, with its own intersection code (Moller-Trumbore), so that none of the renderer's math is reused.
// A sample is the exact point where the pixel's ray meets the plane of the triangle the renderer hit there.
#pragma once
#include <glm/glm.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "render/renderer.h"

namespace slabcast::test {

// What an exact test says about a pixel. `rounding`: the answer hangs on rounding, so either is right: no triangle
// clearly blocks, but one crosses the segment within 1e-4 of the scene's size of either end (the hit point's own
// neighbourhood, or the light), or passes within 1e-5 of the scene's size of one of its edges.
enum class ShadowTruth : uint8_t { no_hit, lit, shadow, rounding };

// The light as the oracle sees it: a point (a headlight is a point light at the eye) or a sun's direction.
struct OracleLight {
  bool sun = false;
  glm::dvec3 vector{0.0};  // sun: towards the sun; point: the position
};
OracleLight oracle_light(const Light& light, const Camera& camera);

// The exact answer at every pixel of a frame whose triangle IDs are `ids` (kNoHit 0xFFFFFFFF: no hit).
std::vector<ShadowTruth> oracle_shadows(const std::vector<glm::vec3>& positions, const std::vector<uint32_t>& indices,
                                        const Camera& camera, int width, int height, const OracleLight& light,
                                        const std::vector<uint32_t>& ids);

// The rendered mask against the exact answers: 128 exactly where there is no hit; 0 where a triangle clearly blocks,
// 255 where none comes near; either at a rounding case.
struct ShadowComparison {
  uint64_t samples = 0, shadowed = 0, lit = 0, rounding = 0, wrong = 0;
  std::string log;  // the first wrong pixels
  bool ok() const { return wrong == 0; }
};
ShadowComparison compare_shadows(const std::vector<ShadowTruth>& truth, const std::vector<uint8_t>& mask, int width);

}  // namespace slabcast::test
