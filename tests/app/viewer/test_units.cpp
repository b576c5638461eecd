// Units of the viewer that need no GL: the mouse camera, the frame-time statistics and the model loading's pieces.
#include "app/viewer/camera_control.h"
#include "app/viewer/frame_times.h"
#include "app/viewer/model_loading.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace slabcast::viewer {
namespace {

constexpr float kEps = 1e-4f;

Camera front_camera() {
  Camera c;
  c.eye = {0.0f, 0.0f, 5.0f};
  c.target = {0.0f, 0.0f, 0.0f};
  c.up = {0.0f, 1.0f, 0.0f};
  c.fovy_degrees = 45.0f;
  return c;
}

TEST(CameraControl, StartsAtHomeAndResetsToIt) {
  CameraControl control(front_camera());
  EXPECT_EQ(control.camera().eye, front_camera().eye);
  control.orbit(50.0f, 20.0f);
  control.pan(10.0f, 5.0f, 600);
  control.zoom(3.0f);
  EXPECT_NE(control.camera().eye, front_camera().eye);
  control.reset();
  EXPECT_EQ(control.camera().eye, front_camera().eye);
  EXPECT_EQ(control.camera().target, front_camera().target);
}

TEST(CameraControl, OrbitKeepsTheDistanceAndTheTarget) {
  CameraControl control(front_camera());
  for (int i = 0; i < 20; ++i) control.orbit(37.0f, -11.0f);
  EXPECT_NEAR(glm::length(control.camera().eye - control.camera().target), 5.0f, kEps);
  EXPECT_EQ(control.camera().target, front_camera().target);
}

TEST(CameraControl, HorizontalDragTurnsAboutUp) {
  CameraControl control(front_camera());
  // A quarter turn: dragging right moves the camera to the left (-x), so the model follows the mouse.
  control.orbit(static_cast<float>(M_PI / 2) / CameraControl::kOrbitRadiansPerPixel, 0.0f);
  EXPECT_NEAR(control.camera().eye.x, -5.0f, 1e-3f);
  EXPECT_NEAR(control.camera().eye.y, 0.0f, 1e-3f);
  EXPECT_NEAR(control.camera().eye.z, 0.0f, 1e-3f);
}

TEST(CameraControl, PitchStopsShortOfThePoles) {
  CameraControl control(front_camera());
  control.orbit(0.0f, 1e6f);  // drag far down: the camera rises to just below the pole
  const glm::vec3 back = glm::normalize(control.camera().eye - control.camera().target);
  EXPECT_NEAR(std::asin(back.y), CameraControl::kMaxPitchRadians, 1e-3f);
  control.orbit(0.0f, -2e6f);
  const glm::vec3 back2 = glm::normalize(control.camera().eye - control.camera().target);
  EXPECT_NEAR(std::asin(back2.y), -CameraControl::kMaxPitchRadians, 1e-3f);
  EXPECT_TRUE(std::isfinite(control.camera().eye.x));
}

TEST(CameraControl, PanMovesEyeAndTargetTogetherByThePixelFootprint) {
  CameraControl control(front_camera());
  const int height = 600;
  control.pan(100.0f, 0.0f, height);
  // At the target's depth the view spans 2 * 5 * tan(22.5 deg) vertically over 600 pixels.
  const float per_pixel = 2.0f * 5.0f * std::tan(glm::radians(22.5f)) / height;
  EXPECT_NEAR(control.camera().target.x, -100.0f * per_pixel, kEps);  // drag right: the scene moves right
  EXPECT_NEAR(control.camera().eye.x - control.camera().target.x, 0.0f, kEps);
  EXPECT_NEAR(control.camera().eye.z, 5.0f, kEps);
}

TEST(CameraControl, ZoomApproachesButNeverPassesTheTarget) {
  CameraControl control(front_camera());
  control.zoom(1.0f);
  EXPECT_NEAR(control.camera().eye.z, 5.0f * CameraControl::kZoomFactorPerStep, kEps);
  control.zoom(-1.0f);
  EXPECT_NEAR(control.camera().eye.z, 5.0f, kEps);
  control.zoom(10000.0f);
  EXPECT_GT(control.camera().eye.z, 0.0f);
}

TEST(FrameTimes, EmptyHistoryReportsZero) {
  FrameTimes times;
  EXPECT_EQ(times.average_fps(), 0.0f);
  EXPECT_EQ(times.low_1percent_fps(), 0.0f);
  EXPECT_TRUE(times.graph().empty());
}

TEST(FrameTimes, AverageIsFramesOverTotalTime) {
  FrameTimes times;
  times.add(10.0f);
  times.add(30.0f);
  EXPECT_NEAR(times.average_fps(), 50.0f, 1e-3f);  // 2 frames in 40 ms
}

TEST(FrameTimes, OnePercentLowIsTheSlowestHundredth) {
  FrameTimes times;
  for (int i = 0; i < 990; ++i) times.add(10.0f);
  for (int i = 0; i < 10; ++i) times.add(50.0f);  // the slowest 1% of 1000 frames
  EXPECT_NEAR(times.low_1percent_fps(), 20.0f, 1e-3f);
  EXPECT_NEAR(times.average_fps(), 1000.0f / 10.4f, 1e-2f);
}

TEST(FrameTimes, OnePercentOfAFewFramesIsTheSlowestOne) {
  FrameTimes times;
  times.add(5.0f);
  times.add(20.0f);
  times.add(10.0f);
  EXPECT_NEAR(times.low_1percent_fps(), 50.0f, 1e-3f);
}

TEST(FrameTimes, HistoryIsBoundedAndGraphIsOldestFirst) {
  FrameTimes times;
  for (size_t i = 0; i < FrameTimes::kHistory + 50; ++i) times.add(static_cast<float>(i + 1));
  EXPECT_EQ(times.count(), FrameTimes::kHistory);
  const std::vector<float> graph = times.graph();
  ASSERT_EQ(graph.size(), FrameTimes::kGraph);
  EXPECT_EQ(graph.back(), static_cast<float>(FrameTimes::kHistory + 50));
  EXPECT_EQ(graph.front(), static_cast<float>(FrameTimes::kHistory + 50 - FrameTimes::kGraph + 1));
  EXPECT_EQ(times.last_ms(), graph.back());
}

TEST(FrameTimes, IgnoresNonPositiveAndNonFiniteTimes) {
  FrameTimes times;
  times.add(0.0f);
  times.add(-1.0f);
  times.add(std::nanf(""));
  times.add(INFINITY);
  EXPECT_EQ(times.count(), 0u);
}

}  // namespace
}  // namespace slabcast::viewer

namespace slabcast::viewer {
namespace {

// load_scene's progress lines, as it writes them to a log and to a terminal; every other line is not progress.
TEST(ModelLoading, ReadsLoadScenesProgressLines) {
  double fraction = -1.0;
  EXPECT_TRUE(parse_progress_line("[slabcast] loading big.obj (40.0 MiB):  25%", &fraction));
  EXPECT_DOUBLE_EQ(fraction, 0.25);
  EXPECT_TRUE(parse_progress_line("[slabcast] loading C:/a: b.ply (1.0 MiB): 100%", &fraction));
  EXPECT_DOUBLE_EQ(fraction, 1.0);
  EXPECT_TRUE(parse_progress_line("[slabcast] loading x.stl (16.0 MiB):   0%", &fraction));
  EXPECT_DOUBLE_EQ(fraction, 0.0);
  fraction = -1.0;
  EXPECT_FALSE(parse_progress_line("[slabcast] warning: x.obj: 3 faces skipped", &fraction));
  EXPECT_FALSE(parse_progress_line("[slabcast] loading x.obj (1 MiB): 1x%", &fraction));
  EXPECT_FALSE(parse_progress_line("[slabcast] loading x.obj (1 MiB): %", &fraction));
  EXPECT_FALSE(parse_progress_line("", &fraction));
  EXPECT_DOUBLE_EQ(fraction, -1.0);
}

// The model list offers the shipped sequence directory, and a typed glob keeps only the sequence's frame rate of
// the command line's scene.
TEST(ModelLoading, ListsShippedSequencesAndMakesTheirScenes) {
  const std::vector<ModelChoice> models = list_models();
  bool sequence = false;
  for (const ModelChoice& m : models) sequence = sequence || m.path.find("wave-sequence") != std::string::npos;
  EXPECT_TRUE(sequence) << "assets/wave-sequence/ is not in the model list";
  SceneSpec command_line;
  command_line.animation = "bend";
  command_line.floor = true;
  command_line.sequence_fps = 12.0;
  const SceneSpec scene = scene_of({"frames", "dir/f_*.obj", "", 0}, command_line);
  EXPECT_EQ(scene.mesh_path, "dir/f_*.obj");
  EXPECT_EQ(scene.animation, "");
  EXPECT_FALSE(scene.floor);
  EXPECT_EQ(scene.sequence_fps, 12.0);
  const SceneSpec procedural = scene_of({"torus", "", "torus", 5000}, command_line);
  EXPECT_EQ(procedural.mesh_path, "");
  EXPECT_EQ(procedural.procedural_name, "torus");
  EXPECT_EQ(procedural.procedural_triangles, 5000u);
}

}  // namespace
}  // namespace slabcast::viewer
