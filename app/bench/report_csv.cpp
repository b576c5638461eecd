#include "app/bench/report.h"

namespace slabcast {
namespace {

using bench::number;

// The CSV's columns, in order, with how each is taken from a row (empty: not measured).
struct CsvColumn {
  const char* name;
  std::string (*value)(const BenchRow&);
};

#define BENCH_SUMMARY_COLUMNS(field) \
  {#field "_ms_median", [](const BenchRow& r) { return number(r.field.median); }}, \
  {#field "_ms_p99", [](const BenchRow& r) { return number(r.field.p99); }}
#define BENCH_DISPLAY_COLUMNS(field) \
  {#field "_ms_median", [](const BenchRow& r) { return r.display_measured ? number(r.field.median) : std::string(); }}, \
  {#field "_ms_p99", [](const BenchRow& r) { return r.display_measured ? number(r.field.p99) : std::string(); }}

std::string csv_text(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (const char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

const std::vector<CsvColumn>& csv_columns() {
  static const std::vector<CsvColumn> columns = {
      {"scene", [](const BenchRow& r) { return csv_text(r.scene); }},
      {"triangles", [](const BenchRow& r) { return std::to_string(r.triangles); }},
      {"width", [](const BenchRow& r) { return std::to_string(r.width); }},
      {"height", [](const BenchRow& r) { return std::to_string(r.height); }},
      {"slabs", [](const BenchRow& r) { return std::to_string(r.slabs); }},
      {"frames", [](const BenchRow& r) { return std::to_string(r.frames); }},
      BENCH_SUMMARY_COLUMNS(deform), BENCH_SUMMARY_COLUMNS(bin), BENCH_SUMMARY_COLUMNS(l1),
      BENCH_SUMMARY_COLUMNS(l2), BENCH_SUMMARY_COLUMNS(l3), BENCH_SUMMARY_COLUMNS(build),
      BENCH_SUMMARY_COLUMNS(cast), BENCH_SUMMARY_COLUMNS(shade), BENCH_SUMMARY_COLUMNS(total),
      BENCH_SUMMARY_COLUMNS(shadow_samples), BENCH_SUMMARY_COLUMNS(shadow_bin), BENCH_SUMMARY_COLUMNS(shadow_test),
      BENCH_SUMMARY_COLUMNS(shadow),
      BENCH_SUMMARY_COLUMNS(host),
      {"display_feed", [](const BenchRow& r) { return r.display_measured ? csv_text(r.display_feed) : std::string(); }},
      BENCH_DISPLAY_COLUMNS(feed), BENCH_DISPLAY_COLUMNS(blit), BENCH_DISPLAY_COLUMNS(display),
      {"references", [](const BenchRow& r) { return number(r.references); }},
      {"ray_triangle_tests", [](const BenchRow& r) { return number(r.ray_triangle_tests); }},
      {"triangles_binned", [](const BenchRow& r) { return number(r.triangles_binned); }},
      {"pixels_hit", [](const BenchRow& r) { return number(r.pixels_hit); }},
      {"light_references", [](const BenchRow& r) { return r.shadows ? number(r.light_references) : std::string(); }},
      {"shadow_tests", [](const BenchRow& r) { return r.shadows ? number(r.shadow_tests) : std::string(); }},
      {"shadow_map_compared_pixels",
       [](const BenchRow& r) { return r.shadow_map_measured ? std::to_string(r.shadow_map_compared) : std::string(); }},
      {"shadow_map_wrong_pixels",
       [](const BenchRow& r) { return r.shadow_map_measured ? std::to_string(r.shadow_map_wrong) : std::string(); }},
      {"frames_redone", [](const BenchRow& r) { return std::to_string(r.frames_redone); }},
      {"renderer_peak_bytes", [](const BenchRow& r) { return std::to_string(r.renderer_peak_bytes); }},
      {"device_delta_bytes",
       [](const BenchRow& r) { return r.device_delta_bytes >= 0 ? std::to_string(r.device_delta_bytes) : std::string(); }},
      {"reference_ms_median",
       [](const BenchRow& r) { return r.reference_timed ? number(r.reference_ms.median) : std::string(); }},
      {"reference_ms_p99",
       [](const BenchRow& r) { return r.reference_timed ? number(r.reference_ms.p99) : std::string(); }},
      {"speedup", [](const BenchRow& r) { return r.reference_timed ? number(r.speedup) : std::string(); }},
      {"id_pixels", [](const BenchRow& r) { return r.ids.measured ? std::to_string(r.ids.pixels) : std::string(); }},
      {"id_equal", [](const BenchRow& r) { return r.ids.measured ? std::to_string(r.ids.equal) : std::string(); }},
      {"id_differing",
       [](const BenchRow& r) { return r.ids.measured ? std::to_string(r.ids.differing) : std::string(); }},
      {"id_differing_off_edges",
       [](const BenchRow& r) { return r.ids.measured ? std::to_string(r.ids.differing_off_edges) : std::string(); }},
      {"id_agreement", [](const BenchRow& r) { return r.ids.measured ? number(r.ids.fraction()) : std::string(); }},
  };
  return columns;
}

}  // namespace

void write_bench_csv(const std::string& path, const std::vector<BenchRow>& rows, OutputBatch& batch) {
  bench::OutputFile file(path);
  std::ostringstream& f = file.stream;
  const std::vector<CsvColumn>& columns = csv_columns();
  for (size_t c = 0; c < columns.size(); ++c) f << (c ? "," : "") << columns[c].name;
  f << "\n";
  for (const BenchRow& r : rows) {
    for (size_t c = 0; c < columns.size(); ++c) f << (c ? "," : "") << columns[c].value(r);
    f << "\n";
  }
  file.write_to(batch);
}

}  // namespace slabcast
