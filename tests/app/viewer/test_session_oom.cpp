// The viewer refuses a load that does not fit in memory and keeps running (cpu label): a Session in an EGL
// context (Mesa's software device on CI; the test skips without one) shows a model, then is asked for one that
// cannot be built, because the process's address space is capped (RLIMIT_AS) a little above what it uses.
// Expected: the overlay's error line says "out of host memory" naming the model, the previous model stays, and the
// next frame is the same image as before; afterwards an ordinary load still works.
#include "app/gl/egl_context.h"
#include "app/viewer/session.h"
#include "common/address_space_cap.h"
#include "tests/app/viewer/session_oom_util.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace slabcast::viewer {
namespace {

using session_test::frame;

TEST(SessionOutOfMemory, ALoadThatDoesNotFitIsRefusedAndTheModelStays) {
#ifdef SLABCAST_TEST_UNDER_ASAN
  GTEST_SKIP() << "ASan reserves terabytes of address space: RLIMIT_AS cannot be used";
#endif
  std::unique_ptr<gl::EglContext> egl;
  try {
    egl = std::make_unique<gl::EglContext>(-1);
  } catch (const std::exception& e) {
    GTEST_SKIP() << "no OpenGL 4.5 context through EGL: " << e.what();
  }
  const ViewOptions options = session_test::still_torus_options(3000, Backend::cpu);
  const int w = 96, h = 64;
  Session session(options, egl->on_cuda_device(), egl->description(), /*windowed=*/false);
  {
    gl::OffscreenTarget target(w, h);
    const std::vector<uint8_t> before = frame(session, target, w, h);
    const Mesh* model = session.mesh();
    ASSERT_NE(model, nullptr);

    // 8M triangles: 96 MB of indices alone, past the 64 MB of headroom (which leaves room for the loading thread).
    {
      slabcast::test::AddressSpaceCap cap(uint64_t(64) << 20);
      ASSERT_TRUE(cap.active()) << "setrlimit(RLIMIT_AS) refused";
      session.start_loading({"sphere, 8M triangles", "", "sphere", 8000000});
      session.wait_for_loading();
    }

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
