#include "app/bench_cli.h"

#include <CLI/CLI.hpp>

#include <cctype>
#include <string>

#include "app/cli.h"

namespace slabcast {
namespace {

[[noreturn]] void usage(const std::string& flag, const std::string& what) { throw UsageError(flag + ": " + what); }

// The text without its surrounding blanks (an empty value is refused as such).
std::string trimmed(const std::string& s) {
  size_t a = 0, e = s.size();
  while (a < e && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (e > a && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(a, e - a);
}

}  // namespace

CLI::App* add_bench_subcommand(CLI::App* app, BenchFlags* flags) {
  BenchFlags& f = *flags;
  CLI::App* bench = app->add_subcommand(
      "bench", "Benchmark the renderer over scenes, image sizes and slab counts (animated deformation, warm-up, "
               "then timed frames): per-stage medians and p99, display cost, references and ray-triangle tests, "
               "peak GPU memory; the OpenGL hardware-raster reference in the same process; a table on stdout, "
               "JSON and CSV files on request");
  bench->add_option("--shadow-map-size", f.shadow_map_size, "texels a side of the gl-raster reference's shadow map "
                    "with --shadows and a sun (default 2048)")->type_name("N");
  bench->add_flag("--shadows", f.shadows, "shadows from --light in every frame (the shadows suite: on)");
  bench->add_flag("--floor", f.floor, "a floor under every scene (the shadows suite: on)");
  bench->add_flag("--wireframe", f.wireframe, "every frame draws the triangles' edges over the shading (the cost of "
                                              "render's and view's --wireframe)");
  f.mesh_opt = bench->add_option("--mesh", f.meshes, "a mesh file to benchmark: OBJ, PLY, STL, OFF, glTF (repeatable)")
                                    ->type_name("FILE")->allow_extra_args(false);
  f.procedural_opt =
      bench->add_option("--procedural", f.procedurals, "a procedural mesh, e.g. sphere:4M (repeatable); "
                        "--mesh and --procedural together replace the suite's scenes, in the order given")
          ->type_name("NAME:TRIANGLES")->allow_extra_args(false);
  f.texts = {
      {bench->add_option("--sizes", f.sizes, "image sizes (default: the suite's; full: "
                         "1024x1024,1920x1080,3840x2160)")->type_name("WxH,..."), &f.sizes},
      {bench->add_option("--slabs", f.slabs, "slab counts, each " + std::to_string(kMinSlabs) + ".." +
                         std::to_string(kMaxSlabs) + " (default: the suite's; full: 1,4,8,16)")->type_name("S,..."),
       &f.slabs},
      {bench->add_option("--frames", f.frames, "timed frames per row (default 200; quick: 20)")->type_name("N"),
       &f.frames},
      {bench->add_option("--samples", f.samples, samples_help().substr(3) + " (the reference draws one)")
           ->type_name("N"), &f.samples},
      {bench->add_option("--threads", f.threads, "threads of the cpu backend, 1.." + std::to_string(kMaxThreads) +
                         " (default: every core)")->type_name("N"), &f.threads},
      {bench->add_option("--warmup", f.warmup, "untimed frames before them (default 20; quick: 3)")->type_name("N"),
       &f.warmup},
      {bench->add_option("--deform", f.deform, "deformer and strength, animated at 1/60 s per frame (default "
                         "twist:1)")->type_name("NAME[:AMOUNT]"), &f.deform},
      {bench->add_option("--fovy", f.fovy, "vertical field of view of the camera that frames the model "
                         "(default 45)")->type_name("DEG"), &f.fovy},
      {bench->add_option("--backend", f.backend, "cuda or cpu (default: cuda where a CUDA device exists, else "
                         "cpu)")->type_name("NAME"), &f.backend},
      {bench->add_option("--reference", f.reference, "gl-raster: the OpenGL hardware-raster reference in the "
                         "same process, timed and compared by triangle IDs (default); none")->type_name("NAME"),
       &f.reference},
      {bench->add_option("--display", f.display, "on: also time the display path (CUDA-GL interop or upload, "
                         "then texture + full-screen blit) (default); off")->type_name("on|off"), &f.display},
      {bench->add_option("--light", f.light, "headlight (default), sun:DX,DY,DZ or point:X,Y,Z (the shadows "
                         "suite: sun:1,2,1)")->type_name("LIGHT"), &f.light},
      {bench->add_option("--background", f.background, "the colour of the pixels that show no model: R,G,B "
                         "(0..255 each) or #RRGGBB (default 28,30,38)")->type_name("COLOUR"), &f.background},
      {bench->add_option("--suite", f.suite, "full (default: the dragon and spheres of 1M, 4M and 16M "
                         "triangles at three sizes and four slab counts), thesis (the dragon at 1024x1024, slabs 1..64), "
                         "shadows (the dragon and the 16M sphere on a floor under a sun, shadows on, 1024x1024 and "
                         "3840x2160), animation (a 1M-vertex sphere skinned by 4 joints a vertex and two morph "
                         "targets), textures (the dragon without and with a checker texture), quick (seconds, for a "
                         "smoke test)")->type_name("NAME"),
       &f.suite},
  };
  bench->add_option("--json", f.json_path, "write every row as JSON")->type_name("FILE.json");
  bench->add_option("--csv", f.csv_path, "write every row as CSV")->type_name("FILE.csv");

  return bench;
}

void finish_bench(BenchFlags& f, const CLI::App& bench, BenchOptions* options) {
  BenchOptions& b = *options;
  b.json_path = f.json_path;
  b.csv_path = f.csv_path;
  for (const auto& [opt, text] : f.texts) {
    if (opt->count() > 0 && trimmed(*text).empty()) usage(opt->get_name(), "empty value");
  }
  // --mesh and --procedural in the order given: parse_order() lists every occurrence of every option.
  size_t next_mesh = 0, next_procedural = 0;
  for (const CLI::Option* opt : bench.parse_order()) {
    SceneSpec scene;
    if (opt == f.mesh_opt && next_mesh < f.meshes.size()) {
      scene.mesh_path = f.meshes[next_mesh++];
      if (trimmed(scene.mesh_path).empty()) usage("--mesh", "empty value");
    } else if (opt == f.procedural_opt && next_procedural < f.procedurals.size()) {
      const std::string& text = f.procedurals[next_procedural++];
      if (trimmed(text).empty()) usage("--procedural", "empty value");
      parse_procedural("--procedural", text, &scene);
    } else {
      continue;
    }
    b.scenes.push_back(scene);
  }
  if (!f.suite.empty()) b.suite = parse_bench_suite("--suite", f.suite);
  if (!f.sizes.empty()) b.sizes = parse_size_list("--sizes", f.sizes);
  if (!f.slabs.empty()) b.slabs = parse_int_list("--slabs", f.slabs, kMinSlabs, kMaxSlabs);
  if (!f.frames.empty()) b.frames = parse_int("--frames", f.frames, 1, 1000000);
  if (!f.warmup.empty()) b.warmup = parse_int("--warmup", f.warmup, 0, 1000000);
  if (!f.threads.empty()) b.threads = parse_int("--threads", f.threads, 1, kMaxThreads);
  if (!f.samples.empty()) b.samples = parse_samples("--samples", f.samples);
  if (!f.deform.empty()) b.deform = parse_deform("--deform", f.deform);
  if (!f.fovy.empty()) {
    b.fovy_degrees = parse_fovy("--fovy", f.fovy);
  }
  if (!f.backend.empty()) b.backend = parse_backend("--backend", f.backend);
  if (!f.reference.empty()) b.reference = parse_bench_reference("--reference", f.reference);
  if (!f.display.empty()) b.display = parse_on_off("--display", f.display);
  if (b.suite == BenchSuite::shadows) {  // its scenes: on a floor, under a sun, with shadows
    b.shadows = true;
    b.floor = true;
    b.light = Light{LightType::sun, kBenchSun};
  }
  if (!f.light.empty()) b.light = parse_light("--light", f.light);
  b.shadows = b.shadows || f.shadows;
  if (!f.shadow_map_size.empty()) b.shadow_map_size = parse_int("--shadow-map-size", f.shadow_map_size, 1, 16384);
  b.floor = b.floor || f.floor;
  b.wireframe = f.wireframe;
  if (!f.background.empty()) b.background = parse_color("--background", f.background);
  if (!b.json_path.empty()) check_output_path("--json", b.json_path, ".json");
  if (!b.csv_path.empty()) check_output_path("--csv", b.csv_path, ".csv");
}

}  // namespace slabcast
