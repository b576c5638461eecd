// A fast path for mesh sequences saved as binary PLY (simulation output): a later frame's positions are read
// straight from its body, and its faces are checked byte for byte against the first frame's, instead of a full
// load of every frame (Assimp builds a whole scene a frame, about 0.3 s for a million triangles; this reads the
// file and copies its floats). A frame that does not fit the fast path (another layout, other faces) is left to the
// full loader, which reads it or names what is wrong.
#pragma once
#include <glm/glm.hpp>

#include <memory>
#include <string>
#include <vector>

namespace slabcast::formats {

class PlyFrameReader {
 public:
  // The reader for a sequence whose first frame is `first_path`; null when that file is not a binary PLY whose
  // vertices start with float x, y, z and whose body is all fixed-size vertices followed by the faces (the usual
  // layout of exported frames). Throws nothing for such files: they simply take the full loader.
  static std::unique_ptr<PlyFrameReader> for_first_frame(const std::string& first_path);

  // A later frame's positions: true when the file has the first frame's layout and vertex count and the very same
  // face bytes; false (positions untouched) otherwise. Throws std::runtime_error "FILE: what" when it cannot be read.
  bool read_positions(const std::string& path, std::vector<glm::vec3>& positions) const;

 private:
  PlyFrameReader() = default;
  std::string header_shape_;      // the first frame's header without comments: the layout a frame must have
  size_t vertices_ = 0;
  size_t vertex_bytes_ = 0;       // a vertex's record
  size_t x_offset_ = 0;           // of x in the record; y and z follow
  bool big_endian_ = false;
  std::string faces_;             // the first frame's bytes after the vertices (the faces and anything after)
};

}  // namespace slabcast::formats
