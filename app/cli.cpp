#include "cli.h"

#include "app/bench_cli.h"
#include "app/check_cli.h"

#include <CLI/CLI.hpp>

#include "render/scale.h"
#include "render/stages/resolve.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <ostream>
#include <sstream>
#include <utility>
#include <vector>

namespace slabcast {
namespace {

[[noreturn]] void usage(const std::string& flag, const std::string& what) { throw UsageError(flag + ": " + what); }

std::string quoted(const std::string& text) {
  constexpr size_t kMaxShown = 40;
  return "'" + (text.size() > kMaxShown ? text.substr(0, kMaxShown) + "..." : text) + "'";
}

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return {};
  const size_t e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

// '-' and '_' are the same in names ("torus-knot" = "torus_knot"), and case does not matter.
std::string normalized_name(std::string s) {
  for (char& c : s) {
    if (c == '-') c = '_';
    c = char(std::tolower(static_cast<unsigned char>(c)));
  }
  return s;
}

bool to_float(std::string text, float* out) {
  text = trim(text);
  if (!text.empty() && text[0] == '+') text.erase(0, 1);
  const char* end = text.data() + text.size();
  const auto r = std::from_chars(text.data(), end, *out);
  return !text.empty() && r.ec == std::errc() && r.ptr == end;
}

bool to_u64(std::string text, uint64_t* out) {
  text = trim(text);
  if (!text.empty() && text[0] == '+') text.erase(0, 1);
  const char* end = text.data() + text.size();
  const auto r = std::from_chars(text.data(), end, *out);
  return !text.empty() && r.ec == std::errc() && r.ptr == end;
}

template <typename Enum, size_t N>
Enum parse_name(const std::string& flag, const std::string& text, const char* kind,
                const std::pair<const char*, Enum> (&names)[N]) {
  const std::string key = normalized_name(trim(text));
  std::string known;
  for (const auto& [name, value] : names) {
    if (key == name) return value;
    known += (known.empty() ? "" : ", ") + std::string(name);
  }
  usage(flag, "unknown " + std::string(kind) + " " + quoted(text) + " (one of: " + known + ")");
}

constexpr std::pair<const char*, Deformer> kDeformers[] = {
    {"none", Deformer::none}, {"twist", Deformer::twist}, {"bend", Deformer::bend},
    {"wave", Deformer::wave}, {"pulse", Deformer::pulse}};
constexpr std::pair<const char*, Shading> kShadings[] = {
    {"phong", Shading::phong},         {"flat", Shading::flat},   {"depth", Shading::depth},
    {"normals", Shading::normals},     {"triangle_id", Shading::triangle_id},
    {"slab", Shading::slab},           {"ray_tests", Shading::ray_tests},
    {"tile_triangles", Shading::tile_triangles}, {"shadow", Shading::shadow},
    {"albedo", Shading::albedo}};
constexpr std::pair<const char*, Backend> kBackends[] = {{"cuda", Backend::cuda}, {"cpu", Backend::cpu}};
constexpr const char* kProceduralNames[] = {"sphere", "torus", "torus_knot", "stress"};
constexpr std::pair<const char*, BenchSuite> kBenchSuites[] = {
    {"full", BenchSuite::full}, {"thesis", BenchSuite::thesis}, {"quick", BenchSuite::quick},
    {"shadows", BenchSuite::shadows}, {"animation", BenchSuite::animation}, {"textures", BenchSuite::textures}};
constexpr std::pair<const char*, BenchReference> kBenchReferences[] = {
    {"gl_raster", BenchReference::gl_raster}, {"none", BenchReference::none}};
constexpr std::pair<const char*, bool> kOnOff[] = {{"on", true}, {"off", false}};
// The hardware-raster reference that `render --backend` accepts besides the renderer's own backends.
constexpr const char* kGlRasterName = "gl_raster";

// "a,b,,c" -> {"a", "b", "", "c"} (empty items are kept, so that the caller can reject them).
std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  size_t begin = 0;
  while (true) {
    const size_t comma = text.find(',', begin);
    parts.push_back(text.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin));
    if (comma == std::string::npos) return parts;
    begin = comma + 1;
  }
}


// The flags `render` and `view` share, as text until checked.
struct RawScene {
  std::string mesh, procedural, size, eye, target, up, fovy, deform, time, slabs, backend, shading, threads, orbit, light;
  std::string samples;
  std::string animation, background;
  bool shadows = false, floor = false, wireframe = false;
  CLI::Option *eye_opt = nullptr, *target_opt = nullptr, *up_opt = nullptr, *backend_opt = nullptr,
              *deform_opt = nullptr, *mesh_opt = nullptr, *procedural_opt = nullptr;
  std::vector<std::pair<CLI::Option*, std::string*>> options;  // every flag and where its text goes
};

// `gl_raster_help`: what --backend gl-raster does in this subcommand.
void add_scene_flags(CLI::App* app, RawScene* raw, const char* default_deform, const std::string& gl_raster_help) {
  // The help text's "META: description" becomes CLI11's type name (shown after the flag) and description.
  const auto add = [&](const char* name, std::string* value, const std::string& help) {
    const size_t colon = help.find(": ");
    CLI::Option* opt = app->add_option(name, *value, help.substr(colon + 2));
    opt->type_name(help.substr(0, colon));
    raw->options.emplace_back(opt, value);
    return opt;
  };
  raw->mesh_opt = add("--mesh", &raw->mesh, "FILE: a mesh to render: OBJ, PLY, STL, OFF, glTF (docs/formats.md; polygons are triangulated)");
  raw->procedural_opt = add("--procedural", &raw->procedural,
                                "NAME:TRIANGLES: a procedural mesh, NAME one of sphere, torus, torus_knot, stress; "
                                "TRIANGLES a count, k and M suffixes allowed (default: sphere:1M)");
  add("--size", &raw->size, "WxH: image size in pixels, 1.." + std::to_string(kMaxImageSide) + " per side (default 1024x1024)");
  raw->eye_opt = add("--eye", &raw->eye, "x,y,z: camera position (default: framing the model)");
  add("--orbit", &raw->orbit, "AZ,EL[,DIST]: instead of --eye, the camera on a circle around the model (or --target): "
                              "azimuth from +Z towards +X and elevation in degrees (-90 < EL < 90), distance in "
                              "world units (default: where the model is whole from every side)");
  raw->target_opt = add("--target", &raw->target,
                         "x,y,z: point looked at (default: on the framed view's axis at the model's depth; with "
                         "--orbit, the model's centre)");
  raw->up_opt = add("--up", &raw->up, "x,y,z: up direction (default 0,1,0)");
  add("--fovy", &raw->fovy, "DEG: vertical field of view, 0.1..179 (default 45)");
  raw->deform_opt = add("--deform", &raw->deform,
                        std::string("NAME[:AMOUNT]: deformer none, twist, bend, wave or pulse, with an optional "
                                    "strength (default ") + default_deform + ", amount 1)");
  add("--time", &raw->time, "T: the scene's time in seconds: deformer, glTF animation, mesh sequence (default 0)");
  add("--animation", &raw->animation, "NAME|INDEX: the glTF animation to play (default: the first)");
  add("--slabs", &raw->slabs, "S: depth slabs, " + std::to_string(kMinSlabs) + ".." + std::to_string(kMaxSlabs) + " (default 16)");
  add("--samples", &raw->samples, samples_help());
  add("--threads", &raw->threads, "N: threads of the cpu backend, 1.." + std::to_string(kMaxThreads) +
                                      " (default: every core; any N renders the same image)");
  raw->backend_opt = add("--backend", &raw->backend,
                         "NAME: cuda, cpu, or gl-raster: " + gl_raster_help +
                             " (default: cuda where a CUDA device exists, else cpu)");
  add("--shading", &raw->shading,
      "MODE: phong (default), flat, depth, normals, triangle_id, slab, ray_tests (ray-triangle tests per pixel), "
      "tile_triangles (triangle references per tile), shadow (the shadow mask; turns --shadows on), albedo (the "
      "surface colour, unlit); ray_tests and tile_triangles are heat maps on a log scale from 0 (blue) to the "
      "frame's largest count (red)");
  add("--light", &raw->light, "LIGHT: headlight (default), sun:DX,DY,DZ (the direction from the scene towards the "
                              "sun, any length) or point:X,Y,Z (a point light, world units)");
  add("--background", &raw->background, "COLOUR: the colour of the pixels that show no model: R,G,B (0..255 each) "
                                        "or #RRGGBB (default 28,30,38)");
  app->add_flag("--floor", raw->floor, "add a floor under the model: a quad at its lowest point, 4x its footprint");
  app->add_flag("--shadows", raw->shadows, "exact hard shadows from --light: a pixel is in shadow when another "
                                           "triangle lies between its hit point and the light");
  app->add_flag("--wireframe", raw->wireframe, "draw the triangles' edges darker over any --shading: the pixels whose "
                                               "hit lies within about a pixel of its triangle's edge, at any distance");
}

// CLI11 accepts an empty value ("--size="); give it the same message as any other bad value.
void check_given_values(const RawScene& raw) {
  for (const auto& [opt, value] : raw.options) {
    if (opt->count() > 0 && trim(*value).empty()) usage(opt->get_name(), "empty value");
  }
}

// Fills `s` (the part of RenderOptions / ViewOptions that the scene flags set) from the flags' text.
void finish_scene(const RawScene& raw, Deformer default_deform, SceneOptions* out) {
  check_given_values(raw);
  SceneOptions& s = *out;
  if (raw.mesh_opt->count() > 0 && raw.procedural_opt->count() > 0) {
    usage("--mesh", "give either --mesh or --procedural, not both");
  }
  if (!raw.mesh.empty()) s.scene.mesh_path = raw.mesh;
  if (!raw.procedural.empty()) parse_procedural("--procedural", raw.procedural, &s.scene);
  if (!raw.animation.empty()) s.scene.animation = trim(raw.animation);
  if (!raw.size.empty()) parse_size("--size", raw.size, &s.frame.width, &s.frame.height);
  s.size_given = !raw.size.empty();
  if (!raw.eye.empty()) s.frame.camera.eye = parse_vec3("--eye", raw.eye);
  if (!raw.target.empty()) s.frame.camera.target = parse_vec3("--target", raw.target);
  if (!raw.up.empty()) {
    s.frame.camera.up = parse_vec3("--up", raw.up);
    if (max_abs(s.frame.camera.up) == 0.0f) usage("--up", "the up direction must not be zero");
  }
  if (!raw.orbit.empty()) {
    if (raw.eye_opt->count() > 0) usage("--orbit", "give either --orbit or --eye, not both");
    s.orbit = parse_orbit("--orbit", raw.orbit);
  }
  s.eye_given = raw.eye_opt->count() > 0;
  s.target_given = raw.target_opt->count() > 0;
  s.up_given = raw.up_opt->count() > 0;
  if (s.eye_given && s.target_given) check_camera(s.frame.camera, s.eye_given, s.up_given);
  if (!raw.fovy.empty()) s.frame.camera.fovy_degrees = parse_fovy("--fovy", raw.fovy);
  s.frame.deform.kind = default_deform;
  if (!raw.deform.empty()) s.frame.deform = parse_deform("--deform", raw.deform);
  if (!raw.time.empty()) s.frame.deform.time = parse_finite("--time", raw.time, -1e6f, 1e6f);
  if (!raw.slabs.empty()) s.frame.slabs = parse_int("--slabs", raw.slabs, kMinSlabs, kMaxSlabs);
  if (!raw.samples.empty()) s.frame.samples = parse_samples("--samples", raw.samples);
  if (!raw.threads.empty()) s.threads = parse_int("--threads", raw.threads, 1, kMaxThreads);
  if (!raw.backend.empty()) {
    const std::string key = normalized_name(trim(raw.backend));
    if (key == kGlRasterName) {
      s.gl_raster = true;
    } else {
      // The renderer's backends (cpu, cuda) plus the reference: say all three when the name is none of them.
      bool renderer_backend = false;
      for (const auto& entry : kBackends) renderer_backend = renderer_backend || key == entry.first;
      if (!renderer_backend) usage("--backend", "unknown backend " + quoted(raw.backend) + " (one of: cuda, cpu, gl-raster)");
      s.backend = parse_backend("--backend", raw.backend);
    }
  }
  if (!raw.shading.empty()) s.frame.shading = parse_shading("--shading", raw.shading);
  if (!raw.light.empty()) s.frame.light = parse_light("--light", raw.light);
  s.frame.shadows = raw.shadows;
  s.frame.wireframe = raw.wireframe;
  if (!raw.background.empty()) s.frame.background = parse_color("--background", raw.background);
  if (s.gl_raster && s.frame.wireframe) usage("--wireframe", "not available with --backend gl-raster");
  if (s.gl_raster && s.frame.samples != 1) usage("--samples", "not available with --backend gl-raster");
  s.scene.floor = raw.floor;
  if (s.gl_raster && s.frame.shading == Shading::shadow) usage("--shading", "not available with --backend gl-raster");
  if (s.gl_raster && s.frame.shadows && s.frame.light.type != LightType::sun) {
    usage("--shadows", "the gl-raster reference's shadow map is for a sun only (--light sun:DX,DY,DZ)");
  }
}

}  // namespace

// An output file: the right extension, and a directory that exists (checked before minutes of loading).
void check_output_path(const std::string& flag, const std::string& path, const std::string& extension) {
  if (path.empty()) usage(flag, "empty file name");
  const std::string lower = normalized_name(path);
  if (lower.size() <= extension.size() || lower.compare(lower.size() - extension.size(), extension.size(), extension) != 0) {
    usage(flag, quoted(path) + " should end in " + extension);
  }
  const size_t slash = path.find_last_of('/');
  if (slash != std::string::npos && slash > 0) {
    const std::string dir = path.substr(0, slash);
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) usage(flag, "directory " + quoted(dir) + " does not exist");
  }
}

void parse_size(const std::string& flag, const std::string& text, int* width, int* height) {
  const std::string t = trim(text);
  const size_t x = t.find_first_of("xX");
  uint64_t w = 0, h = 0;
  if (x == std::string::npos || !to_u64(t.substr(0, x), &w) || !to_u64(t.substr(x + 1), &h)) {
    // "-5x10" lands here too: a size is never negative.
    usage(flag, "expected WIDTHxHEIGHT in pixels, e.g. 1024x768, got " + quoted(text));
  }
  if (w < 1 || w > uint64_t(kMaxImageSide)) {
    usage(flag, quoted(text) + ": the width must be between 1 and " + std::to_string(kMaxImageSide));
  }
  if (h < 1 || h > uint64_t(kMaxImageSide)) {
    usage(flag, quoted(text) + ": the height must be between 1 and " + std::to_string(kMaxImageSide));
  }
  *width = int(w);
  *height = int(h);
}

glm::vec3 parse_vec3(const std::string& flag, const std::string& text) {
  std::vector<std::string> parts;
  size_t begin = 0;
  while (true) {
    const size_t comma = text.find(',', begin);
    parts.push_back(text.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin));
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  if (parts.size() != 3) usage(flag, "expected three numbers x,y,z, got " + quoted(text));
  glm::vec3 v;
  for (int i = 0; i < 3; ++i) {
    if (!to_float(parts[size_t(i)], &v[i])) usage(flag, quoted(trim(parts[size_t(i)])) + " in " + quoted(text) + " is not a number");
    if (!std::isfinite(v[i])) usage(flag, quoted(trim(parts[size_t(i)])) + " in " + quoted(text) + " is not a finite number");
  }
  return v;
}

glm::vec3 parse_orbit(const std::string& flag, const std::string& text) {
  std::vector<float> values;
  size_t start = 0;
  for (;;) {
    const size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    values.push_back(parse_finite(flag, item, -1e30f, 1e30f));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (values.size() != 2 && values.size() != 3) {
    usage(flag, quoted(text) + ": expected AZIMUTH,ELEVATION or AZIMUTH,ELEVATION,DISTANCE");
  }
  if (!(values[1] > -90.0f && values[1] < 90.0f)) {
    usage(flag, quoted(text) + ": the elevation must lie strictly between -90 and 90 degrees");
  }
  if (values.size() == 3 && !(values[2] > 0.0f)) usage(flag, quoted(text) + ": the distance must be positive");
  return glm::vec3(values[0], values[1], values.size() == 3 ? values[2] : 0.0f);
}

float parse_fovy(const std::string& flag, const std::string& text) {
  const float fovy = parse_finite(flag, text, 0.0f, 180.0f);
  if (!(fovy >= kMinFovyDegrees && fovy <= kMaxFovyDegrees)) {
    std::ostringstream range;
    range << kMinFovyDegrees << " to " << kMaxFovyDegrees;
    usage(flag, quoted(text) + ": the field of view must be " + range.str() + " degrees");
  }
  return fovy;
}

void check_camera(const Camera& camera, bool eye_given, bool up_given) {
  const char* position_flag = eye_given ? "--eye" : "--target";
  const glm::vec3 view = camera.target - camera.eye;
  if (max_abs(view) == 0.0f) usage(position_flag, "the camera eye and target are the same point");
  if (!std::isfinite(max_abs(view))) {
    usage(position_flag, "the camera eye and target are too far apart (their distance overflows a 32-bit float)");
  }
  const glm::vec3 side = glm::cross(normalize_without_overflow(view), normalize_without_overflow(camera.up));
  if (glm::length(side) < 1e-4f) {
    usage("--up", up_given ? "the up direction is parallel to the viewing direction (eye to target)"
                           : "the default up direction 0,1,0 is parallel to the viewing direction (eye to target); "
                             "give another with --up");
  }
}

float parse_finite(const std::string& flag, const std::string& text, float lo, float hi) {
  float v = 0;
  if (!to_float(text, &v)) usage(flag, quoted(text) + " is not a number");
  if (!std::isfinite(v)) usage(flag, quoted(text) + " is not a finite number");
  if (v < lo || v > hi) usage(flag, quoted(text) + " is out of range [" + trim(std::to_string(lo)) + ", " + trim(std::to_string(hi)) + "]");
  return v;
}

int parse_int(const std::string& flag, const std::string& text, int lo, int hi) {
  const std::string t = trim(text);
  int64_t v = 0;
  const char* end = t.data() + t.size();
  const auto r = std::from_chars(t.data() + (!t.empty() && t[0] == '+'), end, v);
  if (t.empty() || r.ec != std::errc() || r.ptr != end) usage(flag, quoted(text) + " is not a whole number");
  if (v < lo || v > hi) {
    usage(flag, quoted(text) + " is out of range: it must be between " + std::to_string(lo) + " and " + std::to_string(hi));
  }
  return int(v);
}

int parse_samples(const std::string& flag, const std::string& text) {
  const int n = parse_int(flag, text, 1, kMaxSamples);
  if (!is_sample_count(n)) usage(flag, quoted(text) + ": the samples a pixel must be 1, 4 or 16");
  return n;
}

std::string samples_help() {
  return "N: anti-aliasing, rays a pixel: 1 (default: the pixel centre), 4 or 16 (the centres of a 2x2 or 4x4 grid "
         "over the pixel), their colours averaged; costs about N frames. --depth, --ids and --shadow-mask stay the "
         "pixel centres' (one more frame is cast for them)";
}

void parse_procedural(const std::string& flag, const std::string& text, SceneSpec* scene) {
  const std::string t = trim(text);
  const size_t colon = t.find(':');
  const std::string name = normalized_name(t.substr(0, colon));
  std::string known;
  bool found = false;
  for (const char* n : kProceduralNames) {
    found = found || name == n;
    known += (known.empty() ? "" : ", ") + std::string(n);
  }
  if (!found) usage(flag, "unknown procedural mesh " + quoted(t.substr(0, colon)) + " (one of: " + known + ")");
  uint64_t count = scene->procedural_triangles;
  if (colon != std::string::npos) {
    std::string digits = trim(t.substr(colon + 1));
    uint64_t scale = 1;
    if (!digits.empty() && (digits.back() == 'k' || digits.back() == 'K')) scale = 1000, digits.pop_back();
    else if (!digits.empty() && (digits.back() == 'm' || digits.back() == 'M')) scale = 1000000, digits.pop_back();
    if (!to_u64(digits, &count)) usage(flag, "expected NAME:TRIANGLES, e.g. sphere:1000000 or torus:250k, got " + quoted(text));
    if (count > kMaxProceduralTriangles / scale) {
      usage(flag, quoted(text) + ": at most " + std::to_string(kMaxProceduralTriangles) + " triangles (32-bit triangle IDs)");
    }
    count *= scale;
    if (count < 1) usage(flag, quoted(text) + ": the triangle count must be at least 1");
  }
  scene->mesh_path.clear();
  scene->procedural_name = name;
  scene->procedural_triangles = count;
}

DeformParams parse_deform(const std::string& flag, const std::string& text) {
  const size_t colon = text.find(':');
  DeformParams d;
  d.kind = parse_name(flag, text.substr(0, colon), "deformer", kDeformers);
  if (colon != std::string::npos) {
    d.amount = parse_finite(flag, text.substr(colon + 1), -kMaxDeformAmount, kMaxDeformAmount);
  }
  return d;
}

Shading parse_shading(const std::string& flag, const std::string& text) {
  return parse_name(flag, text, "shading mode", kShadings);
}

Light parse_light(const std::string& flag, const std::string& text) {
  const std::string t = trim(text);
  const size_t colon = t.find(':');
  const std::string kind = normalized_name(t.substr(0, colon));
  Light light;
  if (kind == "headlight" && colon == std::string::npos) return light;
  if ((kind != "sun" && kind != "point") || colon == std::string::npos) {
    usage(flag, "expected headlight, sun:DX,DY,DZ or point:X,Y,Z, got " + quoted(text));
  }
  light.type = kind == "sun" ? LightType::sun : LightType::point;
  light.vector = parse_vec3(flag, t.substr(colon + 1));
  if (light.type == LightType::sun && max_abs(light.vector) == 0.0f) {
    usage(flag, quoted(text) + ": the sun's direction must not be zero");
  }
  return light;
}

Color8 parse_color(const std::string& flag, const std::string& text) {
  const std::string t = trim(text);
  const char* expected = "expected R,G,B (0..255 each) or #RRGGBB, e.g. 28,30,38 or #1c1e26, got ";
  uint8_t rgb[3] = {0, 0, 0};
  if (!t.empty() && t[0] == '#') {
    if (t.size() != 7) usage(flag, expected + quoted(text));
    for (int i = 0; i < 3; ++i) {
      const char* first = t.data() + 1 + 2 * i;
      const auto r = std::from_chars(first, first + 2, rgb[i], 16);
      if (r.ec != std::errc() || r.ptr != first + 2) usage(flag, expected + quoted(text));
    }
  } else {
    const std::vector<std::string> parts = split_commas(t);
    if (parts.size() != 3) usage(flag, expected + quoted(text));
    for (int i = 0; i < 3; ++i) {
      uint64_t v = 0;
      if (!to_u64(parts[size_t(i)], &v)) usage(flag, quoted(trim(parts[size_t(i)])) + " in " + quoted(text) + " is not a whole number 0..255");
      if (v > 255) usage(flag, quoted(trim(parts[size_t(i)])) + " in " + quoted(text) + " is over 255");
      rgb[i] = static_cast<uint8_t>(v);
    }
  }
  return Color8{rgb[0], rgb[1], rgb[2], 255};
}

Backend parse_backend(const std::string& flag, const std::string& text) {
  return parse_name(flag, text, "backend", kBackends);
}

std::vector<ImageSize> parse_size_list(const std::string& flag, const std::string& text) {
  std::vector<ImageSize> sizes;
  for (const std::string& item : split_commas(text)) {
    if (trim(item).empty()) usage(flag, "empty item in " + quoted(text) + " (expected e.g. 1024x1024,1920x1080)");
    ImageSize size;
    parse_size(flag, item, &size.width, &size.height);
    for (const ImageSize& s : sizes) {
      if (s.width == size.width && s.height == size.height) usage(flag, quoted(trim(item)) + " is given twice");
    }
    sizes.push_back(size);
  }
  return sizes;
}

std::vector<int> parse_int_list(const std::string& flag, const std::string& text, int lo, int hi) {
  std::vector<int> values;
  for (const std::string& item : split_commas(text)) {
    if (trim(item).empty()) usage(flag, "empty item in " + quoted(text) + " (expected whole numbers separated by commas)");
    const int v = parse_int(flag, item, lo, hi);
    if (std::find(values.begin(), values.end(), v) != values.end()) usage(flag, quoted(trim(item)) + " is given twice");
    values.push_back(v);
  }
  return values;
}

BenchSuite parse_bench_suite(const std::string& flag, const std::string& text) {
  return parse_name(flag, text, "suite", kBenchSuites);
}

BenchReference parse_bench_reference(const std::string& flag, const std::string& text) {
  return parse_name(flag, text, "reference", kBenchReferences);
}

bool parse_on_off(const std::string& flag, const std::string& text) { return parse_name(flag, text, "value", kOnOff); }

const char* to_string(Deformer deformer) {
  for (const auto& [name, value] : kDeformers) if (value == deformer) return name;
  return "?";
}
const char* to_string(Shading shading) {
  for (const auto& [name, value] : kShadings) if (value == shading) return name;
  return "?";
}
const char* to_string(Backend backend) {
  for (const auto& [name, value] : kBackends) if (value == backend) return name;
  return "?";
}
const char* to_string(BenchSuite suite) {
  for (const auto& [name, value] : kBenchSuites) if (value == suite) return name;
  return "?";
}
const char* to_string(BenchReference reference) {
  return reference == BenchReference::gl_raster ? "gl-raster" : "none";
}

ParsedCommandLine parse_command_line(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app("slabcast: real-time ray casting of deforming triangle meshes.\n"
               "With no arguments, opens the viewer on the default scene (a 1M-triangle sphere), animated.",
               "slabcast");
  app.require_subcommand(0, 1);
  app.get_formatter()->column_width(34);
  bool version_asked = false;
  app.add_flag("--version", version_asked,
               "print the version, the commit it was built from, the CUDA runtime and driver and the GPU, and exit");

  CLI::App* render = app.add_subcommand(
      "render", "Render one frame headless and write it (PNG; depth PFM, triangle IDs, deformed mesh on request), "
                "then print the frame's statistics");
  RawScene render_raw;
  add_scene_flags(render, &render_raw, "none", "the OpenGL hardware-raster reference through EGL, colour and --ids only");
  ParsedCommandLine result;
  RenderOptions& r = result.render;
  std::string out_path = r.out;
  render->add_option("--out", out_path, "colour image (default frame.png)")->type_name("FILE.png");
  render->add_option("--depth", r.depth_path, "also write depth (distance along the ray; miss = +inf)")->type_name("FILE.pfm");
  render->add_option("--ids", r.ids_path, "also write triangle IDs (uint32; miss = 0xFFFFFFFF)")->type_name("FILE.ids");
  render->add_option("--deformed-mesh", r.deformed_mesh_path, "also write the deformed mesh")->type_name("FILE.obj");
  std::string render_shadow_map_size;
  render->add_option("--shadow-map-size", render_shadow_map_size, "texels a side of --backend gl-raster's shadow map "
                     "(default 2048)")->type_name("N");
  render->add_option("--shadow-mask", r.shadow_mask_path, "also write the shadow mask (8-bit: 0 in shadow, 255 lit, "
                     "128 no hit; turns --shadows on)")->type_name("FILE.pgm");
  std::string render_frames_text, fps_text, turntable_text;
  render->add_option("--frames", render_frames_text, "render an animation of N frames; every output name then holds its "
                     "frame number as %d or %04d, e.g. --out 'frame_%04d.png' (default 1)")->type_name("N");
  render->add_option("--fps", fps_text, "frames per second of the animation's time, and of a mesh sequence's frames "
                     "(default 24)")->type_name("F");
  render->add_flag("--legend", r.legend, "with --shading ray_tests or tile_triangles: draw the colour scale as a bar "
                   "along the image's bottom rows (blue = 0 at the left, red = the frame's largest count at the right, "
                   "log scale; the values are printed)");
  render->add_option("--turntable", turntable_text, "turn the orbit (--orbit, default 0,0) by DEGREES over the "
                     "frames")->type_name("DEGREES");

  CLI::App* view = app.add_subcommand(
      "view", "Open the interactive viewer (a window; or --headless: render offscreen through EGL and write a PNG)");
  RawScene view_raw;
  add_scene_flags(view, &view_raw, "wave",
                  "start on the OpenGL hardware-raster reference instead of the ray caster (the overlay switches)");
  ViewOptions& v = result.view;
  std::string frames_text, time_scale_text, view_fps_text;
  bool pause = false, no_vsync = false, no_overlay = false;
  view->add_flag("--headless", v.headless, "render offscreen (EGL device platform, no window) and write --screenshot");
  CLI::Option* frames_opt = view->add_option("--frames", frames_text, "frames to render (headless: before the "
                                             "screenshot; window: then quit) (default 1)")->type_name("N");
  view->add_option("--screenshot", v.screenshot_path, "where the headless frame goes (default slabcast-view.png)")->type_name("FILE.png");
  view->add_flag("--screenshot-3d-only", v.screenshot_3d_only, "write the 3D image only, without the overlay");
  view->add_flag("--pause", pause, "start with the animation paused");
  view->add_option("--time-scale", time_scale_text, "animation speed factor (default 1)")->type_name("F");
  view->add_option("--fps", view_fps_text, "a mesh sequence's frames per second (default 24)")->type_name("F");
  view->add_flag("--no-vsync", no_vsync, "do not wait for the display's refresh");
  view->add_flag("--no-overlay", no_overlay, "start with the overlay hidden (H toggles it)");

  BenchFlags bench_flags;
  CLI::App* bench = add_bench_subcommand(&app, &bench_flags);

  CLI::App* check = add_check_subcommand(&app, &result.check);

  const auto fail_usage = [&](const std::string& message, const CLI::App* where) {
    err << "slabcast: error: " << message;
    if (where != nullptr) err << " (see 'slabcast " << (where == &app ? "" : where->get_name() + " ") << "--help')";
    err << "\n";
    result.command = Command::exit;
    result.exit_code = kExitUsage;
    return result;
  };

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    result.command = Command::exit;
    if (render->parsed() || view->parsed() || bench->parsed() || check->parsed()) {
      result.exit_code = app.exit(e, out, err);
    } else {  // `slabcast --help` lists everything: the subcommands and all their flags
      out << app.help() << "\n" << render->help("slabcast") << "\n" << view->help("slabcast") << "\n"
          << bench->help("slabcast") << "\n" << check->help("slabcast");
      result.exit_code = kExitOk;
    }
    return result;
  } catch (const CLI::CallForAllHelp& e) {
    result.command = Command::exit;
    result.exit_code = app.exit(e, out, err);
    return result;
  } catch (const CLI::ParseError& e) {
    const CLI::App* where = render->parsed()  ? render
                            : view->parsed()  ? view
                            : bench->parsed() ? bench
                            : check->parsed() ? check
                                              : &app;
    return fail_usage(e.what(), where);
  }

  if (version_asked) {
    if (render->parsed() || view->parsed() || bench->parsed() || check->parsed()) {
      return fail_usage("--version takes no subcommand", &app);
    }
    result.command = Command::version;
    return result;
  }

  try {
    if (render->parsed()) {
      result.command = Command::render;
      finish_scene(render_raw, Deformer::none, &r);
      r.out = out_path;
      check_output_path("--out", r.out, ".png");
      if (!r.depth_path.empty()) check_output_path("--depth", r.depth_path, ".pfm");
      if (!r.ids_path.empty()) check_output_path("--ids", r.ids_path, ".ids");
      if (!r.deformed_mesh_path.empty()) check_output_path("--deformed-mesh", r.deformed_mesh_path, ".obj");
      if (!r.shadow_mask_path.empty()) {
        check_output_path("--shadow-mask", r.shadow_mask_path, ".pgm");
        if (r.gl_raster && r.frame.light.type != LightType::sun) {
          usage("--shadow-mask", "the gl-raster reference's shadow map is for a sun only (--light sun:DX,DY,DZ)");
        }
        r.frame.shadows = true;
      }
      if (!render_shadow_map_size.empty()) {
        r.shadow_map_size = parse_int("--shadow-map-size", render_shadow_map_size, 1, 16384);
      }
      if (!render_frames_text.empty()) r.frames = parse_int("--frames", render_frames_text, 1, 1000000);
      if (!fps_text.empty()) r.fps = parse_finite("--fps", fps_text, 1e-3f, 1e6f);
      r.scene.sequence_fps = r.fps;
      if (!turntable_text.empty()) {
        r.turntable = parse_finite("--turntable", turntable_text, -1e6f, 1e6f);
        if (r.eye_given) usage("--turntable", "turns the orbit: give --orbit (or nothing), not --eye");
        if (!r.orbit) r.orbit = glm::vec3(0.0f);
      }
      if (r.gl_raster && r.frames > 1) usage("--frames", "not available with --backend gl-raster");
      if (r.legend && !is_heat_view(r.frame.shading)) {
        usage("--legend", "draws the heat views' colour scale: use it with --shading ray_tests or tile_triangles");
      }
      if (r.legend && r.gl_raster) usage("--legend", "not available with --backend gl-raster");
      const std::pair<const char*, const std::string*> names[] = {
          {"--out", &r.out}, {"--depth", &r.depth_path}, {"--ids", &r.ids_path},
          {"--deformed-mesh", &r.deformed_mesh_path}, {"--shadow-mask", &r.shadow_mask_path}};
      for (const auto& [flag, name] : names) {
        if (name->empty()) continue;
        int placeholders = 0;
        const std::string problem = frame_number_problem(*name, &placeholders);
        if (!problem.empty()) usage(flag, quoted(*name) + ": " + problem);
        if (placeholders > 1) usage(flag, quoted(*name) + ": one frame number at most");
        if (r.frames > 1 && placeholders == 0) {
          usage(flag, quoted(*name) + ": an animation's names need the frame number, e.g. frame_%04d.png");
        }
      }
      if (r.gl_raster && !r.depth_path.empty()) {
        usage("--depth", "not available with --backend gl-raster (the reference writes colour and --ids only)");
      }
      if (r.gl_raster && !r.deformed_mesh_path.empty()) {
        usage("--deformed-mesh", "not available with --backend gl-raster (the reference deforms in OpenGL)");
      }
    } else if (check->parsed()) {
      result.command = Command::check;
      finish_check(&result.check);
    } else if (bench->parsed()) {
      result.command = Command::bench;
      finish_bench(bench_flags, *bench, &result.bench);
    } else {
      // `slabcast view ...`, or `slabcast` alone: the default scene, animated, in a window.
      result.command = Command::view;
      finish_scene(view_raw, Deformer::wave, &v);
      if (frames_opt->count() > 0) {
        v.frames = parse_int("--frames", frames_text, 1, 100000000);
        v.frames_given = true;
      }
      if (!v.screenshot_path.empty()) check_output_path("--screenshot", v.screenshot_path, ".png");
      if (!view_fps_text.empty()) v.scene.sequence_fps = parse_finite("--fps", view_fps_text, 1e-3f, 1e6f);
      if (!time_scale_text.empty()) v.time_scale = parse_finite("--time-scale", time_scale_text, -1000.0f, 1000.0f);
      v.animate = !pause;
      v.vsync = !no_vsync;
      v.show_overlay = !no_overlay;
    }
  } catch (const UsageError& e) {
    return fail_usage(e.what(), nullptr);
  }
  return result;
}

}  // namespace slabcast
