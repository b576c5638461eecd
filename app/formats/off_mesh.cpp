#include "app/formats/off_mesh.h"

#include "app/formats/mesh_file.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <new>
#include <vector>

namespace slabcast::formats {
namespace {

constexpr double kReadEnd = 0.10;
constexpr uint64_t kMaxVertices = 0xFFFFFFFFull;

// The text's lines past comments and blank lines, each split into tokens, numbered from 1.
class OffLines {
 public:
  explicit OffLines(std::string_view text) : text_(text) {}
  // The tokens of the next line that has any (a '#' ends a line's content); false at the end of the text.
  bool next(std::vector<std::string_view>* tokens) {
    tokens->clear();
    while (tokens->empty()) {
      if (pos_ >= text_.size()) return false;
      size_t eol = text_.find('\n', pos_);
      if (eol == std::string_view::npos) eol = text_.size();
      std::string_view line = text_.substr(pos_, eol - pos_);
      pos_ = eol + 1;
      ++line_;
      line = line.substr(0, line.find('#'));
      size_t i = 0;
      while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
        size_t j = i;
        while (j < line.size() && line[j] != ' ' && line[j] != '\t' && line[j] != '\r') ++j;
        if (j > i) tokens->push_back(line.substr(i, j - i));
        i = j;
      }
    }
    return true;
  }
  size_t line() const { return line_; }
  size_t offset() const { return pos_; }

 private:
  std::string_view text_;
  size_t pos_ = 0;
  size_t line_ = 0;
};

std::string quoted(std::string_view token) { return "'" + std::string(token.substr(0, 32)) + "'"; }

bool parse_uint(std::string_view token, uint64_t* out) {
  const auto r = std::from_chars(token.data(), token.data() + token.size(), *out);
  return r.ec == std::errc() && r.ptr == token.data() + token.size();
}

bool parse_real(std::string_view token, float* out) {
  if (!token.empty() && token[0] == '+') token.remove_prefix(1);
  const auto r = std::from_chars(token.data(), token.data() + token.size(), *out);
  return r.ec == std::errc() && r.ptr == token.data() + token.size() && !token.empty();
}

bool is_integer_text(std::string_view token) { return token.find_first_of(".eE") == std::string_view::npos; }

Mesh parse(std::string_view text, const std::string& name, const LoadProgress& progress, const LoadWarning& warn) {
  if (text.empty()) fail(name, "empty file (0 bytes)");
  if (text.find('\0') != std::string_view::npos) fail(name, "binary data: not a text OFF file");
  OffLines lines(text);
  std::vector<std::string_view> t;
  if (!lines.next(&t)) fail(name, "no OFF header and no counts: not an OFF mesh");
  bool colors = false, normals = false;
  if (t[0] == "OFF" || t[0] == "COFF" || t[0] == "NOFF" || t[0] == "CNOFF") {
    colors = t[0][0] == 'C';
    normals = t[0].find('N') != std::string_view::npos;
    t.erase(t.begin());  // the counts may follow on the same line
    if (t.empty() && !lines.next(&t)) fail(name, lines.line(), "truncated: no vertex, face and edge counts");
  } else if (t[0].size() >= 3 && t[0].substr(t[0].size() - 3) == "OFF") {
    fail(name, lines.line(), "OFF variant " + quoted(t[0]) + " is not supported (OFF, COFF, NOFF and CNOFF are)");
  }
  uint64_t vertices = 0, faces = 0, edges = 0;
  if (t.size() < 2 || !parse_uint(t[0], &vertices) || !parse_uint(t[1], &faces) ||
      (t.size() > 2 && !parse_uint(t[2], &edges))) {
    fail(name, lines.line(), "expected the counts 'VERTICES FACES EDGES'");
  }
  if (vertices > kMaxVertices) fail(name, lines.line(), "more than " + std::to_string(kMaxVertices) + " vertices");
  if (faces == 0) fail(name, lines.line(), "no faces (" + std::to_string(vertices) + " vertices): nothing to render");

  Mesh mesh;
  mesh.name = name;
  // Each vertex line is at least 6 bytes ("0 0 0\n"): a count the text cannot hold is not trusted with memory.
  mesh.positions.reserve(size_t(std::min<uint64_t>(vertices, text.size() / 6 + 1)));
  if (colors) mesh.vertex_colors.reserve(mesh.positions.capacity());
  const size_t per_vertex = 3 + (normals ? 3 : 0);
  const double total = double(text.size());
  size_t next_report = size_t(1) << 20;
  const auto report = [&] {
    if (progress && lines.offset() >= next_report) {
      progress(kReadEnd + (1.0 - kReadEnd) * double(lines.offset()) / total);
      next_report = lines.offset() + (size_t(1) << 20);
    }
  };
  for (uint64_t v = 0; v < vertices; ++v) {
    if (!lines.next(&t)) {
      fail(name, "truncated: the file ends at vertex " + std::to_string(v) + " of " + std::to_string(vertices));
    }
    report();
    if (t.size() < per_vertex) {
      fail(name, lines.line(), "vertex has " + std::to_string(t.size()) + " values (needs " +
                                   std::to_string(per_vertex) + (normals ? ": x y z nx ny nz)" : ": x y z)"));
    }
    glm::vec3 p;
    for (int axis = 0; axis < 3; ++axis) {
      if (!parse_real(t[size_t(axis)], &p[axis]) || !std::isfinite(p[axis])) {
        fail(name, lines.line(), "vertex coordinate " + quoted(t[size_t(axis)]) + " is not a finite number");
      }
    }
    mesh.positions.push_back(p);
    if (colors) {
      const size_t n = t.size() - per_vertex;
      if (n != 3 && n != 4) {
        fail(name, lines.line(), "COFF vertex has " + std::to_string(n) + " colour values (needs 3 or 4)");
      }
      uint8_t c[4] = {255, 255, 255, 255};
      const bool integers = is_integer_text(t[per_vertex]);  // 0..255, or floats 0..1: the first value decides
      for (size_t k = 0; k < n; ++k) {
        float value = 0;
        const bool ok = parse_real(t[per_vertex + k], &value);
        const float limit = integers ? 255.0f : 1.0f;
        if (!ok || !(value >= 0.0f && value <= limit)) {
          fail(name, lines.line(), "colour value " + quoted(t[per_vertex + k]) + " is not a number in 0.." +
                                       (integers ? "255" : "1"));
        }
        c[k] = uint8_t(std::lround(integers ? value : value * 255.0f));
      }
      mesh.vertex_colors.push_back({c[0], c[1], c[2], c[3]});
    }
  }
  FaceAssembler assembler(&mesh, name);
  std::vector<uint32_t> corners;
  for (uint64_t f = 0; f < faces; ++f) {
    if (!lines.next(&t)) {
      fail(name, "truncated: the file ends at face " + std::to_string(f) + " of " + std::to_string(faces));
    }
    report();
    uint64_t n = 0;
    if (!parse_uint(t[0], &n)) fail(name, lines.line(), "face corner count " + quoted(t[0]) + " is not a number");
    if (n < 3) {
      fail(name, lines.line(), "face has " + std::to_string(n) + (n == 1 ? " corner" : " corners") +
                                   " (needs at least 3)");
    }
    if (t.size() - 1 < n) {
      fail(name, lines.line(), "face says " + std::to_string(n) + " corners but lists " + std::to_string(t.size() - 1));
    }
    corners.resize(size_t(n));
    for (size_t k = 0; k < n; ++k) {
      uint64_t index = 0;
      if (!parse_uint(t[k + 1], &index)) {
        fail(name, lines.line(), "face vertex " + quoted(t[k + 1]) + " is not a vertex index");
      }
      if (index >= vertices) {
        fail(name, lines.line(), "face refers to vertex " + std::to_string(index) + ", but the file has only " +
                                     std::to_string(vertices) + " vertices (0-based)");
      }
      corners[k] = uint32_t(index);
    }
    assembler.add(corners.data(), corners.size(), size_t(f));
  }
  assembler.finish(warn);
  if (progress) progress(1.0);
  return mesh;
}

}  // namespace

Mesh parse_off(std::string_view text, const std::string& name, const LoadProgress& progress,
               const LoadWarning& warn) {
  try {
    return parse(text, name, progress, warn);
  } catch (const std::bad_alloc&) {
    fail(name, "out of host memory while loading (" + std::to_string(text.size()) + " bytes of text)");
  }
}

Mesh load_off(const std::string& path, const LoadProgress& progress, const LoadWarning& warn) {
  const std::string text = read_mesh_file(path, progress, kReadEnd);
  Mesh mesh = parse_off(text, path, progress, warn);
  mesh.name = base_name(path);
  return mesh;
}

}  // namespace slabcast::formats
