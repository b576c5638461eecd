// `slabcast check` through the real binary (cpu backend): --update writes the goldens, a second run matches, a
// changed golden fails with a difference image and both reports saying so, a missing golden and a bad scene line
// are reported with the right exit code; and the tolerance of app/image_compare.h, at its edges.
#include "app/image_compare.h"
#include "app/image_io.h"
#include "exe_runner.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace slabcast {
namespace {

namespace fs = std::filesystem;
using test::run_slabcast;

// Two small scenes (one with a deformer and a non-default shading), made fresh for each test.
struct Fixture {
  std::string dir, scenes, goldens, diffs, json, junit;
  explicit Fixture(const std::string& test_name) {
    dir = test::output_dir("check_" + test_name);
    scenes = dir + "/scenes.tsv";
    goldens = dir + "/goldens";
    diffs = dir + "/diffs";
    json = dir + "/report.json";
    junit = dir + "/report.xml";
    std::ofstream(scenes) << "# two small scenes\n"
                          << "ball\t--procedural sphere:2000 --size 64x48\n"
                          << "\n"
                          << "knot\t--procedural torus_knot:2000 --size 48x64 --deform twist --time 0.5 --shading normals\n";
  }
  test::ExeResult check(std::vector<std::string> extra = {}) const {
    std::vector<std::string> args = {"check", scenes, "--goldens", goldens, "--backend", "cpu", "--diff-dir", diffs,
                                     "--json", json, "--junit", junit};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_slabcast(args);
  }
  test::ExeResult update() const { return check({"--update"}); }
};

// The JSON report's line of one scene (one scene a line).
std::string json_line(const std::string& json, const std::string& name) {
  const size_t at = json.find("{\"name\": \"" + name + "\"");
  if (at == std::string::npos) return "";
  return json.substr(at, json.find('\n', at) - at);
}

// Every channel of the golden moved by exactly `delta` (down where it is bright, up where dark).
void shift_golden(const std::string& path, int delta) {
  Rgba8Image image = read_png(path);
  for (size_t i = 0; i < image.pixels.size(); ++i) {
    if (i % 4 == 3) continue;  // alpha stays opaque
    const int v = image.pixels[i];
    image.pixels[i] = uint8_t(v >= 128 ? v - delta : v + delta);
  }
  write_png(path, image.pixels.data(), image.width, image.height, size_t(image.width) * 4);
}

TEST(CheckExe, UpdateWritesGoldensThenTheSecondRunMatches) {
  const Fixture f("update_then_match");
  const test::ExeResult u = f.update();
  ASSERT_EQ(u.exit_code, 0) << u.describe();
  EXPECT_NE(u.out.find("2 of 2 goldens updated"), std::string::npos) << u.describe();
  EXPECT_TRUE(fs::exists(f.goldens + "/ball.png"));
  EXPECT_TRUE(fs::exists(f.goldens + "/knot.png"));
  EXPECT_FALSE(fs::exists(f.goldens + "/ball.ids")) << "IDs are written only where a golden of them exists";

  const test::ExeResult r = f.check();
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("2 of 2 scenes match"), std::string::npos) << r.describe();
  EXPECT_NE(r.err.find("[1/2] ball: pass"), std::string::npos) << r.describe();
  EXPECT_NE(r.err.find("[2/2] knot: pass"), std::string::npos) << r.describe();
  EXPECT_FALSE(fs::exists(f.diffs)) << "the difference folder is made only when a scene fails";
  const std::string json = test::read_file(f.json);
  EXPECT_NE(json_line(json, "ball").find("\"result\": \"pass\""), std::string::npos) << json;
  EXPECT_NE(json_line(json, "knot").find("\"result\": \"pass\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"matched\": 2"), std::string::npos) << json;
  const std::string junit = test::read_file(f.junit);
  EXPECT_NE(junit.find("<testsuite name=\"slabcast check\" tests=\"2\" failures=\"0\""), std::string::npos) << junit;
  EXPECT_EQ(junit.find("<failure"), std::string::npos) << junit;
}

TEST(CheckExe, AChangedGoldenFailsWithADifferenceImageAndReports) {
  const Fixture f("changed_golden");
  ASSERT_EQ(f.update().exit_code, 0);
  const Rgba8Image golden = read_png(f.goldens + "/ball.png");
  const std::vector<uint8_t> white(golden.pixels.size(), 255);
  write_png(f.goldens + "/ball.png", white.data(), golden.width, golden.height, size_t(golden.width) * 4);

  const test::ExeResult r = f.check();
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_NE(r.out.find("1 of 2 scenes match"), std::string::npos) << r.describe();
  EXPECT_NE(r.out.find("FAIL"), std::string::npos) << r.describe();
  ASSERT_TRUE(fs::exists(f.diffs + "/ball-diff.png")) << r.describe();
  ASSERT_TRUE(fs::exists(f.diffs + "/ball-actual.png")) << r.describe();
  EXPECT_FALSE(fs::exists(f.diffs + "/knot-diff.png"));
  const Rgba8Image diff = read_png(f.diffs + "/ball-diff.png");
  EXPECT_EQ(diff.width, golden.width);
  EXPECT_EQ(diff.height, golden.height);
  EXPECT_NE(read_png(f.diffs + "/ball-actual.png").pixels, white) << "the rendered frame, not the golden";

  const std::string json = test::read_file(f.json);
  EXPECT_NE(json_line(json, "ball").find("\"result\": \"FAIL\""), std::string::npos) << json;
  EXPECT_NE(json_line(json, "ball").find("ball-diff.png"), std::string::npos) << json;
  EXPECT_NE(json_line(json, "knot").find("\"result\": \"pass\""), std::string::npos) << json;
  const std::string junit = test::read_file(f.junit);
  EXPECT_NE(junit.find("failures=\"1\""), std::string::npos) << junit;
  const size_t ball = junit.find("name=\"ball\"");
  ASSERT_NE(ball, std::string::npos) << junit;
  EXPECT_NE(junit.find("<failure message=\"FAIL: ", ball), std::string::npos) << junit;
  EXPECT_NE(junit.find("name=\"knot\""), std::string::npos) << junit;
}

TEST(CheckExe, ChannelsWithinTheToleranceMatchOneMoreDiffers) {
  const Fixture f("tolerance_edge");
  ASSERT_EQ(f.update().exit_code, 0);
  shift_golden(f.goldens + "/ball.png", kGoldenChannelTolerance);
  const test::ExeResult within = f.check();
  EXPECT_EQ(within.exit_code, 0) << within.describe();
  EXPECT_NE(json_line(test::read_file(f.json), "ball").find("\"worst_channel\": 8"), std::string::npos)
      << test::read_file(f.json);
  shift_golden(f.goldens + "/ball.png", 1);  // 9 now, where the shift went the same way
  const test::ExeResult beyond = f.check();
  EXPECT_EQ(beyond.exit_code, 1) << beyond.describe();
}

TEST(CheckExe, ChangedTriangleIdsFail) {
  const Fixture f("changed_ids");
  fs::create_directories(f.goldens);
  std::ofstream(f.goldens + "/knot.ids");  // asks --update to write the IDs of this scene
  ASSERT_EQ(f.update().exit_code, 0);
  IdImage ids = read_ids(f.goldens + "/knot.ids");
  ASSERT_EQ(ids.width, 48);
  ASSERT_EQ(ids.height, 64);
  ASSERT_EQ(f.check().exit_code, 0);
  EXPECT_NE(json_line(test::read_file(f.json), "knot").find("\"ids_differing_fraction\": 0,"), std::string::npos)
      << test::read_file(f.json);
  for (uint32_t& id : ids.ids) id ^= 1u;
  write_ids(f.goldens + "/knot.ids", ids.ids.data(), ids.width, ids.height);
  const test::ExeResult r = f.check();
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_NE(r.out.find("triangle IDs"), std::string::npos) << r.describe();
}

TEST(CheckExe, AMissingGoldenFailsSayingHowToCreateIt) {
  const Fixture f("missing_golden");
  ASSERT_EQ(f.update().exit_code, 0);
  fs::remove(f.goldens + "/knot.png");
  const test::ExeResult r = f.check();
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_NE(r.out.find("missing golden " + f.goldens + "/knot.png (run with --update to create it)"), std::string::npos)
      << r.describe();
  EXPECT_NE(json_line(test::read_file(f.json), "knot").find("\"result\": \"missing\""), std::string::npos);
  EXPECT_NE(test::read_file(f.junit).find("<failure message=\"missing: "), std::string::npos);
}

TEST(CheckExe, ASceneThatCannotRenderIsAnErrorAndTheOthersStillRun) {
  const Fixture f("render_error");
  ASSERT_EQ(f.update().exit_code, 0);
  std::ofstream(f.scenes, std::ios::app) << "gone\t--mesh " << f.dir << "/no-such.obj --size 32x32\n";
  const test::ExeResult r = f.check();
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_NE(r.out.find("2 of 3 scenes match"), std::string::npos) << r.describe();
  const std::string gone = json_line(test::read_file(f.json), "gone");
  EXPECT_NE(gone.find("\"result\": \"error\""), std::string::npos) << gone;
  EXPECT_NE(gone.find("no-such.obj"), std::string::npos) << gone;
  EXPECT_EQ(f.update().exit_code, 1) << "--update reports the scene it could not render";
}

TEST(CheckExe, ABadSceneLineExitsTwoNamingFileAndLine) {
  const Fixture f("bad_line");
  std::ofstream(f.scenes, std::ios::app) << "broken\t--procedural sphere:2000 --bogus 3\n";
  const test::ExeResult r = f.check();
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_NE(r.err.find(f.scenes + ":5: scene 'broken'"), std::string::npos) << r.describe();
  EXPECT_NE(r.err.find("--bogus"), std::string::npos) << r.describe();
  EXPECT_FALSE(fs::exists(f.json)) << "nothing is rendered or reported when a line does not parse";

  std::ofstream(f.scenes) << "small\t--procedural sphere:2000 --size 0x48\n";
  const test::ExeResult size = f.check();
  EXPECT_EQ(size.exit_code, 2) << size.describe();
  EXPECT_NE(size.err.find(f.scenes + ":1: scene 'small': --size"), std::string::npos) << size.describe();
}

TEST(CheckExe, UsageErrorsExitTwo) {
  const Fixture f("usage");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"check", f.dir + "/none.tsv", "--goldens", f.goldens}, f.dir + "/none.tsv: cannot read"},
      {{"check", f.scenes}, "--goldens"},
      {{"check", f.scenes, "--goldens", f.goldens, "--backend", "metal"}, "--backend"},
      {{"check", f.scenes, "--goldens", f.goldens, "--json", f.dir + "/no/such/r.json"}, "--json"},
  };
  for (const auto& [args, expected] : cases) {
    const test::ExeResult r = run_slabcast(args);
    EXPECT_EQ(r.exit_code, 2) << r.describe();
    EXPECT_NE(r.err.find("slabcast: error: " + expected), std::string::npos) << r.describe();
  }
}

TEST(CheckExe, HelpListsCheck) {
  const test::ExeResult r = run_slabcast({"--help"});
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("check"), std::string::npos);
  EXPECT_NE(r.out.find("--goldens"), std::string::npos);
  EXPECT_NE(r.out.find("--junit"), std::string::npos);
}

TEST(ImageCompare, ToleranceAndFraction) {
  Rgba8Image golden{64, 48, std::vector<uint8_t>(64 * 48 * 4, 100)};
  Rgba8Image frame = golden;
  EXPECT_TRUE(compare_images(frame, golden).matches());
  EXPECT_EQ(compare_images(frame, golden).worst_channel, 0);
  // 15 of 3072 pixels (0.49 %) beyond the tolerance still match; 16 (0.52 %) do not.
  for (size_t p = 0; p < 15; ++p) frame.pixels[p * 4] = uint8_t(100 + kGoldenChannelTolerance + 1);
  ImageComparison c = compare_images(frame, golden);
  EXPECT_EQ(c.differing, 15u);
  EXPECT_EQ(c.worst_channel, kGoldenChannelTolerance + 1);
  EXPECT_TRUE(c.matches());
  EXPECT_EQ(c.diff.pixels[0], 255);  // red
  EXPECT_EQ(c.diff.pixels[1], 0);
  frame.pixels[15 * 4 + 2] = 0;
  EXPECT_FALSE(compare_images(frame, golden).matches());
  Rgba8Image other{48, 64, golden.pixels};
  EXPECT_FALSE(compare_images(other, golden).same_size);
  EXPECT_FALSE(compare_images(other, golden).matches());
}

}  // namespace
}  // namespace slabcast
