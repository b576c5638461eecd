// What each `slabcast` command is asked to do: the command line (cli.h) fills these, and the commands take them as
// they are (`render`, `check` and `bench` in this folder, `view` in app/viewer/), so a flag reaches the viewer without
// a copy.
#pragma once
#include "render/renderer.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace slabcast {

// Which mesh to draw: an OBJ file, or else a procedural mesh.
struct SceneSpec {
  std::string mesh_path;                     // an OBJ file; empty: the procedural mesh below
  std::string procedural_name = "sphere";    // sphere, torus, torus_knot, stress
  uint64_t procedural_triangles = 1000000;   // target triangle count
  bool floor = false;                        // --floor: add_floor under the mesh (renderer.h)
  int procedural_rig_joints = 0;             // > 0: a generated rig (render/procedural_rig.h), posed every frame
  int checker_texture = 0;                   // > 0: a generated checker texture of this size (procedural_appearance.h)
  std::string animation;                     // --animation NAME|INDEX of a glTF file (empty: the first, if any)
  double sequence_fps = 24.0;                // a mesh sequence's frame k shows at time k / sequence_fps (--fps)
  std::string label() const;                 // "bunny.obj" or "sphere:1000000"
};

// Everything `slabcast render` and `slabcast view` share: scene, frame settings, camera, who draws.
struct SceneOptions {
  SceneSpec scene;
  FrameSettings frame;          // size (view: the window's first client size), camera, deformer, slabs, shading
  // The camera: frame.camera where given, the rest from frame_mesh(mesh, frame.camera.fovy_degrees, the frame's
  // aspect, frame.deform): eye, target and up each from the framing camera unless given; with both eye and target
  // given nothing is framed.
  bool eye_given = false;
  bool target_given = false;
  bool up_given = false;
  bool size_given = false;      // --size was given (the viewer's window then opens at it; else it fits the screen)
  // --orbit: (azimuth, elevation) in degrees and distance (0: frame_mesh_all_around's, at which the model is whole
  // from every direction) of an eye circling the model's centre, or --target; replaces the framed eye (orbit_camera).
  std::optional<glm::vec3> orbit;
  std::optional<Backend> backend;  // the ray caster's; empty: cuda where a CUDA device exists, else cpu
  int threads = 0;                 // --threads: the cpu backend's threads; 0: every core (RendererOptions)
  // --backend gl-raster: the OpenGL hardware-raster reference (app/gl/gl_raster.h) draws instead of the ray caster
  // (`backend` is then unset; the viewer still makes the ray caster, to switch back to).
  bool gl_raster = false;
};

// An output name for frame k: its one %d or %0Nd (N = 1..9) replaced by k (%% is a literal %); the name as it is
// when it has none. frame_number_problem says what is wrong with a name's placeholders ("" when nothing).
std::string frame_file(const std::string& pattern, int k);
std::string frame_number_problem(const std::string& pattern, int* placeholders);

// The camera of --orbit (options.orbit set): the eye at the orbit's azimuth, elevation and distance around the target
// (options.frame.camera.target where given, else framed.target); framed's distance where none is given. `framed` is
// frame_mesh_all_around's camera, so that every azimuth and elevation shows the model whole at one distance.
Camera orbit_camera(const SceneOptions& options, const Camera& framed);

struct RenderOptions : SceneOptions {
  std::string out = "frame.png";  // --out: colour PNG (always written)
  std::string depth_path;         // --depth: PFM, when non-empty
  std::string ids_path;           // --ids: .ids, when non-empty
  std::string deformed_mesh_path; // --deformed-mesh: OBJ, when non-empty
  std::string shadow_mask_path;   // --shadow-mask: PGM, when non-empty (turns the shadows on)
  bool legend = false;            // --legend: a heat view's colour scale as a bar in the PNG's bottom rows
  int shadow_map_size = 2048;     // --shadow-map-size: --backend gl-raster's shadow map, texels a side
  // An animation (--frames N > 1): frame k at deformer time time + k / fps, and with --turntable D the orbit's
  // azimuth turned by D * k / N degrees; every output name holds a frame number (frame_file).
  int frames = 1;
  float fps = 24.0f;
  float turntable = 0.0f;
};

// `slabcast view`: the window, or headless (an OpenGL context through EGL's device platform, offscreen).
struct ViewOptions : SceneOptions {
  bool animate = true;             // advance frame.deform.time by wall-clock seconds (headless: 1/60 s per frame)
  float time_scale = 1.0f;         // animation speed factor
  bool vsync = true;
  bool show_overlay = true;        // the ImGui overlay (H toggles it in the window)
  bool headless = false;
  int frames = 1;                  // frames before the screenshot (headless), or before quitting (window, only when
                                   // frames_given: the window tests); >= 1
  bool frames_given = false;       // window: quit after `frames` frames; headless ignores this
  std::string screenshot_path;     // PNG written after the last frame; headless default: "slabcast-view.png"
  bool screenshot_3d_only = false; // write the 3D part only (no overlay), e.g. to compare with `slabcast render`
  // Window: if no display can be opened, say so and render headless to a PNG instead (printing where). Not a flag:
  // the window tests turn it off, since a headless frame would not test the window.
  bool fallback_to_headless = true;
};

// `slabcast bench`: which scenes, sizes and slab counts; empty lists (and unset counts) come from the suite.
enum class BenchSuite : uint8_t {
  full,    // dragon + spheres 1M/4M/16M x 1024x1024, 1920x1080, 3840x2160 x slabs 1/4/8/16
  thesis,  // the thesis's tables (7.1, 7.2): the dragon at 1024x1024, slabs 1..64
  quick,   // a small sphere at small sizes: seconds even on the cpu backend
  shadows, // the dragon and the 16M sphere on a floor, under a sun, shadows on, 1024x1024 and 3840x2160
  animation,  // skinning and morphing: a 2M-triangle sphere (1M vertices) with a generated rig, posed every frame
  textures,   // textured shading's cost: the dragon without and with a generated checker texture
};
enum class BenchReference : uint8_t { gl_raster, none };

struct ImageSize {
  int width = 0, height = 0;
};

// The shadows suite's sun: high, from the front right.
inline const glm::vec3 kBenchSun{1.0f, 2.0f, 1.0f};

struct BenchOptions {
  BenchSuite suite = BenchSuite::full;
  std::vector<SceneSpec> scenes;      // --mesh / --procedural in the order given; empty: the suite's
  std::vector<ImageSize> sizes;       // --sizes; empty: the suite's
  std::vector<int> slabs;             // --slabs; empty: the suite's
  std::optional<int> frames;          // timed frames per row (>= 1); unset: the suite's (200, quick 20)
  std::optional<int> warmup;          // untimed frames before them (>= 0); unset: the suite's (20, quick 3)
  DeformParams deform{Deformer::twist, 1.0f, 0.0f};  // animated: time advances 1/60 s per frame from deform.time
  float fovy_degrees = 45.0f;         // the camera frames the model (frame_mesh) with this field of view
  bool shadows = false;               // --shadows (the shadows suite: on)
  Light light;                        // --light (the shadows suite: a sun, kBenchSun, unless given)
  bool floor = false;                 // --floor: a floor under every scene (the shadows suite: on)
  bool wireframe = false;             // --wireframe: every frame draws the triangles' edges (FrameSettings)
  int samples = 1;                    // --samples: rays a pixel (FrameSettings::samples); the reference draws one
  Color8 background = kDefaultBackground;  // --background: the misses' colour (FrameSettings)
  int shadow_map_size = 2048;         // --shadow-map-size: the gl-raster reference's shadow map, texels a side
  std::optional<Backend> backend;     // empty: cuda where a CUDA device exists, else cpu (with a note)
  BenchReference reference = BenchReference::gl_raster;
  bool display = true;                // also measure the display path (interop / upload + blit), where possible
  int threads = 0;                    // --threads: the cpu backend's threads; 0: every core
  std::string json_path, csv_path;    // written when non-empty
};

// `slabcast check`: frame-dump regression of the scenes of a TSV file against golden PNGs (app/check_command.h).
struct CheckOptions {
  std::string scenes_path;              // NAME<TAB>render arguments, one scene a line; '#' lines are comments
  std::string goldens_dir;              // --goldens: NAME.png (and NAME.ids where the IDs are checked too)
  std::string backend;                  // --backend as given (cuda, cpu, gl-raster); empty: render's default
  bool update = false;                  // --update: (re)write the goldens instead of comparing
  std::string diff_dir = "check-diffs"; // --diff-dir: NAME-diff.png and NAME-actual.png of failing scenes
  std::string json_path, junit_path;    // written when non-empty
};

}  // namespace slabcast
