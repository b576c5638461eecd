// PLY and STL through Assimp, with the checks Assimp does not make (app/formats/ply_layout.h says why PLY needs
// them; STL's size check is below), and the assembly into a Mesh: polygons triangulated in file order, STL's
// unshared corners welded.
#include "app/formats/assimp_mesh.h"

#include "app/formats/mesh_file.h"
#include "app/formats/ply_layout.h"

#include <assimp/Importer.hpp>
#include <assimp/ProgressHandler.hpp>
#include <assimp/scene.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <new>
#include <unordered_map>

namespace slabcast::formats {
namespace {

// Progress is reported over the whole load in these shares.
constexpr double kReadEnd = 0.10;     // reading the file
constexpr double kCheckEnd = 0.20;    // our structure check
constexpr double kImportEnd = 0.80;   // Assimp's import; assembling takes the rest

constexpr uint64_t kMaxVertices = 0xFFFFFFFFull;  // Mesh::indices are uint32

// Assimp's progress callback, mapped into our share. The importer owns (and deletes) its handler.
class Progress : public Assimp::ProgressHandler {
 public:
  explicit Progress(const LoadProgress& progress) : progress_(progress) {}
  bool Update(float percentage) override {
    if (progress_ && percentage >= 0.0f && percentage <= 1.0f) {
      progress_(kCheckEnd + (kImportEnd - kCheckEnd) * double(percentage));
    }
    return true;
  }

 private:
  LoadProgress progress_;
};

// Binary STL: an 80-byte header, a uint32 triangle count, then 50 bytes a triangle. Assimp says only "Failed to
// determine STL storage representation" when the size does not match; this names the numbers.
void check_binary_stl(const std::string& bytes, const std::string& name) {
  if (bytes.size() < 84) {
    fail(name, "truncated binary STL: " + std::to_string(bytes.size()) + " bytes, shorter than its 84-byte header");
  }
  const auto* b = reinterpret_cast<const unsigned char*>(bytes.data()) + 80;
  const uint64_t count = uint64_t(b[0]) | uint64_t(b[1]) << 8 | uint64_t(b[2]) << 16 | uint64_t(b[3]) << 24;
  const uint64_t expected = 84 + 50 * count;
  if (expected != bytes.size()) {
    fail(name, std::string(expected > bytes.size() ? "truncated" : "overlong") + " binary STL: the header says " +
                   std::to_string(count) + " triangles (" + std::to_string(expected) + " bytes), the file has " +
                   std::to_string(bytes.size()) + " bytes");
  }
  if (count == 0) fail(name, "no faces (a binary STL of 0 triangles): nothing to render");
}

bool is_ascii_stl(const std::string& bytes) {
  size_t i = 0;
  while (i < bytes.size() && std::strchr(" \t\r\n", bytes[i]) != nullptr) ++i;
  return bytes.compare(i, 5, "solid") == 0 && bytes.find('\0') == std::string::npos;
}

uint8_t to_8bit(float value) {  // Assimp gives 8-bit channels as c / 255: round back to c
  const float scaled = std::round(value * 255.0f);
  return uint8_t(scaled <= 0.0f ? 0.0f : scaled >= 255.0f ? 255.0f : scaled);
}

// Bit pattern of a position, for welding: -0 and +0 are one position.
struct PositionKey {
  uint32_t bits[3];
  bool operator==(const PositionKey& o) const { return std::memcmp(bits, o.bits, sizeof bits) == 0; }
};
struct PositionHash {
  size_t operator()(const PositionKey& k) const {
    uint64_t h = 1469598103934665603ull;
    for (uint32_t b : k.bits) h = (h ^ b) * 1099511628211ull;
    return size_t(h ^ (h >> 29));
  }
};
PositionKey key_of(const aiVector3D& p) {
  PositionKey k{};
  const float v[3] = {p.x == 0.0f ? 0.0f : float(p.x), p.y == 0.0f ? 0.0f : float(p.y), p.z == 0.0f ? 0.0f : float(p.z)};
  std::memcpy(k.bits, v, sizeof v);
  return k;
}

void check_finite(const aiVector3D& p, const std::string& name, size_t vertex) {
  if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z)) {
    char where[96];
    std::snprintf(where, sizeof where, " (%g %g %g)", double(p.x), double(p.y), double(p.z));
    fail(name, "vertex " + std::to_string(vertex) + " has a coordinate that is not a finite number" + where);
  }
}

// Faces of every aiMesh in order, their corners mapped by `corner_vertex` (mesh, index) -> our vertex index.
template <class CornerVertex>
void assemble_faces(const aiScene& scene, Mesh* mesh, const std::string& name, const LoadWarning& warn,
                    CornerVertex corner_vertex) {
  FaceAssembler faces(mesh, name);
  std::vector<uint32_t> corners;
  size_t face_number = 0;
  for (unsigned m = 0; m < scene.mNumMeshes; ++m) {
    const aiMesh& part = *scene.mMeshes[m];
    for (unsigned f = 0; f < part.mNumFaces; ++f, ++face_number) {
      const aiFace& face = part.mFaces[f];
      if (face.mNumIndices < 3) {
        fail(name, "face " + std::to_string(face_number) + " has " + std::to_string(face.mNumIndices) +
                       (face.mNumIndices == 1 ? " corner" : " corners") + " (needs at least 3)");
      }
      corners.resize(face.mNumIndices);
      for (unsigned k = 0; k < face.mNumIndices; ++k) {
        const unsigned index = face.mIndices[k];
        if (index >= part.mNumVertices) {
          fail(name, "face " + std::to_string(face_number) + " refers to vertex " + std::to_string(index) +
                         ", but the file has only " + std::to_string(part.mNumVertices) + " vertices");
        }
        corners[k] = corner_vertex(m, index);
      }
      faces.add(corners.data(), corners.size(), face_number);
    }
  }
  faces.finish(warn);
}

Mesh import(const std::string& bytes, const std::string& name, const LoadProgress& progress,
            const LoadWarning& warn) {
  if (bytes.empty()) fail(name, "empty file (0 bytes)");
  const bool is_ply = bytes.compare(0, 3, "ply") == 0;
  PlyLayout layout;
  if (is_ply) {
    layout = check_ply(bytes, name);
  } else if (!is_ascii_stl(bytes)) {
    check_binary_stl(bytes, name);
  }
  if (progress) progress(kCheckEnd);

  Assimp::Importer importer;
  importer.SetProgressHandler(new Progress(progress));
  // No post-processing steps: they would reorder, split or merge faces and vertices, and the triangle IDs must
  // follow the file.
  const aiScene* scene = importer.ReadFileFromMemory(bytes.data(), bytes.size(), 0, is_ply ? "ply" : "stl");
  if (scene == nullptr) fail(name, std::string("Assimp: ") + importer.GetErrorString());
  if (progress) progress(kImportEnd);

  Mesh mesh;
  mesh.name = name;
  if (is_ply) {
    // Assimp's PLY reader keeps the file's vertices in order in one aiMesh; anything else would break the
    // vertex-colour and index mapping, so it is checked rather than assumed.
    if (scene->mNumMeshes != 1 || scene->mMeshes[0]->mNumVertices != layout.vertices ||
        scene->mMeshes[0]->mNumFaces != layout.faces) {
      fail(name, "internal error: Assimp read " + std::to_string(scene->mNumMeshes) + " meshes, not the " +
                     std::to_string(layout.vertices) + " vertices and " + std::to_string(layout.faces) +
                     " faces of the header");
    }
    if (layout.vertices > kMaxVertices) fail(name, "more than " + std::to_string(kMaxVertices) + " vertices");
    const aiMesh& part = *scene->mMeshes[0];
    mesh.positions.resize(part.mNumVertices);
    for (unsigned v = 0; v < part.mNumVertices; ++v) {
      check_finite(part.mVertices[v], name, v);
      mesh.positions[v] = {part.mVertices[v].x, part.mVertices[v].y, part.mVertices[v].z};
    }
    if (layout.has_colors && part.mColors[0] != nullptr) {
      mesh.vertex_colors.resize(part.mNumVertices);
      for (unsigned v = 0; v < part.mNumVertices; ++v) {
        const aiColor4D& c = part.mColors[0][v];
        mesh.vertex_colors[v] = {to_8bit(c.r), to_8bit(c.g), to_8bit(c.b), to_8bit(c.a)};
      }
    }
    assemble_faces(*scene, &mesh, name, warn, [](unsigned, unsigned index) { return index; });
  } else {
    // STL: weld corners with identical positions (see the header), keeping the order of first use.
    std::unordered_map<PositionKey, uint32_t, PositionHash> welded;
    std::vector<std::vector<uint32_t>> remap(scene->mNumMeshes);
    for (unsigned m = 0; m < scene->mNumMeshes; ++m) {
      const aiMesh& part = *scene->mMeshes[m];
      remap[m].resize(part.mNumVertices);
      for (unsigned v = 0; v < part.mNumVertices; ++v) {
        check_finite(part.mVertices[v], name, v);
        const auto [it, inserted] = welded.try_emplace(key_of(part.mVertices[v]), uint32_t(mesh.positions.size()));
        if (inserted) mesh.positions.push_back({part.mVertices[v].x, part.mVertices[v].y, part.mVertices[v].z});
        remap[m][v] = it->second;
      }
    }
    assemble_faces(*scene, &mesh, name, warn, [&](unsigned m, unsigned index) { return remap[m][index]; });
  }
  if (mesh.indices.empty()) fail(name, "no faces: nothing to render");
  if (progress) progress(1.0);
  return mesh;
}

}  // namespace

Mesh parse_assimp_mesh(const std::string& bytes, const std::string& name, const LoadProgress& progress,
                       const LoadWarning& warn) {
  try {
    return import(bytes, name, progress, warn);
  } catch (const std::bad_alloc&) {
    fail(name, "out of host memory while loading (" + std::to_string(bytes.size()) + " bytes)");
  }
}

Mesh load_assimp_mesh(const std::string& path, const LoadProgress& progress, const LoadWarning& warn) {
  const std::string bytes = read_mesh_file(path, progress, kReadEnd);
  Mesh mesh = parse_assimp_mesh(bytes, path, progress, warn);
  mesh.name = base_name(path);
  return mesh;
}

}  // namespace slabcast::formats
