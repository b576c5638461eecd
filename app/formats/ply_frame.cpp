#include "app/formats/ply_frame.h"

#include "app/formats/ply_layout.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace slabcast::formats {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open the file");
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < 0) throw std::runtime_error(path + ": cannot read the file");
  std::string bytes(static_cast<size_t>(size), '\0');
  in.seekg(0);
  if (!in.read(bytes.data(), size)) throw std::runtime_error(path + ": cannot read the file");
  return bytes;
}

// The header's lines without comments and obj_info (frames of one sequence differ in those, not in their layout).
std::string header_shape(const std::string& bytes, size_t body_offset) {
  std::string shape;
  size_t pos = 0;
  while (pos < body_offset) {
    size_t eol = bytes.find('\n', pos);
    if (eol == std::string::npos || eol > body_offset) eol = body_offset;
    const std::string line = bytes.substr(pos, eol - pos);
    if (line.rfind("comment", 0) != 0 && line.rfind("obj_info", 0) != 0) shape += line + "\n";
    pos = eol + 1;
  }
  return shape;
}

}  // namespace

std::unique_ptr<PlyFrameReader> PlyFrameReader::for_first_frame(const std::string& first_path) {
  std::string bytes;
  PlyLayout layout;
  try {
    bytes = read_file(first_path);
    if (bytes.compare(0, 3, "ply") != 0) return nullptr;
    layout = check_ply(bytes, first_path);
  } catch (const std::exception&) {
    return nullptr;  // the full loader reads it (and reports what is wrong with it)
  }
  if (layout.encoding == PlyEncoding::ascii || layout.elements.empty() || layout.elements[0].name != "vertex") {
    return nullptr;
  }
  const PlyElement& vertex = layout.elements[0];
  auto reader = std::unique_ptr<PlyFrameReader>(new PlyFrameReader());
  size_t offset = 0;
  bool found_x = false;
  for (size_t k = 0; k < vertex.properties.size(); ++k) {
    const PlyProperty& p = vertex.properties[k];
    if (p.is_list) return nullptr;  // a variable-size vertex: no fixed stride
    if (p.name == "x") {
      // x, y, z must be consecutive 32-bit floats for the copy below.
      if (k + 2 >= vertex.properties.size() || !p.is_float || p.type_bytes != 4) return nullptr;
      const PlyProperty& y = vertex.properties[k + 1];
      const PlyProperty& z = vertex.properties[k + 2];
      if (y.name != "y" || z.name != "z" || !y.is_float || y.type_bytes != 4 || !z.is_float || z.type_bytes != 4) {
        return nullptr;
      }
      reader->x_offset_ = offset;
      found_x = true;
    }
    offset += static_cast<size_t>(p.type_bytes);
  }
  if (!found_x) return nullptr;
  reader->vertex_bytes_ = offset;
  reader->vertices_ = static_cast<size_t>(vertex.count);
  reader->big_endian_ = layout.encoding == PlyEncoding::binary_big_endian;
  const size_t faces_begin = layout.body_offset + reader->vertices_ * reader->vertex_bytes_;
  if (faces_begin > bytes.size()) return nullptr;
  reader->header_shape_ = header_shape(bytes, layout.body_offset);
  reader->faces_ = bytes.substr(faces_begin);
  return reader;
}

bool PlyFrameReader::read_positions(const std::string& path, std::vector<glm::vec3>& positions) const {
  const std::string bytes = read_file(path);
  const size_t end_header = bytes.find("end_header");
  if (bytes.compare(0, 3, "ply") != 0 || end_header == std::string::npos) return false;
  size_t body = bytes.find('\n', end_header);
  if (body == std::string::npos) return false;
  ++body;
  if (header_shape(bytes, body) != header_shape_) return false;
  const size_t faces_begin = body + vertices_ * vertex_bytes_;
  if (bytes.size() - std::min(bytes.size(), faces_begin) != faces_.size() || bytes.size() < faces_begin ||
      std::memcmp(bytes.data() + faces_begin, faces_.data(), faces_.size()) != 0) {
    return false;  // other faces (or a truncated file): the full loader says which
  }
  std::vector<glm::vec3> out(vertices_);
  const char* record = bytes.data() + body + x_offset_;
  for (size_t v = 0; v < vertices_; ++v, record += vertex_bytes_) {
    unsigned char xyz[12];
    std::memcpy(xyz, record, 12);
    if (big_endian_) {
      for (int k = 0; k < 3; ++k) {
        std::swap(xyz[4 * k], xyz[4 * k + 3]);
        std::swap(xyz[4 * k + 1], xyz[4 * k + 2]);
      }
    }
    std::memcpy(&out[v], xyz, 12);
    if (!std::isfinite(out[v].x) || !std::isfinite(out[v].y) || !std::isfinite(out[v].z)) {
      throw std::runtime_error(path + ": vertex " + std::to_string(v) + " has a coordinate that is not a finite number");
    }
  }
  positions.swap(out);
  return true;
}

}  // namespace slabcast::formats
