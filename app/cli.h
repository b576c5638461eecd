// The slabcast command line (CLI11): `slabcast render ...`, `slabcast view ...`, `slabcast bench ...`, `slabcast
// check ...` (its flags in check_cli.cpp), and `slabcast` alone (= view of the default scene, animated). Parsing is a
// pure function of argv, so that tests can call it directly.
//
// Every bad value is a UsageError whose message starts with the flag, e.g. "--size: 0x600: the width must be
// between 1 and 16384"; main() prints it and exits with kExitUsage. Runtime failures (a broken mesh file, no CUDA
// device, out of memory, a file that cannot be written) exit with kExitRuntime.
#pragma once
#include "app/options.h"
#include "render/renderer.h"

#include <cstdint>
#include <iosfwd>
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
constexpr int kMaxThreads = 1024;
constexpr int kMaxSlabs = 64;
constexpr uint64_t kMaxProceduralTriangles = 0xFFFFFFFEull;  // triangle IDs are uint32, 0xFFFFFFFF = miss
constexpr float kMaxDeformAmount = 1000.0f;

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class Command { render, view, bench, check, version, exit };

struct ParsedCommandLine {
  Command command = Command::exit;
  int exit_code = kExitOk;  // for Command::exit (after --help, or a usage error already printed)
  RenderOptions render;
  ViewOptions view;
  BenchOptions bench;
  CheckOptions check;
};

// Parses argv. --help text goes to `out`; usage errors are printed to `err` (one "slabcast: error: ..." line and
// a hint) and returned as Command::exit with kExitUsage. Never throws for bad input.
ParsedCommandLine parse_command_line(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

// The value parsers behind the flags, exposed for tests. Each throws UsageError naming `flag`.
void parse_size(const std::string& flag, const std::string& text, int* width, int* height);
glm::vec3 parse_vec3(const std::string& flag, const std::string& text);
float parse_finite(const std::string& flag, const std::string& text, float lo, float hi);
int parse_int(const std::string& flag, const std::string& text, int lo, int hi);
// --samples: 1, 4 or 16 (FrameSettings::samples); samples_help is its help text, the same in every command.
int parse_samples(const std::string& flag, const std::string& text);
std::string samples_help();
void parse_procedural(const std::string& flag, const std::string& text, SceneSpec* scene);
DeformParams parse_deform(const std::string& flag, const std::string& text);
Shading parse_shading(const std::string& flag, const std::string& text);
Backend parse_backend(const std::string& flag, const std::string& text);
// An output file: the right extension, and a directory that exists (checked before minutes of loading).
void check_output_path(const std::string& flag, const std::string& path, const std::string& extension);
// headlight | sun:DX,DY,DZ | point:X,Y,Z
Light parse_light(const std::string& flag, const std::string& text);
// "R,G,B" (each a whole number 0..255) or "#RRGGBB" (hex digits, either case): an opaque colour.
Color8 parse_color(const std::string& flag, const std::string& text);
// Comma-separated lists: "1024x1024,1920x1080" and "1,4,8,16". Empty items and duplicates are errors.
std::vector<ImageSize> parse_size_list(const std::string& flag, const std::string& text);
std::vector<int> parse_int_list(const std::string& flag, const std::string& text, int lo, int hi);
BenchSuite parse_bench_suite(const std::string& flag, const std::string& text);
BenchReference parse_bench_reference(const std::string& flag, const std::string& text);
bool parse_on_off(const std::string& flag, const std::string& text);

// The narrowest field of view accepted (degrees): the framing camera stands radius / sin(fovy / 2) away, and below
// this the model's depth differences fall under a float's resolution at that distance.
constexpr float kMinFovyDegrees = 0.1f;
constexpr float kMaxFovyDegrees = 179.0f;
float parse_fovy(const std::string& flag, const std::string& text);
// --orbit AZ,EL[,DIST] -> (azimuth, elevation, distance or 0); elevation strictly inside (-90, 90), distance > 0.
glm::vec3 parse_orbit(const std::string& flag, const std::string& text);

// Throws UsageError naming the flag that made `camera` unusable: eye and target the same point or too far apart
// (--eye, or --target when the eye was framed), or a viewing direction parallel to the up direction, given or
// default (--up). Works at any finite scale.
void check_camera(const Camera& camera, bool eye_given, bool up_given);

const char* to_string(Deformer deformer);
const char* to_string(Shading shading);
const char* to_string(Backend backend);
const char* to_string(BenchSuite suite);
const char* to_string(BenchReference reference);

}  // namespace slabcast
