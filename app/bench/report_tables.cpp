#include "app/bench/report.h"

#include <algorithm>
#include <iomanip>
#include <ostream>
#include <sstream>

namespace slabcast {
namespace {

using bench::fixed;
using bench::short_ms;
using bench::size_text;

// A table with right-aligned columns (the first left-aligned), each as wide as its widest cell.
void print_table(std::ostream& out, const std::vector<std::vector<std::string>>& cells) {
  std::vector<size_t> width;
  for (const auto& row : cells) {
    width.resize(std::max(width.size(), row.size()));
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  for (const auto& row : cells) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      const std::string pad(width[c] - row[c].size(), ' ');
      line += c == 0 ? row[c] + pad : "  " + pad + row[c];
    }
    out << line << "\n";
  }
}

std::string millions(double v) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(v >= 1e7 ? 1 : 2) << v / 1e6 << "M";
  return s.str();
}

std::string mib(uint64_t bytes) { return std::to_string((bytes + (1u << 19)) >> 20); }

}  // namespace

// The shadow stages of the rows that have them: samples, the light bin (the samples and the triangles' references
// packed by light tile), the tests; the light references and shadow pairs per frame.
void print_shadow_table(std::ostream& out, const std::vector<BenchRow>& rows) {
  std::vector<std::vector<std::string>> cells = {{"scene", "size", "slabs", "cast", "samples", "light bin", "test",
                                                  "shadows", "shade", "total", "light refs", "shadow pairs",
                                                  "shadow map", "speedup", "map wrong px"}};
  for (const BenchRow& r : rows) {
    if (!r.shadows) continue;
    cells.push_back({r.scene, size_text(r.width, r.height), std::to_string(r.slabs), short_ms(r.cast.median),
                     short_ms(r.shadow_samples.median), short_ms(r.shadow_bin.median), short_ms(r.shadow_test.median),
                     short_ms(r.shadow.median), short_ms(r.shade.median), short_ms(r.total.median),
                     millions(r.light_references), millions(r.shadow_tests),
                     r.reference_timed ? short_ms(r.reference_ms.median) : "-",
                     r.reference_timed ? fixed(r.speedup, 2) + "x" : "-",
                     r.shadow_map_measured ? std::to_string(r.shadow_map_wrong) + " of " +
                                                 std::to_string(r.shadow_map_compared)
                                           : "-"});
  }
  if (cells.size() == 1) return;
  out << "\nshadows: the shadow stages, medians, ms (shadows = samples + light bin + test; shade = a shading pass "
         "after them, 0 where the caster shades and the test writes the shadowed pixels); shadow map = the gl-raster "
         "reference with a shadow map, its whole frame; map wrong px = pixels (of those where both hit the same "
         "triangle) where its mask differs from the exact one\n";
  print_table(out, cells);
}

void print_bench_tables(std::ostream& out, const std::vector<BenchRow>& rows) {
  if (rows.empty()) return;
  std::vector<std::vector<std::string>> cells = {
      {"scene", "tris", "size", "slabs", "deform", "bin", "build", "cast", "shade", "total", "p99", "host", "display",
       "refs", "tests", "peak MiB", "raster", "speedup", "IDs equal"}};
  for (const BenchRow& r : rows) {
    cells.push_back({r.scene, millions(double(r.triangles)), size_text(r.width, r.height), std::to_string(r.slabs),
                     short_ms(r.deform.median), short_ms(r.bin.median), short_ms(r.build.median),
                     short_ms(r.cast.median), short_ms(r.shade.median), short_ms(r.total.median),
                     short_ms(r.total.p99), short_ms(r.host.median),
                     r.display_measured ? short_ms(r.display.median) : "-",
                     millions(r.references), millions(r.ray_triangle_tests), mib(r.renderer_peak_bytes),
                     r.reference_timed ? short_ms(r.reference_ms.median) : "-",
                     r.reference_timed ? fixed(r.speedup, 2) + "x" : "-",
                     r.ids.measured ? fixed(100.0 * r.ids.fraction(), 2) + "%" : "-"});
  }
  out << "per row: medians over the timed frames, ms (p99 of the total); host = the host's wall time of one render() "
         "call; refs and tests per frame; peak = the renderer's device memory; raster = the gl-raster reference; "
         "speedup = raster / total\n";
  print_table(out, cells);
  print_shadow_table(out, rows);

  // The thesis's tables for the first scene, at its first size: Table 7.2 (build, cast, total vs slabs) and
  // Table 7.1 (ray-triangle tests per frame with 16 slabs vs 1).
  const BenchRow& first = rows.front();
  std::vector<const BenchRow*> sweep;
  for (const BenchRow& r : rows) {
    if (r.scene == first.scene && r.width == first.width && r.height == first.height) sweep.push_back(&r);
  }
  std::sort(sweep.begin(), sweep.end(), [](const BenchRow* a, const BenchRow* b) { return a->slabs < b->slabs; });
  out << "\nbuild, cast and total vs slab count (thesis Table 7.2): " << first.scene << ", "
      << size_text(first.width, first.height) << ", ms\n";
  std::vector<std::vector<std::string>> t72 = {{"slabs", "build (L1+L2+L3)", "cast", "total"}};
  for (const BenchRow* r : sweep) {
    t72.push_back({std::to_string(r->slabs), short_ms(r->build.median), short_ms(r->cast.median), short_ms(r->total.median)});
  }
  print_table(out, t72);
  const BenchRow* one = nullptr;
  const BenchRow* sixteen = nullptr;
  for (const BenchRow* r : sweep) {
    if (r->slabs == 1) one = r;
    if (r->slabs == 16) sixteen = r;
  }
  out << "\nray-triangle tests per frame, 16 slabs vs 1 (thesis Table 7.1): " << first.scene << ", "
      << size_text(first.width, first.height) << "\n";
  if (one != nullptr && sixteen != nullptr) {
    print_table(out, {{"slabs", "tests per frame", "per pixel"},
                      {"1", fixed(one->ray_triangle_tests, 0),
                       fixed(one->ray_triangle_tests / (double(one->width) * one->height), 1)},
                      {"16", fixed(sixteen->ray_triangle_tests, 0),
                       fixed(sixteen->ray_triangle_tests / (double(sixteen->width) * sixteen->height), 1)}});
    if (sixteen->ray_triangle_tests > 0) {
      out << "  16 slabs test " << fixed(one->ray_triangle_tests / sixteen->ray_triangle_tests, 2)
          << "x fewer ray-triangle pairs than 1 slab\n";
    }
  } else {
    out << "  (needs rows with 1 and 16 slabs: --slabs 1,16)\n";
  }

  // The performance targets (set for an H100) where this run has the scene and size: the fastest slab count of each.
  struct Target {
    const char* scene;
    ImageSize size;
    double max_ms, min_speedup;
    uint64_t max_peak_bytes;  // 0: no memory target
  };
  const Target targets[] = {{kDragonLabel, {1024, 1024}, 0.35, 3.0, 0},
                            {kDragonLabel, {3840, 2160}, 0.60, 4.0, 0},
                            {"sphere:4000000", {1024, 1024}, 1.0, 2.5, 0},
                            {"sphere:16000000", {3840, 2160}, 4.0, 1.0, 4000000000ull}};
  std::vector<std::vector<std::string>> t = {
      {"target (H100)", "slabs", "total", "limit", "speedup", "limit", "peak MiB", "limit", "verdict"}};
  for (const Target& target : targets) {
    const BenchRow* best = nullptr;
    for (const BenchRow& r : rows) {
      if (r.scene == target.scene && r.width == target.size.width && r.height == target.size.height &&
          (best == nullptr || r.total.median < best->total.median)) {
        best = &r;
      }
    }
    if (best == nullptr) continue;
    const bool time_ok = best->total.median <= target.max_ms;
    // "faster" (min_speedup 1) means strictly faster; the others are "at least N times".
    const bool speed_ok = best->reference_timed && (target.min_speedup > 1.0 ? best->speedup >= target.min_speedup
                                                                                 : best->speedup > 1.0);
    // Peak memory: the renderer's own count, or the device's "used" delta where that is larger (allocator rounding).
    const uint64_t peak = std::max<uint64_t>(best->renderer_peak_bytes,
                                             best->device_delta_bytes > 0 ? uint64_t(best->device_delta_bytes) : 0);
    const bool memory_ok = target.max_peak_bytes == 0 || peak <= target.max_peak_bytes;
    t.push_back({std::string(target.scene) + " " + size_text(target.size.width, target.size.height),
                 std::to_string(best->slabs), short_ms(best->total.median), "<= " + short_ms(target.max_ms),
                 best->reference_timed ? fixed(best->speedup, 2) + "x" : "-",
                 (target.min_speedup > 1.0 ? ">= " + fixed(target.min_speedup, 1) : std::string("> 1")) + "x",
                 mib(peak), target.max_peak_bytes ? "<= 3815 (4 GB)" : "-",
                 !best->reference_timed ? std::string(time_ok && memory_ok ? "time met, speedup not measured"
                                                                              : "missed (speedup not measured)")
                                           : (time_ok && speed_ok && memory_ok ? "met" : "missed")});
  }
  if (t.size() > 1) {
    out << "\nperformance targets (set for an H100; the fastest slab count of each scene and size)\n";
    print_table(out, t);
  }
}

}  // namespace slabcast
