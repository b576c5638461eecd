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

// Called with a load's warning: one line "FILE:LINE: what" about a file that loads, but not quite as it says.
using LoadWarning = std::function<void(const std::string& message)>;

// Loads an OBJ file (load_mesh in app/formats/mesh_format.h reads every format). Mesh::name is the file's base name.
// Read: vertex positions (`v x y z`; a fourth value, the weight w, and vertex colours after the position are
// ignored); faces (`f`, vertex indices, absolute or relative; normal indices are ignored); texture coordinates
// (`vt u v`, a third value ignored) into Mesh::corner_uvs, three per triangle with v flipped (v' = 1 - v, so that
// v' = 0 is the texture's top row), only when some face corner has a texture-coordinate index ((0, 0) for corners
// without one); materials: `mtllib` libraries (relative to the OBJ's folder) and `usemtl` into Mesh::materials (one
// per name used, in order of first use; a white one at the end for faces before any usemtl) and
// Mesh::triangle_materials, with their Kd, d / Tr and map_Kd textures (app/formats/obj_materials.h). A library or
// texture that is missing or unreadable, or a material no library defines, is a warning; that material is white, or
// its base colour without the texture.
// Triangle IDs follow the file's face order; a polygon of n corners always becomes n-2 triangles that keep its
// winding (app/polygon_triangulation.h): the fan (v0, vk, vk+1) when it is convex, ear clipping when it is concave.
// A concave polygon past the ear-clipping work bound (kMaxEarClipWork) is fanned, with one warning for the file.
// Ignored (read, no effect): comments, blank lines, and every other statement of the OBJ format: normals,
// parameter-space vertices, lines, points, groups, objects, smoothing groups, merging groups, free-form curves and
// surfaces with their attributes and bodies, display and render attributes, `call`, `csh`, and tinyobjloader's
// `vw` and `t`.
// Rejected, naming the file and line: a missing / unreadable file or a directory; binary data; a statement that is
// not one of the OBJ format's ("unknown OBJ statement 'TOKEN'": a misspelt keyword, a keyword without its space,
// an upper-case one); a line continued with '\'; a vertex with fewer than 3 coordinates or a coordinate that is not
// a finite number; a texture coordinate that is not a finite number; a face with fewer than 3 vertices; a vertex
// or texture-coordinate index that is 0, not a number, past the last one, or relative (negative) past the first one;
// a file with no faces; more vertices or triangles than 32-bit indices can address.
Mesh load_obj(const std::string& path, const LoadProgress& progress = {}, const LoadWarning& warn = {});

// The same, from text in memory (the fuzzer's entry point); `name` stands for the file name in errors. It opens no
// other file: material libraries are not read, so the mesh has texture coordinates but no materials.
Mesh parse_obj(std::string_view text, const std::string& name, const LoadProgress& progress = {},
               const LoadWarning& warn = {});

// Writes positions and triangles as an OBJ file ("v x y z" with round-trip float precision, then "f a b c",
// 1-based); `comment` (one line, may be empty) goes into a leading "# " line. Written whole or not
// at all (app/output_file.h), so a failed write never leaves a half file under PATH; given a batch, it lands when the
// caller commits the batch. Throws std::runtime_error naming the path.
void write_obj(const std::string& path, const std::vector<glm::vec3>& positions,
               const std::vector<uint32_t>& indices, const std::string& comment = {}, OutputBatch* batch = nullptr);

}  // namespace slabcast
