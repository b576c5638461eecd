// The viewer refuses a load that does not fit in GPU memory and keeps running (gpu label; SKIPPED without a CUDA
// device): a Session with the cuda backend in an EGL context shows a model; then almost all free device memory is
// taken by a ballast (plain cudaMalloc) and a model of 4M triangles is loaded. Expected: the error line says
// "out of GPU memory" naming the model, the previous model stays and draws the same image; once the ballast is
// freed the same load works.
#include "app/gl/egl_context.h"
#include "app/viewer/session.h"
#include "common/device_ballast.h"
#include "tests/app/viewer/session_oom_util.h"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace slabcast::viewer {
namespace {

using session_test::frame;

TEST(SessionOutOfMemory, AModelThatDoesNotFitOnTheGpuIsRefusedAndTheModelStays) {
  std::unique_ptr<gl::EglContext> egl;
  try {
    egl = std::make_unique<gl::EglContext>(gl::cuda_device_or_none());
  } catch (const std::exception& e) {
    GTEST_SKIP() << "no OpenGL 4.5 context through EGL: " << e.what();
  }
  const ViewOptions options = session_test::still_torus_options(20000, Backend::cuda);
  const int w = 256, h = 192;
  Session session(options, egl->on_cuda_device(), egl->description(), /*windowed=*/false);
  gl::OffscreenTarget target(w, h);
  const std::vector<uint8_t> before = frame(session, target, w, h);
  const Mesh* model = session.mesh();
  ASSERT_NE(model, nullptr);
  {
    slabcast::test::DeviceBallast ballast(size_t(64) << 20);
    session.start_loading({"sphere, 4M triangles", "", "sphere", 4000000});
    session.wait_for_loading();
    EXPECT_NE(session.last_error.find("out of GPU memory"), std::string::npos) << session.last_error;
    EXPECT_NE(session.last_error.find("sphere:4000000"), std::string::npos) << session.last_error;
    EXPECT_EQ(session.mesh(), model);
    EXPECT_EQ(frame(session, target, w, h), before);
  }
  session.start_loading({"sphere, 4M triangles", "", "sphere", 4000000});
  session.wait_for_loading();
  EXPECT_EQ(session.last_error, "");
  EXPECT_EQ(session.mesh_name, "sphere:4000000");
  const std::vector<uint8_t> after = frame(session, target, w, h);
  EXPECT_NE(after, before);
}

}  // namespace
}  // namespace slabcast::viewer
