// PLY and STL files, read by Assimp (no post-processing: faces stay in file order, polygons stay whole and are
// triangulated here as OBJ faces are).
#pragma once
#include "app/mesh_io.h"

#include <string>

namespace slabcast::formats {

// Loads a PLY (ASCII, binary little- or big-endian) or STL (ASCII or binary) file; which one is decided by content
// (PLY's "ply" magic, else STL). Mesh::name is the file's base name.
//   PLY  positions (vertex i of the file is position i), faces (polygons, in file order), and 8-bit vertex colours
//        from red / green / blue [/ alpha] (any integer or float type; Assimp scales them to [0, 1] and they are
//        rounded back). Every other element and property is ignored.
//   STL  positions and facets in file order (every solid of an ASCII file, one after another). STL stores three
//        corners per facet and no vertex sharing, so corners with bit-identical positions are welded into one
//        vertex (in order of first use): the renderer's smooth normals come from shared vertex indices, and an
//        unwelded STL would shade faceted. Facet normals and colours are ignored.
// Rejected ("FILE: what"): an empty file; a PLY header or body that does not match (app/formats/ply_layout.h:
// truncated data, non-numbers, negative list counts); a binary STL whose size does not match its triangle count;
// a face with fewer than 3 corners or a corner index past the last vertex; a coordinate that is not finite; no
// faces; Assimp's own errors (prefixed "Assimp: ").
Mesh load_assimp_mesh(const std::string& path, const LoadProgress& progress, const LoadWarning& warn);

// The same from bytes in memory (tests, fuzzing); `name` stands for the file name in messages.
Mesh parse_assimp_mesh(const std::string& bytes, const std::string& name, const LoadProgress& progress = {},
                       const LoadWarning& warn = {});

}  // namespace slabcast::formats
