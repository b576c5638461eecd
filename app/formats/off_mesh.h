// OFF files (Geomview's Object File Format), read here rather than by Assimp: Assimp 5.2's OFF reader silently
// drops faces of more than 9 corners (shifting every later triangle ID), clamps a vertex index past the end to the
// last vertex, and reads junk as 0, none of which a strict loader can detect afterwards.
#pragma once
#include "app/mesh_io.h"

#include <string>
#include <string_view>

namespace slabcast::formats {

// Loads an OFF file: the header keyword (OFF, COFF: vertex colours, NOFF: vertex normals, CNOFF: both; a file may
// also start straight with the counts), "VERTICES FACES EDGES", one vertex per line ("x y z", then nx ny nz with
// N, then a colour with C: 3 or 4 integers 0..255, or 3 or 4 floats 0..1), one face per line ("n i0 ... in-1",
// 0-based, optionally followed by a face colour, ignored). '#' starts a comment. Vertex i of the file is position
// i; faces keep file order and are triangulated as OBJ polygons are. Mesh::name is the file's base name.
// Rejected ("FILE:LINE: what"): an unknown header (ST, 4 and n variants included), counts that are not numbers,
// fewer vertices or faces than the counts say, a coordinate that is not a finite number, a face with fewer than 3
// corners, an index past the last vertex, a colour out of range, no faces.
Mesh load_off(const std::string& path, const LoadProgress& progress, const LoadWarning& warn);

// The same from text in memory; `name` stands for the file name in messages.
Mesh parse_off(std::string_view text, const std::string& name, const LoadProgress& progress = {},
               const LoadWarning& warn = {});

}  // namespace slabcast::formats
