// `slabcast bench` on the cuda backend (gpu label; SKIPPED without a CUDA device): the quick suite through the
// viewer's display path with real CUDA-GL interop, the GPU memory columns, and the gl-raster reference on the
// same GPU with its triangle IDs agreeing with ours.
#include "common/quick_mode.h"
#include "exe_runner.h"
#include "test_bench_json.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace slabcast {
namespace {

using test::Json;

TEST(BenchGpu, QuickSuiteOnCudaWithInteropAndReference) {
  const std::string dir = test::output_dir("bench_gpu_quick");
  // Under compute-sanitizer (quick mode) the child's frames are 100x slower: give it time.
  const int timeout_seconds = slabtest::quick_mode() ? 3000 : 300;
  const test::ExeResult r = test::run_slabcast({"bench", "--backend", "cuda", "--suite", "quick", "--frames", "10",
                                                "--warmup", "3", "--json", dir + "/b.json", "--csv", dir + "/b.csv"},
                                               timeout_seconds);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  const std::string text = test::read_file(dir + "/b.json");
  const Json j = test::parse_json(text);
  EXPECT_EQ(j["environment"]["backend"].text, "cuda");
  EXPECT_NE(j["environment"]["gpu"].text.find_first_not_of(' '), std::string::npos);
  bool reference_built = true;
  for (const Json& note : j["notes"].items) {
    if (note.text.find("built without the viewer") != std::string::npos) reference_built = false;
  }
  const Json& rows = j["rows"];
  ASSERT_EQ(rows.items.size(), 4u);  // the quick suite: one sphere x two sizes x slabs {1, 16}
  for (const Json& row : rows.items) {
    SCOPED_TRACE(std::to_string(int(row["width"].number)) + "x" + std::to_string(int(row["height"].number)) +
                 " slabs " + std::to_string(int(row["slabs"].number)));
    EXPECT_GT(row["ms"]["total"]["median"].number, 0.0);
    EXPECT_GT(row["ms"]["cast"]["median"].number, 0.0);
    EXPECT_GT(row["renderer_peak_bytes"].number, 0.0);
    // Whole-device memory: sanitizer runs beside this one (quick mode) move it, and a program beside it that frees
    // memory leaves the delta unknown (null). Alone (ctest runs it RUN_SERIAL) it is known and positive.
    if (!slabtest::quick_mode()) {
      ASSERT_FALSE(row["device_delta_bytes"].is_null()) << "cudaMemGetInfo should work on a CUDA device";
      EXPECT_GT(row["device_delta_bytes"].number, 0.0);
    }
    EXPECT_EQ(row["frames_redone"].number, 0) << "buffers should have grown during the warm-up";
    // The display path on the CUDA device's EGL device: interop, as the viewer shows frames.
    ASSERT_FALSE(row["display"].is_null()) << text;
    EXPECT_EQ(row["display"]["feed"].text, "CUDA-GL interop");
    EXPECT_GT(row["display"]["blit_ms"]["median"].number, 0.0);
    if (!reference_built) continue;
    ASSERT_FALSE(row["reference"].is_null()) << text;
    EXPECT_GT(row["reference"]["ms"]["median"].number, 0.0);
    const Json& ids = row["reference"]["ids"];
    EXPECT_GE(ids["agreement"].number, 0.97);
    EXPECT_EQ(ids["differing_off_edges"].number, 0);
  }
}

}  // namespace
}  // namespace slabcast
