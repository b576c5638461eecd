#include "app/formats/assimp_scene.h"

#include "app/formats/mesh_file.h"

#include <assimp/Importer.hpp>
#include <assimp/scene.h>

#include <cmath>
#include <stdexcept>
#include <vector>

namespace slabcast::formats {
namespace {

constexpr size_t kMaxVertices = 0xFFFFFFFFu;  // vertex indices are 32-bit

[[noreturn]] void fail_scene(const std::string& name, const std::string& what) {
  throw std::runtime_error(name + ": " + what);
}

struct Flattener {
  const aiScene& scene;
  const std::string& name;
  Mesh& mesh;
  FaceAssembler faces;
  size_t skipped = 0;  // point and line primitives
  size_t face_number = 0;

  void node(const aiNode& n, const aiMatrix4x4& parent) {
    const aiMatrix4x4 global = parent * n.mTransformation;
    for (unsigned k = 0; k < n.mNumMeshes; ++k) {
      if (n.mMeshes[k] >= scene.mNumMeshes) fail_scene(name, "a node refers to a mesh the file does not have");
      part(*scene.mMeshes[n.mMeshes[k]], global);
    }
    for (unsigned c = 0; c < n.mNumChildren; ++c) node(*n.mChildren[c], global);
  }

  void part(const aiMesh& m, const aiMatrix4x4& global) {
    const size_t first = mesh.positions.size();
    if (first + m.mNumVertices > kMaxVertices) fail_scene(name, "more than " + std::to_string(kMaxVertices) + " vertices");
    for (unsigned v = 0; v < m.mNumVertices; ++v) {
      const aiVector3D p = global * m.mVertices[v];
      if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z)) {
        fail_scene(name, "vertex " + std::to_string(first + v) + " has a coordinate that is not a finite number");
      }
      mesh.positions.push_back({p.x, p.y, p.z});
    }
    std::vector<uint32_t> corners;
    for (unsigned f = 0; f < m.mNumFaces; ++f, ++face_number) {
      const aiFace& face = m.mFaces[f];
      if (face.mNumIndices < 3) {
        ++skipped;
        continue;
      }
      corners.resize(face.mNumIndices);
      for (unsigned k = 0; k < face.mNumIndices; ++k) {
        if (face.mIndices[k] >= m.mNumVertices) {
          fail_scene(name, "face " + std::to_string(face_number) + " refers to vertex " +
                               std::to_string(face.mIndices[k]) + " of a mesh of " + std::to_string(m.mNumVertices));
        }
        corners[k] = static_cast<uint32_t>(first + face.mIndices[k]);
      }
      faces.add(corners.data(), corners.size(), face_number);
    }
  }
};

}  // namespace

bool assimp_reads_extension(const std::string& extension) {
  if (extension.size() < 2 || extension[0] != '.') return false;
  Assimp::Importer importer;
  return importer.IsExtensionSupported(extension);
}

Mesh load_assimp_scene(const std::string& path, const LoadProgress& progress, const LoadWarning& warn) {
  const std::string name = base_name(path);
  if (progress) progress(0.0);
  Assimp::Importer importer;
  // No post-processing steps: they would reorder, split or merge faces and vertices, and the triangle IDs must
  // follow the file.
  const aiScene* scene = importer.ReadFile(path, 0);
  if (scene == nullptr || scene->mRootNode == nullptr) {
    fail_scene(path, std::string("Assimp: ") + (scene == nullptr ? importer.GetErrorString() : "no scene nodes"));
  }
  if (progress) progress(0.8);
  Mesh mesh;
  mesh.name = name;
  Flattener flat{*scene, path, mesh, FaceAssembler(&mesh, path)};
  flat.node(*scene->mRootNode, aiMatrix4x4());
  flat.faces.finish(warn);
  if (flat.skipped > 0 && warn) {
    warn(path + ": " + std::to_string(flat.skipped) + " point and line primitives skipped (only faces are drawn)");
  }
  if (mesh.indices.empty()) fail_scene(path, "no faces: nothing to render");
  if (progress) progress(1.0);
  return mesh;
}

}  // namespace slabcast::formats
