// Frame-dump regression: `slabcast render --backend SLABCAST_GOLDEN_BACKEND` of the scenes in
// tests/app/golden/scenes.tsv, compared with the golden PNGs next to it (made with the cpu backend by
// scripts/regenerate-goldens.sh; see docs/golden-images.md).
//
// Tolerance: a pixel differs when any channel differs by more than kChannelTolerance (of 255): float rounding in
// shading (FMA contraction on the GPU, another compiler) moves a channel by a count or two, never by 8. At most
// kMaxDifferingFraction of the pixels may differ: silhouette pixels whose ray grazes an edge, and ties between
// triangles, may legitimately go to a neighbour. A wrong tile, slab or camera changes far more than that.
// On failure the rendered frame and a difference image are left in build/tests/app/output/golden_<backend>/.
#include "app/image_io.h"
#include "exe_runner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace slabcast {
namespace {

constexpr int kChannelTolerance = 8;
constexpr double kMaxDifferingFraction = 0.005;

const std::string kGoldenDir = std::string(SLABCAST_SOURCE_DIR) + "/tests/app/golden/";

struct Scene {
  std::string name;
  std::vector<std::string> args;
};

std::vector<Scene> scenes() {
  std::ifstream in(kGoldenDir + "scenes.tsv");
  std::vector<Scene> out;
  std::string row;
  while (std::getline(in, row)) {
    if (row.empty() || row[0] == '#') continue;
    Scene s;
    s.name = row.substr(0, row.find('\t'));
    std::istringstream words(row.substr(row.find('\t') + 1));
    for (std::string w; words >> w;) s.args.push_back(w);
    out.push_back(s);
  }
  return out;
}

class Golden : public ::testing::TestWithParam<Scene> {};

TEST_P(Golden, MatchesWithinTolerance) {
  const Scene& scene = GetParam();
  const std::string backend = SLABCAST_GOLDEN_BACKEND;
  const std::string golden_path = kGoldenDir + scene.name + ".png";
  ASSERT_TRUE(std::filesystem::exists(golden_path))
      << golden_path << " is missing: render it with scripts/regenerate-goldens.sh (docs/golden-images.md)";
  const std::string dir = test::output_dir("golden_" + backend + "_" + scene.name);
  const std::string frame_path = dir + "/" + scene.name + ".png";
  std::vector<std::string> args = {"render", "--backend", backend, "--out", frame_path};
  args.insert(args.end(), scene.args.begin(), scene.args.end());
  const test::ExeResult r = test::run_slabcast(args);
  ASSERT_EQ(r.exit_code, 0) << r.describe();

  const Rgba8Image golden = read_png(golden_path);
  const Rgba8Image frame = read_png(frame_path);
  ASSERT_EQ(frame.width, golden.width);
  ASSERT_EQ(frame.height, golden.height);
  size_t differing = 0;
  int worst = 0;
  std::vector<uint8_t> diff(frame.pixels.size());
  for (size_t p = 0; p < frame.pixels.size(); p += 4) {
    int max_channel = 0;
    for (size_t c = 0; c < 4; ++c) max_channel = std::max(max_channel, std::abs(int(frame.pixels[p + c]) - int(golden.pixels[p + c])));
    worst = std::max(worst, max_channel);
    differing += max_channel > kChannelTolerance;
    // The difference image: black where equal, grey where within tolerance, red where the pixel differs.
    const bool bad = max_channel > kChannelTolerance;
    diff[p + 0] = bad ? 255 : uint8_t(std::min(255, max_channel * 16));
    diff[p + 1] = bad ? 0 : uint8_t(std::min(255, max_channel * 16));
    diff[p + 2] = bad ? 0 : uint8_t(std::min(255, max_channel * 16));
    diff[p + 3] = 255;
  }
  const size_t pixels = frame.pixels.size() / 4;
  const double fraction = double(differing) / double(pixels);
  if (worst > 0) write_png(dir + "/" + scene.name + ".diff.png", diff.data(), frame.width, frame.height, size_t(frame.width) * 4);
  EXPECT_LE(fraction, kMaxDifferingFraction)
      << scene.name << " (" << backend << "): " << differing << " of " << pixels << " pixels differ by more than "
      << kChannelTolerance << " (largest channel difference " << worst << "); frame and difference image in " << dir;
  RecordProperty("differing_pixels", int(differing));
  RecordProperty("largest_channel_difference", worst);
}

INSTANTIATE_TEST_SUITE_P(Scenes, Golden, ::testing::ValuesIn(scenes()),
                         [](const ::testing::TestParamInfo<Scene>& scene) { return scene.param.name; });

}  // namespace
}  // namespace slabcast
