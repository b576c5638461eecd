// Shared by the viewer tests: a small scene, the reference frame from the renderer alone, image comparisons.
#pragma once
#include "app/image_io.h"
#include "app/viewer/headless.h"
#include "app/viewer/viewer.h"

#include <string>
#include <vector>

namespace slabcast::test {

// A small scene that every backend renders quickly: a twisted 20K-triangle sphere at 800x600 (wide enough that
// the overlay's two panels leave a strip of the 3D image uncovered between them).
ViewOptions small_scene_options(Backend backend);

// The same frame rendered by the renderer alone (no GL): options' scene and camera, the deformer at `time`.
// For the cuda backend the frame goes into plain device memory (slabtest::DeviceBuffer) and is copied back.
Rgba8Image reference_frame(const ViewOptions& options, float time);

// Animation time of the last of `frames` headless frames, with the viewer's own float arithmetic.
float headless_final_time(const ViewOptions& options);

struct ImageDiff {
  size_t differing_pixels = 0;
  int max_channel_difference = 0;
  int first_x = -1, first_y = -1;  // first differing pixel, row-major
  std::string describe() const;
};
// Pixels that differ; `mask` (optional, width*height) restricts the comparison to pixels where mask != 0.
ImageDiff compare(const Rgba8Image& a, const Rgba8Image& b, const std::vector<uint8_t>* mask = nullptr);

// 1 inside any of `rects`, else 0 (clipped to the image).
std::vector<uint8_t> rect_mask(int width, int height, const std::vector<viewer::PixelRect>& rects);

std::string output_path(const std::string& file_name);  // under the build tree; the directory is created

}  // namespace slabcast::test
