// One row's measurement: a fresh renderer over the warm-up and the timed frames at one scene, size and slab count,
// and the hardware-raster reference over the same frames.
#pragma once
#include "app/bench/bench_row.h"
#include "app/bench/gl_side.h"
#include "app/bench/progress.h"
#include "app/bench/suites.h"
#include "app/cli.h"
#include "render/renderer.h"

#include <cstdint>
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
};

// The reference over the row's warm-up and timed frames (slabs do not apply to it).
ReferenceResult run_reference(RowContext& ctx, Reference& reference, const Camera& camera, ImageSize size);

// One row: warm-up and timed frames with a fresh renderer. `ids` (optional) gets our triangle IDs at the last timed
// frame's time, from one more, untimed frame into plain memory.
BenchRow run_row(RowContext& ctx, const Mesh& mesh, const std::string& label, const Camera& camera, ImageSize size,
                 int slabs, std::vector<uint32_t>* ids);

}  // namespace slabcast::bench
