// OBJ loading in two passes over the file's text, held in memory, and a triangulation of our own:
//
//   1. check   our own line scan. It rejects what tinyobjloader would accept silently (it reads "nan" and "abc"
//              as 0, keeps indices past the last vertex with only a warning, drops faces with < 3 vertices, its
//              atoi overflows on huge indices, and it skips any statement it does not know), so that every problem
//              is reported with its line. Every line must be a comment, blank, or a statement of the OBJ format
//              (kIgnoredStatements, `v`, `f`); anything else is "unknown OBJ statement". It also parses the vertex
//              positions: correctly rounded (std::from_chars), so write_obj -> load_obj gives back the very same
//              floats, which tinyobjloader's own float parser does not promise. It reads the appearance too:
//              texture coordinates (`vt`, and each face corner's vt index), `usemtl` and `mtllib`.
//   2. parse   tinyobjloader reads the faces (relative indices, polygons), un-triangulated, through a stream that
//              reports progress. It is given only what the check pass accepted and the renderer uses: each `v` line
//              as a bare "v " (the positions are ours) and each `f` line with only its vertex indices; every other
//              line (vt, vn, l, p, vw, g, o, mtllib, usemtl, ...) is passed as an empty line, so line numbers still
//              agree.
//              tinyobjloader's parsers of those statements convert unchecked numbers to int and float (undefined
//              behaviour on "vw 1 inf", found by fuzzing), and a renderer of triangles has no use for them.
//   3. assemble  each polygon is triangulated by app/polygon_triangulation.h (the first-corner fan when convex,
//              ear clipping when concave, always n-2 triangles), not by tinyobjloader: see that file for why. Each
//              triangle takes its corners' texture coordinates and its face's material; the material libraries
//              are read last (app/formats/obj_materials.h), only when loading a file.
#include "mesh_io.h"

#include "app/formats/obj_materials.h"
#include "app/output_file.h"
#include "app/polygon_triangulation.h"

// tinyobjloader is compiled into this file (Debian ships the header with the implementation behind this macro),
// so that sanitizer and fuzzer builds instrument the parser too.
#define TINYOBJLOADER_IMPLEMENTATION
#include <tiny_obj_loader.h>

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <sstream>
#include <stdexcept>
#include <streambuf>
#include <system_error>

namespace slabcast {
namespace {

using formats::ObjLibraryRef;
using formats::ObjMaterialUse;

// Progress is reported over the whole load in these shares.
constexpr double kReadShare = 0.10;   // reading the file
constexpr double kCheckEnd = 0.35;    // our check pass ends here
constexpr double kParseEnd = 0.95;    // tinyobjloader's pass ends here; assembling takes the rest
constexpr size_t kProgressChunkBytes = size_t(1) << 20;

// Triangle IDs are uint32 with 0xFFFFFFFF meaning "miss"; tinyobjloader indexes vertices with int.
constexpr uint64_t kMaxTriangles = 0xFFFFFFFEull;
constexpr uint64_t kMaxVertices = uint64_t(std::numeric_limits<int>::max());

[[noreturn]] void fail(const std::string& name, size_t line, const std::string& what) {
  throw std::runtime_error(name + ":" + std::to_string(line) + ": " + what);
}
[[noreturn]] void fail(const std::string& name, const std::string& what) {
  throw std::runtime_error(name + ": " + what);
}

// A token quoted for an error message, cut short so that a megabyte of garbage does not become the message.
std::string quoted(std::string_view token) {
  constexpr size_t kMaxShown = 32;
  std::string out = "'";
  for (char c : token.substr(0, kMaxShown)) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7F) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02X", u);
      out += hex;
    } else {
      out += c;
    }
  }
  if (token.size() > kMaxShown) out += "...";
  return out + "'";
}

// The blanks that separate tokens: space and tab, and form feed and vertical tab, which C's isspace counts too.
bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v'; }

// Splits one line (without its terminator) into blank-separated tokens, one at a time.
class Tokens {
 public:
  explicit Tokens(std::string_view line) : rest_(line) {}
  bool next(std::string_view* token) {
    size_t i = 0;
    while (i < rest_.size() && is_blank(rest_[i])) ++i;
    if (i == rest_.size()) return false;
    size_t j = i;
    while (j < rest_.size() && !is_blank(rest_[j])) ++j;
    *token = rest_.substr(i, j - i);
    rest_ = rest_.substr(j);
    return true;
  }

 private:
  std::string_view rest_;
};

// The lines of a file's text, numbered from 1. '\n', '\r\n' and a lone '\r' all end a line, as in tinyobjloader,
// so line numbers agree with its own; a UTF-8 byte-order mark is not part of the first line's statement.
class Lines {
 public:
  explicit Lines(std::string_view text) : text_(text) {
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
  }
  // The next line, without its terminator; false at the end of the text.
  bool next(std::string_view* line) {
    if (pos_ >= text_.size()) return false;
    size_t end = pos_;
    while (end < text_.size() && text_[end] != '\n' && text_[end] != '\r') ++end;
    *line = text_.substr(pos_, end - pos_);
    pos_ = end;
    if (pos_ < text_.size()) {
      if (text_[pos_] == '\r' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '\n') ++pos_;
      ++pos_;
    }
    ++number_;
    return true;
  }
  size_t number() const { return number_; }  // of the line last returned
  size_t offset() const { return pos_; }      // bytes consumed so far

 private:
  std::string_view text_;
  size_t pos_ = 0;
  size_t number_ = 0;
};

// The statements of the OBJ format (Wavefront's "Object Files (.obj)" specification, version 3.0) that carry
// nothing a renderer of triangles uses, and tinyobjloader's own extensions `vw` (skin weights) and `t`
// (subdivision-surface tags). They are read and ignored. `v`, `vt`, `f`, `mtllib` and `usemtl` are read; any other
// statement is an error, so
// that a misspelt or unsupported line ("vv 1 2 3", "f1 2 3", "V 1 2 3") is never dropped in silence.
constexpr std::string_view kIgnoredStatements[] = {
    // vertex data other than positions and texture coordinates: normals, parameter-space vertices
    "vn", "vp",
    // free-form curve and surface attributes
    "cstype", "deg", "bmat", "step",
    // elements other than faces: points, lines, curves, surfaces
    "p", "l", "curv", "curv2", "surf",
    // free-form body statements and connectivity
    "parm", "trim", "hole", "scrv", "sp", "end", "con",
    // grouping
    "g", "s", "mg", "o",
    // display and render attributes
    "bevel", "c_interp", "d_interp", "lod", "shadow_obj", "trace_obj", "ctech", "stech",
    "maplib", "usemap",
    // general statements
    "call", "csh",
    // tinyobjloader's extensions
    "vw", "t",
};

bool is_ignored_statement(std::string_view command) {
  return std::find(std::begin(kIgnoredStatements), std::end(kIgnoredStatements), command) !=
         std::end(kIgnoredStatements);
}

// A whole-token float: from_chars, plus the leading '+' that OBJ writers sometimes emit.
enum class NumberStatus { ok, not_a_number, out_of_range };
NumberStatus parse_float(std::string_view token, float* out) {
  if (!token.empty() && token[0] == '+') token.remove_prefix(1);
  const char* end = token.data() + token.size();
  const auto result = std::from_chars(token.data(), end, *out);
  if (result.ec == std::errc::result_out_of_range && result.ptr == end && !token.empty()) {
    // Too large for a float is an error; too small is not: it reads as the nearest float (a denormal, or 0).
    double wide = 0;
    const auto as_double = std::from_chars(token.data(), end, wide);
    if (as_double.ec == std::errc() && std::fabs(wide) < 1.0) {
      *out = static_cast<float>(wide);
      return NumberStatus::ok;
    }
    if (as_double.ec == std::errc::result_out_of_range) {
      // Beyond a double too: an underflow when the exponent is negative.
      const size_t e = token.find_first_of("eE");
      if (e != std::string_view::npos && e + 1 < token.size() && token[e + 1] == '-') {
        *out = token[0] == '-' ? -0.0f : 0.0f;
        return NumberStatus::ok;
      }
    }
    return NumberStatus::out_of_range;
  }
  if (result.ec != std::errc() || result.ptr != end || token.empty()) return NumberStatus::not_a_number;
  return NumberStatus::ok;
}

// An OBJ index up to the next '/' (or the token's end): *consumed gets its length.
bool parse_index(std::string_view text, int64_t* out, size_t* consumed) {
  const size_t len = std::min(text.find('/'), text.size());
  std::string_view digits = text.substr(0, len);
  if (!digits.empty() && digits[0] == '+') digits.remove_prefix(1);
  const char* end = digits.data() + digits.size();
  const auto result = std::from_chars(digits.data(), end, *out);
  *consumed = len;
  return !digits.empty() && result.ec == std::errc() && result.ptr == end;
}

// What the check pass learns about the file.
struct CheckResult {
  std::vector<glm::vec3> positions;
  std::vector<uint32_t> face_corners;  // vertices of each face, in file order
  uint64_t triangles = 0;
  std::string parser_text;             // what tinyobjloader reads: one line per input line (see the top)
  // Appearance, all read by this pass too (tinyobjloader sees none of it):
  std::vector<glm::vec2> texcoords;    // `vt u [v [w]]`, as in the file
  std::vector<uint32_t> corner_texcoord;  // per face corner: 1-based absolute vt index, 0 = none; empty if none has one
  std::vector<ObjMaterialUse> material_uses;  // `usemtl` names in order of first use, with that line
  std::vector<int32_t> face_material;  // per face: index into material_uses, -1 before any usemtl; empty: no usemtl
  std::vector<ObjLibraryRef> libraries;       // `mtllib` files, in order
};

// A whole-line name (usemtl, and newmtl as tinyobjloader reads it): the line past its keyword, blanks trimmed.
std::string rest_of_line(std::string_view line, std::string_view keyword) {
  size_t i = line.find(keyword) + keyword.size();
  while (i < line.size() && is_blank(line[i])) ++i;
  size_t j = line.size();
  while (j > i && is_blank(line[j - 1])) --j;
  return std::string(line.substr(i, j - i));
}

// Pass 1: every line that tinyobjloader would read as a vertex or a face, checked; positions parsed.
CheckResult check_obj(std::string_view text, const std::string& name, const LoadProgress& progress,
                      double progress_begin) {
  CheckResult r;
  size_t next_report = kProgressChunkBytes;
  int64_t max_index = 0;          // the largest positive vertex index seen, and where: checked at the end,
  size_t max_index_line = 0;      // because OBJ allows a face to name a vertex defined further down
  int64_t max_texcoord = 0;       // the same for texture coordinates
  size_t max_texcoord_line = 0;
  uint64_t corner_count = 0;      // face corners so far
  bool any_texcoord = false;      // whether some corner so far has a texture-coordinate index
  int32_t current_material = -1;  // the last usemtl's index in material_uses
  r.parser_text.reserve(text.size() / 2);
  Lines lines(text);
  std::string_view line;
  while (lines.next(&line)) {
    const size_t line_no = lines.number();
    const size_t pos = lines.offset();
    if (progress && pos >= next_report) {
      progress(progress_begin + (kCheckEnd - progress_begin) * double(pos) / double(text.size()));
      next_report = pos + kProgressChunkBytes;
    }

    // A text file has no control characters besides tab, form feed and vertical tab.
    for (size_t i = 0; i < line.size(); ++i) {
      const auto u = static_cast<unsigned char>(line[i]);
      if ((u < 0x20 && u != '\t' && u != '\f' && u != '\v') || u == 0x7F) {
        char what[96];
        std::snprintf(what, sizeof what, "binary data (byte 0x%02X in column %zu): not a text OBJ file", u, i + 1);
        fail(name, line_no, what);
      }
    }

    Tokens tokens(line);
    std::string_view command;
    if (!tokens.next(&command) || command[0] == '#') {  // blank, or a comment
      r.parser_text += '\n';
      continue;
    }
    // The format's line continuation: the next line would be read as a statement of its own.
    size_t last = line.size() - 1;  // the line has a token, so it has a non-blank character
    while (is_blank(line[last])) --last;
    if (line[last] == '\\') fail(name, line_no, "line continuation ('\\' at the end of a line) is not supported");

    if (command == "v") {
      glm::vec3 p;
      for (int axis = 0; axis < 3; ++axis) {
        std::string_view token;
        if (!tokens.next(&token)) {
          fail(name, line_no, "vertex has " + std::to_string(axis) + " coordinate" + (axis == 1 ? "" : "s") +
                                  " (needs x y z)");
        }
        float value = 0;
        const NumberStatus status = parse_float(token, &value);
        if (status == NumberStatus::out_of_range) {
          fail(name, line_no, "vertex coordinate " + quoted(token) + " is out of range for a 32-bit float");
        }
        if (status == NumberStatus::not_a_number) {
          fail(name, line_no, "vertex coordinate " + quoted(token) + " is not a number");
        }
        if (!std::isfinite(value)) {
          fail(name, line_no, "vertex coordinate " + quoted(token) + " is not a finite number");
        }
        p[axis] = value;
      }
      if (r.positions.size() >= kMaxVertices) {
        fail(name, line_no, "more than " + std::to_string(kMaxVertices) + " vertices");
      }
      r.positions.push_back(p);
      r.parser_text += "v \n";  // tinyobjloader reads a missing coordinate as 0
    } else if (command == "vt") {
      glm::vec2 uv{0.0f, 0.0f};  // v may be left out (1D textures): 0
      std::string_view token;
      for (int axis = 0; axis < 2 && tokens.next(&token); ++axis) {
        float value = 0;
        if (parse_float(token, &value) != NumberStatus::ok || !std::isfinite(value)) {
          fail(name, line_no, "texture coordinate " + quoted(token) + " is not a finite number");
        }
        uv[axis] = value;
      }
      if (r.texcoords.size() >= kMaxVertices) {
        fail(name, line_no, "more than " + std::to_string(kMaxVertices) + " texture coordinates");
      }
      r.texcoords.push_back(uv);
      r.parser_text += '\n';
    } else if (command == "usemtl") {
      const std::string material = rest_of_line(line, "usemtl");
      int32_t use = -1;
      for (size_t i = 0; i < r.material_uses.size() && use < 0; ++i) {
        if (r.material_uses[i].name == material) use = int32_t(i);
      }
      if (use < 0) {
        use = int32_t(r.material_uses.size());
        r.material_uses.push_back({material, line_no});
      }
      if (current_material < 0) {
        r.face_material.assign(r.face_corners.size(), -1);  // the first usemtl: the faces so far have none
      }
      current_material = use;
      r.parser_text += '\n';
    } else if (command == "mtllib") {
      std::string_view token;
      while (tokens.next(&token)) r.libraries.push_back({std::string(token), line_no});
      r.parser_text += '\n';
    } else if (command == "f") {
      uint64_t corners = 0;
      std::string_view token;
      r.parser_text += 'f';
      while (tokens.next(&token)) {
        ++corners;
        int64_t index = 0;
        size_t used = 0;
        if (!parse_index(token, &index, &used)) {
          fail(name, line_no, "face vertex " + quoted(token) + " is not a vertex index");
        }
        r.parser_text += ' ';
        r.parser_text.append(token.substr(0, used));
        if (index == 0) fail(name, line_no, "face vertex index 0 (OBJ indices start at 1)");
        if (index < 0) {
          const auto defined = int64_t(r.positions.size());
          if (defined + index < 0) {
            fail(name, line_no, "relative vertex index " + std::to_string(index) + " reaches before the first vertex (" +
                                    std::to_string(defined) + " defined so far)");
          }
        } else if (index > max_index) {
          max_index = index;
          max_index_line = line_no;
        }
        // The optional texture-coordinate and normal indices (the normal's is ignored): 0 and junk are errors.
        std::string_view rest = token.substr(used);
        uint32_t texcoord = 0;
        for (int slot = 1; !rest.empty(); ++slot) {
          rest.remove_prefix(1);  // the '/'
          if (rest.empty() || rest[0] == '/') continue;
          int64_t other = 0;
          if (!parse_index(rest, &other, &used) || other == 0) {
            fail(name, line_no, "face vertex " + quoted(token) + " has a bad texture-coordinate or normal index");
          }
          if (slot == 1) {
            const auto defined = int64_t(r.texcoords.size());
            const int64_t absolute = other < 0 ? defined + other + 1 : other;
            if (absolute < 1) {
              fail(name, line_no, "relative texture-coordinate index " + std::to_string(other) +
                                      " reaches before the first one (" + std::to_string(defined) + " defined so far)");
            }
            if (absolute > int64_t(kMaxVertices)) {
              fail(name, line_no, "face vertex " + quoted(token) + " has a bad texture-coordinate or normal index");
            }
            if (absolute > max_texcoord) {
              max_texcoord = absolute;
              max_texcoord_line = line_no;
            }
            texcoord = uint32_t(absolute);
          }
          rest = rest.substr(used);
        }
        if (texcoord != 0 && !any_texcoord) {  // the first corner with one: the corners so far have none
          r.corner_texcoord.assign(corner_count, 0);
          any_texcoord = true;
        }
        if (any_texcoord) r.corner_texcoord.push_back(texcoord);
        ++corner_count;
      }
      if (corners < 3) {
        fail(name, line_no, "face has " + std::to_string(corners) + (corners == 1 ? " vertex" : " vertices") +
                                " (needs at least 3)");
      }
      if (corners > UINT32_MAX) fail(name, line_no, "face has more than " + std::to_string(UINT32_MAX) + " vertices");
      r.face_corners.push_back(uint32_t(corners));
      if (!r.material_uses.empty()) r.face_material.push_back(current_material);
      r.triangles += corners - 2;
      if (r.triangles > kMaxTriangles) {
        fail(name, line_no, "more than " + std::to_string(kMaxTriangles) + " triangles (32-bit triangle IDs)");
      }
      r.parser_text += '\n';
    } else if (is_ignored_statement(command)) {
      r.parser_text += '\n';
    } else {
      fail(name, line_no, "unknown OBJ statement " + quoted(command));
    }
  }
  if (max_index > int64_t(r.positions.size())) {
    fail(name, max_index_line, "face refers to vertex " + std::to_string(max_index) + ", but the file has only " +
                                   std::to_string(r.positions.size()) + " vertices");
  }
  if (max_texcoord > int64_t(r.texcoords.size())) {
    fail(name, max_texcoord_line, "face refers to texture coordinate " + std::to_string(max_texcoord) +
                                      ", but the file has only " + std::to_string(r.texcoords.size()));
  }
  if (!r.corner_texcoord.empty()) r.corner_texcoord.resize(corner_count, 0);
  if (r.face_corners.empty()) {
    fail(name, r.positions.empty() ? "no vertices and no faces: not an OBJ mesh"
                                   : "no faces (" + std::to_string(r.positions.size()) + " vertices): nothing to render");
  }
  return r;
}

// A read-only stream over text in memory that reports how far the reader has got, one chunk at a time.
class ProgressStreambuf : public std::streambuf {
 public:
  ProgressStreambuf(std::string_view text, const LoadProgress& progress, double begin, double end)
      : text_(text), progress_(progress), begin_(begin), end_(end) {}

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    if (next_ == text_.size()) return traits_type::eof();
    const size_t chunk = std::min(kProgressChunkBytes, text_.size() - next_);
    // setg wants char*; the buffer is never written through (no putback of a different character).
    char* first = const_cast<char*>(text_.data() + next_);
    setg(first, first, first + chunk);
    next_ += chunk;
    if (progress_) progress_(begin_ + (end_ - begin_) * double(next_) / double(text_.size()));
    return traits_type::to_int_type(*gptr());
  }

 private:
  std::string_view text_;
  const LoadProgress& progress_;
  double begin_, end_;
  size_t next_ = 0;
};

// The last line of tinyobjloader's multi-line error text, which carries its line number.
std::string first_line(const std::string& text) {
  std::string out = text.substr(0, text.find('\n'));
  return out.empty() ? std::string("unknown error") : out;
}

std::string base_name(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The line of the file's face number `face` (0-based), for a warning: found again rather than kept for every face.
size_t line_of_face(std::string_view text, size_t face) {
  Lines lines(text);
  std::string_view line, command;
  size_t seen = 0;
  while (lines.next(&line)) {
    Tokens tokens(line);
    if (tokens.next(&command) && command == "f" && seen++ == face) return lines.number();
  }
  return 0;
}

// `obj_path`: the file, whose material libraries are read; empty for text in memory, which opens no other file.
Mesh parse_checked(std::string_view text, const std::string& name, const LoadProgress& progress,
                   const LoadWarning& warn, double progress_begin, const std::string& obj_path) {
  CheckResult checked = check_obj(text, name, progress, progress_begin);

  // Pass 2: tinyobjloader, un-triangulated, without material files (a mesh file must not make us open others).
  tinyobj::attrib_t attrib;
  std::vector<tinyobj::shape_t> shapes;
  std::vector<tinyobj::material_t> materials;
  std::string parser_warnings, err;  // ignored: what it warns about (bad indices, short faces) is rejected above
  bool ok = false;
  {
    ProgressStreambuf buffer(checked.parser_text, progress, kCheckEnd, kParseEnd);
    std::istream stream(&buffer);
    ok = tinyobj::LoadObj(&attrib, &shapes, &materials, &parser_warnings, &err, &stream, /*readMatFn=*/nullptr,
                          /*triangulate=*/false);
  }
  if (!ok) fail(name, "tinyobjloader: " + first_line(err));
  // Faces and vertices as counted by the check pass; a mismatch would be a bug here, not in the file.
  if (attrib.vertices.size() != 3 * checked.positions.size()) {
    fail(name, "internal error: tinyobjloader read " + std::to_string(attrib.vertices.size() / 3) +
                   " vertices, the check pass " + std::to_string(checked.positions.size()));
  }
  attrib = {};  // the positions come from the check pass; free tinyobjloader's copy before assembling

  Mesh mesh;
  mesh.name = name;
  mesh.positions = std::move(checked.positions);
  mesh.indices.reserve(3 * checked.triangles);
  // tinyobjloader counts a face's vertices in an unsigned char (a 300-gon reads as 44): the check pass's counts
  // are the true ones, and tinyobjloader's must agree with them modulo 256.
  size_t faces = 0;
  const auto vertex_count = int64_t(mesh.positions.size());
  std::vector<glm::vec3> polygon;  // one face's corner positions
  std::vector<uint32_t> local;     // its triangles, as corner numbers
  // Appearance per triangle: the corners' texture coordinates (OBJ's v runs up the image, Mesh's down) and the
  // material. Faces before any usemtl, or in text without its libraries, use a white material of their own.
  const bool has_uvs = !checked.corner_texcoord.empty();
  const bool has_materials = !checked.material_uses.empty() && !obj_path.empty();
  if (has_uvs) mesh.corner_uvs.reserve(3 * checked.triangles);
  if (has_materials) mesh.triangle_materials.reserve(checked.triangles);
  const auto plain_material = int32_t(checked.material_uses.size());  // appended below if a face uses it
  bool plain_used = false;
  uint64_t corner_base = 0;  // the face's first corner among all the file's face corners
  const auto add_appearance = [&](size_t face, const uint32_t* face_corners_used, size_t count) {
    if (has_uvs) {
      for (size_t i = 0; i < count; ++i) {
        const uint32_t vt = checked.corner_texcoord[corner_base + face_corners_used[i]];
        const glm::vec2 uv = vt == 0 ? glm::vec2(0.0f) : checked.texcoords[vt - 1];
        mesh.corner_uvs.push_back(vt == 0 ? uv : glm::vec2(uv.x, 1.0f - uv.y));
      }
    }
    if (has_materials) {
      int32_t m = checked.face_material[face];
      if (m < 0) {
        m = plain_material;
        plain_used = true;
      }
      mesh.triangle_materials.insert(mesh.triangle_materials.end(), count / 3, uint32_t(m));
    }
  };
  static constexpr uint32_t kTriangleCorners[3] = {0, 1, 2};
  size_t fanned = 0, first_fanned = 0, first_fanned_corners = 0, first_fanned_not_convex = 0;
  for (const tinyobj::shape_t& shape : shapes) {
    const std::vector<tinyobj::index_t>& corners = shape.mesh.indices;
    size_t first = 0;
    for (const unsigned char count_mod_256 : shape.mesh.num_face_vertices) {
      const size_t n = faces < checked.face_corners.size() ? checked.face_corners[faces] : 0;
      if (n < 3 || (n & 0xFF) != count_mod_256 || first + n > corners.size()) {
        fail(name, "internal error: tinyobjloader's face " + std::to_string(faces) + " differs from the check pass's");
      }
      for (size_t k = 0; k < n; ++k) {
        const int v = corners[first + k].vertex_index;
        if (v < 0 || v >= vertex_count) fail(name, "internal error: vertex index " + std::to_string(v) + " after checking");
      }
      if (n == 3) {
        for (size_t k = 0; k < 3; ++k) mesh.indices.push_back(uint32_t(corners[first + k].vertex_index));
        add_appearance(faces, kTriangleCorners, 3);
      } else {
        polygon.resize(n);
        for (size_t k = 0; k < n; ++k) polygon[k] = mesh.positions[size_t(corners[first + k].vertex_index)];
        local.clear();
        const PolygonTriangles how = triangulate_polygon(polygon.data(), uint32_t(n), &local);
        if (local.size() != 3 * (n - 2)) {
          fail(name, "internal error: face " + std::to_string(faces) + " of " + std::to_string(n) +
                         " corners became " + std::to_string(local.size() / 3) + " triangles");
        }
        for (const uint32_t k : local) mesh.indices.push_back(uint32_t(corners[first + k].vertex_index));
        add_appearance(faces, local.data(), local.size());
        if (how.method == PolygonMethod::fan_too_large && fanned++ == 0) {
          first_fanned = faces;
          first_fanned_corners = n;
          first_fanned_not_convex = how.not_convex_corners;
        }
      }
      first += n;
      corner_base += n;
      ++faces;
    }
    if (first != corners.size()) fail(name, "internal error: tinyobjloader's face corners differ from the check pass's");
  }
  if (faces != checked.face_corners.size()) {
    fail(name, "internal error: tinyobjloader read " + std::to_string(faces) + " faces, the check pass " +
                   std::to_string(checked.face_corners.size()));
  }
  if (fanned > 0 && warn) {
    std::string what = "concave polygon of " + std::to_string(first_fanned_corners) + " corners, " +
                       std::to_string(first_fanned_not_convex) +
                       " of them not convex, fanned instead of ear-clipped (past the ear-clipping work bound, " +
                       std::to_string(kMaxEarClipWork) + "): it may cover its notches";
    if (fanned > 1) what += "; " + std::to_string(fanned - 1) + " more such polygon" + (fanned > 2 ? "s" : "");
    warn(name + ":" + std::to_string(line_of_face(text, first_fanned)) + ": " + what);
  }
  if (has_materials) {
    formats::load_obj_materials(obj_path, checked.libraries, checked.material_uses, &mesh, warn);
    if (plain_used) mesh.materials.push_back(Material{});
  } else if (!obj_path.empty() && !checked.libraries.empty()) {
    formats::load_obj_materials(obj_path, checked.libraries, {}, &mesh, warn);  // warns about missing libraries
  }
  if (progress) progress(1.0);
  return mesh;
}

}  // namespace

Mesh parse_obj(std::string_view text, const std::string& name, const LoadProgress& progress,
               const LoadWarning& warn) {
  try {
    return parse_checked(text, name, progress, warn, kReadShare, std::string());
  } catch (const std::bad_alloc&) {
    fail(name, "out of host memory while loading (" + std::to_string(text.size()) + " bytes of text)");
  }
}

Mesh load_obj(const std::string& path, const LoadProgress& progress, const LoadWarning& warn) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    const int error = errno;
    fail(path, error == ENOENT ? std::string("no such file") : std::string("cannot open: ") + std::strerror(error));
  }
  if (S_ISDIR(info.st_mode)) fail(path, "is a directory, not an OBJ file");
  if (!S_ISREG(info.st_mode)) fail(path, "not a regular file");

  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) fail(path, std::string("cannot open: ") + std::strerror(errno));
  std::string text;
  try {
    text.resize(size_t(info.st_size));
  } catch (const std::bad_alloc&) {
    fail(path, "out of host memory reading " + std::to_string(info.st_size) + " bytes");
  }
  size_t got = 0;
  while (got < text.size()) {
    const size_t want = std::min(kProgressChunkBytes * 8, text.size() - got);
    const size_t n = std::fread(&text[got], 1, want, file.get());
    if (n == 0) {
      if (std::ferror(file.get())) fail(path, std::string("read error: ") + std::strerror(errno));
      break;  // the file shrank while we read it: parse what is there
    }
    got += n;
    if (progress) progress(kReadShare * double(got) / double(text.size()));
  }
  text.resize(got);
  try {
    Mesh mesh = parse_checked(text, path, progress, warn, kReadShare, path);
    mesh.name = base_name(path);
    return mesh;
  } catch (const std::bad_alloc&) {
    fail(path, "out of host memory while loading (" + std::to_string(got) + " bytes of text)");
  }
}

void write_obj(const std::string& path, const std::vector<glm::vec3>& positions,
               const std::vector<uint32_t>& indices, const std::string& comment, OutputBatch* batch) {
  if (indices.size() % 3 != 0) fail(path, "internal error: index count is not a multiple of 3");
  const auto body = [&](std::FILE* file) {
    // Lines are formatted into a buffer and written in large blocks: a million triangles in well under a second.
    std::string buffer;
    constexpr size_t kFlushBytes = size_t(1) << 22;
    buffer.reserve(kFlushBytes + 256);
    bool write_ok = true;
    const auto flush = [&] {
      if (!buffer.empty() && std::fwrite(buffer.data(), 1, buffer.size(), file) != buffer.size()) write_ok = false;
      buffer.clear();
    };
    if (!comment.empty()) buffer += "# " + comment.substr(0, comment.find('\n')) + "\n";
    buffer += "# " + std::to_string(positions.size()) + " vertices, " + std::to_string(indices.size() / 3) +
              " triangles\n";
    char line[128];
    for (const glm::vec3& p : positions) {
      char* out = line;
      *out++ = 'v';
      for (int axis = 0; axis < 3; ++axis) {
        *out++ = ' ';
        out = std::to_chars(out, line + sizeof line, p[axis]).ptr;  // shortest text that reads back exactly
      }
      *out++ = '\n';
      buffer.append(line, size_t(out - line));
      if (buffer.size() >= kFlushBytes) flush();
    }
    for (size_t i = 0; i < indices.size(); i += 3) {
      char* out = line;
      *out++ = 'f';
      for (size_t k = 0; k < 3; ++k) {
        *out++ = ' ';
        out = std::to_chars(out, line + sizeof line, uint64_t(indices[i + k]) + 1).ptr;
      }
      *out++ = '\n';
      buffer.append(line, size_t(out - line));
      if (buffer.size() >= kFlushBytes) flush();
    }
    flush();
    return write_ok;
  };
  const std::string error = batch ? batch->add(path, body) : write_file_atomically(path, body);
  if (!error.empty()) fail(path, "cannot write: " + error);
}

}  // namespace slabcast
