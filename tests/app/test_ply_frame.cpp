// The binary-PLY fast path of mesh sequences (app/formats/ply_frame.h): positions read from later frames equal the
// values written, in both byte orders and with other vertex properties around x, y, z; frames with other faces or
// another layout are left to the full loader; files it does not handle give no reader.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "app/formats/ply_frame.h"

namespace slabcast::formats {
namespace {

namespace fs = std::filesystem;

struct FrameSpec {
  bool big_endian = false;
  std::string comment = "frame";
  std::vector<float> xyz;          // 3 per vertex
  std::vector<uint32_t> triangles; // 3 per face
  bool extra_properties = true;    // a float before x and a uchar after z
};

void put(std::string& out, const void* value, size_t bytes, bool big_endian) {
  const auto* b = static_cast<const unsigned char*>(value);
  for (size_t i = 0; i < bytes; ++i) out.push_back(static_cast<char>(b[big_endian ? bytes - 1 - i : i]));
}

std::string write_frame(const std::string& name, const FrameSpec& f) {
  const fs::path dir = fs::temp_directory_path() / "slabcast_ply_frame_test";
  fs::create_directories(dir);
  const std::string path = (dir / name).string();
  std::string s = std::string("ply\nformat ") + (f.big_endian ? "binary_big_endian" : "binary_little_endian") +
                  " 1.0\ncomment " + f.comment + "\nelement vertex " + std::to_string(f.xyz.size() / 3) + "\n" +
                  (f.extra_properties ? "property float confidence\n" : "") +
                  "property float x\nproperty float y\nproperty float z\n" +
                  (f.extra_properties ? "property uchar flag\n" : "") + "element face " +
                  std::to_string(f.triangles.size() / 3) + "\nproperty list uchar int vertex_indices\nend_header\n";
  for (size_t v = 0; v < f.xyz.size() / 3; ++v) {
    const float confidence = 0.5f;
    if (f.extra_properties) put(s, &confidence, 4, f.big_endian);
    for (int k = 0; k < 3; ++k) put(s, &f.xyz[3 * v + k], 4, f.big_endian);
    if (f.extra_properties) s.push_back(7);
  }
  for (size_t t = 0; t < f.triangles.size() / 3; ++t) {
    s.push_back(3);
    for (int k = 0; k < 3; ++k) put(s, &f.triangles[3 * t + k], 4, f.big_endian);
  }
  std::ofstream(path, std::ios::binary) << s;
  return path;
}

FrameSpec quad(float shift, bool big_endian) {
  FrameSpec f;
  f.big_endian = big_endian;
  f.comment = "frame " + std::to_string(shift);
  f.xyz = {0 + shift, 0, 0, 1 + shift, 0, 0, 1 + shift, 1, 0.25f, 0 + shift, 1, -0.5f};
  f.triangles = {0, 1, 2, 0, 2, 3};
  return f;
}

TEST(PlyFrameReader, ReadsLaterFramesPositionsInBothByteOrders) {
  for (bool big : {false, true}) {
    SCOPED_TRACE(big ? "big endian" : "little endian");
    const std::string tag = big ? "be" : "le";
    const auto reader = PlyFrameReader::for_first_frame(write_frame(tag + "0.ply", quad(0.0f, big)));
    ASSERT_TRUE(reader);
    const FrameSpec later = quad(2.5f, big);
    std::vector<glm::vec3> p;
    ASSERT_TRUE(reader->read_positions(write_frame(tag + "1.ply", later), p));
    ASSERT_EQ(p.size(), 4u);
    for (size_t v = 0; v < 4; ++v) {
      EXPECT_EQ(p[v], glm::vec3(later.xyz[3 * v], later.xyz[3 * v + 1], later.xyz[3 * v + 2])) << v;
    }
  }
}

TEST(PlyFrameReader, OtherFacesOrLayoutsAreLeftToTheLoader) {
  const auto reader = PlyFrameReader::for_first_frame(write_frame("f0.ply", quad(0.0f, false)));
  ASSERT_TRUE(reader);
  std::vector<glm::vec3> p{{9, 9, 9}};
  FrameSpec other = quad(1.0f, false);
  other.triangles = {0, 1, 3, 1, 2, 3};
  EXPECT_FALSE(reader->read_positions(write_frame("f1.ply", other), p));
  FrameSpec fewer = quad(1.0f, false);
  fewer.xyz.resize(9);
  fewer.triangles = {0, 1, 2};
  EXPECT_FALSE(reader->read_positions(write_frame("f2.ply", fewer), p));
  FrameSpec plain = quad(1.0f, false);
  plain.extra_properties = false;
  EXPECT_FALSE(reader->read_positions(write_frame("f3.ply", plain), p));
  EXPECT_FALSE(reader->read_positions(write_frame("f4.ply", quad(1.0f, true)), p));  // the other byte order
  ASSERT_EQ(p.size(), 1u);  // untouched
  EXPECT_EQ(p[0], glm::vec3(9, 9, 9));
  FrameSpec bad = quad(1.0f, false);
  bad.xyz[4] = NAN;
  EXPECT_THROW(reader->read_positions(write_frame("f5.ply", bad), p), std::runtime_error);
  EXPECT_THROW(reader->read_positions("/no/such/frame.ply", p), std::runtime_error);
}

TEST(PlyFrameReader, FilesOutsideTheFastPathGiveNoReader) {
  const fs::path dir = fs::temp_directory_path() / "slabcast_ply_frame_test";
  fs::create_directories(dir);
  const std::string ascii = (dir / "ascii.ply").string();
  std::ofstream(ascii) << "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
                          "property float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n"
                          "0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n";
  EXPECT_FALSE(PlyFrameReader::for_first_frame(ascii));
  const std::string obj = (dir / "frame.obj").string();
  std::ofstream(obj) << "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
  EXPECT_FALSE(PlyFrameReader::for_first_frame(obj));
  EXPECT_FALSE(PlyFrameReader::for_first_frame("/no/such/frame.ply"));
}

}  // namespace
}  // namespace slabcast::formats
