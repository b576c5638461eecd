// `slabcast bench` (cpu): the statistics helpers against values worked out by hand, the command line (every bad
// value names its flag), the suites' defaults, the JSON / CSV writers read back by an independent reader, and the
// real binary end to end on the cpu backend (and with the gl-raster reference on Mesa's software EGL device).
// Also `slabcast render --backend gl-raster`, whose IDs must agree with the cpu renderer's.
#include "app/bench/report.h"
#include "app/bench/statistics.h"
#include "app/bench/suites.h"
#include "app/cli.h"
#include "app/image_io.h"
#include "app/output_file.h"
#include "exe_runner.h"
#include "test_bench_json.h"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace slabcast {
namespace {

using test::Json;
using test::parse_json;
using test::run_slabcast;

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream in(text);
  while (std::getline(in, item, sep)) out.push_back(item);
  if (!text.empty() && text.back() == sep) out.emplace_back();
  return out;
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// ------------------------------------------------------------------------------------------- statistics

TEST(BenchStats, MedianOfOddEvenAndEmpty) {
  EXPECT_DOUBLE_EQ(median_of({3.0, 1.0, 2.0}), 2.0);
  EXPECT_DOUBLE_EQ(median_of({4.0, 1.0, 3.0, 2.0}), 2.5);  // (2 + 3) / 2
  EXPECT_DOUBLE_EQ(median_of({7.5}), 7.5);
  EXPECT_DOUBLE_EQ(median_of({5.0, 5.0, 1.0, 9.0, 5.0, 0.0}), 5.0);  // sorted 0 1 5 5 5 9: (5 + 5) / 2
  EXPECT_DOUBLE_EQ(median_of({}), 0.0);
}

TEST(BenchStats, PercentileIsNearestRank) {
  // 1..200 in a shuffled order: p99 is the ceil(0.99 * 200) = 198th smallest, p50 the 100th, p100 the largest.
  std::vector<double> v(200);
  std::iota(v.begin(), v.end(), 1.0);
  std::shuffle(v.begin(), v.end(), std::mt19937(7));
  EXPECT_DOUBLE_EQ(percentile_of(v, 99.0), 198.0);
  EXPECT_DOUBLE_EQ(percentile_of(v, 50.0), 100.0);
  EXPECT_DOUBLE_EQ(percentile_of(v, 100.0), 200.0);
  // 10 values: ceil(9.9) = 10th smallest, i.e. the largest; 1 value: itself.
  EXPECT_DOUBLE_EQ(percentile_of({10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, 99.0), 10.0);
  EXPECT_DOUBLE_EQ(percentile_of({0.25}, 99.0), 0.25);
  EXPECT_DOUBLE_EQ(percentile_of({}, 99.0), 0.0);
  EXPECT_THROW(percentile_of({1.0}, 0.0), std::invalid_argument);
  EXPECT_THROW(percentile_of({1.0}, 101.0), std::invalid_argument);
}

TEST(BenchStats, SummarizeGivesMedianAndP99) {
  // 100 frames of 1 ms and one 50 ms hitch among 101: the median ignores it, p99 (the 100th of 101) too, but a
  // second hitch reaches p99 (ceil(0.99 * 102) = 101st of 102).
  std::vector<double> frames(100, 1.0);
  frames.push_back(50.0);
  Summary s = summarize(frames);
  EXPECT_DOUBLE_EQ(s.median, 1.0);
  EXPECT_DOUBLE_EQ(s.p99, 1.0);
  frames.push_back(40.0);
  s = summarize(frames);
  EXPECT_DOUBLE_EQ(s.p99, 40.0);
}

// ------------------------------------------------------------------------------------------- command line

ParsedCommandLine parse(std::vector<std::string> args, std::string* err = nullptr) {
  args.insert(args.begin(), "slabcast");
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  std::ostringstream out, error;
  ParsedCommandLine p = parse_command_line(int(argv.size()), argv.data(), out, error);
  if (err != nullptr) *err = error.str();
  return p;
}

TEST(BenchCli, DefaultsLeaveTheSuiteToFillIn) {
  const ParsedCommandLine p = parse({"bench"});
  ASSERT_EQ(p.command, Command::bench);
  const BenchOptions& b = p.bench;
  EXPECT_EQ(b.suite, BenchSuite::full);
  EXPECT_TRUE(b.scenes.empty());
  EXPECT_TRUE(b.sizes.empty());
  EXPECT_TRUE(b.slabs.empty());
  EXPECT_FALSE(b.frames.has_value());
  EXPECT_FALSE(b.warmup.has_value());
  EXPECT_EQ(b.reference, BenchReference::gl_raster);
  EXPECT_TRUE(b.display);
  EXPECT_EQ(b.deform.kind, Deformer::twist);  // the viewer's default animated deformation
  EXPECT_FALSE(b.backend.has_value());
  EXPECT_TRUE(b.json_path.empty());
  EXPECT_STREQ(to_string(b.suite), "full");
  EXPECT_EQ(parse({"bench", "--suite", "full"}).bench.suite, BenchSuite::full);
}

TEST(BenchCli, EveryFlagIsRead) {
  const ParsedCommandLine p = parse({"bench", "--procedural", "sphere:4M", "--mesh", "assets/pawn.obj", "--procedural",
                                     "torus:250k", "--sizes", "640x480, 32x16", "--slabs", "16,1,8", "--frames", "7",
                                     "--warmup", "0", "--deform", "wave:0.5", "--backend", "cpu", "--reference", "none",
                                     "--display", "off", "--suite", "thesis", "--fovy", "30", "--json", "r.json",
                                     "--csv", "r.csv"});
  ASSERT_EQ(p.command, Command::bench) << p.exit_code;
  const BenchOptions& b = p.bench;
  ASSERT_EQ(b.scenes.size(), 3u);  // in the order given, across --mesh and --procedural
  EXPECT_EQ(b.scenes[0].label(), "sphere:4000000");
  EXPECT_EQ(b.scenes[1].mesh_path, "assets/pawn.obj");
  EXPECT_EQ(b.scenes[2].label(), "torus:250000");
  ASSERT_EQ(b.sizes.size(), 2u);
  EXPECT_EQ(b.sizes[0].width, 640);
  EXPECT_EQ(b.sizes[0].height, 480);
  EXPECT_EQ(b.sizes[1].width, 32);
  EXPECT_EQ(b.sizes[1].height, 16);
  EXPECT_EQ(b.slabs, (std::vector<int>{16, 1, 8}));
  EXPECT_EQ(b.frames.value_or(-1), 7);
  EXPECT_EQ(b.warmup.value_or(-1), 0);
  EXPECT_EQ(b.deform.kind, Deformer::wave);
  EXPECT_FLOAT_EQ(b.deform.amount, 0.5f);
  EXPECT_EQ(b.backend.value_or(Backend::cuda), Backend::cpu);
  EXPECT_EQ(b.reference, BenchReference::none);
  EXPECT_FALSE(b.display);
  EXPECT_EQ(b.suite, BenchSuite::thesis);
  EXPECT_FLOAT_EQ(b.fovy_degrees, 30.0f);
  EXPECT_EQ(b.json_path, "r.json");
  EXPECT_EQ(b.csv_path, "r.csv");
  EXPECT_TRUE(parse({"bench", "--reference", "GL-Raster"}).bench.reference == BenchReference::gl_raster);
}

TEST(BenchCli, BadValuesExitTwoNamingTheFlag) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--sizes", "0x5"}, "--sizes"},
      {{"--sizes", "1024x1024,,640x480"}, "--sizes"},
      {{"--sizes", "64x64,64x64"}, "--sizes"},
      {{"--sizes", "big"}, "--sizes"},
      {{"--sizes", ""}, "--sizes"},
      {{"--slabs", "0"}, "--slabs"},
      {{"--slabs", "65"}, "--slabs"},
      {{"--slabs", "1,1"}, "--slabs"},
      {{"--slabs", "4,x"}, "--slabs"},
      {{"--frames", "0"}, "--frames"},
      {{"--frames", "many"}, "--frames"},
      {{"--warmup", "-1"}, "--warmup"},
      {{"--deform", "melt"}, "--deform"},
      {{"--deform", "twist:nan"}, "--deform"},
      {{"--backend", "metal"}, "--backend"},
      {{"--backend", "gl-raster"}, "--backend"},  // the reference is --reference here, not a backend
      {{"--reference", "vulkan"}, "--reference"},
      {{"--display", "maybe"}, "--display"},
      {{"--suite", "huge"}, "--suite"},
      {{"--fovy", "180"}, "--fovy"},
      {{"--procedural", "cube:10"}, "--procedural"},
      {{"--procedural", ""}, "--procedural"},
      {{"--mesh", ""}, "--mesh"},
      {{"--json", "out.txt"}, "--json"},
      {{"--csv", "/no/such/dir/x.csv"}, "--csv"},
  };
  for (const auto& [args, flag] : cases) {
    std::vector<std::string> argv = {"bench"};
    argv.insert(argv.end(), args.begin(), args.end());
    SCOPED_TRACE(args[0] + " '" + args[1] + "'");
    std::string err;
    const ParsedCommandLine p = parse(argv, &err);
    EXPECT_EQ(p.command, Command::exit);
    EXPECT_EQ(p.exit_code, kExitUsage);
    EXPECT_EQ(err.rfind("slabcast: error: " + flag, 0), 0u) << err;
  }
}

TEST(BenchCli, ListParsersRejectWhatTheySay) {
  EXPECT_EQ(parse_int_list("--slabs", "1, 4 ,8", 1, 64), (std::vector<int>{1, 4, 8}));
  try {
    parse_int_list("--slabs", "1,99", 1, 64);
    FAIL() << "99 slabs accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("'99'"), std::string::npos) << e.what();
  }
  try {
    parse_size_list("--sizes", "8x8,8X8");
    FAIL() << "a size given twice accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("given twice"), std::string::npos) << e.what();
  }
}

TEST(BenchCli, RenderAndViewAcceptGlRasterButRenderNotItsDepth) {
  const ParsedCommandLine ok = parse({"render", "--backend", "gl-raster", "--ids", "x.ids"});
  ASSERT_EQ(ok.command, Command::render);
  EXPECT_TRUE(ok.render.gl_raster);
  EXPECT_FALSE(ok.render.backend.has_value());
  EXPECT_FALSE(parse({"render", "--backend", "cpu"}).render.gl_raster);
  std::string err;
  EXPECT_EQ(parse({"render", "--backend", "gl-raster", "--depth", "d.pfm"}, &err).exit_code, kExitUsage);
  EXPECT_EQ(err.rfind("slabcast: error: --depth", 0), 0u) << err;
  EXPECT_EQ(parse({"render", "--backend", "vulkan"}, &err).exit_code, kExitUsage);
  EXPECT_NE(err.find("gl-raster"), std::string::npos) << "the error should list gl-raster: " << err;
  // The viewer starts on the reference with the same flag (the overlay switches back to the ray caster).
  const ParsedCommandLine view = parse({"view", "--backend", "gl-raster"});
  ASSERT_EQ(view.command, Command::view);
  EXPECT_TRUE(view.view.gl_raster);
  EXPECT_FALSE(parse({"view", "--backend", "cpu"}).view.gl_raster);
}

// ------------------------------------------------------------------------------------------- plan

TEST(BenchPlan, SuitesFillOnlyWhatIsNotGiven) {
  BenchOptions quick;
  quick.suite = BenchSuite::quick;
  BenchPlan plan = plan_bench(quick);
  ASSERT_EQ(plan.scenes.size(), 1u);
  EXPECT_EQ(plan.scenes[0].procedural_name, "sphere");
  EXPECT_EQ(plan.frames, 20);
  EXPECT_EQ(plan.warmup, 3);

  BenchOptions full;  // scenes given: no dragon lookup, the full suite's sizes and slab counts
  full.scenes.resize(1);
  full.scenes[0].procedural_triangles = 1000;
  full.frames = 5;
  plan = plan_bench(full);
  ASSERT_EQ(plan.scenes.size(), 1u);
  EXPECT_EQ(plan.scenes[0].procedural_triangles, 1000u);
  ASSERT_EQ(plan.sizes.size(), 3u);
  EXPECT_EQ(plan.sizes[2].width, 3840);
  EXPECT_EQ(plan.sizes[2].height, 2160);
  EXPECT_EQ(plan.slabs, (std::vector<int>{1, 4, 8, 16}));
  EXPECT_EQ(plan.frames, 5);
  EXPECT_EQ(plan.warmup, 20);

  BenchOptions full_default;  // the dragon (if fetched) then spheres of 1M, 4M and 16M triangles
  plan = plan_bench(full_default);
  std::vector<std::string> labels;
  for (const SceneSpec& s : plan.scenes) labels.push_back(s.label());
  const std::vector<std::string> spheres = {"sphere:1000000", "sphere:4000000", "sphere:16000000"};
  ASSERT_GE(labels.size(), 3u);
  EXPECT_EQ(std::vector<std::string>(labels.end() - 3, labels.end()), spheres);
  if (find_dragon().empty()) {
    EXPECT_EQ(labels.size(), 3u);
    ASSERT_EQ(plan.notes.size(), 1u);
    EXPECT_NE(plan.notes[0].find("assets/fetch-models.sh"), std::string::npos) << plan.notes[0];
  } else {
    EXPECT_EQ(labels.front(), "dragon.obj");
    EXPECT_TRUE(plan.notes.empty());
  }

  BenchOptions thesis;
  thesis.suite = BenchSuite::thesis;
  plan = plan_bench(thesis);
  ASSERT_EQ(plan.scenes.size(), 1u);
  ASSERT_EQ(plan.sizes.size(), 1u);
  EXPECT_EQ(plan.sizes[0].width, 1024);
  EXPECT_NE(std::find(plan.slabs.begin(), plan.slabs.end(), 1), plan.slabs.end());
  EXPECT_NE(std::find(plan.slabs.begin(), plan.slabs.end(), 16), plan.slabs.end());
}

// ------------------------------------------------------------------------------------------- writers

std::vector<BenchRow> two_rows() {
  BenchRow a;
  a.scene = "sphere:1000";
  a.triangles = 992;
  a.width = 64;
  a.height = 32;
  a.slabs = 1;
  a.frames = 3;
  a.total = {0.5, 0.75};
  a.host = {0.625, 0.875};
  a.cast = {0.25, 0.5};
  a.ray_triangle_tests = 123456;
  a.renderer_peak_bytes = 4096;
  BenchRow b = a;
  b.scene = "a \"quoted\", name";
  b.slabs = 16;
  b.total = {0.25, 0.3};
  b.display_measured = true;
  b.display_feed = "host upload";
  b.display = {0.125, 0.2};
  b.device_delta_bytes = 2048;
  b.reference_measured = true;
  b.reference_timed = true;
  b.reference_ms = {1.0, 1.5};
  b.speedup = 4.0;
  b.ids.measured = true;
  b.ids.pixels = 2048;
  b.ids.equal = 2040;
  b.ids.differing = 8;
  b.ids.differing_off_edges = 1;
  return {a, b};
}

TEST(BenchWriters, JsonReadsBackWithEveryRow) {
  const std::string dir = test::output_dir("bench_writers_json");
  const std::string path = dir + "/rows.json";
  BenchEnvironment env;
  env.backend = "cpu";
  env.gpu = "none";
  env.git_commit = "abc";
  BenchOptions options;
  BenchPlan plan;
  plan.frames = 3;
  plan.warmup = 1;
  plan.notes = {"a note with \"quotes\"\tand a tab"};
  {
    OutputBatch batch;
    write_bench_json(path, env, options, plan, two_rows(), /*complete=*/false, batch);
    EXPECT_FALSE(std::filesystem::exists(path)) << "a batch's file lands only when the batch is committed";
    ASSERT_EQ(batch.commit(), "");
  }
  EXPECT_FALSE(parse_json(test::read_file(path))["complete"].boolean);
  {
    OutputBatch batch;
    write_bench_json(path, env, options, plan, two_rows(), /*complete=*/true, batch);
    ASSERT_EQ(batch.commit(), "");
  }
  const Json j = parse_json(test::read_file(path));
  EXPECT_TRUE(j["complete"].boolean);
  EXPECT_EQ(j["environment"]["git_commit"].text, "abc");
  EXPECT_EQ(j["settings"]["frames"].number, 3);
  EXPECT_EQ(j["settings"]["suite"].text, "full");  // the default suite
  EXPECT_EQ(j["notes"][0].text, "a note with \"quotes\"\tand a tab");
  const Json& rows = j["rows"];
  ASSERT_EQ(rows.items.size(), 2u);
  EXPECT_EQ(rows[0]["ms"]["total"]["median"].number, 0.5);
  EXPECT_EQ(rows[0]["ms"]["total"]["p99"].number, 0.75);
  EXPECT_EQ(rows[0]["host_ms"]["median"].number, 0.625);
  EXPECT_EQ(rows[0]["host_ms"]["p99"].number, 0.875);
  EXPECT_EQ(rows[0]["ray_triangle_tests"].number, 123456);
  EXPECT_TRUE(rows[0]["display"].is_null());
  EXPECT_TRUE(rows[0]["reference"].is_null());
  EXPECT_TRUE(rows[0]["device_delta_bytes"].is_null());
  EXPECT_EQ(rows[1]["scene"].text, "a \"quoted\", name");
  EXPECT_EQ(rows[1]["display"]["display_ms"]["median"].number, 0.125);
  EXPECT_EQ(rows[1]["device_delta_bytes"].number, 2048);
  EXPECT_EQ(rows[1]["reference"]["speedup"].number, 4.0);
  EXPECT_EQ(rows[1]["reference"]["ids"]["equal"].number, 2040);
  EXPECT_NEAR(rows[1]["reference"]["ids"]["agreement"].number, 2040.0 / 2048.0, 1e-6);
}

TEST(BenchWriters, CsvHasOneLinePerRowAndEmptyCellsForWhatWasNotMeasured) {
  const std::string dir = test::output_dir("bench_writers_csv");
  const std::string path = dir + "/rows.csv";
  OutputBatch batch;
  write_bench_csv(path, two_rows(), batch);
  ASSERT_EQ(batch.commit(), "");
  const std::vector<std::string> lines = split(test::read_file(path), '\n');
  ASSERT_EQ(lines.size(), 4u);  // header, two rows, and the empty string after the final newline
  EXPECT_TRUE(lines[3].empty());
  const std::vector<std::string> header = split(lines[0], ',');
  const auto column = [&](const std::string& name) {
    const auto it = std::find(header.begin(), header.end(), name);
    EXPECT_NE(it, header.end()) << name;
    return size_t(it - header.begin());
  };
  const std::vector<std::string> a = split(lines[1], ',');
  ASSERT_EQ(a.size(), header.size());
  EXPECT_EQ(a[column("scene")], "sphere:1000");
  EXPECT_EQ(a[column("total_ms_median")], "0.5");
  EXPECT_EQ(a[column("cast_ms_p99")], "0.5");
  EXPECT_EQ(a[column("host_ms_median")], "0.625");
  EXPECT_EQ(a[column("ray_triangle_tests")], "123456");
  EXPECT_EQ(a[column("display_ms_median")], "");
  EXPECT_EQ(a[column("speedup")], "");
  // The second row's scene has a comma and quotes: quoted as RFC 4180 says.
  EXPECT_EQ(lines[2].rfind("\"a \"\"quoted\"\", name\",", 0), 0u) << lines[2];
}

// The line of a printed table that starts with `start` (empty if none).
std::string line_starting(const std::string& text, const std::string& start) {
  for (const std::string& line : split(text, '\n')) {
    if (line.rfind(start, 0) == 0) return line;
  }
  return {};
}

TEST(BenchTables, ThesisTablesAndThePerformanceTargets) {
  BenchRow one;
  one.scene = "dragon.obj";
  one.width = one.height = 1024;
  one.slabs = 1;
  one.total = {0.5, 0.6};
  one.ray_triangle_tests = 8000000;  // 7.63 per pixel
  one.reference_measured = true;
  one.reference_timed = true;
  one.reference_ms = {1.2, 1.3};
  one.speedup = 1.2 / 0.5;
  BenchRow sixteen = one;
  sixteen.slabs = 16;
  sixteen.total = {0.3, 0.4};      // the fastest: the targets use it
  sixteen.ray_triangle_tests = 2000000;
  sixteen.speedup = 1.2 / 0.3;     // 4x: meets ">= 3.0" and "<= 0.35 ms"
  BenchRow big = one;
  big.scene = "sphere:16000000";
  big.width = 3840;
  big.height = 2160;
  big.slabs = 16;
  big.total = {3.0, 3.5};
  big.speedup = 2.0;
  big.renderer_peak_bytes = 5000000000ull;  // over 4 GB: missed despite time and speed
  std::ostringstream out;
  print_bench_tables(out, {one, sixteen, big});
  const std::string text = out.str();
  // Table 7.1: 8M vs 2M tests, 4x fewer with 16 slabs.
  EXPECT_NE(text.find("16 slabs test 4.00x fewer"), std::string::npos) << text;
  const std::string dragon = line_starting(text, "dragon.obj 1024x1024");
  ASSERT_FALSE(dragon.empty()) << text;
  EXPECT_NE(dragon.find(" 16 "), std::string::npos) << dragon;  // the fastest slab count
  EXPECT_EQ(dragon.substr(dragon.size() - 3), "met") << dragon;
  const std::string sphere = line_starting(text, "sphere:16000000 3840x2160");
  ASSERT_FALSE(sphere.empty()) << text;
  EXPECT_EQ(sphere.substr(sphere.size() - 6), "missed") << sphere;
  // No target row for a scene and size the run does not have.
  EXPECT_TRUE(line_starting(text, "sphere:4000000").empty()) << text;
}

TEST(BenchWriters, UnwritablePathIsNamed) {
  try {
    OutputBatch batch;
    write_bench_csv("/proc/slabcast-bench.csv", two_rows(), batch);
    FAIL() << "wrote into /proc";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/proc/slabcast-bench.csv"), std::string::npos) << e.what();
  }
}

// ------------------------------------------------------------------------------------------- the real binary

TEST(BenchExe, QuickCpuRunWritesJsonAndCsvWithPositiveTimes) {
  const std::string dir = test::output_dir("bench_quick_cpu");
  const test::ExeResult r = run_slabcast({"bench", "--backend", "cpu", "--suite", "quick", "--frames", "3", "--warmup",
                                          "1", "--reference", "none", "--json", dir + "/b.json", "--csv", dir + "/b.csv"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("thesis Table 7.2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("thesis Table 7.1"), std::string::npos) << r.out;

  const Json j = parse_json(test::read_file(dir + "/b.json"));
  EXPECT_TRUE(j["complete"].boolean);
  EXPECT_FALSE(std::filesystem::exists(dir + "/b.json.tmp"));
  EXPECT_EQ(j["environment"]["backend"].text, "cpu");
  EXPECT_FALSE(j["environment"]["date"].text.empty());
  EXPECT_EQ(j["settings"]["frames"].number, 3);
  EXPECT_EQ(j["settings"]["warmup"].number, 1);
  const Json& rows = j["rows"];
  // The quick suite: one sphere x two sizes x slabs {1, 16}.
  ASSERT_EQ(rows.items.size(), 4u);
  for (const Json& row : rows.items) {
    SCOPED_TRACE(row["scene"].text + " " + std::to_string(int(row["width"].number)) + "x" +
                 std::to_string(int(row["height"].number)) + " slabs " + std::to_string(int(row["slabs"].number)));
    EXPECT_EQ(row["frames"].number, 3);
    for (const char* stage : {"deform", "bin", "build", "cast", "total"}) {
      EXPECT_GT(row["ms"][stage]["median"].number, 0.0) << stage;
      EXPECT_GE(row["ms"][stage]["p99"].number, row["ms"][stage]["median"].number) << stage;
    }
    // The total covers every stage of the same frame, so its median is at least the cast's.
    EXPECT_GE(row["ms"]["total"]["median"].number, row["ms"]["cast"]["median"].number);
    EXPECT_GT(row["references"].number, 0.0);
    EXPECT_GT(row["ray_triangle_tests"].number, 0.0);
    EXPECT_GT(row["pixels_hit"].number, 0.0);
    EXPECT_TRUE(row["reference"].is_null());
  }
  // Slabs cut ray-triangle tests (the thesis's Table 7.1 effect): 16 slabs test fewer pairs than 1, same size.
  EXPECT_EQ(rows[0]["slabs"].number, 1);
  EXPECT_EQ(rows[1]["slabs"].number, 16);
  EXPECT_LT(rows[1]["ray_triangle_tests"].number, rows[0]["ray_triangle_tests"].number);

  const std::vector<std::string> lines = split(test::read_file(dir + "/b.csv"), '\n');
  ASSERT_EQ(lines.size(), 6u);  // header + 4 rows + the empty string after the last newline
  const size_t columns = split(lines[0], ',').size();
  for (size_t i = 1; i <= 4; ++i) EXPECT_EQ(split(lines[i], ',').size(), columns) << lines[i];
}

// scripts/plot-bench draws the four charts from a real run's JSON (needs gnuplot: Debian's gnuplot-nox).
TEST(PlotBench, DrawsEveryChartFromARealRun) {
  if (std::system("command -v gnuplot >/dev/null 2>&1") != 0) GTEST_SKIP() << "gnuplot is not installed";
  const std::string dir = test::output_dir("plot_bench");
  const test::ExeResult r = run_slabcast({"bench", "--backend", "cpu", "--suite", "quick", "--frames", "2", "--warmup",
                                          "0", "--json", dir + "/b.json"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  const std::string command = std::string(SLABCAST_SOURCE_DIR) + "/scripts/plot-bench '" + dir + "/b.json' '" + dir +
                              "/charts' > '" + dir + "/plot.log' 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << test::read_file(dir + "/plot.log");
  for (const char* chart : {"bench-triangles", "bench-resolution", "bench-stages", "bench-slabs"}) {
    const Rgba8Image png = read_png(dir + "/charts/" + chart + ".png");
    EXPECT_GE(png.width, 800) << chart;
    EXPECT_GE(png.height, 400) << chart;
  }
  // Not a bench JSON: one clear line, exit 1.
  const std::string bad = std::string(SLABCAST_SOURCE_DIR) + "/scripts/plot-bench '" + dir + "/plot.log' > '" + dir +
                          "/bad.log' 2>&1";
  EXPECT_NE(std::system(bad.c_str()), 0);
  EXPECT_EQ(test::read_file(dir + "/bad.log").rfind("plot-bench: error: ", 0), 0u) << test::read_file(dir + "/bad.log");
}

// Without a usable GPU, `bench --backend cuda` says so as `render` does (not a raw CUDA call's failure).
TEST(BenchExe, TheCudaBackendWithoutAGpuGetsTheRenderersMessage) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0) GTEST_SKIP() << "a CUDA device exists here";
  const test::ExeResult r = run_slabcast({"bench", "--backend", "cuda", "--suite", "quick"});
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_EQ(first_line(r.err).rfind("slabcast: error: the cuda backend needs an NVIDIA GPU", 0), 0u) << r.describe();
  EXPECT_NE(r.err.find("--backend cpu"), std::string::npos) << r.describe();
}

TEST(BenchExe, ErrorsExitWithOneClearLine) {
  test::ExeResult r = run_slabcast({"bench", "--slabs", "0"});
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_EQ(first_line(r.err).rfind("slabcast: error: --slabs", 0), 0u) << r.describe();
  r = run_slabcast({"bench", "--backend", "cpu", "--mesh", "no/such/mesh.obj", "--reference", "none"});
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_NE(r.err.find("slabcast: error: no/such/mesh.obj"), std::string::npos) << r.describe();
}

#if SLABCAST_HAVE_GL
TEST(BenchExe, GlRasterReferenceAgreesWithOurIds) {
  const std::string dir = test::output_dir("bench_gl_raster");
  const auto start = std::chrono::steady_clock::now();
  const test::ExeResult r = run_slabcast({"bench", "--backend", "cpu", "--procedural", "sphere:2000", "--sizes",
                                          "96x64", "--slabs", "1,16", "--frames", "2", "--warmup", "1", "--display",
                                          "off", "--reference", "gl-raster", "--json", dir + "/b.json"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  const double wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  const Json j = parse_json(test::read_file(dir + "/b.json"));
  const Json& rows = j["rows"];
  ASSERT_EQ(rows.items.size(), 2u);
  bool noted = false;
  for (const Json& note : j["notes"].items) noted = noted || note.text.find("not timed") != std::string::npos;
  for (const Json& row : rows.items) {
    ASSERT_FALSE(row["reference"].is_null()) << test::read_file(dir + "/b.json");
    const Json& ids = row["reference"]["ids"];
    EXPECT_EQ(ids["pixels"].number, 96 * 64);
    EXPECT_EQ(ids["equal"].number + ids["differing"].number, ids["pixels"].number);
    // Two exact renderers of one scene differ only where a pixel centre lies on a shared edge.
    EXPECT_GE(ids["agreement"].number, 0.97);
    EXPECT_EQ(ids["differing_off_edges"].number, 0);
    // A GL time only where the timer measured one (Mesa's software drivers give impossible values: then none, and a
    // note says so), and never more than the whole run took.
    if (row["reference"]["ms"].is_null()) {
      EXPECT_TRUE(row["reference"]["speedup"].is_null());
      EXPECT_TRUE(noted) << "an untimed reference needs its note";
      EXPECT_NE(r.err.find("not timed"), std::string::npos) << r.describe();
    } else {
      EXPECT_GT(row["reference"]["ms"]["median"].number, 0.0);
      EXPECT_LE(row["reference"]["ms"]["p99"].number, wall_ms);
      EXPECT_GT(row["reference"]["speedup"].number, 0.0);
    }
  }
}

// The display cost where the GL timer measured it: never more than the whole run took. Without a warm-up the first
// frame's blit is the context's first elapsed-time query, which Mesa's software driver answers with an impossible
// figure: the row then says the display cost was not measured, and prints none.
TEST(BenchExe, DisplayTimesNeverExceedTheRunsWallTime) {
  const std::string dir = test::output_dir("bench_display");
  const auto start = std::chrono::steady_clock::now();
  const test::ExeResult r = run_slabcast({"bench", "--backend", "cpu", "--procedural", "sphere:2000", "--sizes",
                                          "64x48", "--slabs", "4", "--frames", "1", "--warmup", "0", "--reference",
                                          "none", "--json", dir + "/b.json"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  const double wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  const Json j = parse_json(test::read_file(dir + "/b.json"));
  ASSERT_EQ(j["rows"].items.size(), 1u);
  const Json& display = j["rows"].items[0]["display"];
  if (!display.is_null() && !display["blit_ms"].is_null()) {
    EXPECT_LE(display["blit_ms"]["p99"].number, wall_ms) << test::read_file(dir + "/b.json");
    EXPECT_LE(display["display_ms"]["p99"].number, wall_ms) << test::read_file(dir + "/b.json");
  }
}

TEST(RenderExe, GlRasterWritesColourAndIdsThatAgreeWithOurs) {
  const std::string dir = test::output_dir("render_gl_raster");
  const std::vector<std::string> scene = {"--procedural", "torus:3000", "--size", "80x60", "--deform", "twist:0.5",
                                          "--time", "0.25"};
  std::vector<std::string> raster = {"render", "--backend", "gl-raster", "--out", dir + "/r.png", "--ids", dir + "/r.ids"};
  std::vector<std::string> ours = {"render", "--backend", "cpu", "--out", dir + "/o.png", "--ids", dir + "/o.ids"};
  raster.insert(raster.end(), scene.begin(), scene.end());
  ours.insert(ours.end(), scene.begin(), scene.end());
  const auto start = std::chrono::steady_clock::now();
  test::ExeResult r = run_slabcast(raster);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  const double wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  // The frame's GPU time where the GL timer measured it, never more than the whole run took; else a plain "not timed".
  const size_t at = r.out.find("first frame ");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string timing = r.out.substr(at + 12, r.out.find('\n', at) - at - 12);
  if (timing.rfind("not timed", 0) != 0) {
    const double ms = std::stod(timing);
    EXPECT_GT(ms, 0.0) << timing;
    EXPECT_LE(ms, wall_ms) << timing;
  }
  r = run_slabcast(ours);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  const Rgba8Image png = read_png(dir + "/r.png");
  EXPECT_EQ(png.width, 80);
  EXPECT_EQ(png.height, 60);
  const IdImage a = read_ids(dir + "/r.ids"), b = read_ids(dir + "/o.ids");
  ASSERT_EQ(a.ids.size(), size_t(80 * 60));
  ASSERT_EQ(b.ids.size(), a.ids.size());
  size_t equal = 0, hits = 0;
  for (size_t i = 0; i < a.ids.size(); ++i) {
    equal += a.ids[i] == b.ids[i];
    hits += a.ids[i] != 0xFFFFFFFFu;
  }
  EXPECT_GT(hits, a.ids.size() / 10) << "the torus should cover part of the image";
  EXPECT_GE(double(equal) / double(a.ids.size()), 0.97);
  r = run_slabcast({"render", "--backend", "gl-raster", "--depth", dir + "/r.pfm"});
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_EQ(first_line(r.err).rfind("slabcast: error: --depth", 0), 0u) << r.describe();
}
#endif

}  // namespace
}  // namespace slabcast
