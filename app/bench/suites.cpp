#include "app/bench/suites.h"

#include <filesystem>
#include <system_error>

namespace slabcast {
namespace {

struct SuiteDefaults {
  std::vector<SceneSpec> scenes;  // the dragon is added in front where it exists
  bool dragon = false;
  std::vector<ImageSize> sizes;
  std::vector<int> slabs;
  int frames = 200, warmup = 20;
};

SceneSpec procedural(const char* name, uint64_t triangles) {
  SceneSpec s;
  s.procedural_name = name;
  s.procedural_triangles = triangles;
  return s;
}

SuiteDefaults suite_defaults(BenchSuite suite) {
  SuiteDefaults d;
  switch (suite) {
    case BenchSuite::full:  // every scene at three sizes and four slab counts
      d.dragon = true;
      d.scenes = {procedural("sphere", 1000000), procedural("sphere", 4000000), procedural("sphere", 16000000)};
      d.sizes = {{1024, 1024}, {1920, 1080}, {3840, 2160}};
      d.slabs = {1, 4, 8, 16};
      break;
    case BenchSuite::thesis:  // Tables 7.1 and 7.2: one model at 1024x1024, the slab count swept
      d.dragon = true;
      d.sizes = {{1024, 1024}};
      d.slabs = {1, 2, 4, 8, 16, 32, 64};
      break;
    case BenchSuite::shadows:  // the shadow targets' scenes: the dragon and the 16M sphere on a floor
      d.dragon = true;
      d.scenes = {procedural("sphere", 16000000)};
      d.sizes = {{1024, 1024}, {3840, 2160}};
      d.slabs = {1, 16};
      break;
    case BenchSuite::animation:  // the deform stage's skinning and morphing target: 1M vertices, 4 joints each
      d.scenes = {procedural("sphere", 2000000)};
      d.scenes.back().procedural_rig_joints = 16;
      d.scenes.push_back(procedural("sphere", 2000000));  // the same sphere without the rig, for the difference
      d.sizes = {{1024, 1024}};
      d.slabs = {16};
      break;
    case BenchSuite::textures:  // textured shading against untextured, same frames
      d.dragon = true;
      d.sizes = {{1024, 1024}, {3840, 2160}};
      d.slabs = {16};
      break;
    case BenchSuite::quick:  // small enough for the cpu backend to finish in seconds
      d.scenes = {procedural("sphere", 20000)};
      d.sizes = {{128, 128}, {192, 108}};
      d.slabs = {1, 16};
      d.frames = 20;
      d.warmup = 3;
      break;
  }
  return d;
}

}  // namespace

std::string find_dragon() {
  std::error_code ec;
  if (std::filesystem::is_regular_file(kDragonPath, ec)) return kDragonPath;
#ifdef SLABCAST_SOURCE_DIR
  const std::string in_source = std::string(SLABCAST_SOURCE_DIR) + "/" + kDragonPath;
  if (std::filesystem::is_regular_file(in_source, ec)) return in_source;
#endif
  return {};
}

BenchPlan plan_bench(const BenchOptions& options) {
  const SuiteDefaults d = suite_defaults(options.suite);
  BenchPlan plan;
  plan.scenes = options.scenes;
  if (plan.scenes.empty()) {
    if (d.dragon) {
      const std::string dragon = find_dragon();
      if (!dragon.empty()) {
        SceneSpec s;
        s.mesh_path = dragon;
        plan.scenes.push_back(s);
      } else {
        plan.notes.push_back(std::string(kDragonPath) + " is missing: run assets/fetch-models.sh to fetch the Stanford "
                             "dragon (the main scene of the full and thesis suites); " +
                             (d.scenes.empty() ? "using a 1M-triangle sphere instead" : "benchmarking without it"));
      }
    }
    plan.scenes.insert(plan.scenes.end(), d.scenes.begin(), d.scenes.end());
    if (plan.scenes.empty()) plan.scenes.push_back(procedural("sphere", 1000000));
    if (options.suite == BenchSuite::textures) {  // each scene twice: plain, then with the checker texture
      std::vector<SceneSpec> both;
      for (SceneSpec s : plan.scenes) {
        both.push_back(s);
        s.checker_texture = 1024;
        both.push_back(s);
      }
      plan.scenes = both;
    }
  }
  if (options.floor) {
    for (SceneSpec& s : plan.scenes) s.floor = true;
  }
  plan.sizes = options.sizes.empty() ? d.sizes : options.sizes;
  plan.slabs = options.slabs.empty() ? d.slabs : options.slabs;
  plan.frames = options.frames.value_or(d.frames);
  plan.warmup = options.warmup.value_or(d.warmup);
  if (plan.frames < 1) throw UsageError("--frames: at least one timed frame is needed");
  if (plan.warmup < 0) throw UsageError("--warmup: must not be negative");
  return plan;
}

}  // namespace slabcast
