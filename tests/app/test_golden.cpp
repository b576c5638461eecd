// Frame-dump regression: `slabcast check tests/app/golden/scenes.tsv --goldens tests/app/golden --backend
// SLABCAST_GOLDEN_BACKEND`, the command users run on their own scenes, compares every scene with its golden PNG
// (made with the cpu backend by scripts/regenerate-goldens.sh; see docs/golden-images.md) within the tolerance of
// app/image_compare.h. One test a scene, each reading its line of the run's JSON report.
// On failure the rendered frame and a difference image are left in build/tests/app/output/golden_<backend>/diffs/.
#include "app/image_compare.h"
#include "exe_runner.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace slabcast {
namespace {

const std::string kGoldenDir = std::string(SLABCAST_SOURCE_DIR) + "/tests/app/golden";
const std::string kBackend = SLABCAST_GOLDEN_BACKEND;

// The scene names of scenes.tsv (the first word of each line that is not blank or a comment).
std::vector<std::string> scene_names() {
  std::ifstream in(kGoldenDir + "/scenes.tsv");
  std::vector<std::string> names;
  for (std::string row; std::getline(in, row);) {
    std::istringstream words(row);
    std::string name;
    if (words >> name && name[0] != '#') names.push_back(name);
  }
  return names;
}

// One `slabcast check` run of every scene, shared by the tests.
struct CheckRun {
  std::string dir;
  test::ExeResult result;
  std::string json;
};
const CheckRun& check_run() {
  static const CheckRun run = [] {
    CheckRun r;
    r.dir = test::output_dir("golden_" + kBackend);
    r.result = test::run_slabcast({"check", kGoldenDir + "/scenes.tsv", "--goldens", kGoldenDir, "--backend",
                                   kBackend, "--diff-dir", r.dir + "/diffs", "--json", r.dir + "/report.json"});
    r.json = test::read_file(r.dir + "/report.json");
    return r;
  }();
  return run;
}

// The JSON report's line of one scene (one scene a line), "" when absent.
std::string json_line(const std::string& json, const std::string& name) {
  const size_t at = json.find("{\"name\": \"" + name + "\"");
  return at == std::string::npos ? "" : json.substr(at, json.find('\n', at) - at);
}

TEST(GoldenRun, ExitsZeroWithEveryScene) {
  const CheckRun& run = check_run();
  EXPECT_EQ(run.result.exit_code, 0) << run.result.describe();
  const size_t scenes = scene_names().size();
  ASSERT_GT(scenes, 0u);
  EXPECT_NE(run.json.find("\"total\": " + std::to_string(scenes)), std::string::npos) << run.json;
  EXPECT_NE(run.result.out.find(std::to_string(scenes) + " of " + std::to_string(scenes) + " scenes match"),
            std::string::npos)
      << run.result.describe();
}

class Golden : public ::testing::TestWithParam<std::string> {};

TEST_P(Golden, MatchesWithinTolerance) {
  const CheckRun& run = check_run();
  const std::string line = json_line(run.json, GetParam());
  ASSERT_FALSE(line.empty()) << GetParam() << " is not in the report\n" << run.result.describe();
  EXPECT_NE(line.find("\"result\": \"pass\""), std::string::npos)
      << GetParam() << " (" << kBackend << "): more than " << kGoldenMaxDifferingFraction * 100.0
      << " % of the pixels differ by more than " << kGoldenChannelTolerance << ", or its golden is missing: " << line
      << "\nframe and difference image in " << run.dir << "/diffs";
}

INSTANTIATE_TEST_SUITE_P(Scenes, Golden, ::testing::ValuesIn(scene_names()),
                         [](const ::testing::TestParamInfo<std::string>& scene) { return scene.param; });

}  // namespace
}  // namespace slabcast
