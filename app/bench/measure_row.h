// One row's measurement: a fresh renderer over the warm-up and the timed frames at one scene, size and slab count,
// and the hardware-raster reference over the same frames.
#pragma once
#include "app/bench/bench_row.h"
#include "app/bench/gl_side.h"
#include "app/bench/progress.h"
#include "app/bench/suites.h"
#include "app/cli.h"
#include "app/scene_motion.h"
#include "render/renderer.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace slabcast::bench {

// What every row of a run shares.
struct RowContext {
  Backend backend;
  const BenchPlan& plan;
  const BenchOptions& options;
  GlSide& gl;
  Progress& progress;
  std::vector<std::string>& notes;  // what could not be measured, and why (stderr and the JSON)

  void note(const std::string& line) {
    progress.note("note: " + line);
    notes.push_back(line);
  }
};

struct ReferenceResult {
  bool measured = false;
  bool timed = false;  // every timed frame had a GPU time (gl_raster.h: NaN where the GL timer is unusable)
  Summary ms;
  std::vector<uint32_t> ids;  // at the last timed frame's time
  std::vector<uint8_t> shadow_mask;  // the shadow map's, at the same time (empty without one)
};

// The reference over the row's warm-up and timed frames (slabs do not apply to it).
ReferenceResult run_reference(RowContext& ctx, Reference& reference, const Camera& camera, ImageSize size);

// One row: warm-up and timed frames with a fresh renderer. `ids` (optional) gets our triangle IDs at the last timed
// frame's time, from one more, untimed frame into plain memory.
// `ids` (and `shadow_mask` when the frame has shadows), when given, receive the last timed frame's.
// `motion` (optional) moves the scene at each frame's time (an animation's pose, a sequence's keyframes).
BenchRow run_row(RowContext& ctx, const Mesh& mesh, const std::string& label, const Camera& camera, ImageSize size,
                 int slabs, std::vector<uint32_t>* ids, std::vector<uint8_t>* shadow_mask = nullptr,
                 SceneMotion* motion = nullptr);

// Pixels where a shadow map's mask differs from the exact one, among those where both frames hit the same triangle.
void compare_shadow_masks(const std::vector<uint8_t>& exact, const std::vector<uint8_t>& map,
                          const std::vector<uint32_t>& exact_ids, const std::vector<uint32_t>& map_ids, BenchRow& row);

}  // namespace slabcast::bench
