// `slabcast bench`: the renderer over scenes x image sizes x slab counts, with the deformation animated (1/60 s
// per frame), a warm-up, then timed frames. Per row: medians and p99 of every stage's time (CUDA events on the
// cuda backend, wall clock on the cpu backend; total = the full frame: deform + bin + build + cast + shade into the
// surface), the display cost measured apart (interop or upload, then texture + full-screen blit), references and
// ray-triangle tests per frame, peak GPU memory. Per scene and size, the OpenGL hardware-raster reference
// (app/gl/gl_raster.h) in the same process on the same GPU: its time, ours / its ratio, and the agreement of
// its triangle-ID buffer with ours. Output: a progress bar on stderr, tables on stdout, JSON and CSV on request.
//
//   suites.h       the suites and the plan of a run          measure_row.h  one row's measurement
//   statistics.h   median and p99                            gl_side.h      display cost and the gl-raster reference
//   bench_row.h    what a row records                        report.h       tables, JSON and CSV
//   environment.h  GPU, driver, CUDA, commit                 progress.h     the progress bar
#pragma once
#include "app/cli.h"

#include <iosfwd>

namespace slabcast {

// Runs `slabcast bench`: tables on `out`, progress and notes on `log`. Returns kExitOk; throws UsageError /
// std::runtime_error for main() to report.
int run_bench(const BenchOptions& options, std::ostream& out, std::ostream& log);

}  // namespace slabcast
