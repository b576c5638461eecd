// The viewer's model list (cpu label): choosing a model puts its file in the path field (empty for a procedural one),
// so the field never shows a path other than the model's; a typed path then loads as before.
#include "app/gl/egl_context.h"
#include "app/viewer/session.h"
#include "tests/app/viewer/session_oom_util.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace slabcast::viewer {
namespace {

TEST(SessionModels, ChoosingAModelShowsItsPathInTheField) {
  std::unique_ptr<gl::EglContext> egl;
  try {
    egl = std::make_unique<gl::EglContext>(-1);
  } catch (const std::exception& e) {
    GTEST_SKIP() << "no OpenGL 4.5 context through EGL: " << e.what();
  }
  Session session(session_test::still_torus_options(2000, Backend::cpu), egl->on_cuda_device(), egl->description(),
                  /*windowed=*/false);
  int file_model = -1, procedural_model = -1;
  for (size_t i = 0; i < session.models.size(); ++i) {
    if (!session.models[i].path.empty() && session.models[i].path.find("pawn") != std::string::npos) {
      file_model = static_cast<int>(i);
    }
    if (session.models[i].path.empty() && procedural_model < 0) procedural_model = static_cast<int>(i);
  }
  ASSERT_GE(file_model, 0) << "assets/pawn.obj is not in the model list";
  ASSERT_GE(procedural_model, 0);

  session.path_field = "/somewhere/else.obj";  // typed earlier, never loaded
  session.choose_model(file_model);
  session.wait_for_loading();
  EXPECT_EQ(session.path_field, session.models[static_cast<size_t>(file_model)].path);
  EXPECT_EQ(session.model_index, file_model);
  EXPECT_EQ(session.last_error, "");
  EXPECT_NE(session.mesh_name.find("pawn"), std::string::npos) << session.mesh_name;

  session.choose_model(procedural_model);
  session.wait_for_loading();
  EXPECT_EQ(session.path_field, "");
  EXPECT_EQ(session.model_index, procedural_model);

  session.choose_model(static_cast<int>(session.models.size()));  // out of range: nothing changes
  EXPECT_EQ(session.model_index, procedural_model);
}

}  // namespace
}  // namespace slabcast::viewer
