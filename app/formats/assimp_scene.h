// The other mesh formats Assimp reads (Collada, FBX, 3DS, LightWave, DirectX, Blender, ... : whatever the
// installed Assimp supports), chosen by the file's extension when its content is none of the formats slabcast
// reads itself. No post-processing step runs (none may reorder, split or merge faces).
#pragma once
#include "app/mesh_io.h"

#include <string>

namespace slabcast::formats {

// Whether the installed Assimp reads files with this extension (".dae", any case).
bool assimp_reads_extension(const std::string& extension);

// Loads such a file: the scene's nodes depth first from the root (a node before its children, children in order),
// each node's meshes in order, each mesh's faces in order, which defines the triangle IDs; positions moved by the
// node's global transform; polygons of n corners become n - 2 triangles (app/polygon_triangulation.h); points and
// lines are skipped with one warning. Mesh::name is the file's base name.
// Rejected ("FILE: what"): Assimp's own errors (prefixed "Assimp: "), a coordinate that is not finite, an index
// past its mesh's vertices, no faces.
Mesh load_assimp_scene(const std::string& path, const LoadProgress& progress, const LoadWarning& warn);

}  // namespace slabcast::formats
