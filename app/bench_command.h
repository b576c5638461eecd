// `slabcast bench`: the renderer over scenes x image sizes x slab counts, with the deformation animated (1/60 s
// per frame), a warm-up, then timed frames. Per row: medians and p99 of every stage's time (CUDA events on the
// cuda backend, wall clock on the cpu backend; total = the full frame: deform + bin + build + cast + shade into the
// surface), the display cost measured apart (interop or upload, then texture + full-screen blit), references and
// ray-triangle tests per frame, peak GPU memory. Per scene and size, the OpenGL hardware-raster reference
// (app/viewer/gl_raster.h) in the same process on the same GPU: its time, ours / its ratio, and the agreement of
// its triangle-ID buffer with ours. Output: a progress bar on stderr, tables on stdout, JSON and CSV on request.
#pragma once
#include "cli.h"
#include "render/renderer.h"

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace slabcast {

// ---------------------------------------------------------------------------------------------- statistics

// The median of `values`: the middle one, or the mean of the two middle ones for an even count. 0 when empty.
double median_of(std::vector<double> values);
// The p-th percentile by the nearest-rank method: the smallest value with at least p% of the values at or below
// it, i.e. sorted[ceil(p / 100 * n) - 1]. p in (0, 100]. 0 when empty. p99 of 200 frames is the 198th smallest.
double percentile_of(std::vector<double> values, double p);

struct Summary {
  double median = 0, p99 = 0;
};
Summary summarize(const std::vector<double>& values);

// ---------------------------------------------------------------------------------------------- the plan

// What one run measures, once the suite's defaults are filled in and the scenes found.
struct BenchPlan {
  std::vector<SceneSpec> scenes;
  std::vector<ImageSize> sizes;
  std::vector<int> slabs;
  int frames = 200;
  int warmup = 20;
  std::vector<std::string> notes;  // e.g. the dragon is missing and how to fetch it
};

// The default dragon (assets/fetch-models.sh), looked up under the working directory, then under the source tree
// the binary was built from. Empty when neither has it.
std::string find_dragon();

// Fills in the suite's scenes, sizes, slab counts and frame counts where the options leave them unset.
// Throws UsageError when nothing is left to run (e.g. `--suite thesis` without the dragon is fine: it falls back to
// a 1M-triangle sphere, with a note).
BenchPlan plan_bench(const BenchOptions& options);

// ---------------------------------------------------------------------------------------------- results

struct IdAgreementCounts {  // the reference's triangle-ID buffer against ours (see app/viewer/gl_raster.h)
  bool measured = false;
  uint64_t pixels = 0, equal = 0, differing = 0, differing_off_edges = 0;
  double fraction() const { return pixels > 0 ? double(equal) / double(pixels) : 0.0; }
};

struct BenchRow {
  std::string scene;        // SceneSpec::label()
  uint64_t triangles = 0;
  int width = 0, height = 0, slabs = 0;
  int frames = 0;           // timed frames

  // Per-stage times, ms (median and p99 over the timed frames). build = l1 + l2 + l3 of each frame.
  Summary deform, bin, l1, l2, l3, build, cast, shade, total;
  // The host's wall time of one Renderer::render call, ms: building and launching the frame (on the cuda backend:
  // setting the frame's arguments on its CUDA graph, captured again only when the frame's shape changes), the wait
  // for it and the statistics' read-back. 1000 / host is the frame rate a
  // loop of render() calls reaches; host - total is what the host adds to the GPU's frame.
  Summary host;

  // Display cost, ms, measured apart from the frame (see docs/bench/README.md): `feed` is the wall time of getting
  // the frame into the pixel buffer (interop map + unmap, or the host upload), `blit` the GL timer query of the
  // PBO -> texture copy and the full-screen pass; display = feed + blit per frame.
  bool display_measured = false;
  std::string display_feed;  // "CUDA-GL interop", "host upload"; why not measured otherwise
  Summary feed, blit, display;

  // Per frame, medians over the timed frames.
  double references = 0, ray_triangle_tests = 0, triangles_binned = 0, pixels_hit = 0;
  int frames_redone = 0;    // during the timed frames (buffers grew); should be 0 after the warm-up

  uint64_t renderer_peak_bytes = 0;  // max of Renderer::device_bytes_in_use() over the row's frames
  int64_t device_delta_bytes = -1;   // max cudaMemGetInfo "used" during the row minus before the renderer; -1: n/a

  // The hardware-raster reference at the same scene, size and deformation times (slabs do not apply to it).
  bool reference_measured = false;
  Summary reference_ms;
  double speedup = 0;       // reference median / our total median (> 1: ours is faster)
  IdAgreementCounts ids;    // our IDs vs the reference's, one frame at the last timed frame's time
};

struct BenchEnvironment {
  std::string backend, gpu, driver, cuda_runtime, gl, git_commit, date, host;
};

// Writers, exposed for tests. Throw std::runtime_error naming the path when it cannot be written.
// `complete` is false while a run is still going: bench rewrites both files after every row, so that a run cut
// short (a time limit) leaves every row measured so far.
void write_bench_json(const std::string& path, const BenchEnvironment& env, const BenchOptions& options,
                      const BenchPlan& plan, const std::vector<BenchRow>& rows, bool complete = true);
void write_bench_csv(const std::string& path, const std::vector<BenchRow>& rows);
// The row table, the thesis tables (Table 7.2: build / cast / total vs slabs; Table 7.1: ray-triangle tests with
// 16 slabs vs 1) for the first scene, and the targets where the scenes match.
void print_bench_tables(std::ostream& out, const std::vector<BenchRow>& rows);

// Runs `slabcast bench`: tables on `out`, progress and notes on `log`. Returns kExitOk; throws UsageError /
// std::runtime_error for main() to report.
int run_bench(const BenchOptions& options, std::ostream& out, std::ostream& log);

}  // namespace slabcast
