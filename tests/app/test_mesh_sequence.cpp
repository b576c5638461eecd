// app/formats/mesh_sequence: natural order, glob matching, listing a sequence's frames, and playing an OBJ sequence
// written here (keyframes and mix over time, looping and not, positions as in the files, frames that differ from
// frame 0, a broken file, eviction under a tiny budget, destruction mid-decode, stalls).
#include "app/formats/mesh_sequence.h"

#include "app/mesh_io.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace slabcast {
namespace {
namespace fs = std::filesystem;

// A fresh, empty directory for one test.
std::string fresh_dir(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("slabcast_sequence_" + std::to_string(::getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

void write_file(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// The message of the runtime_error that `f` throws ("" if it throws none).
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

// ---- natural order and glob matching ----

TEST(NaturalOrder, DigitRunsCompareAsNumbers) {
  std::vector<std::string> names = {"frame_10.obj", "frame_2.obj", "frame_1.obj", "frame_100.obj", "frame_9.obj"};
  std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) { return natural_less(a, b); });
  EXPECT_EQ(names, (std::vector<std::string>{"frame_1.obj", "frame_2.obj", "frame_9.obj", "frame_10.obj",
                                             "frame_100.obj"}));
}

TEST(NaturalOrder, IsATotalOrder) {
  EXPECT_FALSE(natural_less("f_2", "f_2"));                           // irreflexive
  EXPECT_NE(natural_less("f_01", "f_1"), natural_less("f_1", "f_01"));  // equal numbers: ties broken by text
  EXPECT_TRUE(natural_less("frame", "frame_1"));                      // a prefix first
  EXPECT_TRUE(natural_less("a2b", "a10"));
  EXPECT_TRUE(natural_less("x99999999999999999999999", "x100000000000000000000000"));  // past 64 bits
  EXPECT_TRUE(natural_less("f_0009", "f_10"));                          // leading zeros do not count
}

TEST(GlobMatch, StarAndQuestionMark) {
  EXPECT_TRUE(glob_match("frame_*.ply", "frame_0001.ply"));
  EXPECT_TRUE(glob_match("frame_*.ply", "frame_.ply"));  // '*' matches nothing too
  EXPECT_FALSE(glob_match("frame_*.ply", "frame_0001.obj"));
  EXPECT_FALSE(glob_match("frame_*.ply", "xframe_1.ply"));
  EXPECT_TRUE(glob_match("f?.obj", "f1.obj"));
  EXPECT_FALSE(glob_match("f?.obj", "f12.obj"));
  EXPECT_FALSE(glob_match("f?.obj", "f.obj"));
  EXPECT_TRUE(glob_match("*", "anything"));
  EXPECT_TRUE(glob_match("a*b*c", "aXbYbZc"));  // needs backtracking
  EXPECT_FALSE(glob_match("a*b*c", "aXbYbZ"));
}

TEST(GlobMatch, DotsAreLiteral) {
  EXPECT_FALSE(glob_match("*.obj", "meshobj"));
  EXPECT_FALSE(glob_match("a.b", "axb"));
  EXPECT_TRUE(glob_match("a.b", "a.b"));
}

// ---- listing ----

class ListFrames : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fresh_dir("list");
    for (const char* name : {"frame_10.obj", "frame_2.obj", "frame_1.OBJ", "notes.txt", "._frame_3.obj"}) {
      write_file(dir_ + "/" + name, "x");
    }
    fs::create_directories(dir_ + "/frame_99.obj");  // a directory with a mesh's name: not a frame
  }
  std::string dir_;
};

TEST_F(ListFrames, DirectoryListsMeshFilesInNaturalOrder) {
  EXPECT_EQ(list_sequence_frames(dir_),
            (std::vector<std::string>{dir_ + "/frame_1.OBJ", dir_ + "/frame_2.obj", dir_ + "/frame_10.obj"}));
}

TEST_F(ListFrames, GlobMatchesTheFileNamePart) {
  EXPECT_EQ(list_sequence_frames(dir_ + "/frame_*.obj"),
            (std::vector<std::string>{dir_ + "/frame_2.obj", dir_ + "/frame_10.obj"}));  // '.OBJ' is not '.obj'
  EXPECT_EQ(list_sequence_frames(dir_ + "/frame_?.*"),
            (std::vector<std::string>{dir_ + "/frame_1.OBJ", dir_ + "/frame_2.obj"}));
}

TEST_F(ListFrames, ErrorsNameTheSpec) {
  const std::string none = dir_ + "/none_*.obj";
  EXPECT_EQ(error_of([&] { list_sequence_frames(none); }), none + ": no file matches");
  const std::string single = dir_ + "/*.txt";
  EXPECT_NE(error_of([&] { list_sequence_frames(single); }).find(single + ": is a single mesh, not a sequence"),
            std::string::npos);
  const std::string missing = dir_ + "/missing/frame_*.obj";
  EXPECT_NE(error_of([&] { list_sequence_frames(missing); }).find(missing + ": no such directory"), std::string::npos);
  const std::string star_dir = dir_ + "/*/frame_1.obj";
  EXPECT_NE(error_of([&] { list_sequence_frames(star_dir); }).find("file name only"), std::string::npos);
  const std::string empty = fresh_dir("empty");
  EXPECT_NE(error_of([&] { list_sequence_frames(empty); }).find(empty + ": no mesh files"), std::string::npos);
}

// ---- playing an OBJ sequence ----

constexpr int kGrid = 3;  // 3 x 3 vertices, 8 triangles

// Frame k of the test sequence: a grid whose vertex (i, j) sits at (i + k, j, 0), so that every coordinate says which
// frame it came from.
std::string grid_obj(int k, int extra_vertices = 0, bool flip_triangle_5 = false) {
  std::string text;
  for (int j = 0; j < kGrid; ++j) {
    for (int i = 0; i < kGrid; ++i) text += "v " + std::to_string(i + k) + " " + std::to_string(j) + " 0\n";
  }
  for (int e = 0; e < extra_vertices; ++e) text += "v 0 0 1\n";
  int triangle = 0;
  for (int j = 0; j + 1 < kGrid; ++j) {
    for (int i = 0; i + 1 < kGrid; ++i) {
      const int v = j * kGrid + i + 1;  // 1-based
      for (int half = 0; half < 2; ++half, ++triangle) {
        int a = v, b = half == 0 ? v + 1 : v + kGrid + 1, c = half == 0 ? v + kGrid + 1 : v + kGrid;
        if (flip_triangle_5 && triangle == 5) std::swap(b, c);
        text += "f " + std::to_string(a) + " " + std::to_string(b) + " " + std::to_string(c) + "\n";
      }
    }
  }
  return text;
}

// Writes frames frame_0.obj ... into a fresh directory; `replace(k)` may give a frame's text instead ("" = keep).
std::vector<std::string> write_sequence(const std::string& name, int count,
                                        const std::function<std::string(int)>& replace = {}) {
  const std::string dir = fresh_dir(name);
  for (int k = 0; k < count; ++k) {
    const std::string text = replace ? replace(k) : "";
    write_file(dir + "/frame_" + std::to_string(k) + ".obj", text.empty() ? grid_obj(k) : text);
  }
  return list_sequence_frames(dir);
}

Mesh load(const std::string& path) { return load_obj(path); }

// Every vertex of `positions` is where frame k put it.
void expect_frame(const std::shared_ptr<const std::vector<glm::vec3>>& positions, uint64_t k) {
  ASSERT_TRUE(positions);
  ASSERT_EQ(positions->size(), size_t{kGrid * kGrid});
  for (int v = 0; v < kGrid * kGrid; ++v) {
    EXPECT_EQ((*positions)[v], glm::vec3(float(v % kGrid + k), float(v / kGrid), 0.0f)) << "frame " << k << " vertex " << v;
  }
}

struct Expected {
  double seconds;
  uint64_t a, b;
  float mix;
};

void expect_keyframes(SequencePlayer& player, bool loop, const std::vector<Expected>& cases) {
  for (const Expected& e : cases) {
    SCOPED_TRACE("t = " + std::to_string(e.seconds) + (loop ? " looping" : " not looping"));
    const KeyframeRequest r = player.at(e.seconds, loop);
    EXPECT_EQ(r.keyframes.a_key, e.a);
    EXPECT_EQ(r.keyframes.b_key, e.b);
    EXPECT_FLOAT_EQ(r.keyframes.mix, e.mix);
    EXPECT_EQ(r.keyframes.a, r.a_positions->data());
    EXPECT_EQ(r.keyframes.b, r.b_positions->data());
    expect_frame(r.a_positions, e.a);
    expect_frame(r.b_positions, e.b);
  }
}

TEST(SequencePlayer, TopologyIsFrameZero) {
  SequencePlayer player(write_sequence("topology", 6), load, 4.0);
  EXPECT_EQ(player.frame_count(), 6u);
  EXPECT_EQ(player.topology().name, "frame_0.obj");
  EXPECT_EQ(player.topology().triangle_count(), 8u);
  EXPECT_EQ(player.resident_frame_limit(), 6u);  // the whole sequence fits the default budget
}

TEST(SequencePlayer, KeyframesAndMixLooping) {
  SequencePlayer player(write_sequence("looping", 6), load, 4.0);
  expect_keyframes(player, true,
                   {{0.0, 0, 1, 0.0f},      {0.625, 2, 3, 0.5f},  {0.5, 2, 3, 0.0f},  {5.0 / 4.0, 5, 0, 0.0f},
                    {1.375, 5, 0, 0.5f},    {1.5, 0, 1, 0.0f},    {1.6875, 0, 1, 0.75f}, {-0.125, 5, 0, 0.5f},
                    {1000 * 1.5 + 0.25, 1, 2, 0.0f}});
}

TEST(SequencePlayer, KeyframesAndMixNotLooping) {
  SequencePlayer player(write_sequence("clamped", 6), load, 4.0);
  expect_keyframes(player, false,
                   {{-1.0, 0, 1, 0.0f}, {0.0, 0, 1, 0.0f}, {0.8125, 3, 4, 0.25f}, {1.125, 4, 5, 0.5f},
                    {1.25, 5, 5, 0.0f}, {1.3, 5, 5, 0.0f}, {100.0, 5, 5, 0.0f}});
}

TEST(SequencePlayer, FrameTimesComputedAsKOverFpsShowFrameKAlone) {
  SequencePlayer player(write_sequence("fps24", 6), load);  // 24 fps: k / 24 is inexact in binary
  for (int k = 0; k < 6; ++k) {
    const KeyframeRequest r = player.at(k / 24.0, true);
    EXPECT_EQ(r.keyframes.a_key, uint64_t(k));
    EXPECT_EQ(r.keyframes.mix, 0.0f);
  }
}

TEST(SequencePlayer, FrameWithOtherVertexCountIsNamed) {
  const auto frames = write_sequence("vertex_count", 6, [](int k) { return k == 3 ? grid_obj(k, 1) : ""; });
  SequencePlayer player(frames, load, 4.0);
  const std::string error = error_of([&] { for (int k = 0; k < 6; ++k) player.at(k / 4.0, false); });
  EXPECT_EQ(error, frames[3] + ": 10 vertices, frame_0.obj has 9");
}

TEST(SequencePlayer, FrameWithOtherFacesIsNamed) {
  const auto frames = write_sequence("faces", 6, [](int k) { return k == 4 ? grid_obj(k, 0, true) : ""; });
  SequencePlayer player(frames, load, 4.0);
  const std::string error = error_of([&] { for (int k = 0; k < 6; ++k) player.at(k / 4.0, false); });
  EXPECT_EQ(error, frames[4] + ": faces differ from frame_0.obj at triangle 5");
}

TEST(SequencePlayer, BrokenFileSurfacesAtAtNamingIt) {
  const auto frames = write_sequence("broken", 6, [](int k) { return k == 3 ? std::string("v 1 2\nf 1 2 3\n") : ""; });
  SequencePlayer player(frames, load, 4.0);
  int shown = 0;
  const std::string error = error_of([&] {
    for (; shown < 6; ++shown) expect_frame(player.at(shown / 4.0, false).a_positions, uint64_t(shown));
  });
  EXPECT_LE(shown, 3);  // frame 3's time (or earlier, once its decoding failed) at the latest
  EXPECT_NE(error.find("frame_3.obj"), std::string::npos) << error;
  EXPECT_EQ(error_of([&] { player.at(0.0, false); }), error);  // and the sequence stays broken
}

TEST(SequencePlayer, LoaderThatThrowsAnythingIsNamed) {
  const auto frames = write_sequence("odd_throw", 4);
  SequencePlayer player(frames, [&](const std::string& path) -> Mesh {
    if (path == frames[2]) throw 42;
    return load_obj(path);
  }, 4.0);
  EXPECT_EQ(error_of([&] { for (int k = 0; k < 4; ++k) player.at(k / 4.0, false); }),
            frames[2] + ": failed to load (unknown error)");
}

TEST(SequencePlayer, TinyBudgetStillPlaysEveryFrame) {
  const int count = 12;
  SequencePlayer player(write_sequence("tiny_budget", count), load, 4.0, /*memory_budget_bytes=*/1);
  EXPECT_EQ(player.resident_frame_limit(), SequencePlayer::kMinResidentFrames);
  const KeyframeRequest held = player.at(0.0, true);  // outlives the eviction of frames 0 and 1
  for (int step = 0; step < 2 * count * 2; ++step) {  // twice round the loop, half a frame a step
    const double seconds = step * 0.5 / 4.0;
    const KeyframeRequest r = player.at(seconds, true);
    const uint64_t a = uint64_t(step / 2 % count);
    ASSERT_EQ(r.keyframes.a_key, a);
    ASSERT_EQ(r.keyframes.b_key, (a + 1) % count);
    expect_frame(r.a_positions, a);
    expect_frame(r.b_positions, (a + 1) % count);
  }
  for (int k : {9, 2, 7, 0, 11}) {  // seeking, not looping
    const KeyframeRequest r = player.at(k / 4.0, false);
    expect_frame(r.a_positions, uint64_t(k));
  }
  expect_frame(held.a_positions, 0);
  expect_frame(held.b_positions, 1);
}

TEST(SequencePlayer, DestroyingMidDecodeIsClean) {
  std::atomic<int> loads{0};
  const auto frames = write_sequence("mid_decode", 24);
  const auto slow_load = [&](const std::string& path) {
    ++loads;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return load_obj(path);
  };
  const auto start = std::chrono::steady_clock::now();
  { SequencePlayer player(frames, slow_load, 4.0); }
  // Each decoder finishes the file it is on, then stops: far from all 24 frames.
  EXPECT_LT(loads.load(), 24);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(SequencePlayer, WaitingForAFrameIsAStall) {
  const auto frames = write_sequence("stall", 8);
  SequencePlayer player(frames, [](const std::string& path) {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    return load_obj(path);
  }, 4.0);
  expect_frame(player.at(5 / 4.0, false).a_positions, 5);  // frame 5 cannot have been decoded yet
  EXPECT_EQ(player.stalls().waits, 1u);
  EXPECT_GT(player.stalls().wait_seconds, 0.0);
}

TEST(SequencePlayer, NoStallsOnceFramesAreReady) {
  SequencePlayer player(write_sequence("no_stalls", 10), load, 4.0);
  player.wait_until_prefetched();
  for (int step = 0; step < 80; ++step) player.at(step * 0.3 / 4.0, true);
  EXPECT_EQ(player.stalls().waits, 0u);
  EXPECT_EQ(player.stalls().wait_seconds, 0.0);
}

TEST(SequencePlayer, RejectsBadArguments) {
  EXPECT_THROW(SequencePlayer({}, load), std::invalid_argument);
  const auto frames = write_sequence("bad_arguments", 2);
  EXPECT_THROW(SequencePlayer(frames, load, 0.0), std::invalid_argument);
  SequencePlayer player(frames, load);
  EXPECT_THROW(player.at(std::nan(""), true), std::invalid_argument);
  EXPECT_THROW(player.at(HUGE_VAL, true), std::invalid_argument);
}

}  // namespace
}  // namespace slabcast
