// Stage 6, resolve (docs/architecture.md, "Samples"): an anti-aliased frame (FrameSettings::samples = N > 1) is N
// whole frames, sample k of them casting every pixel's ray through the same point of the pixel, and their colours'
// average. Shared by both backends: the sample points, and accumulate_sample, the per-pixel body that adds a sample
// frame's colour to the pixel's sum and, after the last sample (or after each, progressively), writes the average
// into the target.
//
// Why whole frames: binning culls the triangles that cover no ray's point and boxes each triangle by the pixels whose
// ray can hit it (stages/bin.h), so a structure holds for one point of the pixel only. A frame whose rays all pass
// through offset (ox, oy) of their pixels is the pixel grid shifted by (ox - 0.5, oy - 0.5): every stage reads the
// offset from ViewParams (camera.h) and the structure is exact for it, as it is for the centre.
#pragma once
#include <cstddef>
#include <cstdint>

#include "render/hd_math.h"

namespace slabcast {

constexpr int kMaxSamples = 16;
// 1 (the pixel centre only), 4 or 16: the samples are a square grid over the pixel.
SC_HD bool is_sample_count(int samples) { return samples == 1 || samples == 4 || samples == 16; }
SC_HD int sample_grid_side(int samples) { return samples == 16 ? 4 : (samples == 4 ? 2 : 1); }

// Where in its pixel a frame's rays pass, from the pixel's top-left corner in pixels (ViewParams::pixel_offset_x/y).
struct SampleOffset {
  float x, y;
};
constexpr SampleOffset kPixelCentre{0.5f, 0.5f};

// Sample k of N (stratified): the centre of cell (k mod side, k / side) of a side x side grid over the pixel,
// ((2i + 1) / (2 side), (2j + 1) / (2 side)): exact in float, a multiple of 1/8, so px + offset is exact for every
// pixel index. N = 1 gives the centre. The same point of every pixel of a W x H frame is the centre of pixel
// (side px + i, side py + j) of the frame of side W x side H, bit for bit (camera.h's formula scales by a power of
// two), which the tests use.
SC_HD SampleOffset sample_offset(int samples, int k) {
  const int side = sample_grid_side(samples);
  const float cells = static_cast<float>(2 * side);
  return SampleOffset{sc_div(static_cast<float>(2 * (k % side) + 1), cells),
                      sc_div(static_cast<float>(2 * (k / side) + 1), cells)};
}

// A pixel's colour sum over the samples so far: 16 x 255 fits 16 bits.
struct alignas(8) SampleSum {
  uint16_t c[4];  // R, G, B, A
};
static_assert(kMaxSamples * 255 <= 65535, "a pixel's sum of samples fits 16 bits a channel");

// The sample frame just rendered (RGBA8, row 0 at the top, as Surface) and the running sums.
struct SampleImage {
  uint8_t* pixels;     // the caller's target: each sample frame is rendered into it, then the average replaces it
  size_t pitch_bytes;  // bytes from one row to the next
  int width, height;
  SampleSum* sums;     // [width * height], row by row
  int samples;         // N
  // Progressive (FrameSettings::progressive_sample): the target gets the average so far after every sample, not
  // only after the last one.
  bool average_every_sample = false;
};

// Sample k's colour at (px, py) into the pixel's sum (sample 0 starts it); after the last sample (after every one when
// progressive), the box filter's result over samples 0..k into the target: the integer sum divided by k + 1, rounded
// half up, so a region every sample sees in the same colour keeps that colour exactly. After sample N - 1 both ways
// write the same bytes. Integer arithmetic only: both backends write the same bytes.
SC_HD void accumulate_sample(const SampleImage& im, int px, int py, int k) {
  uint8_t* pixel = im.pixels + static_cast<size_t>(py) * im.pitch_bytes + 4 * static_cast<size_t>(px);
  SampleSum& sum = im.sums[static_cast<size_t>(py) * static_cast<size_t>(im.width) + static_cast<size_t>(px)];
  for (int c = 0; c < 4; ++c) sum.c[c] = static_cast<uint16_t>((k == 0 ? 0u : sum.c[c]) + pixel[c]);
  if (k != im.samples - 1 && !im.average_every_sample) return;
  const uint32_t count = static_cast<uint32_t>(k) + 1u, half = count / 2u;
  for (int c = 0; c < 4; ++c) pixel[c] = static_cast<uint8_t>((sum.c[c] + half) / count);
}

}  // namespace slabcast
