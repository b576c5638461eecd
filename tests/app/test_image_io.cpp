// app/image_io: PNG, PFM and .ids written and read back (the dump formats of docs/architecture.md).
#include "app/image_io.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

namespace slabcast {
namespace {

std::string temp_path(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "slabcast_image_io_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  return dir + "/" + name;
}

std::vector<uint8_t> file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(ImageIo, PngRoundTripWithPitch) {
  const int w = 37, h = 11;  // odd sizes, and a pitch wider than the row
  const size_t pitch = size_t(w) * 4 + 12;
  std::vector<uint8_t> pixels(pitch * h, 0xEE);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w * 4; ++x) pixels[size_t(y) * pitch + size_t(x)] = uint8_t(x * 7 + y * 13);
  const std::string path = temp_path("a.png");
  write_png(path, pixels.data(), w, h, pitch);
  const Rgba8Image back = read_png(path);
  ASSERT_EQ(back.width, w);
  ASSERT_EQ(back.height, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w * 4; ++x) ASSERT_EQ(back.pixels[size_t(y) * w * 4 + size_t(x)], pixels[size_t(y) * pitch + size_t(x)]);
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
}

TEST(ImageIo, PfmRoundTripKeepsInfinityAndRowOrder) {
  const int w = 5, h = 3;
  std::vector<float> depth(size_t(w) * h);
  for (size_t i = 0; i < depth.size(); ++i) depth[i] = 0.1f * float(i) + 1e-7f;
  depth[3] = std::numeric_limits<float>::infinity();  // a miss
  const std::string path = temp_path("d.pfm");
  write_pfm(path, depth.data(), w, h);
  const DepthImage back = read_pfm(path);
  ASSERT_EQ(back.width, w);
  ASSERT_EQ(back.height, h);
  EXPECT_EQ(back.depth, depth);  // bit-exact, inf included
  // The file itself: "Pf", little-endian scale, rows bottom to top (PFM's order).
  const std::vector<uint8_t> bytes = file_bytes(path);
  const std::string header = "Pf\n5 3\n-1.0\n";
  ASSERT_EQ(bytes.size(), header.size() + depth.size() * 4);
  EXPECT_EQ(std::string(bytes.begin(), bytes.begin() + long(header.size())), header);
  float first_in_file;
  std::memcpy(&first_in_file, bytes.data() + header.size(), 4);
  EXPECT_EQ(first_in_file, depth[size_t(h - 1) * w]);  // the bottom row's first pixel comes first
}

TEST(ImageIo, IdsRoundTripAndLayout) {
  const int w = 4, h = 2;
  const std::vector<uint32_t> ids = {0, 1, 0xFFFFFFFFu, 0x12345678u, 7, 8, 9, 10};
  const std::string path = temp_path("i.ids");
  write_ids(path, ids.data(), w, h);
  const IdImage back = read_ids(path);
  EXPECT_EQ(back.width, w);
  EXPECT_EQ(back.height, h);
  EXPECT_EQ(back.ids, ids);
  const std::vector<uint8_t> bytes = file_bytes(path);
  ASSERT_EQ(bytes.size(), 8u + ids.size() * 4);
  EXPECT_EQ(bytes[0], 4);  // uint32 LE width, height, then the IDs top row first
  EXPECT_EQ(bytes[4], 2);
  EXPECT_EQ(bytes[8 + 3 * 4 + 0], 0x78);
  EXPECT_EQ(bytes[8 + 3 * 4 + 3], 0x12);
}

TEST(ImageIo, PgmRoundTripAndLayout) {
  const int w = 3, h = 2;
  const std::vector<uint8_t> gray = {0, 128, 255, 7, 8, 9};
  const std::string path = temp_path("m.pgm");
  write_pgm(path, gray.data(), w, h);
  const GrayImage back = read_pgm(path);
  EXPECT_EQ(back.width, w);
  EXPECT_EQ(back.height, h);
  EXPECT_EQ(back.pixels, gray);
  const std::vector<uint8_t> bytes = file_bytes(path);
  const std::string header = "P5\n3 2\n255\n";
  ASSERT_EQ(bytes.size(), header.size() + gray.size());
  EXPECT_EQ(std::string(bytes.begin(), bytes.begin() + long(header.size())), header);
  EXPECT_EQ(bytes[header.size() + 3], 7);  // top row first
  const std::string broken = temp_path("broken.pgm");
  std::ofstream(broken, std::ios::binary) << "P5\n3 2\n255\nabc";
  EXPECT_THROW(read_pgm(broken), std::runtime_error);
  std::ofstream(broken, std::ios::binary) << "P2\n1 1\n255\n0";
  EXPECT_THROW(read_pgm(broken), std::runtime_error);
}

TEST(ImageIo, ReadersRejectBrokenFilesNamingThem) {
  const std::string path = temp_path("broken.ids");
  std::ofstream(path, std::ios::binary) << "abc";
  try {
    read_ids(path);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind(path + ": ", 0), 0u) << e.what();
  }
  const std::string pfm = temp_path("broken.pfm");
  std::ofstream(pfm, std::ios::binary) << "Pf\n10 10\n-1.0\nxx";
  EXPECT_THROW(read_pfm(pfm), std::runtime_error);
  EXPECT_THROW(read_png(pfm), std::runtime_error);
}

TEST(ImageIo, WriteFailureNamesThePathAndLeavesNothing) {
  const std::string path = temp_path("missing-dir/x.png");
  const uint8_t pixel[4] = {1, 2, 3, 4};
  try {
    write_png(path, pixel, 1, 1, 4);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind(path + ": cannot write", 0), 0u) << e.what();
  }
}

}  // namespace
}  // namespace slabcast
