// The frame-dump formats of docs/architecture.md ("Conventions"): colour -> PNG, depth -> PFM, IDs -> .ids.
// Writers write PATH whole or not at all (app/output_file.h): a failed or interrupted write never leaves a half file.
// Every function throws std::runtime_error whose message starts with the path.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace slabcast {

class OutputBatch;

// An image in host memory, row 0 = top.
struct Rgba8Image {
  int width = 0, height = 0;
  std::vector<uint8_t> pixels;  // width * height * 4, tightly packed
};
struct DepthImage {
  int width = 0, height = 0;
  std::vector<float> depth;  // width * height; a miss is +inf
};
struct IdImage {
  int width = 0, height = 0;
  std::vector<uint32_t> ids;  // width * height; a miss is 0xFFFFFFFF
};

// Every writer writes PATH whole or not at all (app/output_file.h) and throws std::runtime_error naming PATH. Given a
// batch, the file is added to it and lands when the caller commits the batch, together with the run's other outputs.

// PNG, 8-bit RGBA, from rows `pitch_bytes` apart (>= 4 * width).
void write_png(const std::string& path, const uint8_t* rgba, int width, int height, size_t pitch_bytes,
               OutputBatch* batch = nullptr);
// Any PNG, converted to RGBA8.
Rgba8Image read_png(const std::string& path);
// A texture file in any format stb_image decodes (PNG, JPEG, BMP, TGA, ...), converted to RGBA8, row 0 = the
// image's top row. Its size is read from the header first, so that an image of more than `max_texels` texels (or a
// header that claims one) is refused before anything is allocated. Throws std::runtime_error "PATH: what".
Rgba8Image read_texture(const std::string& path, uint64_t max_texels);

// PFM, single channel ("Pf"), little-endian (scale -1). The file stores rows bottom to top, as the PFM format
// defines, so that image viewers show it upright; `depth` and DepthImage are top row first, like every other
// buffer here.
void write_pfm(const std::string& path, const float* depth, int width, int height, OutputBatch* batch = nullptr);
DepthImage read_pfm(const std::string& path);

// .ids: uint32 width, uint32 height, then width * height uint32, all little-endian, top row first.
void write_ids(const std::string& path, const uint32_t* ids, int width, int height, OutputBatch* batch = nullptr);
IdImage read_ids(const std::string& path);

// PGM, binary ("P5", maxval 255), 8 bits a pixel, top row first (the shadow mask: 0 in shadow, 255 lit, 128 no hit).
struct GrayImage {
  int width = 0, height = 0;
  std::vector<uint8_t> pixels;  // width * height
};
void write_pgm(const std::string& path, const uint8_t* gray, int width, int height, OutputBatch* batch = nullptr);
GrayImage read_pgm(const std::string& path);

}  // namespace slabcast
