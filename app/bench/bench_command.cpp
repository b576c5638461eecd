#include "app/bench/bench_command.h"

#include "app/bench/environment.h"
#include "app/bench/gl_side.h"
#include "app/bench/measure_row.h"
#include "app/bench/progress.h"
#include "app/bench/report.h"
#include "app/bench/suites.h"
#include "app/output_file.h"
#include "app/render_command.h"

#include <exception>
#include <memory>
#include <stdexcept>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace slabcast {
namespace {

// The JSON and CSV reports as they stand, landing together (app/output_file.h).
void write_reports(const BenchOptions& options, const BenchEnvironment& env, const BenchPlan& recorded,
                   const std::vector<BenchRow>& rows, bool complete) {
  OutputBatch reports;
  if (!options.json_path.empty()) write_bench_json(options.json_path, env, options, recorded, rows, complete, reports);
  if (!options.csv_path.empty()) write_bench_csv(options.csv_path, rows, reports);
  const std::string failed = reports.commit();
  if (!failed.empty()) throw std::runtime_error(failed + " (cannot rename into place)");
}

}  // namespace

int run_bench(const BenchOptions& options, std::ostream& out, std::ostream& log) {
  using bench::fixed;
  using bench::short_ms;
  using bench::size_text;
  const BenchPlan plan = plan_bench(options);
  for (const std::string& note : plan.notes) log << "[bench] note: " << note << "\n";
  const Backend backend = choose_backend(options.backend, log);
  BenchEnvironment env = gather_environment(backend);
  if (backend == Backend::cpu && options.suite != BenchSuite::quick && options.scenes.empty()) {
    log << "[bench] note: the cpu backend is the reference implementation, not a fast one: the " << to_string(options.suite)
        << " suite's meshes of millions of triangles take a long time on it (--suite quick runs in seconds)\n";
  }

  bench::GlSide gl_side = bench::open_gl(options, backend);
  env.gl = gl_side.description;
  if (!gl_side.display_absent.empty() && options.display) {
    log << "[bench] note: display cost not measured: " << gl_side.display_absent << "\n";
  }
  if (!gl_side.reference_absent.empty() && options.reference != BenchReference::none) {
    log << "[bench] note: reference not run: " << gl_side.reference_absent << "\n";
  }
  BenchPlan recorded = plan;
  bool untimed_noted = false;  // the note that the reference is not timed, once a run
  if (!gl_side.display_absent.empty()) recorded.notes.push_back("display cost not measured: " + gl_side.display_absent);
  if (!gl_side.reference_absent.empty()) recorded.notes.push_back("reference not run: " + gl_side.reference_absent);

  const bool with_reference = gl_side.reference_absent.empty();
  const uint64_t frames_per_row = uint64_t(plan.warmup) + uint64_t(plan.frames);
  const uint64_t per_size = plan.slabs.size() * frames_per_row + (with_reference ? frames_per_row : 0);
  const int row_count = int(plan.scenes.size() * plan.sizes.size() * plan.slabs.size());
  bench::Progress progress(log, per_size * plan.sizes.size() * plan.scenes.size(), row_count);
  bench::RowContext ctx{backend, plan, options, gl_side, progress, recorded.notes};

  log << "[bench] " << plan.scenes.size() << " scene(s) x " << plan.sizes.size() << " size(s) x " << plan.slabs.size()
      << " slab count(s), " << plan.warmup << " warm-up + " << plan.frames << " timed frames each, " << to_string(backend)
      << " backend" << (backend == Backend::cuda ? " on " + env.gpu : std::string()) << "\n";

  std::vector<BenchRow> rows;
  for (const SceneSpec& spec : plan.scenes) {
    progress.note("loading " + spec.label());
    LoadedScene scene = load_scene(spec, log);
    const Mesh& mesh = scene.mesh;
    const std::string label = spec.label();
    // A reference that fails (e.g. GL out of memory for a huge mesh) costs its columns, not the run.
    std::unique_ptr<bench::Reference> reference;
    if (with_reference && scene.motion.moves()) {
      ctx.note("gl-raster reference not run for " + label + ": it draws meshes at rest, not " +
               scene.motion.describe());
    } else if (with_reference) {
      try {
        reference = bench::make_reference(gl_side, mesh);
      } catch (const std::exception& e) {
        ctx.note("gl-raster reference not run for " + label + ": " + e.what());
      }
    }
    for (const ImageSize size : plan.sizes) {
      // Framed for the size's aspect and the animation's deformer: the model's bounds fill the frame's narrower fit.
      const Camera camera =
          frame_mesh(mesh, options.fovy_degrees, float(size.width) / float(size.height), options.deform);
      bench::ReferenceResult ref;
      if (reference) {
        progress.begin(label + " " + size_text(size.width, size.height) + " gl-raster");
        try {
          ref = bench::run_reference(ctx, *reference, camera, size);
        } catch (const std::exception& e) {
          ctx.note("gl-raster reference failed for " + label + " at " + size_text(size.width, size.height) + ": " +
                   e.what());
          ref = bench::ReferenceResult{};
        }
      }
      for (const int slabs : plan.slabs) {
        progress.begin(label + " " + size_text(size.width, size.height) + " " + std::to_string(slabs) + " slabs");
        std::vector<uint32_t> ids;
        std::vector<uint8_t> mask;
        BenchRow row = bench::run_row(ctx, mesh, label, camera, size, slabs, ref.measured ? &ids : nullptr,
                                      ref.measured ? &mask : nullptr, &scene.motion);
        if (ref.measured) {
          row.reference_measured = true;
          row.reference_timed = ref.timed;
          if (ref.timed) {
            row.reference_ms = ref.ms;
            row.speedup = row.total.median > 0 ? ref.ms.median / row.total.median : 0.0;
          } else if (!untimed_noted) {
            const std::string note = "the gl-raster reference's frames are not timed: this OpenGL's timer query is "
                                     "missing or gave impossible values (its IDs are still compared)";
            log << "[bench] note: " << note << "\n";
            recorded.notes.push_back(note);
            untimed_noted = true;
          }
          row.ids = reference->compare(ids, ref.ids, size.width, size.height);
          bench::compare_shadow_masks(mask, ref.shadow_mask, ids, ref.ids, row);
        }
        std::string result = "total " + short_ms(row.total.median) + " ms (p99 " + short_ms(row.total.p99) + ")";
        if (row.reference_timed) result += ", raster " + short_ms(row.reference_ms.median) + " ms, " + fixed(row.speedup, 2) + "x";
        if (row.reference_measured) result += ", IDs " + fixed(100 * row.ids.fraction(), 2) + "% equal";
        if (row.shadow_map_measured) result += ", shadow map wrong on " + std::to_string(row.shadow_map_wrong) + " px";
        progress.row_done(result);
        rows.push_back(std::move(row));
        // Every row so far on disk: a run cut short by a time limit keeps what it measured.
        write_reports(options, env, recorded, rows, /*complete=*/false);
      }
    }
  }
  progress.finish();

  out << "slabcast bench: " << to_string(backend) << " backend, " << env.gpu << "; " << plan.warmup << " warm-up + "
      << plan.frames << " timed frames per row; deformation " << to_string(options.deform.kind) << " "
      << options.deform.amount << ", animated at 1/60 s per frame\n";
  print_bench_tables(out, rows);
  write_reports(options, env, recorded, rows, /*complete=*/true);
  if (!options.json_path.empty()) out << "wrote " << options.json_path << "\n";
  if (!options.csv_path.empty()) out << "wrote " << options.csv_path << "\n";
  return kExitOk;
}

}  // namespace slabcast
