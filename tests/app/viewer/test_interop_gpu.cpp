// The headless viewer with the cuda backend on NVIDIA's EGL device: the frame goes through real CUDA-GL interop
// (the renderer writes into the mapped pixel buffer) and must equal, bit for bit, the frame the same renderer
// writes into plain device memory (what `slabcast render` does). Also the fallback feed (device copy + upload).
#include "viewer_test_util.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace slabcast::test {
namespace {

using viewer::HeadlessFrame;
using viewer::render_headless;

TEST(ViewerInteropGpu, InteropFrameEqualsThePlainDeviceMemoryFrame) {
  const ViewOptions options = small_scene_options(Backend::cuda);
  const HeadlessFrame frame = render_headless(options);
  ASSERT_EQ(frame.backend, Backend::cuda);
  ASSERT_EQ(frame.feed, gl::Feed::cuda_interop)
      << "GL did not run on the CUDA device's EGL device: " << frame.gl_description;
  const Rgba8Image reference = reference_frame(options, options.frame.deform.time);
  const ImageDiff diff = compare(frame.scene, reference);
  EXPECT_EQ(diff.differing_pixels, 0u) << diff.describe() << "\nGL: " << frame.gl_description;
}

TEST(ViewerInteropGpu, AnimatedInteropFramesEqualThePlainDeviceMemoryFrame) {
  ViewOptions options = small_scene_options(Backend::cuda);
  options.animate = true;
  options.frames = 5;
  options.frame.width = 1001;  // neither side a multiple of the 8-pixel tile
  options.frame.height = 603;
  const HeadlessFrame frame = render_headless(options);
  ASSERT_EQ(frame.feed, gl::Feed::cuda_interop);
  const ImageDiff diff = compare(frame.scene, reference_frame(options, headless_final_time(options)));
  EXPECT_EQ(diff.differing_pixels, 0u) << diff.describe();
}

TEST(ViewerInteropGpu, CudaBackendOnAnotherGlDeviceCopiesThroughTheHost) {
  // Mesa's software EGL device (SLABCAST_EGL_DEVICE=software), if this machine has one: interop is impossible
  // there, so the device-copy feed runs, and its frame must be the same.
  ::setenv("SLABCAST_EGL_DEVICE", "software", 1);
  const ViewOptions options = small_scene_options(Backend::cuda);
  HeadlessFrame frame;
  try {
    frame = render_headless(options);
  } catch (const std::exception& e) {
    ::unsetenv("SLABCAST_EGL_DEVICE");
    GTEST_SKIP() << "no second EGL device: " << e.what();
  }
  ::unsetenv("SLABCAST_EGL_DEVICE");
  if (frame.feed == gl::Feed::cuda_interop) GTEST_SKIP() << "only the CUDA device's EGL device exists here";
  EXPECT_EQ(frame.feed, gl::Feed::cuda_copy);
  const ImageDiff diff = compare(frame.scene, reference_frame(options, options.frame.deform.time));
  EXPECT_EQ(diff.differing_pixels, 0u) << diff.describe();
}

#ifdef SLABCAST_EXE
int run(const std::string& command) {
  const int status = std::system((command + " > /dev/null").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(ViewerInteropGpuCli, MatchesSlabcastRenderCuda) {
  const std::string scene = " --procedural sphere:200k --size 1024x768 --deform wave:0.5 --time 1.25 --backend cuda";
  const std::string rendered = output_path("cli_render_cuda.png"), viewed = output_path("cli_view_cuda_3d.png");
  ASSERT_EQ(run(std::string(SLABCAST_EXE) + " render" + scene + " --out " + rendered), 0);
  ASSERT_EQ(run(std::string(SLABCAST_EXE) + " view --headless --pause --frames 3" + scene +
                " --screenshot-3d-only --screenshot " + viewed), 0);
  const ImageDiff diff = compare(read_png(rendered), read_png(viewed));
  EXPECT_EQ(diff.differing_pixels, 0u) << diff.describe();
}
#endif

}  // namespace
}  // namespace slabcast::test
