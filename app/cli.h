// The slabcast command line (CLI11): `slabcast render ...`, `slabcast view ...`, `slabcast bench ...`, and
// `slabcast` alone (= view of the default scene, animated). Parsing is a pure function of argv, so that tests can call it directly.
//
// Every bad value is a UsageError whose message starts with the flag, e.g. "--size: 0x600: the width must be
// between 1 and 16384"; main() prints it and exits with kExitUsage. Runtime failures (a broken mesh file, no CUDA
// device, out of memory, a file that cannot be written) exit with kExitRuntime.
#pragma once
#include "render/renderer.h"

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace slabcast {

constexpr int kExitOk = 0;
constexpr int kExitRuntime = 1;
constexpr int kExitUsage = 2;

// Limits on values (also in --help).
constexpr int kMaxImageSide = 16384;
constexpr int kMinSlabs = 1;
constexpr int kMaxSlabs = 64;
constexpr uint64_t kMaxProceduralTriangles = 0xFFFFFFFEull;  // triangle IDs are uint32, 0xFFFFFFFF = miss
constexpr float kMaxDeformAmount = 1000.0f;

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Which mesh to render.
struct SceneSpec {
  std::string mesh_path;                     // an OBJ file; empty: the procedural mesh below
  std::string procedural_name = "sphere";    // sphere, torus, torus_knot, stress
  uint64_t procedural_triangles = 1000000;   // target triangle count
  std::string label() const;                 // "bunny.obj" or "sphere:1000000"
};

// Everything `slabcast render` and `slabcast view` share: scene, frame settings, camera, backend.
struct SceneOptions {
  SceneSpec scene;
  FrameSettings frame;          // size, camera, deformer, slabs, shading
  bool eye_given = false;       // the camera comes from frame_mesh() except for what was given
  bool target_given = false;
  bool up_given = false;
  std::optional<Backend> backend;  // empty: cuda where a CUDA device exists, else cpu (with a note)
};

struct RenderOptions {
  SceneOptions scene;              // scene.backend is unset when gl_raster is true
  bool gl_raster = false;          // --backend gl-raster: the OpenGL hardware-raster reference (EGL), not ours
  std::string out = "frame.png";  // --out: colour PNG (always written)
  std::string depth_path;         // --depth: PFM, when non-empty
  std::string ids_path;           // --ids: .ids, when non-empty
  std::string deformed_mesh_path; // --deformed-mesh: OBJ, when non-empty
};

struct ViewOptions {
  SceneOptions scene;              // scene.backend: the ray caster's; gl_raster draws instead of it
  bool gl_raster = false;          // --backend gl-raster: start on the OpenGL hardware-raster reference
  bool animate = true;
  float time_scale = 1.0f;
  bool vsync = true;
  bool show_overlay = true;
  bool headless = false;
  int frames = 1;
  bool frames_given = false;
  std::string screenshot_path;
  bool screenshot_3d_only = false;
};

// `slabcast bench`: which scenes, sizes and slab counts; empty lists (and unset counts) come from the suite.
enum class BenchSuite : uint8_t {
  issue5,  // the issue's matrix: dragon + spheres 1M/4M/16M x 1024x1024, 1920x1080, 3840x2160 x slabs 1/4/8/16
  thesis,  // the thesis's tables (7.1, 7.2): the dragon at 1024x1024, slabs 1..64
  quick,   // a small sphere at small sizes: seconds even on the cpu backend
};
enum class BenchReference : uint8_t { gl_raster, none };

struct ImageSize {
  int width = 0, height = 0;
};

struct BenchOptions {
  BenchSuite suite = BenchSuite::issue5;
  std::vector<SceneSpec> scenes;      // --mesh / --procedural in the order given; empty: the suite's
  std::vector<ImageSize> sizes;       // --sizes; empty: the suite's
  std::vector<int> slabs;             // --slabs; empty: the suite's
  std::optional<int> frames;          // timed frames per row (>= 1); unset: the suite's (200, quick 20)
  std::optional<int> warmup;          // untimed frames before them (>= 0); unset: the suite's (20, quick 3)
  DeformParams deform{Deformer::twist, 1.0f, 0.0f};  // animated: time advances 1/60 s per frame from deform.time
  float fovy_degrees = 45.0f;         // the camera frames the model (frame_mesh) with this field of view
  std::optional<Backend> backend;     // empty: cuda where a CUDA device exists, else cpu (with a note)
  BenchReference reference = BenchReference::gl_raster;
  bool display = true;                // also measure the display path (interop / upload + blit), where possible
  std::string json_path, csv_path;    // written when non-empty
};

enum class Command { render, view, bench, exit };

struct ParsedCommandLine {
  Command command = Command::exit;
  int exit_code = kExitOk;  // for Command::exit (after --help, or a usage error already printed)
  RenderOptions render;
  ViewOptions view;
  BenchOptions bench;
};

// Parses argv. --help text goes to `out`; usage errors are printed to `err` (one "slabcast: error: ..." line and
// a hint) and returned as Command::exit with kExitUsage. Never throws for bad input.
ParsedCommandLine parse_command_line(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

// The value parsers behind the flags, exposed for tests. Each throws UsageError naming `flag`.
void parse_size(const std::string& flag, const std::string& text, int* width, int* height);
glm::vec3 parse_vec3(const std::string& flag, const std::string& text);
float parse_finite(const std::string& flag, const std::string& text, float lo, float hi);
int parse_int(const std::string& flag, const std::string& text, int lo, int hi);
void parse_procedural(const std::string& flag, const std::string& text, SceneSpec* scene);
DeformParams parse_deform(const std::string& flag, const std::string& text);
Shading parse_shading(const std::string& flag, const std::string& text);
Backend parse_backend(const std::string& flag, const std::string& text);
// Comma-separated lists: "1024x1024,1920x1080" and "1,4,8,16". Empty items and duplicates are errors.
std::vector<ImageSize> parse_size_list(const std::string& flag, const std::string& text);
std::vector<int> parse_int_list(const std::string& flag, const std::string& text, int lo, int hi);
BenchSuite parse_bench_suite(const std::string& flag, const std::string& text);
BenchReference parse_bench_reference(const std::string& flag, const std::string& text);
bool parse_on_off(const std::string& flag, const std::string& text);

const char* to_string(Deformer deformer);
const char* to_string(Shading shading);
const char* to_string(Backend backend);
const char* to_string(BenchSuite suite);
const char* to_string(BenchReference reference);

}  // namespace slabcast
