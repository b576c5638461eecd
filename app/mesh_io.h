// Wavefront OBJ in and out: the mesh files users hand to slabcast, and --deformed-mesh.
//
// Loading is strict, because a broken file must end in one clear line, never in a crash or a wrong image:
// every error is a std::runtime_error whose message is "FILE:LINE: what is wrong" (or "FILE: ..." where no
// line applies), e.g. "bunny.obj:1207: face refers to vertex 5000, but the file has only 2503 vertices".
#pragma once
#include "render/renderer.h"

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace slabcast {

class OutputBatch;

// Called while a file loads: `fraction` runs from 0 to 1 over the whole load (read, check, parse, assemble).
// Called a few hundred times at most, so it may print.
using LoadProgress = std::function<void(double fraction)>;

// Loads an OBJ file. Polygons are fan-triangulated in file order (a face with n vertices becomes the n-2
// triangles (v0, vk, vk+1)), so triangle IDs follow the file's face order; normals, texture coordinates,
// materials, lines and points are ignored. Mesh::name is the file's base name.
// Rejected, naming the file and line: a missing / unreadable file or a directory; binary data; a vertex with
// fewer than 3 coordinates or a coordinate that is not a finite number; a face with fewer than 3 vertices; a
// vertex index that is 0, not a number, past the last vertex, or relative (negative) past the first one; a file
// with no faces; more vertices or triangles than 32-bit indices can address.
Mesh load_obj(const std::string& path, const LoadProgress& progress = {});

// The same, from text in memory (the fuzzer's entry point); `name` stands for the file name in errors.
Mesh parse_obj(std::string_view text, const std::string& name, const LoadProgress& progress = {});

// Writes positions and triangles as an OBJ file ("v x y z" with round-trip float precision, then "f a b c",
// 1-based); `comment` (one line, may be empty) goes into a leading "# " line. Written whole or not
// at all (app/output_file.h), so a failed write never leaves a half file under PATH; given a batch, it lands when the
// caller commits the batch. Throws std::runtime_error naming the path.
void write_obj(const std::string& path, const std::vector<glm::vec3>& positions,
               const std::vector<uint32_t>& indices, const std::string& comment = {}, OutputBatch* batch = nullptr);

}  // namespace slabcast
