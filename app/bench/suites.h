// The benchmark's suites, and the plan of one run: which scenes, image sizes, slab counts and frame counts.
#pragma once
#include "app/cli.h"

#include <string>
#include <vector>

namespace slabcast {

// The animation step per frame, as in the headless viewer: every row sees the same sequence of deformations.
constexpr double kBenchFrameSeconds = 1.0 / 60.0;

// The Stanford dragon (assets/fetch-models.sh): the full and thesis suites' main scene.
constexpr const char* kDragonPath = "assets/models/dragon.obj";
constexpr const char* kDragonLabel = "dragon.obj";

// What one run measures, once the suite's defaults are filled in and the scenes found.
struct BenchPlan {
  std::vector<SceneSpec> scenes;
  std::vector<ImageSize> sizes;
  std::vector<int> slabs;
  int frames = 200;
  int warmup = 20;
  std::vector<std::string> notes;  // e.g. the dragon is missing and how to fetch it
};

// The default dragon, looked up under the working directory, then under the source tree the binary was built
// from. Empty when neither has it.
std::string find_dragon();

// Fills in the suite's scenes, sizes, slab counts and frame counts where the options leave them unset.
// Throws UsageError when nothing is left to run (e.g. `--suite thesis` without the dragon is fine: it falls back to
// a 1M-triangle sphere, with a note).
BenchPlan plan_bench(const BenchOptions& options);

}  // namespace slabcast
