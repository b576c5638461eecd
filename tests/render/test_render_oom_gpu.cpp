// Running out of GPU memory, cuda backend (label gpu; SKIPPED without a CUDA device). The device really runs out,
// without needing a scene of 80 GB: the test first takes almost all free device memory as "ballast" (plain
// cudaMalloc), then asks the renderer for a mesh, a frame size or a reference count that no longer fits.
// Checked: the message names the mesh, what was needed and what was free (against the test's own
// cudaMemGetInfo), the renderer keeps its previous state and draws the same pixels, and once the ballast is
// freed the same renderer does the refused work and matches a fresh renderer.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/device_ballast.h"
#include "common/device_buffer.h"
#include "render/oom_message.h"
#include "render/renderer.h"
#include "render/scenes.h"

namespace slabcast::test {
namespace {

constexpr size_t kLeftFree = size_t(64) << 20;  // what the ballast leaves: room for launches, not for the asks

size_t device_free() {
  size_t free_bytes = 0, total = 0;
  cudaMemGetInfo(&free_bytes, &total);
  return free_bytes;
}
size_t device_total() {
  size_t free_bytes = 0, total = 0;
  cudaMemGetInfo(&free_bytes, &total);
  return total;
}

// An RGBA8 image in device memory (rows packed), the render target.
class DeviceImage {
 public:
  DeviceImage(int w, int h) : w_(w), h_(h), rgba_(4 * static_cast<size_t>(w) * h) {}
  Surface surface() const { return Surface{rgba_.get(), w_, h_, 4 * static_cast<size_t>(w_)}; }
  std::vector<uint8_t> download() const { return rgba_.download(); }

 private:
  int w_, h_;
  slabtest::DeviceBuffer<uint8_t> rgba_;
};

struct Image {
  std::vector<uint8_t> rgba;
  std::vector<uint32_t> ids;
  FrameStats stats;
};

// `image` is allocated by the caller (before any ballast), so only the renderer asks for memory here.
Image render_into(Renderer& r, const DeviceImage& image, const Camera& camera, int w, int h) {
  FrameSettings s;
  s.width = w;
  s.height = h;
  s.camera = camera;
  FrameExtras extras;
  Image out;
  out.stats = r.render(s, image.surface(), &extras);
  out.rgba = image.download();
  out.ids = extras.triangle_id;
  return out;
}

// `free_at_ask`: the test's own reading of free memory just before the failing call.
void expect_gpu_report(const std::string& message, const std::string& owner, double at_least_needed,
                       size_t free_at_ask, const std::string& what_contains, const std::string& consequence_contains) {
  const OutOfMemoryReport r = parse_out_of_memory(message);
  ASSERT_TRUE(r.parsed) << "not an out-of-memory message: " << message;
  EXPECT_EQ(r.memory, "GPU") << message;
  EXPECT_EQ(r.owner, owner) << message;
  EXPECT_GE(r.needed, at_least_needed) << message;
  EXPECT_GT(r.needed, r.free) << "the message must say why it failed: " << message;
  // Free memory as the renderer saw it: at most what the test saw (plus what the renderer released meanwhile).
  EXPECT_LE(r.free, 1.02 * static_cast<double>(free_at_ask) + (64 << 20)) << message;
  EXPECT_TRUE(about(r.total, static_cast<double>(device_total()))) << message;
  EXPECT_NE(r.what.find(what_contains), std::string::npos) << message;
  EXPECT_NE(r.consequence.find(consequence_contains), std::string::npos) << message;
}

TEST(CudaOutOfMemory, MeshThatDoesNotFitLeavesThePreviousMeshRendering) {
  std::unique_ptr<Renderer> r = make_renderer(Backend::cuda);
  const Scene small = procedural_scene("torus", 20000);
  r->set_mesh(small.mesh);
  const int w = 256, h = 192;
  DeviceImage image(w, h);
  const Image before = render_into(*r, image, small.camera, w, h);
  ASSERT_GT(before.stats.pixels_hit, 0u);

  const Mesh big = make_procedural_mesh("sphere", 4000000);  // ~0.6 GB of renderer buffers
  {
    DeviceBallast ballast(kLeftFree);
    const size_t free_at_ask = device_free();
    ASSERT_LT(free_at_ask, size_t(256) << 20) << "the ballast did not take the device's memory";
    try {
      r->set_mesh(big);
      FAIL() << "set_mesh of " << big.name << " succeeded with " << free_at_ask << " bytes free";
    } catch (const std::runtime_error& e) {
      // Indices and adjacency alone are 24 bytes per triangle.
      expect_gpu_report(e.what(), big.name, 24.0 * big.triangle_count() - 64.0 * (1 << 20), free_at_ask,
                        "triangles", "previous mesh is kept");
    }
    // Still under the ballast: the previous mesh draws exactly as before.
    const Image during = render_into(*r, image, small.camera, w, h);
    EXPECT_EQ(during.rgba, before.rgba);
    EXPECT_EQ(during.ids, before.ids);
  }
  r->set_mesh(big);
  const Camera view = frame_mesh(big);
  std::unique_ptr<Renderer> fresh = make_renderer(Backend::cuda);
  fresh->set_mesh(big);
  const Image mine = render_into(*r, image, view, w, h);
  const Image theirs = render_into(*fresh, image, view, w, h);
  EXPECT_GT(mine.stats.pixels_hit, 0u);
  EXPECT_EQ(mine.ids, theirs.ids);
  EXPECT_EQ(mine.rgba, theirs.rgba);
}

TEST(CudaOutOfMemory, FirstMeshThatDoesNotFitLeavesNoMeshAndAClearError) {
  std::unique_ptr<Renderer> r = make_renderer(Backend::cuda);
  const Mesh big = make_procedural_mesh("sphere", 4000000);
  DeviceImage image(64, 64);
  {
    DeviceBallast ballast(kLeftFree);
    const size_t free_at_ask = device_free();
    try {
      r->set_mesh(big);
      FAIL() << "set_mesh succeeded with " << free_at_ask << " bytes free";
    } catch (const std::runtime_error& e) {
      expect_gpu_report(e.what(), big.name, 24.0 * big.triangle_count() - 64.0 * (1 << 20), free_at_ask,
                        "triangles", "");
    }
    FrameSettings s;
    s.width = s.height = 64;
    EXPECT_THROW(r->render(s, image.surface()), std::logic_error);
  }
  r->set_mesh(big);
  EXPECT_GT(render_into(*r, image, frame_mesh(big), 64, 64).stats.pixels_hit, 0u);
}

TEST(CudaOutOfMemory, FrameSizeThatDoesNotFitKeepsTheOldSizeWorking) {
  std::unique_ptr<Renderer> r = make_renderer(Backend::cuda);
  const Scene s = procedural_scene("sphere", 20000);
  r->set_mesh(s.mesh);
  DeviceImage small(128, 128);
  const int big = 4096;  // per-pixel depth, ID and test count: 192 MB
  DeviceImage large(big, big);
  const Image before = render_into(*r, small, s.camera, 128, 128);
  {
    DeviceBallast ballast(kLeftFree);
    const size_t free_at_ask = device_free();
    try {
      render_into(*r, large, s.camera, big, big);
      FAIL() << "a 4096x4096 frame rendered with " << free_at_ask << " bytes free";
    } catch (const std::runtime_error& e) {
      expect_gpu_report(e.what(), s.mesh.name, 12.0 * big * big - 4.0 * 128 * 128 * 3, free_at_ask, "4096x4096",
                        "");
    }
    const Image during = render_into(*r, small, s.camera, 128, 128);
    EXPECT_EQ(during.rgba, before.rgba);
    EXPECT_EQ(during.ids, before.ids);
  }
  const Image after = render_into(*r, large, s.camera, big, big);
  std::unique_ptr<Renderer> fresh = make_renderer(Backend::cuda);
  fresh->set_mesh(s.mesh);
  EXPECT_EQ(after.ids, render_into(*fresh, large, s.camera, big, big).ids);
}

TEST(CudaOutOfMemory, ReferencesThatDoNotFitKeepTheOldBuffers) {
  RendererOptions options;
  options.initial_reference_capacity = 1024;
  std::unique_ptr<Renderer> r = make_renderer(Backend::cuda, options);
  const Scene s = huge_triangles_scene(400, 3);
  r->set_mesh(s.mesh);
  const int size = 2048;  // 256 x 256 tiles: 400 triangles over the whole frame make 26M references (210 MB)
  DeviceImage image(size, size);
  Camera far = s.camera;
  far.eye = {0.0f, 0.0f, 5000.0f};
  const Image far_before = render_into(*r, image, far, size, size);
  ASSERT_GT(far_before.stats.pixels_hit, 0u);
  ASSERT_LT(far_before.stats.references, 1000000u);
  {
    DeviceBallast ballast(kLeftFree);
    const size_t free_at_ask = device_free();
    try {
      render_into(*r, image, s.camera, size, size);
      FAIL() << "26M references fitted with " << free_at_ask << " bytes free";
    } catch (const std::runtime_error& e) {
      expect_gpu_report(e.what(), s.mesh.name, 8.0 * 100 * 256 * 256, free_at_ask, "triangle references",
                        "frame is not drawn");
    }
    const Image far_again = render_into(*r, image, far, size, size);
    EXPECT_EQ(far_again.ids, far_before.ids);
    EXPECT_EQ(far_again.rgba, far_before.rgba);
  }
  const Image near = render_into(*r, image, s.camera, size, size);
  EXPECT_GE(near.stats.frame_redone, 1);
  std::unique_ptr<Renderer> fresh = make_renderer(Backend::cuda);
  fresh->set_mesh(s.mesh);
  const Image reference = render_into(*fresh, image, s.camera, size, size);
  EXPECT_EQ(near.ids, reference.ids);
  EXPECT_EQ(near.rgba, reference.rgba);
}

}  // namespace
}  // namespace slabcast::test
