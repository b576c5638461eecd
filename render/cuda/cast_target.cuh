// Where the cuda backend's shading goes: the caller's surface, written by the caster as it casts, by the shadow test
// where it finds a pixel in shadow, or by the shade kernel after them (stages/shade.h: shades_after_cast).
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "render/frame_params.h"

namespace slabcast {

struct CastTarget {
  uint8_t* pixels;
  size_t pitch_bytes;
  bool word_aligned;
  bool write_hits;  // the caster writes the hit buffers: the caller asked for them, or the shade kernel reads them
  bool shade;       // the caster shades its pixels, as if lit (else the shade kernel shades them all)
  // With shadows, in a lit view whose shadowed pixels are all one grey (stages/shade.h: shadowed_pixels_are_grey):
  // the shadow test writes `shadowed_grey` into each pixel whose sample it finds blocked.
  bool grey_shadows;
  Rgba8 shadowed_grey;
};

__device__ __forceinline__ void write_pixel(const CastTarget& target, int px, int py, const Rgba8& c) {
  uint8_t* out = target.pixels + static_cast<size_t>(py) * target.pitch_bytes + 4 * static_cast<size_t>(px);
  if (target.word_aligned) {
    *reinterpret_cast<uchar4*>(out) = make_uchar4(c.r, c.g, c.b, c.a);
  } else {
    out[0] = c.r;
    out[1] = c.g;
    out[2] = c.b;
    out[3] = c.a;
  }
}

}  // namespace slabcast
