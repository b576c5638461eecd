// A PLY file's header and a walk over its body, before Assimp reads it: Assimp's PLY reader reads past the end of
// a truncated binary file (garbage indices, seen with Assimp 5.2) and turns junk in an ASCII file into zeros, so
// the structure is checked here first and every problem is reported as "FILE: what" (ASCII: "FILE:LINE: what").
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace slabcast::formats {

enum class PlyEncoding { ascii, binary_little_endian, binary_big_endian };

struct PlyProperty {
  std::string name;
  int type_bytes = 0;        // size of the value (of each item, for a list)
  bool is_float = false;     // float / double (else an integer)
  bool is_signed = false;
  bool is_list = false;
  int count_bytes = 0;       // list only: size of the item count (an unsigned or signed integer)
  bool count_signed = false;
};

struct PlyElement {
  std::string name;
  uint64_t count = 0;
  std::vector<PlyProperty> properties;
};

struct PlyLayout {
  PlyEncoding encoding = PlyEncoding::ascii;
  std::vector<PlyElement> elements;
  size_t body_offset = 0;   // first byte after "end_header" and its line end
  size_t header_lines = 0;  // lines up to and including end_header
  uint64_t vertices = 0;    // instances of element "vertex"
  uint64_t faces = 0;       // instances of element "face"
  bool has_colors = false;  // vertex red, green and blue
};

// Parses the header and walks the whole body (every element instance, every list), checking that the file holds
// what the header says: throws "NAME: what" (ASCII body: "NAME:LINE: what") for a header it cannot read, a missing
// vertex x / y / z or face vertex_indices list, a file with no faces, a body that ends early, an ASCII value that
// is not a number of its type, or a list with a negative count.
PlyLayout check_ply(std::string_view bytes, const std::string& name);

}  // namespace slabcast::formats
