#include "app/bench/report.h"

#include <cstdio>

namespace slabcast {
namespace {

using bench::number;

std::string json_escape(const std::string& s) {
  std::string out;
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string quote(const std::string& s) { return "\"" + json_escape(s) + "\""; }

std::string light_text(const Light& l) {
  if (l.type == LightType::headlight) return "headlight";
  std::ostringstream t;
  t << (l.type == LightType::sun ? "sun:" : "point:") << l.vector.x << "," << l.vector.y << "," << l.vector.z;
  return t.str();
}

std::string summary_json(const Summary& s) {
  return "{\"median\": " + number(s.median) + ", \"p99\": " + number(s.p99) + "}";
}

}  // namespace

void write_bench_json(const std::string& path, const BenchEnvironment& env, const BenchOptions& options,
                      const BenchPlan& plan, const std::vector<BenchRow>& rows, bool complete, OutputBatch& batch) {
  bench::OutputFile file(path);
  std::ostringstream& f = file.stream;
  f << "{\n  \"tool\": \"slabcast bench\",\n  \"schema\": 1,\n  \"complete\": " << (complete ? "true" : "false")
    << ",\n"
    << "  \"environment\": {\"backend\": " << quote(env.backend) << ", \"gpu\": " << quote(env.gpu)
    << ", \"driver\": " << quote(env.driver) << ", \"cuda_runtime\": " << quote(env.cuda_runtime)
    << ", \"gl\": " << quote(env.gl) << ", \"git_commit\": " << quote(env.git_commit) << ", \"date\": "
    << quote(env.date) << ", \"host_cpu\": " << quote(env.host) << "},\n"
    << "  \"settings\": {\"suite\": " << quote(to_string(options.suite)) << ", \"frames\": " << plan.frames
    << ", \"warmup\": " << plan.warmup << ", \"deform\": " << quote(to_string(options.deform.kind))
    << ", \"deform_amount\": " << number(options.deform.amount) << ", \"time_start_s\": "
    << number(options.deform.time) << ", \"time_step_s\": " << number(kBenchFrameSeconds) << ", \"fovy_degrees\": "
    << number(options.fovy_degrees) << ", \"reference\": " << quote(to_string(options.reference))
    << ", \"display\": " << (options.display ? "true" : "false") << ", \"shadows\": "
    << (options.shadows ? "true" : "false") << ", \"light\": " << quote(light_text(options.light))
    << ", \"floor\": " << (options.floor ? "true" : "false")
    << ", \"wireframe\": " << (options.wireframe ? "true" : "false") << ", \"samples\": " << options.samples
    << ",\n    \"timing\": "
    << quote(env.backend == "cuda" ? "stage times from CUDA events around each stage; total = first to last event "
                                     "(deform + bin + L1 + L2 + L3 + cast + shade into the surface)"
                                   : "stage times by the host's wall clock (cpu backend)")
    << ",\n    \"host_timing\": "
    << quote("host_ms = the host's wall time of one Renderer::render call (build and launch the frame, wait for it, "
             "read its statistics back)")
    << ",\n    \"display_timing\": "
    << quote("feed = host wall time of the CUDA-GL map + unmap (interop) or of the PBO upload (cpu backend); blit = GL "
             "timer query (GL_TIME_ELAPSED) around PBO -> texture + full-screen pass, waited for every frame")
    << ",\n    \"memory\": "
    << quote("renderer_peak_bytes = max Renderer::device_bytes_in_use(); device_delta_bytes = max cudaMemGetInfo "
             "used bytes during the row (after set_mesh, after the warm-up, at the end) minus before the renderer "
             "was made")
    << "},\n  \"notes\": [";
  for (size_t i = 0; i < plan.notes.size(); ++i) f << (i ? ", " : "") << quote(plan.notes[i]);
  f << "],\n  \"rows\": [\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    const BenchRow& r = rows[i];
    f << "    {\"scene\": " << quote(r.scene) << ", \"triangles\": " << r.triangles << ", \"width\": " << r.width
      << ", \"height\": " << r.height << ", \"slabs\": " << r.slabs << ", \"frames\": " << r.frames
      << ",\n     \"ms\": {\"deform\": " << summary_json(r.deform) << ", \"bin\": " << summary_json(r.bin)
      << ", \"l1\": " << summary_json(r.l1) << ", \"l2\": " << summary_json(r.l2) << ", \"l3\": " << summary_json(r.l3)
      << ",\n            \"build\": " << summary_json(r.build) << ", \"cast\": " << summary_json(r.cast)
      << ", \"shade\": " << summary_json(r.shade) << ", \"total\": " << summary_json(r.total);
    if (r.shadows) {
      f << ",\n            \"shadow_samples\": " << summary_json(r.shadow_samples) << ", \"shadow_bin\": "
        << summary_json(r.shadow_bin) << ", \"shadow_test\": " << summary_json(r.shadow_test)
        << ", \"shadows\": " << summary_json(r.shadow);
    }
    f << "},\n     \"host_ms\": "
      << summary_json(r.host) << ",\n     \"display\": ";
    if (r.display_measured) {
      f << "{\"feed\": " << quote(r.display_feed) << ", \"feed_ms\": " << summary_json(r.feed) << ", \"blit_ms\": "
        << summary_json(r.blit) << ", \"display_ms\": " << summary_json(r.display) << "}";
    } else {
      f << "null, \"display_absent\": " << quote(r.display_feed);
    }
    f << ",\n     \"references\": " << number(r.references) << ", \"ray_triangle_tests\": "
      << number(r.ray_triangle_tests) << ", \"triangles_binned\": " << number(r.triangles_binned)
      << ", \"pixels_hit\": " << number(r.pixels_hit)
      << (r.shadows ? ", \"light_references\": " + number(r.light_references) + ", \"shadow_tests\": " +
                          number(r.shadow_tests)
                    : std::string())
      << (r.shadow_map_measured ? ", \"shadow_map_compared_pixels\": " + std::to_string(r.shadow_map_compared) +
                                      ", \"shadow_map_wrong_pixels\": " + std::to_string(r.shadow_map_wrong)
                                : std::string())
      << ", \"frames_redone\": " << r.frames_redone
      << ", \"renderer_peak_bytes\": " << r.renderer_peak_bytes << ", \"device_delta_bytes\": "
      << (r.device_delta_bytes >= 0 ? std::to_string(r.device_delta_bytes) : std::string("null"))
      << ",\n     \"reference\": ";
    if (r.reference_measured) {
      f << "{\"backend\": \"gl-raster\", \"ms\": " << (r.reference_timed ? summary_json(r.reference_ms) : "null")
        << ", \"speedup\": " << (r.reference_timed ? number(r.speedup) : "null") << ", \"ids\": ";
      if (r.ids.measured) {
        f << "{\"pixels\": " << r.ids.pixels << ", \"equal\": " << r.ids.equal << ", \"differing\": "
          << r.ids.differing << ", \"differing_off_edges\": " << r.ids.differing_off_edges
          << ", \"agreement\": " << number(r.ids.fraction()) << "}";
      } else {
        f << "null";
      }
      f << "}";
    } else {
      f << "null";
    }
    f << "}" << (i + 1 < rows.size() ? "," : "") << "\n";
  }
  f << "  ]\n}\n";
  file.write_to(batch);
}

}  // namespace slabcast
