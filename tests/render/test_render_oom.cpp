// Running out of host memory, cpu backend (label cpu): the message names what was needed and what was free, the
// renderer keeps its previous mesh / frame size / reference buffers, and works again once memory is there.
//
// The host really runs out: the test lowers the process's address-space limit (RLIMIT_AS) to a little above what
// it uses, then raises it again. The renderer sees the limit (host_memory_info) and refuses before allocating;
// without that check the allocation would fail with std::bad_alloc, which it reports the same way.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/address_space_cap.h"
#include "render/backends.h"
#include "render/oom_message.h"
#include "render/renderer.h"
#include "render/scenes.h"

namespace slabcast::test {
namespace {

struct Image {
  std::vector<uint8_t> rgba;
  FrameExtras extras;
  FrameStats stats;
};

Image render_image(Renderer& r, const Camera& camera, int w, int h) {
  FrameSettings s;
  s.width = w;
  s.height = h;
  s.camera = camera;
  Image img;
  img.rgba.assign(4 * static_cast<size_t>(w) * h, 0);
  img.stats = r.render(s, Surface{img.rgba.data(), w, h, 4 * static_cast<size_t>(w)}, &img.extras);
  return img;
}

uint64_t host_total_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  uint64_t kib = 0;
  while (in >> key >> kib) {
    if (key == "MemTotal:") return kib * 1024;
    in.ignore(1 << 20, '\n');
  }
  return 0;
}

constexpr uint64_t kHeadroom = uint64_t(24) << 20;  // room for small allocations, not for the big ones below

void expect_host_report(const std::string& message, const std::string& owner, double at_least_needed,
                        const std::string& what_contains, const std::string& consequence_contains) {
  const OutOfMemoryReport r = parse_out_of_memory(message);
  ASSERT_TRUE(r.parsed) << "not an out-of-memory message: " << message;
  EXPECT_EQ(r.memory, "host") << message;
  EXPECT_EQ(r.owner, owner) << message;
  EXPECT_GE(r.needed, at_least_needed) << message;
  EXPECT_NE(r.what.find(what_contains), std::string::npos) << message;
  EXPECT_NE(r.consequence.find(consequence_contains), std::string::npos) << message;
  EXPECT_LE(r.free, r.total) << message;
  EXPECT_GT(r.needed, r.free) << "the message must say why it failed: " << message;
  // The machine's memory, or less where a limit binds first (the tests' address-space cap, a container's limit).
  EXPECT_LE(r.total, 1.01 * static_cast<double>(host_total_bytes())) << message;
}

TEST(OutOfMemoryMessage, BytesInBinaryUnitsWithThreeDigits) {
  EXPECT_EQ(format_bytes(0), "0 B");
  EXPECT_EQ(format_bytes(1023), "1023 B");
  EXPECT_EQ(format_bytes(1024), "1.00 KiB");
  EXPECT_EQ(format_bytes(1536), "1.50 KiB");
  EXPECT_EQ(format_bytes(uint64_t(80) << 30), "80.0 GiB");
  EXPECT_EQ(format_bytes(uint64_t(512) << 20), "512 MiB");
  EXPECT_EQ(format_bytes(uint64_t(3) << 40), "3.00 TiB");
}

TEST(OutOfMemoryMessage, ReadsBackWhatItSays) {
  const std::string m = out_of_memory_message("GPU", "bunny.obj", uint64_t(2) << 30, "its buffers (x, y)",
                                              uint64_t(1) << 30, uint64_t(80) << 30);
  const OutOfMemoryReport r = parse_out_of_memory(m);
  ASSERT_TRUE(r.parsed) << m;
  EXPECT_EQ(r.owner, "bunny.obj");
  EXPECT_EQ(r.what, "its buffers (x, y)");
  EXPECT_DOUBLE_EQ(r.needed, 2.0 * (1 << 30));
  EXPECT_DOUBLE_EQ(r.free, 1.0 * (1 << 30));
  EXPECT_DOUBLE_EQ(r.total, 80.0 * (1 << 30));
}

TEST(CpuOutOfMemory, AbsurdInitialReferenceCapacityIsRefusedWithTheSize) {
  RendererOptions options;
  options.initial_reference_capacity = uint64_t(1) << 44;  // 8-byte references: 128 TiB per array
  std::unique_ptr<Renderer> r = make_renderer(Backend::cpu, options);
  const Mesh mesh = make_procedural_mesh("sphere", 1000);
  try {
    r->set_mesh(mesh);
    FAIL() << "set_mesh with room for 2^44 references succeeded";
  } catch (const std::runtime_error& e) {
    expect_host_report(e.what(), mesh.name, 8.0 * (uint64_t(1) << 44), "triangle references", "");
  }
  // No mesh was ever set: rendering says so instead of touching empty buffers.
  std::vector<uint8_t> rgba(4 * 16 * 16);
  FrameSettings s;
  s.width = s.height = 16;
  EXPECT_THROW(r->render(s, Surface{rgba.data(), 16, 16, 64}), std::logic_error);
}

TEST(CpuOutOfMemory, AbsurdProceduralCountIsRefusedBeforeBuilding) {
  // 2^30 triangles keep 12 bytes of indices and about 6 of positions each, and growing the index vector copies it
  // into one twice the size (at least half as much again at the last step): 24 bytes per triangle at the peak
  // (24 GiB). Where the host has that, building it could succeed and the test has nothing to check.
  const uint64_t triangles = uint64_t(1) << 30;
  uint64_t available = 0, total = 0;
  ASSERT_TRUE(host_memory_info(&available, &total));
  if (available > 24 * triangles) GTEST_SKIP() << "this host could hold sphere:2^30 (" << available << " B free)";
  try {
    (void)make_procedural_mesh("sphere", triangles);
    FAIL() << "sphere:2^30 was built on a host with " << available << " bytes available";
  } catch (const std::runtime_error& e) {
    expect_host_report(e.what(), "sphere:" + std::to_string(triangles), 18.0 * triangles, "building the mesh", "");
  }
}

#ifndef SLABCAST_TEST_UNDER_ASAN  // ASan reserves terabytes of address space: RLIMIT_AS cannot be used there

TEST(CpuOutOfMemory, MeshThatDoesNotFitLeavesThePreviousMeshRendering) {
  std::unique_ptr<Renderer> r = make_renderer(Backend::cpu);
  const Scene small = procedural_scene("torus", 2000);
  r->set_mesh(small.mesh);
  const Image before = render_image(*r, small.camera, 96, 64);
  ASSERT_GT(before.stats.pixels_hit, 0u);

  const Mesh big = make_procedural_mesh("sphere", 1000000);  // ~100 MB of renderer arrays, past the headroom
  {
    AddressSpaceCap cap(kHeadroom);
    ASSERT_TRUE(cap.active());
    try {
      r->set_mesh(big);
      FAIL() << "set_mesh of " << big.name << " succeeded under a " << kHeadroom << "-byte headroom";
    } catch (const std::runtime_error& e) {
      // Its indices alone are 12 bytes per triangle.
      expect_host_report(e.what(), big.name, 12.0 * big.triangle_count(), "triangles", "previous mesh is kept");
    }
  }
  const Image after = render_image(*r, small.camera, 96, 64);
  EXPECT_EQ(after.rgba, before.rgba);
  EXPECT_EQ(after.extras.triangle_id, before.extras.triangle_id);

  // With the memory back, the same renderer takes the big mesh and draws what a fresh one draws.
  r->set_mesh(big);
  const Camera view = frame_mesh(big);
  std::unique_ptr<Renderer> fresh = make_renderer(Backend::cpu);
  fresh->set_mesh(big);
  EXPECT_EQ(render_image(*r, view, 96, 64).extras.triangle_id, render_image(*fresh, view, 96, 64).extras.triangle_id);
}

TEST(CpuOutOfMemory, FrameSizeThatDoesNotFitKeepsSmallerFramesWorking) {
  std::unique_ptr<Renderer> r = make_renderer(Backend::cpu);
  const Scene s = procedural_scene("sphere", 2000);
  r->set_mesh(s.mesh);
  const Image before = render_image(*r, s.camera, 64, 64);
  const int big = 3000;  // 9M pixels: 36 MB per per-pixel array
  std::vector<uint8_t> target(4 * static_cast<size_t>(big) * big);
  FrameSettings settings;
  settings.width = settings.height = big;
  settings.camera = s.camera;
  {
    AddressSpaceCap cap(kHeadroom);
    ASSERT_TRUE(cap.active());
    try {
      r->render(settings, Surface{target.data(), big, big, 4 * static_cast<size_t>(big)});
      FAIL() << "a " << big << "x" << big << " frame rendered under a " << kHeadroom << "-byte headroom";
    } catch (const std::runtime_error& e) {
      expect_host_report(e.what(), s.mesh.name, 4.0 * big * big, "3000x3000", "");
    }
  }
  const Image after = render_image(*r, s.camera, 64, 64);
  EXPECT_EQ(after.rgba, before.rgba);
  const FrameStats stats = r->render(settings, Surface{target.data(), big, big, 4 * static_cast<size_t>(big)});
  EXPECT_GT(stats.pixels_hit, 0u);
}

TEST(CpuOutOfMemory, ReferencesThatDoNotFitKeepTheOldBuffers) {
  RendererOptions options;
  options.initial_reference_capacity = 1024;
  std::unique_ptr<Renderer> r = make_renderer(Backend::cpu, options);
  const Scene s = huge_triangles_scene(200, 3);
  r->set_mesh(s.mesh);
  // From far away the triangles cover few tiles; from the default camera each covers the whole 1024x1024 frame:
  // 200 x 128 x 128 = 3.3M references, 26 MB per reference array.
  Camera far = s.camera;
  far.eye = {0.0f, 0.0f, 5000.0f};
  const Image far_before = render_image(*r, far, 1024, 1024);
  ASSERT_GT(far_before.stats.pixels_hit, 0u);
  ASSERT_LT(far_before.stats.references, 200000u);
  {
    AddressSpaceCap cap(kHeadroom);
    ASSERT_TRUE(cap.active());
    try {
      render_image(*r, s.camera, 1024, 1024);
      FAIL() << "3.3M references fitted under a " << kHeadroom << "-byte headroom";
    } catch (const std::runtime_error& e) {
      expect_host_report(e.what(), s.mesh.name, 8.0 * 200 * 128 * 128, "triangle references", "");
    }
    // Still capped: a frame that needs no more references than before renders as before.
    const Image far_again = render_image(*r, far, 1024, 1024);
    EXPECT_EQ(far_again.extras.triangle_id, far_before.extras.triangle_id);
  }
  const Image near = render_image(*r, s.camera, 1024, 1024);
  EXPECT_GE(near.stats.frame_redone, 1);
  std::unique_ptr<Renderer> fresh = make_renderer(Backend::cpu);
  fresh->set_mesh(s.mesh);
  EXPECT_EQ(near.extras.triangle_id, render_image(*fresh, s.camera, 1024, 1024).extras.triangle_id);
}

// Shadows add per-pixel and light-space buffers: a frame whose shadow buffers do not fit is refused with the message,
// and frames of the previous settings, with or without shadows, render as before.
TEST(CpuOutOfMemory, ShadowBuffersThatDoNotFitKeepTheOtherFramesWorking) {
  std::unique_ptr<Renderer> r = make_renderer(Backend::cpu);
  const Scene s = procedural_scene("sphere", 2000);
  r->set_mesh(s.mesh);
  FrameSettings small;
  small.width = small.height = 64;
  small.camera = s.camera;
  small.light = Light{LightType::sun, glm::vec3(1.0f, 2.0f, 0.5f)};
  small.shadows = true;
  std::vector<uint8_t> small_target(4 * 64 * 64);
  FrameExtras before;
  r->render(small, Surface{small_target.data(), 64, 64, 4 * 64}, &before);
  ASSERT_EQ(before.shadow_mask.size(), size_t(64 * 64));
  const int big = 2000;  // 4M pixels: about 130 MB of shadow samples, mask and sample slots
  std::vector<uint8_t> target(4 * static_cast<size_t>(big) * big);
  FrameSettings large = small;
  large.width = large.height = big;
  {
    AddressSpaceCap cap(kHeadroom);
    ASSERT_TRUE(cap.active());
    try {
      r->render(large, Surface{target.data(), big, big, 4 * static_cast<size_t>(big)});
      FAIL() << "a " << big << "x" << big << " frame with shadows rendered under a " << kHeadroom << "-byte headroom";
    } catch (const std::runtime_error& e) {
      expect_host_report(e.what(), s.mesh.name, 16.0 * big * big, "2000x2000", "");
    }
  }
  FrameExtras after;
  r->render(small, Surface{small_target.data(), 64, 64, 4 * 64}, &after);
  EXPECT_EQ(after.shadow_mask, before.shadow_mask);
  const FrameStats stats = r->render(large, Surface{target.data(), big, big, 4 * static_cast<size_t>(big)});
  EXPECT_GT(stats.shadow_samples, 0u);
}

#endif  // SLABCAST_TEST_UNDER_ASAN

}  // namespace
}  // namespace slabcast::test
