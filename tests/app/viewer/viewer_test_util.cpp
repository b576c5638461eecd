#include "viewer_test_util.h"

#include "common/device_buffer.h"
#include "common/test_output.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>

namespace slabcast::test {

ViewOptions small_scene_options(Backend backend) {
  ViewOptions o;
  o.scene.procedural_name = "sphere";
  o.scene.procedural_triangles = 20000;
  o.frame.width = 800;
  o.frame.height = 600;
  o.frame.deform = {Deformer::twist, 1.0f, 0.5f};
  o.frame.slabs = 16;
  o.frame.shading = Shading::phong;
  o.backend = backend;
  o.headless = true;
  o.frames = 1;
  o.animate = false;
  return o;
}

float headless_final_time(const ViewOptions& options) {
  float time = options.frame.deform.time;
  if (!options.animate) return time;
  for (int i = 1; i < options.frames; ++i) time += static_cast<float>((1.0 / 60.0) * options.time_scale);
  return time;
}

Rgba8Image reference_frame(const ViewOptions& options, float time) {
  const Mesh mesh = make_procedural_mesh(options.scene.procedural_name, options.scene.procedural_triangles);
  FrameSettings settings = options.frame;
  settings.deform.time = time;
  if (!(options.eye_given && options.target_given)) {  // as the viewer frames it headless: the whole image
    settings.camera = frame_mesh(mesh, settings.camera.fovy_degrees,
                                 static_cast<float>(settings.width) / static_cast<float>(settings.height),
                                 settings.deform);
  }
  const Backend backend = options.backend.value_or(Backend::cuda);
  std::unique_ptr<Renderer> renderer = make_renderer(backend);
  renderer->set_mesh(mesh);
  Rgba8Image image;
  image.width = settings.width;
  image.height = settings.height;
  const size_t pitch = static_cast<size_t>(settings.width) * 4;
  image.pixels.assign(pitch * static_cast<size_t>(settings.height), 0);
  if (backend == Backend::cpu) {
    renderer->render(settings, Surface{image.pixels.data(), settings.width, settings.height, pitch});
  } else {
    const slabtest::DeviceBuffer<uint8_t> device(image.pixels.size());
    renderer->render(settings, Surface{device.get(), settings.width, settings.height, pitch});
    image.pixels = device.download();
  }
  return image;
}

std::string ImageDiff::describe() const {
  if (differing_pixels == 0) return "identical";
  return std::to_string(differing_pixels) + " pixels differ, by up to " + std::to_string(max_channel_difference) +
         " per channel; first at (" + std::to_string(first_x) + ", " + std::to_string(first_y) + ")";
}

ImageDiff compare(const Rgba8Image& a, const Rgba8Image& b, const std::vector<uint8_t>* mask) {
  ImageDiff diff;
  if (a.width != b.width || a.height != b.height) {
    diff.differing_pixels = static_cast<size_t>(std::max(a.width * a.height, b.width * b.height));
    diff.max_channel_difference = 255;
    return diff;
  }
  for (int y = 0; y < a.height; ++y) {
    for (int x = 0; x < a.width; ++x) {
      const size_t p = static_cast<size_t>(y) * static_cast<size_t>(a.width) + static_cast<size_t>(x);
      if (mask != nullptr && (*mask)[p] == 0) continue;
      int worst = 0;
      for (int c = 0; c < 4; ++c) worst = std::max(worst, std::abs(int(a.pixels[4 * p + c]) - int(b.pixels[4 * p + c])));
      if (worst == 0) continue;
      if (diff.differing_pixels++ == 0) diff.first_x = x, diff.first_y = y;
      diff.max_channel_difference = std::max(diff.max_channel_difference, worst);
    }
  }
  return diff;
}

std::vector<uint8_t> rect_mask(int width, int height, const std::vector<viewer::PixelRect>& rects) {
  std::vector<uint8_t> mask(static_cast<size_t>(width) * static_cast<size_t>(height), 0);
  for (const viewer::PixelRect& r : rects) {
    for (int y = std::max(r.y, 0); y < std::min(r.y + r.height, height); ++y) {
      for (int x = std::max(r.x, 0); x < std::min(r.x + r.width, width); ++x) {
        mask[static_cast<size_t>(y) * static_cast<size_t>(width) + static_cast<size_t>(x)] = 1;
      }
    }
  }
  return mask;
}

std::string output_path(const std::string& file_name) {
  const std::string root = slabtest::test_output_root(SLABCAST_TEST_OUTPUT);
  std::filesystem::create_directories(root);
  return (std::filesystem::path(root) / file_name).string();
}

}  // namespace slabcast::test
