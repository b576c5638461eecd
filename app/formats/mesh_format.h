// The one entry point for mesh files: which format a file is, and loading it with the reader for that format.
// docs/formats.md lists what is read from each format.
#pragma once
#include "app/mesh_io.h"

#include <string>

namespace slabcast {

enum class MeshFormat {
  obj,     // Wavefront OBJ (app/mesh_io.h), with its MTL materials
  gltf,    // glTF 2.0, JSON (.gltf)
  glb,     // glTF 2.0, binary container (.glb)
  assimp,  // PLY and STL, read by Assimp (app/formats/assimp_mesh.h)
  off,     // OFF / COFF / NOFF (app/formats/off_mesh.h)
  assimp_scene,  // any other format the installed Assimp reads, by extension (app/formats/assimp_scene.h)
};

// "OBJ", "glTF", "GLB", "PLY or STL", "OFF": for messages.
const char* mesh_format_name(MeshFormat format);

// The file's format, by its content first: GLB (magic "glTF"), PLY (magic "ply"), binary STL (an 80-byte header and
// a triangle count that matches the file's size), glTF JSON ('{' and an "asset" key near the start), OFF (an
// OFF / COFF / NOFF / CNOFF header), ASCII STL ("solid" then "facet"), OBJ (text whose first statement is one of
// OBJ's). Content that matches none (an empty or truncated file, say) falls back to the extension (.obj, .gltf,
// .glb, .ply, .stl, .off, any case), so that the reader of that format can say what is wrong with it; then to any
// other extension the installed Assimp reads (.dae, .fbx, .3ds, ...).
// Throws std::runtime_error "PATH: what": no such file, a directory, or a file that is neither by content nor by
// extension a format slabcast reads (the message lists those it does).
MeshFormat detect_mesh_format(const std::string& path);

// Whether a file name ends in the extension of a mesh format slabcast reads (any case): for file lists, which must
// choose without opening every file.
bool has_mesh_extension(const std::string& path);

// Loads any mesh file slabcast reads (detect_mesh_format picks the reader). Mesh::name is the file's base name.
// Every reader is strict in the way load_obj is: a broken file throws one std::runtime_error "FILE: what" (or
// "FILE:LINE: what"), never crashes, never gives a wrong mesh; a file that loads but not quite as it says (a
// missing material library or texture, say) calls `warn`. Triangle IDs follow the file's face order in every
// format, and a polygon of n corners becomes n-2 triangles (app/polygon_triangulation.h).
Mesh load_mesh(const std::string& path, const LoadProgress& progress = {}, const LoadWarning& warn = {});

}  // namespace slabcast
