// What every mesh reader in app/formats/ shares: reading the file into memory with progress, errors in the
// "FILE: what" form, and turning faces (polygons of any size, in file order) into the renderer's triangles.
#pragma once
#include "app/mesh_io.h"

#include <cstdint>
#include <string>
#include <vector>

namespace slabcast::formats {

// Triangle IDs are uint32 with 0xFFFFFFFF meaning "miss".
constexpr uint64_t kMaxTriangles = 0xFFFFFFFEull;

[[noreturn]] void fail(const std::string& name, const std::string& what);
[[noreturn]] void fail(const std::string& name, size_t line, const std::string& what);

// The whole file, reporting progress from 0 to `progress_end` while it reads. Throws "PATH: no such file",
// "PATH: is a directory, not a mesh file", "PATH: empty file (0 bytes)" (when `allow_empty` is false), ...
std::string read_mesh_file(const std::string& path, const LoadProgress& progress, double progress_end,
                           bool allow_empty = false);

std::string base_name(const std::string& path);

// Appends faces to a Mesh in file order. A face of n corners becomes n-2 triangles that keep its winding, as in the
// OBJ loader (app/polygon_triangulation.h: the fan when convex, ear clipping when concave), so that a mesh has the
// same triangle IDs whichever format it was saved in. The mesh's positions must be complete before the first face.
class FaceAssembler {
 public:
  FaceAssembler(Mesh* mesh, std::string name) : mesh_(mesh), name_(std::move(name)) {}
  // `corners` are n >= 3 vertex indices, already checked against the vertex count; `face_number` (0-based, in
  // file order) is for messages.
  void add(const uint32_t* corners, size_t n, size_t face_number);
  // One warning for the file if some concave polygon was too large to ear-clip (as the OBJ loader words it).
  void finish(const LoadWarning& warn) const;

 private:
  Mesh* mesh_;
  std::string name_;
  std::vector<glm::vec3> polygon_;
  std::vector<uint32_t> local_;
  size_t fanned_ = 0, first_fanned_ = 0, first_fanned_corners_ = 0, first_fanned_not_convex_ = 0;
};

}  // namespace slabcast::formats
