#include "app/viewer/headless.h"

#include "app/gl/egl_context.h"
#include "app/viewer/imgui_layer.h"
#include "app/viewer/overlay.h"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <stdexcept>

namespace slabcast::viewer {

namespace {
constexpr double kHeadlessFrameSeconds = 1.0 / 60.0;  // animation step per headless frame
// ImGui sizes an auto-resizing window over its first frames (the first one is measured, not drawn); these UI-only
// frames before the first real one make the overlay complete even in a one-frame run.
constexpr int kOverlayWarmupFrames = 2;

// The default screenshot never replaces a file: slabcast-view.png, else slabcast-view-2.png, -3, ...
std::string free_default_screenshot_name() {
  std::string name = "slabcast-view.png";
  for (int n = 2; std::filesystem::exists(std::filesystem::symlink_status(name)); ++n) {
    name = "slabcast-view-" + std::to_string(n) + ".png";
  }
  return name;
}

Rgba8Image read_image(int width, int height) {
  Rgba8Image image;
  image.width = width;
  image.height = height;
  image.pixels = gl::read_pixels_top_down(width, height);
  return image;
}
}  // namespace

std::string timestamped_screenshot_name() {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &local);
  std::string name = std::string("slabcast-") + stamp + ".png";
  for (int n = 2; std::filesystem::exists(name); ++n) name = std::string("slabcast-") + stamp + "-" + std::to_string(n) + ".png";
  return name;
}

HeadlessFrame render_headless(const ViewOptions& options) {
  const int width = options.frame.width, height = options.frame.height;
  if (width < 1 || height < 1) {
    throw std::invalid_argument("headless frame size " + std::to_string(width) + "x" + std::to_string(height));
  }
  if (options.frames < 1) throw std::invalid_argument("--frames must be at least 1, not " + std::to_string(options.frames));

  // GL on the CUDA device when the cuda backend will run, so the frame goes through real interop.
  const int cuda_device = gl::cuda_device_or_none();
  const bool want_cuda = options.backend ? *options.backend == Backend::cuda : cuda_device >= 0;
  gl::EglContext egl(want_cuda ? cuda_device : -1);

  HeadlessFrame out;
  {  // every GL object dies before the context
    Session session(options, egl.on_cuda_device(), egl.description(), /*windowed=*/false);
    gl::OffscreenTarget target(width, height);
    ImGuiLayer imgui(nullptr);
    for (int i = 0; i < kOverlayWarmupFrames && session.show_overlay; ++i) {
      imgui.new_frame(width, height, static_cast<float>(kHeadlessFrameSeconds));
      build_overlay(session);
      imgui.end_frame();
    }
    auto last = std::chrono::steady_clock::now();
    for (int frame = 0; frame < options.frames; ++frame) {
      const bool final_frame = frame + 1 == options.frames;
      imgui.new_frame(width, height, static_cast<float>(kHeadlessFrameSeconds));
      if (session.show_overlay) build_overlay(session);
      imgui.end_frame();

      target.bind();
      session.render_and_present(width, height);
      // No one reads the overlay of a headless run: a scene that stopped moving (a sequence frame that does not
      // load) fails the run, naming the file, instead of writing a still image.
      if (!session.last_error.empty()) throw std::runtime_error(session.last_error);
      if (final_frame) out.scene = read_image(width, height);
      if (session.show_overlay) imgui.draw();
      if (final_frame) out.composite = read_image(width, height);

      const auto now = std::chrono::steady_clock::now();
      session.frame_times.add(std::chrono::duration<float, std::milli>(now - last).count());
      last = now;
      if (!final_frame) session.advance_time(kHeadlessFrameSeconds);
    }
    out.overlay = session.show_overlay ? session.overlay_rects : std::vector<PixelRect>{};
    out.stats = session.stats;
    out.backend = session.backend;
    out.feed = session.feed();
    out.gl_description = session.gl_description;
    SLABCAST_GL_CHECK(glBindFramebuffer(GL_FRAMEBUFFER, 0));
  }
  return out;
}

int run_headless(const ViewOptions& options) {
  const HeadlessFrame frame = render_headless(options);
  const std::string path = options.screenshot_path.empty() ? free_default_screenshot_name() : options.screenshot_path;
  const Rgba8Image& image = options.screenshot_3d_only ? frame.scene : frame.composite;
  write_png(path, image.pixels.data(), image.width, image.height, static_cast<size_t>(image.width) * 4);
  std::error_code error;
  const std::filesystem::path absolute = std::filesystem::absolute(path, error);
  std::printf("slabcast: wrote %s (%dx%d, %d frame%s, %s backend via %s; %s)\n",
              (error ? path : absolute.string()).c_str(), image.width, image.height, options.frames,
              options.frames == 1 ? "" : "s", frame.backend == Backend::cuda ? "cuda" : "cpu", gl::feed_name(frame.feed),
              frame.gl_description.c_str());
  return 0;
}

}  // namespace slabcast::viewer
