#include "image_io.h"

#include "app/output_file.h"

// stb's implementations live in this file only, compiled static so that they cannot clash with another copy.
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STB_IMAGE_WRITE_STATIC
#include <stb/stb_image_write.h>
#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_STATIC
#define STBI_ONLY_PNG
#include <stb/stb_image.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>

namespace slabcast {
namespace {

// Formats that store sizes as uint32 could hold more than we can index; this is also the CLI's limit per side.
constexpr uint64_t kMaxSide = 1u << 16;

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw std::runtime_error(path + ": " + what);
}

void check_size(const std::string& path, int width, int height) {
  if (width <= 0 || height <= 0 || uint64_t(width) > kMaxSide || uint64_t(height) > kMaxSide) {
    fail(path, "bad image size " + std::to_string(width) + "x" + std::to_string(height));
  }
}

using File = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

// Writes PATH whole or not at all, on its own or into `batch` (app/output_file.h): `body` writes the content and returns
// false on a write error.
template <typename Body>
void write_atomically(const std::string& path, OutputBatch* batch, Body&& body) {
  const std::string error = batch ? batch->add(path, body) : write_file_atomically(path, body);
  if (!error.empty()) fail(path, "cannot write: " + error);
}

void put_u32le(uint8_t* out, uint32_t v) {
  out[0] = uint8_t(v);
  out[1] = uint8_t(v >> 8);
  out[2] = uint8_t(v >> 16);
  out[3] = uint8_t(v >> 24);
}
uint32_t get_u32le(const uint8_t* in) {
  return uint32_t(in[0]) | uint32_t(in[1]) << 8 | uint32_t(in[2]) << 16 | uint32_t(in[3]) << 24;
}
uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
float bits_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

std::vector<uint8_t> read_all(const std::string& path) {
  File file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) fail(path, std::string("cannot open: ") + std::strerror(errno));
  std::vector<uint8_t> bytes;
  uint8_t chunk[1 << 16];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof chunk, file.get())) > 0) bytes.insert(bytes.end(), chunk, chunk + n);
  if (std::ferror(file.get())) fail(path, std::string("read error: ") + std::strerror(errno));
  return bytes;
}

}  // namespace

void write_png(const std::string& path, const uint8_t* rgba, int width, int height, size_t pitch_bytes,
               OutputBatch* batch) {
  check_size(path, width, height);
  if (pitch_bytes < size_t(width) * 4 || pitch_bytes > size_t(std::numeric_limits<int>::max())) {
    fail(path, "bad row pitch " + std::to_string(pitch_bytes));
  }
  write_atomically(path, batch, [&](std::FILE* file) {
    struct Sink {
      std::FILE* file;
      bool ok;
    } sink{file, true};
    const auto write = [](void* context, void* data, int size) {
      auto* s = static_cast<Sink*>(context);
      if (std::fwrite(data, 1, size_t(size), s->file) != size_t(size)) s->ok = false;
    };
    const int done = stbi_write_png_to_func(write, &sink, width, height, 4, rgba, int(pitch_bytes));
    return done != 0 && sink.ok;
  });
}

Rgba8Image read_png(const std::string& path) {
  const std::vector<uint8_t> bytes = read_all(path);
  if (bytes.size() > size_t(std::numeric_limits<int>::max())) fail(path, "file too large for a PNG");
  int w = 0, h = 0, channels = 0;
  std::unique_ptr<stbi_uc, void (*)(void*)> data(
      stbi_load_from_memory(bytes.data(), int(bytes.size()), &w, &h, &channels, 4), &stbi_image_free);
  if (!data) fail(path, std::string("not a readable PNG: ") + stbi_failure_reason());
  Rgba8Image image;
  image.width = w;
  image.height = h;
  image.pixels.assign(data.get(), data.get() + size_t(w) * size_t(h) * 4);
  return image;
}

Rgba8Image read_texture(const std::string& path, uint64_t max_texels) {
  const std::vector<uint8_t> bytes = read_all(path);
  if (bytes.size() > size_t(std::numeric_limits<int>::max())) fail(path, "file too large for an image");
  int w = 0, h = 0, channels = 0;
  if (!stbi_info_from_memory(bytes.data(), int(bytes.size()), &w, &h, &channels)) {
    fail(path, std::string("not a readable image: ") + stbi_failure_reason());
  }
  if (w <= 0 || h <= 0 || uint64_t(w) * uint64_t(h) > max_texels) {
    fail(path, "image of " + std::to_string(w) + "x" + std::to_string(h) + " texels is larger than the " +
                   std::to_string(max_texels) + " allowed");
  }
  std::unique_ptr<stbi_uc, void (*)(void*)> data(
      stbi_load_from_memory(bytes.data(), int(bytes.size()), &w, &h, &channels, 4), &stbi_image_free);
  if (!data) fail(path, std::string("not a readable image: ") + stbi_failure_reason());
  Rgba8Image image;
  image.width = w;
  image.height = h;
  image.pixels.assign(data.get(), data.get() + size_t(w) * size_t(h) * 4);
  return image;
}

void write_pfm(const std::string& path, const float* depth, int width, int height, OutputBatch* batch) {
  check_size(path, width, height);
  write_atomically(path, batch, [&](std::FILE* file) {
    if (std::fprintf(file, "Pf\n%d %d\n-1.0\n", width, height) < 0) return false;
    std::vector<uint8_t> row(size_t(width) * 4);
    for (int y = height - 1; y >= 0; --y) {  // PFM stores the bottom row first
      const float* src = depth + size_t(y) * size_t(width);
      for (int x = 0; x < width; ++x) put_u32le(&row[size_t(x) * 4], float_bits(src[x]));
      if (std::fwrite(row.data(), 1, row.size(), file) != row.size()) return false;
    }
    return true;
  });
}

DepthImage read_pfm(const std::string& path) {
  const std::vector<uint8_t> bytes = read_all(path);
  // Header: "Pf" <ws> width <ws> height <ws> scale <one ws char> data.
  size_t pos = 0;
  const auto token = [&]() {
    while (pos < bytes.size() && std::isspace(bytes[pos])) ++pos;
    std::string t;
    while (pos < bytes.size() && !std::isspace(bytes[pos]) && t.size() < 32) t += char(bytes[pos++]);
    return t;
  };
  if (token() != "Pf") fail(path, "not a single-channel PFM file (no 'Pf' header)");
  const std::string ws = token(), hs = token(), ss = token();
  char* end = nullptr;
  const long w = std::strtol(ws.c_str(), &end, 10);
  if (ws.empty() || *end != '\0') fail(path, "bad PFM width '" + ws + "'");
  const long h = std::strtol(hs.c_str(), &end, 10);
  if (hs.empty() || *end != '\0') fail(path, "bad PFM height '" + hs + "'");
  const double scale = std::strtod(ss.c_str(), &end);
  if (ss.empty() || *end != '\0' || scale == 0 || !std::isfinite(scale)) fail(path, "bad PFM scale '" + ss + "'");
  if (w <= 0 || h <= 0 || uint64_t(w) > kMaxSide || uint64_t(h) > kMaxSide) {
    fail(path, "bad PFM size " + ws + "x" + hs);
  }
  ++pos;  // the single whitespace character after the scale
  const size_t count = size_t(w) * size_t(h);
  if (bytes.size() < pos || bytes.size() - pos != count * 4) {
    fail(path, "PFM data has " + std::to_string(bytes.size() - std::min(pos, bytes.size())) + " bytes, expected " +
                   std::to_string(count * 4));
  }
  DepthImage image;
  image.width = int(w);
  image.height = int(h);
  image.depth.resize(count);
  const bool big_endian = scale > 0;
  for (long y = 0; y < h; ++y) {
    const uint8_t* src = bytes.data() + pos + size_t(h - 1 - y) * size_t(w) * 4;
    for (long x = 0; x < w; ++x) {
      uint8_t b[4];
      std::memcpy(b, src + x * 4, 4);
      if (big_endian) std::swap(b[0], b[3]), std::swap(b[1], b[2]);
      image.depth[size_t(y) * size_t(w) + size_t(x)] = bits_float(get_u32le(b));
    }
  }
  return image;
}

void write_ids(const std::string& path, const uint32_t* ids, int width, int height, OutputBatch* batch) {
  check_size(path, width, height);
  write_atomically(path, batch, [&](std::FILE* file) {
    uint8_t header[8];
    put_u32le(header, uint32_t(width));
    put_u32le(header + 4, uint32_t(height));
    if (std::fwrite(header, 1, sizeof header, file) != sizeof header) return false;
    std::vector<uint8_t> row(size_t(width) * 4);
    for (int y = 0; y < height; ++y) {
      const uint32_t* src = ids + size_t(y) * size_t(width);
      for (int x = 0; x < width; ++x) put_u32le(&row[size_t(x) * 4], src[x]);
      if (std::fwrite(row.data(), 1, row.size(), file) != row.size()) return false;
    }
    return true;
  });
}

IdImage read_ids(const std::string& path) {
  const std::vector<uint8_t> bytes = read_all(path);
  if (bytes.size() < 8) fail(path, "too short for an .ids file (" + std::to_string(bytes.size()) + " bytes)");
  const uint32_t w = get_u32le(bytes.data()), h = get_u32le(bytes.data() + 4);
  if (w == 0 || h == 0 || w > kMaxSide || h > kMaxSide) {
    fail(path, "bad .ids size " + std::to_string(w) + "x" + std::to_string(h));
  }
  const size_t count = size_t(w) * size_t(h);
  if (bytes.size() - 8 != count * 4) {
    fail(path, ".ids data has " + std::to_string(bytes.size() - 8) + " bytes, expected " + std::to_string(count * 4));
  }
  IdImage image;
  image.width = int(w);
  image.height = int(h);
  image.ids.resize(count);
  for (size_t i = 0; i < count; ++i) image.ids[i] = get_u32le(bytes.data() + 8 + 4 * i);
  return image;
}

void write_pgm(const std::string& path, const uint8_t* gray, int width, int height, OutputBatch* batch) {
  check_size(path, width, height);
  write_atomically(path, batch, [&](std::FILE* file) {
    const std::string header = "P5\n" + std::to_string(width) + " " + std::to_string(height) + "\n255\n";
    if (std::fwrite(header.data(), 1, header.size(), file) != header.size()) return false;
    const size_t bytes = size_t(width) * size_t(height);
    return std::fwrite(gray, 1, bytes, file) == bytes;
  });
}

// Reads the P5 files write_pgm writes (one whitespace-separated header, maxval 255, comments allowed).
GrayImage read_pgm(const std::string& path) {
  const std::vector<uint8_t> bytes = read_all(path);
  size_t at = 0;
  const auto token = [&]() {
    for (;;) {
      while (at < bytes.size() && std::isspace(bytes[at])) ++at;
      if (at < bytes.size() && bytes[at] == '#') {
        while (at < bytes.size() && bytes[at] != '\n') ++at;
        continue;
      }
      break;
    }
    std::string t;
    while (at < bytes.size() && !std::isspace(bytes[at]) && t.size() < 16) t.push_back(char(bytes[at++]));
    return t;
  };
  if (token() != "P5") fail(path, "not a binary PGM (P5) file");
  const std::string w = token(), h = token(), maxval = token();
  char* end = nullptr;
  const unsigned long width = std::strtoul(w.c_str(), &end, 10);
  const bool w_ok = !w.empty() && *end == '\0';
  const unsigned long height = std::strtoul(h.c_str(), &end, 10);
  const bool h_ok = !h.empty() && *end == '\0';
  if (!w_ok || !h_ok || width == 0 || height == 0 || width > kMaxSide || height > kMaxSide) {
    fail(path, "bad PGM size '" + w + " " + h + "'");
  }
  if (maxval != "255") fail(path, "PGM maxval is '" + maxval + "', expected 255");
  ++at;  // the single whitespace byte after maxval
  const size_t count = size_t(width) * size_t(height);
  if (at > bytes.size() || bytes.size() - at != count) {
    fail(path, "PGM data has " + std::to_string(at > bytes.size() ? 0 : bytes.size() - at) + " bytes, expected " +
                   std::to_string(count));
  }
  GrayImage image;
  image.width = int(width);
  image.height = int(height);
  image.pixels.assign(bytes.begin() + long(at), bytes.end());
  return image;
}

}  // namespace slabcast
