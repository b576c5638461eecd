// The viewer refuses a load that does not fit in memory and keeps running (cpu label): a Session in an EGL
// context (Mesa's software device on CI; the test skips without one) shows a model, then is asked for one that
// cannot be built, because the process's address space is capped (RLIMIT_AS) a little above what it uses.
// Expected: the overlay's error line says "out of host memory" naming the model, the previous model stays, and the
// next frame is the same image as before; afterwards an ordinary load still works.
#include "app/viewer/egl_context.h"
#include "app/viewer/gl_util.h"
#include "app/viewer/session.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

namespace slabcast::viewer {
namespace {

uint64_t address_space_bytes() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmSize:", 0) == 0) return std::stoull(line.substr(7)) * 1024;
  }
  return 0;
}

std::vector<uint8_t> frame(Session& session, const OffscreenTarget& target, int w, int h) {
  target.bind();
  session.render_and_present(w, h);
  return read_pixels_top_down(w, h);
}

#if defined(__SANITIZE_ADDRESS__)
#define SLABCAST_TEST_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SLABCAST_TEST_UNDER_ASAN 1
#endif
#endif

TEST(SessionOutOfMemory, ALoadThatDoesNotFitIsRefusedAndTheModelStays) {
#ifdef SLABCAST_TEST_UNDER_ASAN
  GTEST_SKIP() << "ASan reserves terabytes of address space: RLIMIT_AS cannot be used";
#endif
  std::unique_ptr<EglContext> egl;
  try {
    egl = std::make_unique<EglContext>(-1);
  } catch (const std::exception& e) {
    GTEST_SKIP() << "no OpenGL 4.5 context through EGL: " << e.what();
  }
  ViewerOptions options;
  options.procedural_name = "torus";
  options.procedural_triangles = 3000;
  options.backend = Backend::cpu;
  options.backend_given = true;
  options.animate = false;
  options.show_overlay = false;
  options.headless = true;
  const int w = 96, h = 64;
  Session session(options, egl->on_cuda_device(), egl->description(), /*windowed=*/false);
  {
    OffscreenTarget target(w, h);
    const std::vector<uint8_t> before = frame(session, target, w, h);
    const Mesh* model = session.mesh();
    ASSERT_NE(model, nullptr);

    // 8M triangles: 96 MB of indices alone, past the 64 MB of headroom (which leaves room for the loading thread).
    rlimit saved{};
    ASSERT_EQ(getrlimit(RLIMIT_AS, &saved), 0);
    rlimit cap = saved;
    cap.rlim_cur = address_space_bytes() + (uint64_t(64) << 20);
    ASSERT_EQ(setrlimit(RLIMIT_AS, &cap), 0);
    session.start_loading({"sphere, 8M triangles", "", "sphere", 8000000});
    session.wait_for_loading();
    setrlimit(RLIMIT_AS, &saved);

    EXPECT_NE(session.last_error.find("out of host memory"), std::string::npos) << session.last_error;
    EXPECT_NE(session.last_error.find("sphere:8000000"), std::string::npos) << session.last_error;
    EXPECT_EQ(session.mesh(), model);
    EXPECT_EQ(session.mesh_name, "torus:3000");
    EXPECT_EQ(frame(session, target, w, h), before);
  }
  // The viewer goes on: the next load works.
  session.start_loading({"sphere, 2000 triangles", "", "sphere", 2000});
  session.wait_for_loading();
  EXPECT_EQ(session.last_error, "");
  EXPECT_EQ(session.mesh_name, "sphere:2000");
}

}  // namespace
}  // namespace slabcast::viewer
