// Units of the viewer that need no GL: the mouse camera, the framing in the area the panels leave free, the
// frame-time statistics, the model loading's pieces and the progressive samples' bookkeeping.
#include "app/viewer/camera_control.h"
#include "app/viewer/frame_times.h"
#include "app/viewer/framing.h"
#include "app/viewer/model_loading.h"
#include "app/viewer/sample_refinement.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
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

// Where a point lands on the width x height image of `c` (pixels, origin top-left), as render/camera.h casts its rays:
// the image plane at distance 1 spans 2 tan(fovy / 2) vertically.
glm::vec2 project(const Camera& c, glm::vec3 p, int width, int height) {
  const glm::vec3 back = glm::normalize(c.eye - c.target);
  const glm::vec3 right = glm::normalize(glm::cross(c.up, back));
  const glm::vec3 up = glm::cross(back, right);
  const glm::vec3 d = p - c.eye;
  const float depth = -glm::dot(d, back);
  const float tan_y = std::tan(glm::radians(c.fovy_degrees) * 0.5f);
  const float tan_x = tan_y * static_cast<float>(width) / static_cast<float>(height);
  const float u = glm::dot(d, right) / depth / tan_x, v = glm::dot(d, up) / depth / tan_y;
  return {(u + 1.0f) * 0.5f * static_cast<float>(width), (1.0f - v) * 0.5f * static_cast<float>(height)};
}

// The model's outline on the image: the bounding box of its points' projections.
struct Box {
  float x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
};
Box projected_points(const Camera& c, const std::vector<FramingPoint>& points, int width, int height) {
  Box b;
  for (const FramingPoint& p : points) {
    const glm::vec2 q = project(c, p.position, width, height);
    b.x0 = std::min(b.x0, q.x), b.y0 = std::min(b.y0, q.y), b.x1 = std::max(b.x1, q.x), b.y1 = std::max(b.y1, q.y);
  }
  return b;
}

// A lumpy model off the origin, longer along x than along y: a box's corners and points inside it.
std::vector<FramingPoint> long_model() {
  std::vector<FramingPoint> points;
  for (int i = 0; i <= 4; ++i) {
    for (int j = 0; j <= 4; ++j) {
      for (int k = 0; k <= 4; ++k) {
        const glm::vec3 p(3.0f + 2.0f * (i - 2), -1.0f + 0.8f * (j - 2) + 0.1f * float(i * k % 3),
                          2.0f + 0.5f * (k - 2));
        points.push_back(FramingPoint{p, 0.0f});
      }
    }
  }
  return points;
}

// The overlay's two panels as the viewer places them: the statistics at the top left, the controls at the top right.
std::vector<PixelRect> panels(int width, int stats_height, int controls_height) {
  return {PixelRect{8, 8, 300, stats_height}, PixelRect{width - 8 - 330, 8, 330, controls_height}};
}

TEST(Framing, TheFreeAreaIsTheLargestRectangleNoPanelCovers) {
  EXPECT_EQ(free_rect(800, 600, {}).width, 800);
  // Both panels the window's height: the gap between them.
  const PixelRect between = free_rect(1024, 700, panels(1024, 684, 684));
  EXPECT_EQ(between.x, 308);
  EXPECT_EQ(between.width, 1024 - 338 - 308);
  EXPECT_EQ(between.y, 0);
  EXPECT_EQ(between.height, 700);
  // Short panels on a narrow window: the band below them holds a larger circle than the gap between them.
  const PixelRect below = free_rect(800, 900, panels(800, 150, 100));
  EXPECT_EQ(below.y, 158);
  EXPECT_EQ(below.x, 0);
  EXPECT_EQ(below.width, 800);
  EXPECT_EQ(below.height, 900 - 158);
  // Short panels on a wide window: the gap between them, the window's height, holds the larger circle.
  const PixelRect gap = free_rect(1600, 900, panels(1600, 200, 300));
  EXPECT_EQ(gap.x, 308);
  EXPECT_EQ(gap.height, 900);
  // Collapsed panels (their title bars only): nearly the whole window.
  const PixelRect collapsed = free_rect(640, 480, panels(640, 19, 19));
  EXPECT_EQ(collapsed.y, 27);
  EXPECT_EQ(collapsed.height, 480 - 27);
  EXPECT_EQ(collapsed.width, 640);
  // Panels that leave nothing: the whole window rather than nothing.
  EXPECT_EQ(free_rect(200, 100, {PixelRect{-10, -10, 400, 400}}).width, 200);
}

TEST(Framing, TheModelLiesInTheFreeAreaForSeveralWindows) {
  const std::vector<FramingPoint> points = long_model();
  struct Case {
    int width, height, stats_height, controls_height;
  };
  const Case cases[] = {{1024, 768, 752, 752}, {800, 600, 584, 584}, {1600, 900, 200, 300}, {700, 1000, 400, 984},
                        {640, 480, 19, 19}};
  for (const Case& k : cases) {
    for (const float fovy : {30.0f, 45.0f, 90.0f}) {
      SCOPED_TRACE(std::to_string(k.width) + "x" + std::to_string(k.height) + " fovy " + std::to_string(fovy));
      const PixelRect free = free_rect(k.width, k.height, panels(k.width, k.stats_height, k.controls_height));
      const Camera c = frame_points_in_rect(points, fovy, k.width, k.height, free);
      EXPECT_EQ(c.fovy_degrees, fovy);
      const Box b = projected_points(c, points, k.width, k.height);
      const float slack = 0.01f;  // pixels: the float arithmetic of the projection
      EXPECT_GE(b.x0, free.x - slack);
      EXPECT_GE(b.y0, free.y - slack);
      EXPECT_LE(b.x1, free.x + free.width + slack);
      EXPECT_LE(b.y1, free.y + free.height + slack);
      // As large as the area allows: in the direction that binds, the model spans the area less the margin.
      const float across = (b.x1 - b.x0) / static_cast<float>(free.width);
      const float upwards = (b.y1 - b.y0) / static_cast<float>(free.height);
      EXPECT_NEAR(std::max(across, upwards), 1.0f / kFramingMargin, 0.002f);
      // Its centre near the area's centre (exactly there in the direction that binds).
      const float cx = free.x + 0.5f * free.width, cy = free.y + 0.5f * free.height;
      EXPECT_NEAR(0.5f * (b.x0 + b.x1), cx, 0.05f * free.width);
      EXPECT_NEAR(0.5f * (b.y0 + b.y1), cy, 0.05f * free.height);
    }
  }
}

TEST(Framing, TheWholeWindowFramesAsFrameMeshDoes) {
  // Without panels the model fills the image as frame_mesh's camera does: same eye, same target.
  Mesh mesh;
  mesh.positions = {{-1.0f, -1.0f, 0.0f}, {1.0f, -1.0f, 0.0f}, {0.0f, 1.0f, 0.5f}};
  mesh.indices = {0, 1, 2};
  for (const DeformParams deform : {DeformParams{}, DeformParams{Deformer::twist, 2.0f, 0.0f}}) {
    const std::vector<FramingPoint> points = framing_points(mesh, deform);
    for (const auto& [w, h] : {std::make_pair(800, 600), std::make_pair(600, 800), std::make_pair(512, 512)}) {
      const Camera framed = frame_mesh(mesh, 45.0f, static_cast<float>(w) / static_cast<float>(h), deform);
      const Camera free = frame_points_in_rect(points, 45.0f, w, h, PixelRect{0, 0, w, h});
      EXPECT_NEAR(glm::length(free.eye - framed.eye), 0.0f, 1e-5f * glm::length(framed.eye - framed.target));
      EXPECT_NEAR(glm::length(free.target - framed.target), 0.0f, 1e-5f);
    }
  }
}

// Progressive samples (Session::refine_samples): a resting image takes samples 0, 1, .. N-1, then none; anything that
// changes the image starts again at 0; the time only where it moves the image.
TEST(SampleRefinement, RestingRefinesAndAChangeRestarts) {
  FrameSettings f;
  f.width = 64;
  f.height = 48;
  f.samples = 4;
  f.deform = DeformParams{Deformer::twist, 1.0f, 0.0f};
  SampleRefinement r;
  EXPECT_EQ(r.shown(), 0);
  for (int k = 0; k < 4; ++k) {
    ASSERT_EQ(r.next(f, true), k);
    r.rendered(f, k);
    EXPECT_EQ(r.shown(), k + 1);
  }
  EXPECT_EQ(r.next(f, true), -1) << "all samples in: nothing to render";
  const auto restarts = [&](const FrameSettings& changed, bool time_moves, const char* what) {
    EXPECT_EQ(r.next(changed, time_moves), 0) << what;
  };
  FrameSettings g = f;
  g.camera.eye.x += 0.01f;
  restarts(g, true, "camera");
  g = f;
  g.width = 65;
  restarts(g, true, "size");
  g = f;
  g.samples = 16;
  restarts(g, true, "sample count");
  g = f;
  g.shading = Shading::flat;
  restarts(g, true, "shading");
  g = f;
  g.light.type = LightType::sun;
  restarts(g, true, "light");
  g = f;
  g.deform.amount = 0.5f;
  restarts(g, true, "deformer amount");
  g = f;
  g.deform.time = 1.0f / 60.0f;
  restarts(g, true, "time, with a deformer");
  EXPECT_EQ(r.next(g, false), -1) << "time, where nothing follows it";
  g = f;
  g.samples = 1;  // a smaller count: the image has more than enough, but of another filter
  restarts(g, true, "fewer samples");
  r.restart();
  EXPECT_EQ(r.shown(), 0);
  EXPECT_EQ(r.next(f, true), 0) << "restart";
  // Animating: every frame a new time, every frame sample 0.
  for (int frame = 0; frame < 3; ++frame) {
    f.deform.time += 1.0f / 60.0f;
    ASSERT_EQ(r.next(f, true), 0);
    r.rendered(f, 0);
  }
}

// The user displacement is the caller's object, changed in place between frames (a drag moves its offset; a new
// selection gives it a new key): each change restarts the samples, as does its appearing or going.
TEST(SampleRefinement, AChangedDisplacementRestarts) {
  FrameSettings f;
  f.width = 32;
  f.height = 32;
  f.samples = 4;
  Displacement d;
  d.key = 7;
  d.offset = glm::vec3(0.1f, 0.0f, 0.0f);
  f.displacement = &d;
  SampleRefinement r;
  const auto refine_fully = [&] {
    for (int k = 0; k < 4; ++k) {
      ASSERT_EQ(r.next(f, false), k);
      r.rendered(f, k);
    }
    ASSERT_EQ(r.next(f, false), -1);
  };
  refine_fully();
  d.offset.y = 0.2f;  // in place: the pointer is the same
  EXPECT_EQ(r.next(f, false), 0) << "offset moved";
  refine_fully();
  d.key = 8;
  EXPECT_EQ(r.next(f, false), 0) << "new arrays";
  refine_fully();
  f.displacement = nullptr;
  EXPECT_EQ(r.next(f, false), 0) << "displacement gone";
  refine_fully();
  f.displacement = &d;
  EXPECT_EQ(r.next(f, false), 0) << "displacement back";
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
