// Comparing a rendered frame with its golden (frame-dump regression: `slabcast check`, docs/golden-images.md).
//
// Tolerance: a pixel differs when any channel differs by more than kGoldenChannelTolerance (of 255): float rounding
// in shading (FMA contraction on the GPU, another compiler) moves a channel by a count or two, never by 8. A frame
// matches when at most kGoldenMaxDifferingFraction of its pixels differ: silhouette pixels whose ray grazes an edge,
// and ties between triangles, may legitimately go to a neighbour. A wrong tile, slab or camera changes far more.
// Triangle IDs have no tolerance per pixel (an ID is right or wrong) but the same fraction of differing pixels.
#pragma once
#include "app/image_io.h"

#include <cstddef>
#include <string>

namespace slabcast {

constexpr int kGoldenChannelTolerance = 8;
constexpr double kGoldenMaxDifferingFraction = 0.005;

struct ImageComparison {
  bool same_size = false;    // when false, nothing else is filled in
  size_t pixels = 0;
  size_t differing = 0;      // pixels beyond the tolerance
  int worst_channel = 0;     // the largest channel difference (IDs: 0)
  double differing_fraction() const { return pixels == 0 ? 0.0 : double(differing) / double(pixels); }
  bool matches() const { return same_size && differing_fraction() <= kGoldenMaxDifferingFraction; }
  // The difference image (colour only): black where equal, grey (brighter with the difference) where within the
  // tolerance, red where the pixel differs.
  Rgba8Image diff;
};

ImageComparison compare_images(const Rgba8Image& actual, const Rgba8Image& golden);
ImageComparison compare_ids(const IdImage& actual, const IdImage& golden);

// "300x200" of an image, for messages.
std::string size_text(int width, int height);

}  // namespace slabcast
