#include "app/formats/ply_layout.h"

#include "app/formats/mesh_file.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

namespace slabcast::formats {
namespace {

struct TypeInfo {
  const char* name;
  int bytes;
  bool is_float, is_signed;
};
// The PLY types, under both their classic and their sized names.
constexpr TypeInfo kTypes[] = {
    {"char", 1, false, true},    {"int8", 1, false, true},     {"uchar", 1, false, false}, {"uint8", 1, false, false},
    {"short", 2, false, true},   {"int16", 2, false, true},    {"ushort", 2, false, false}, {"uint16", 2, false, false},
    {"int", 4, false, true},     {"int32", 4, false, true},    {"uint", 4, false, false},  {"uint32", 4, false, false},
    {"float", 4, true, true},    {"float32", 4, true, true},   {"double", 8, true, true},  {"float64", 8, true, true},
};

const TypeInfo* find_type(std::string_view name) {
  for (const TypeInfo& t : kTypes) {
    if (name == t.name) return &t;
  }
  return nullptr;
}

std::vector<std::string_view> split_words(std::string_view line) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
    if (j > i) words.push_back(line.substr(i, j - i));
    i = j;
  }
  return words;
}

// ---- the body: binary ----

uint64_t read_count(const unsigned char* p, int bytes, bool is_signed, bool big_endian, bool* negative) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= uint64_t(p[big_endian ? i : bytes - 1 - i]) << (8 * (bytes - 1 - i));
  *negative = is_signed && (v >> (8 * bytes - 1)) != 0;
  return v;
}

void walk_binary(std::string_view bytes, const PlyLayout& layout, const std::string& name) {
  const bool big = layout.encoding == PlyEncoding::binary_big_endian;
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  uint64_t pos = layout.body_offset;
  const uint64_t size = bytes.size();
  for (const PlyElement& e : layout.elements) {
    bool has_list = false;
    uint64_t stride = 0;
    for (const PlyProperty& p : e.properties) {
      has_list |= p.is_list;
      stride += uint64_t(p.type_bytes);
    }
    const auto truncated = [&](uint64_t instance) {
      fail(name, "truncated: the file ends in " + e.name + " " + std::to_string(instance) + " of " +
                     std::to_string(e.count) + " (" + std::to_string(size) + " bytes)");
    };
    if (!has_list) {  // fixed size: one check, so that a huge count in a short file costs nothing
      if (stride != 0 && e.count > (size - pos) / stride) truncated((size - pos) / stride);
      pos += e.count * stride;
      continue;
    }
    for (uint64_t i = 0; i < e.count; ++i) {
      for (const PlyProperty& p : e.properties) {
        if (!p.is_list) {
          if (size - pos < uint64_t(p.type_bytes)) truncated(i);
          pos += uint64_t(p.type_bytes);
          continue;
        }
        if (size - pos < uint64_t(p.count_bytes)) truncated(i);
        bool negative = false;
        const uint64_t n = read_count(data + pos, p.count_bytes, p.count_signed, big, &negative);
        if (negative) fail(name, e.name + " " + std::to_string(i) + ": list '" + p.name + "' has a negative count");
        pos += uint64_t(p.count_bytes);
        if (n > (size - pos) / uint64_t(p.type_bytes)) truncated(i);
        pos += n * uint64_t(p.type_bytes);
      }
    }
  }
}

// ---- the body: ASCII ----

class AsciiTokens {
 public:
  AsciiTokens(std::string_view text, size_t line) : text_(text), line_(line) {}
  bool next(std::string_view* token) {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '\n') {
        ++line_;
      } else if (c != ' ' && c != '\t' && c != '\r') {
        break;
      }
      ++pos_;
    }
    if (pos_ == text_.size()) return false;
    const size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != ' ' && text_[pos_] != '\t' && text_[pos_] != '\r' &&
           text_[pos_] != '\n') {
      ++pos_;
    }
    *token = text_.substr(start, pos_ - start);
    return true;
  }
  size_t line() const { return line_; }

 private:
  std::string_view text_;
  size_t pos_ = 0;
  size_t line_;
};

bool is_number(std::string_view token, bool is_float, bool is_signed) {
  const char* end = token.data() + token.size();
  if (is_float) {
    double v = 0;
    const auto r = std::from_chars(token.data(), end, v);
    return r.ec == std::errc() && r.ptr == end;  // non-finite values are caught on the loaded positions
  }
  if (!is_signed && !token.empty() && token[0] == '-') return false;
  int64_t v = 0;
  const auto r = std::from_chars(token.data(), end, v);
  return r.ec == std::errc() && r.ptr == end;
}

void walk_ascii(std::string_view bytes, const PlyLayout& layout, const std::string& name) {
  AsciiTokens tokens(bytes.substr(layout.body_offset), layout.header_lines + 1);
  std::string_view token;
  for (const PlyElement& e : layout.elements) {
    for (uint64_t i = 0; i < e.count; ++i) {
      const auto value = [&](const char* what, bool is_float, bool is_signed) {
        if (!tokens.next(&token)) {
          fail(name, "truncated: the file ends in " + e.name + " " + std::to_string(i) + " of " +
                         std::to_string(e.count));
        }
        if (!is_number(token, is_float, is_signed)) {
          fail(name, tokens.line(), e.name + " " + std::to_string(i) + ": " + what + " '" +
                                        std::string(token.substr(0, 32)) + "' is not " +
                                        (is_float ? "a number" : is_signed ? "an integer" : "a non-negative integer"));
        }
      };
      for (const PlyProperty& p : e.properties) {
        if (!p.is_list) {
          value(p.name.c_str(), p.is_float, p.is_signed);
          continue;
        }
        value("list count", false, false);
        uint64_t n = 0;
        std::from_chars(token.data(), token.data() + token.size(), n);
        for (uint64_t k = 0; k < n; ++k) value(p.name.c_str(), p.is_float, p.is_signed);
      }
    }
  }
}

}  // namespace

PlyLayout check_ply(std::string_view bytes, const std::string& name) {
  PlyLayout layout;
  size_t pos = 0;
  size_t line_no = 0;
  bool ended = false, have_format = false;
  while (pos < bytes.size() && !ended) {
    size_t eol = bytes.find('\n', pos);
    if (eol == std::string_view::npos) eol = bytes.size();
    std::string_view line = bytes.substr(pos, eol - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    pos = eol + 1;
    ++line_no;
    const std::vector<std::string_view> w = split_words(line);
    if (line_no == 1) {
      if (w.size() != 1 || w[0] != "ply") fail(name, 1, "not a PLY file (the first line is not 'ply')");
      continue;
    }
    if (w.empty() || w[0] == "comment" || w[0] == "obj_info") continue;
    if (w[0] == "end_header") {
      ended = true;
    } else if (w[0] == "format") {
      if (w.size() != 3 || w[2] != "1.0") fail(name, line_no, "format line is not 'format ENCODING 1.0'");
      if (w[1] == "ascii") {
        layout.encoding = PlyEncoding::ascii;
      } else if (w[1] == "binary_little_endian") {
        layout.encoding = PlyEncoding::binary_little_endian;
      } else if (w[1] == "binary_big_endian") {
        layout.encoding = PlyEncoding::binary_big_endian;
      } else {
        fail(name, line_no, "unknown PLY encoding '" + std::string(w[1].substr(0, 32)) + "'");
      }
      have_format = true;
    } else if (w[0] == "element") {
      uint64_t count = 0;
      if (w.size() != 3 || std::from_chars(w[2].data(), w[2].data() + w[2].size(), count).ptr != w[2].data() + w[2].size()) {
        fail(name, line_no, "element line is not 'element NAME COUNT'");
      }
      layout.elements.push_back({std::string(w[1]), count, {}});
    } else if (w[0] == "property") {
      if (layout.elements.empty()) fail(name, line_no, "property before any element");
      PlyProperty p;
      const bool is_list = w.size() >= 2 && w[1] == "list";
      if (is_list ? w.size() != 5 : w.size() != 3) {
        fail(name, line_no, "property line is not 'property TYPE NAME' or 'property list COUNT_TYPE TYPE NAME'");
      }
      const TypeInfo* type = find_type(w[is_list ? 3 : 1]);
      if (type == nullptr) fail(name, line_no, "unknown PLY type '" + std::string(w[is_list ? 3 : 1].substr(0, 32)) + "'");
      p.type_bytes = type->bytes;
      p.is_float = type->is_float;
      p.is_signed = type->is_signed;
      if (is_list) {
        const TypeInfo* count = find_type(w[2]);
        if (count == nullptr || count->is_float) {
          fail(name, line_no, "list count type '" + std::string(w[2].substr(0, 32)) + "' is not an integer type");
        }
        p.is_list = true;
        p.count_bytes = count->bytes;
        p.count_signed = count->is_signed;
      }
      p.name = std::string(w.back());
      layout.elements.back().properties.push_back(p);
    } else {
      fail(name, line_no, "unknown PLY header line '" + std::string(line.substr(0, 32)) + "'");
    }
  }
  if (!ended) fail(name, "truncated: the PLY header has no 'end_header' line");
  if (!have_format) fail(name, "the PLY header has no 'format' line");
  layout.body_offset = std::min(pos, bytes.size());  // "end_header" may be the last bytes, with no line end
  layout.header_lines = line_no;

  const PlyElement* vertex = nullptr;
  const PlyElement* face = nullptr;
  for (const PlyElement& e : layout.elements) {
    if (e.name == "vertex" && vertex == nullptr) vertex = &e;
    if (e.name == "face" && face == nullptr) face = &e;
  }
  if (vertex == nullptr) fail(name, "no 'vertex' element: not a PLY mesh");
  const auto has = [](const PlyElement& e, const char* property) {
    for (const PlyProperty& p : e.properties) {
      if (p.name == property && !p.is_list) return true;
    }
    return false;
  };
  for (const char* axis : {"x", "y", "z"}) {
    if (!has(*vertex, axis)) fail(name, std::string("the vertex element has no '") + axis + "' property");
  }
  layout.has_colors = has(*vertex, "red") && has(*vertex, "green") && has(*vertex, "blue");
  layout.vertices = vertex->count;
  bool has_indices = false;
  if (face != nullptr) {
    for (const PlyProperty& p : face->properties) {
      has_indices |= p.is_list && !p.is_float && (p.name == "vertex_indices" || p.name == "vertex_index");
    }
    layout.faces = face->count;
  }
  if (face == nullptr || !has_indices || face->count == 0) {
    fail(name, "no faces (" + std::to_string(layout.vertices) + " vertices" +
                   (face == nullptr ? ", no 'face' element: a point cloud" : "") + "): nothing to render");
  }
  if (layout.encoding == PlyEncoding::ascii) {
    walk_ascii(bytes, layout, name);
  } else {
    walk_binary(bytes, layout, name);
  }
  return layout;
}

}  // namespace slabcast::formats
