// A scene that moves by itself in the viewer (cpu backend, headless in an EGL context; skipped without one): a glTF
// animation poses the mesh every frame as `slabcast render` does at the same time, the animation can be switched,
// a mesh sequence's keyframes advance with the clock, a sequence frame that does not load ends as an error naming
// the file, and the headless screenshots of two times differ.
#include "app/gl/egl_context.h"
#include "app/gl/gl_util.h"
#include "app/image_io.h"
#include "app/mesh_io.h"
#include "app/scene_loading.h"
#include "app/viewer/headless.h"
#include "app/viewer/session.h"
#include "app/viewer/timeline.h"
#include "tests/app/viewer/viewer_test_util.h"

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace slabcast::viewer {
namespace {

namespace fs = std::filesystem;

const std::string kAnimatedGltf = SLABCAST_SOURCE_DIR "/assets/animated.gltf";
const std::string kWaveSequence = SLABCAST_SOURCE_DIR "/assets/wave-sequence";
constexpr int kWidth = 96, kHeight = 64;
constexpr double kSequenceFps = 24.0;

std::unique_ptr<gl::EglContext> software_context() {
  try {
    return std::make_unique<gl::EglContext>(-1);
  } catch (const std::exception&) {
    return nullptr;
  }
}

// A still, headless scene of `mesh_path` (no deformer, no overlay), drawn by the cpu backend.
ViewOptions still_options(const std::string& mesh_path) {
  ViewOptions options;
  options.scene.mesh_path = mesh_path;
  options.scene.sequence_fps = kSequenceFps;
  options.frame.width = kWidth;
  options.frame.height = kHeight;
  options.frame.deform = {Deformer::none, 0.0f, 0.0f};
  options.backend = Backend::cpu;
  options.animate = false;
  options.show_overlay = false;
  options.headless = true;
  return options;
}

// One frame at `time`; returns the deformed positions it drew.
std::vector<glm::vec3> frame_at(Session& session, const gl::OffscreenTarget& target, float time) {
  session.settings.deform.time = time;
  target.bind();
  session.render_and_present(kWidth, kHeight);
  return session.deformed_positions();
}

// What `slabcast render` does for one frame of the scene at `time` (app/render_command.cpp): load_scene, the
// motion applied at the frame's time, the cpu renderer.
std::vector<glm::vec3> render_command_positions(const SceneSpec& spec, float time) {
  std::ostringstream log;
  LoadedScene scene = load_scene(spec, log);
  FrameSettings frame;
  frame.width = kWidth;
  frame.height = kHeight;
  frame.deform = {Deformer::none, 0.0f, time};
  frame.camera = frame_mesh(scene.mesh, frame.camera.fovy_degrees, static_cast<float>(kWidth) / kHeight, frame.deform);
  scene.motion.apply(frame.deform.time, frame);
  std::unique_ptr<Renderer> renderer = make_renderer(Backend::cpu);
  renderer->set_mesh(scene.mesh);
  std::vector<uint8_t> pixels(static_cast<size_t>(kWidth) * kHeight * 4);
  renderer->render(frame, Surface{pixels.data(), kWidth, kHeight, static_cast<size_t>(kWidth) * 4});
  return renderer->last_deformed_positions();
}

float max_difference(const std::vector<glm::vec3>& a, const std::vector<glm::vec3>& b) {
  if (a.size() != b.size()) return INFINITY;
  float most = 0.0f;
  for (size_t i = 0; i < a.size(); ++i) {
    const glm::vec3 d = glm::abs(a[i] - b[i]);
    most = std::max(most, std::max(d.x, std::max(d.y, d.z)));
  }
  return most;
}

#define REQUIRE_EGL(egl) \
  if (!(egl)) GTEST_SKIP() << "no OpenGL 4.5 context through EGL"

TEST(SessionMotion, AGltfAnimationPosesEveryFrameAsRenderDoes) {
  const auto egl = software_context();
  REQUIRE_EGL(egl);
  ViewOptions options = still_options(kAnimatedGltf);
  options.scene.animation = "bend";
  Session session(options, egl->on_cuda_device(), egl->description(), /*windowed=*/false);
  ASSERT_TRUE(session.motion().moves());
  ASSERT_NE(session.motion().animations(), nullptr);
  gl::OffscreenTarget target(kWidth, kHeight);

  const std::vector<glm::vec3> early = frame_at(session, target, 0.25f);
  EXPECT_NE(session.settings.pose, nullptr) << "no pose for the frame at 0.25 s";
  const std::vector<glm::vec3> late = frame_at(session, target, 0.75f);
  EXPECT_NE(session.settings.pose, nullptr) << "no pose for the frame at 0.75 s";
  ASSERT_EQ(early.size(), late.size());
  EXPECT_NE(early, late) << "the animation did not move the mesh between 0.25 s and 0.75 s";

  SceneSpec spec = options.scene;
  EXPECT_EQ(late, render_command_positions(spec, 0.75f));
  // The clock runs on past the animation's end; the animation loops (its duration is 2 s).
  const double duration = session.motion().animations()->duration(session.motion().animation_index());
  EXPECT_EQ(frame_at(session, target, static_cast<float>(0.75 + duration)), late);
}

TEST(SessionMotion, TheAnimationChoiceSwitchesTheAnimation) {
  const auto egl = software_context();
  REQUIRE_EGL(egl);
  Session session(still_options(kAnimatedGltf), egl->on_cuda_device(), egl->description(), /*windowed=*/false);
  const GltfAnimations* animations = session.motion().animations();
  ASSERT_NE(animations, nullptr);
  ASSERT_GE(animations->count(), 2);
  EXPECT_EQ(session.motion().animation_index(), 0);
  gl::OffscreenTarget target(kWidth, kHeight);
  const std::vector<glm::vec3> first = frame_at(session, target, 0.75f);

  const int steps = animations->find_animation("steps");
  session.choose_animation(steps);
  EXPECT_EQ(session.motion().animation_index(), steps);
  const std::vector<glm::vec3> switched = frame_at(session, target, 0.75f);
  EXPECT_NE(first, switched);
  SceneSpec spec = still_options(kAnimatedGltf).scene;
  spec.animation = "steps";
  EXPECT_EQ(switched, render_command_positions(spec, 0.75f));

  session.choose_animation(animations->count());  // out of range: nothing changes
  session.choose_animation(-1);
  EXPECT_EQ(session.motion().animation_index(), steps);
}

// The directory and the glob of the same frames play the same keyframes, advancing with the clock and looping.
TEST(SessionMotion, ASequencesKeyframesAdvanceWithTheClock) {
  const auto egl = software_context();
  REQUIRE_EGL(egl);
  for (const std::string& spec : {kWaveSequence, kWaveSequence + "/wave_*.obj"}) {
    SCOPED_TRACE(spec);
    Session session(still_options(spec), egl->on_cuda_device(), egl->description(), /*windowed=*/false);
    ASSERT_NE(session.motion().sequence_player(), nullptr);
    const size_t frames = session.motion().sequence_player()->frame_count();
    ASSERT_EQ(frames, 8u);
    gl::OffscreenTarget target(kWidth, kHeight);

    const std::vector<glm::vec3> first = frame_at(session, target, 0.0f);
    ASSERT_NE(session.settings.keyframes, nullptr);
    EXPECT_EQ(session.settings.keyframes->a_key, 0u);
    EXPECT_EQ(session.settings.keyframes->b_key, 1u);

    const float middle = static_cast<float>(3.5 / kSequenceFps);
    const std::vector<glm::vec3> later = frame_at(session, target, middle);
    ASSERT_NE(session.settings.keyframes, nullptr);
    EXPECT_EQ(session.settings.keyframes->a_key, 3u);
    EXPECT_EQ(session.settings.keyframes->b_key, 4u);
    EXPECT_NEAR(session.settings.keyframes->mix, 0.5f, 1e-3f);
    EXPECT_NE(first, later);
    const TimelinePosition at = timeline_position(session.motion(), middle);
    EXPECT_EQ(at.frame, 3u);
    EXPECT_EQ(at.frame_count, 8u);
    EXPECT_NEAR(at.period, 8.0 / kSequenceFps, 1e-12);

    // One period later the same frame shows again (the float clock blends by a slightly different mix).
    const float next_loop = static_cast<float>(middle + 8.0 / kSequenceFps);
    EXPECT_LT(max_difference(frame_at(session, target, next_loop), later), 1e-5f);
    EXPECT_EQ(session.settings.keyframes->a_key, 3u);
    EXPECT_NEAR(session.settings.keyframes->mix, 0.5f, 1e-3f);
    EXPECT_EQ(timeline_position(session.motion(), next_loop).frame, 3u);
    EXPECT_EQ(session.last_error, "");
  }
}

// A copy of the wave sequence's first frames whose frame 2 is cut off mid-line.
std::string broken_sequence() {
  const fs::path dir = fs::path(test::output_path("broken-sequence/x")).parent_path();
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (int k = 0; k < 4; ++k) {
    const std::string name = "wave_00" + std::to_string(k) + ".obj";
    fs::copy_file(kWaveSequence + "/" + name, dir / name);
  }
  std::ofstream(dir / "wave_002.obj", std::ios::trunc) << "v 0 0 0\nv 1 0 0\nf 1 2 3\n";
  return dir.string();
}

TEST(SessionMotion, ABrokenSequenceFrameEndsAsAnErrorNamingTheFile) {
  const auto egl = software_context();
  REQUIRE_EGL(egl);
  const std::string dir = broken_sequence();
  Session session(still_options(dir), egl->on_cuda_device(), egl->description(), /*windowed=*/false);
  ASSERT_TRUE(session.motion().moves());
  gl::OffscreenTarget target(kWidth, kHeight);
  for (int k = 0; k < 4 && session.last_error.empty(); ++k) {
    frame_at(session, target, static_cast<float>(k / kSequenceFps));
  }
  EXPECT_NE(session.last_error.find("wave_002.obj"), std::string::npos) << session.last_error;
  EXPECT_FALSE(session.motion().moves()) << "the broken sequence still plays";
  EXPECT_EQ(session.settings.keyframes, nullptr);
  // The model stays, at rest, and later frames still render.
  ASSERT_NE(session.mesh(), nullptr);
  EXPECT_EQ(frame_at(session, target, 0.5f).size(), session.mesh()->positions.size());

  // Headless, the run fails with that error instead of writing a still image.
  ViewOptions headless = still_options(dir);
  headless.animate = true;
  headless.frames = 12;  // the last at 11/60 s: frame 4.4 of 24 fps
  try {
    render_headless(headless);
    ADD_FAILURE() << "a headless run over a broken frame succeeded";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("wave_002.obj"), std::string::npos) << e.what();
  }
}

TEST(SessionMotion, HeadlessScreenshotsOfTwoTimesDiffer) {
  if (!software_context()) GTEST_SKIP() << "no OpenGL 4.5 context through EGL";
  ViewOptions options = still_options(kAnimatedGltf);
  options.scene.animation = "bend";
  options.frame.width = 320;
  options.frame.height = 240;
  options.animate = true;
  options.frames = 1;
  const HeadlessFrame start = render_headless(options);
  options.frames = 45;  // 44 / 60 s later
  const HeadlessFrame later = render_headless(options);
  const test::ImageDiff diff = test::compare(start.scene, later.scene);
  EXPECT_GT(diff.differing_pixels, 100u) << diff.describe();
}

#ifdef SLABCAST_EXE
int run(const std::string& command) {
  const int status = std::system((command + " > /dev/null").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// `slabcast view --headless` of an animation and of a sequence (a glob) equals `slabcast render` at the same time.
TEST(SessionMotionCli, ViewOfAMovingSceneMatchesRender) {
  const std::string common = " --size 320x240 --deform none --backend cpu --time 0.3";
  const std::vector<std::string> scenes = {" --mesh " + kAnimatedGltf + " --animation steps",
                                           " --mesh '" + kWaveSequence + "/wave_*.obj' --fps 12"};
  for (size_t i = 0; i < scenes.size(); ++i) {
    SCOPED_TRACE(scenes[i]);
    const std::string rendered = test::output_path("motion_render_" + std::to_string(i) + ".png");
    const std::string viewed = test::output_path("motion_view_" + std::to_string(i) + ".png");
    ASSERT_EQ(run(std::string(SLABCAST_EXE) + " render" + scenes[i] + common + " --out " + rendered), 0);
    ASSERT_EQ(run(std::string(SLABCAST_EXE) + " view --headless --pause --frames 3" + scenes[i] + common +
                  " --screenshot-3d-only --screenshot " + viewed), 0);
    const test::ImageDiff diff = test::compare(read_png(rendered), read_png(viewed));
    EXPECT_EQ(diff.differing_pixels, 0u) << diff.describe();
  }
}
#endif

}  // namespace
}  // namespace slabcast::viewer
