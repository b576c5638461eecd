#include "app/image_compare.h"

#include <algorithm>
#include <cstdlib>

namespace slabcast {

ImageComparison compare_images(const Rgba8Image& actual, const Rgba8Image& golden) {
  ImageComparison c;
  c.same_size = actual.width == golden.width && actual.height == golden.height &&
                actual.pixels.size() == golden.pixels.size();
  if (!c.same_size) return c;
  c.pixels = actual.pixels.size() / 4;
  c.diff.width = actual.width;
  c.diff.height = actual.height;
  c.diff.pixels.resize(actual.pixels.size());
  // Grey brightens 16 levels a count, so that a difference of one is visible and the tolerance is near white.
  constexpr int kGreyPerCount = 16;
  for (size_t p = 0; p < actual.pixels.size(); p += 4) {
    int max_channel = 0;
    for (size_t k = 0; k < 4; ++k) {
      max_channel = std::max(max_channel, std::abs(int(actual.pixels[p + k]) - int(golden.pixels[p + k])));
    }
    c.worst_channel = std::max(c.worst_channel, max_channel);
    const bool bad = max_channel > kGoldenChannelTolerance;
    c.differing += bad;
    const uint8_t grey = uint8_t(std::min(255, max_channel * kGreyPerCount));
    c.diff.pixels[p + 0] = bad ? 255 : grey;
    c.diff.pixels[p + 1] = bad ? 0 : grey;
    c.diff.pixels[p + 2] = bad ? 0 : grey;
    c.diff.pixels[p + 3] = 255;
  }
  return c;
}

ImageComparison compare_ids(const IdImage& actual, const IdImage& golden) {
  ImageComparison c;
  c.same_size = actual.width == golden.width && actual.height == golden.height && actual.ids.size() == golden.ids.size();
  if (!c.same_size) return c;
  c.pixels = actual.ids.size();
  for (size_t i = 0; i < actual.ids.size(); ++i) c.differing += actual.ids[i] != golden.ids[i];
  return c;
}

std::string size_text(int width, int height) { return std::to_string(width) + "x" + std::to_string(height); }

}  // namespace slabcast
