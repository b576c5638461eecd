// Format detection by content, then extension, and the routing of load_mesh to each format's reader.
#include "app/formats/mesh_format.h"

#include "app/formats/assimp_mesh.h"
#include "app/formats/assimp_scene.h"
#include "app/formats/mesh_file.h"
#include "app/formats/off_mesh.h"

// glTF is read by app/formats/gltf_mesh.h where that reader is part of the build.
#if __has_include("app/formats/gltf_mesh.h")
#include "app/formats/gltf_mesh.h"
#define SLABCAST_HAVE_GLTF 1
#else
#define SLABCAST_HAVE_GLTF 0
#endif

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string_view>

namespace slabcast {
namespace {

using formats::fail;

// Enough of the start of a file to recognise every format: headers are short, and a glTF's "asset" and an
// ASCII STL's first "facet" come early in files written by any exporter we know of.
constexpr size_t kHeadBytes = 4096;
constexpr char kFormatsRead[] =
    "OBJ (.obj), PLY (.ply), STL (.stl), OFF (.off), glTF 2.0 (.gltf, .glb) and, by extension, the other formats "
    "Assimp reads (.dae, .fbx, .3ds, ...)";

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }

std::string_view skip_space(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && is_space(s[i])) ++i;
  return s.substr(i);
}

std::string_view first_token(std::string_view s) {
  s = skip_space(s);
  size_t i = 0;
  while (i < s.size() && !is_space(s[i])) ++i;
  return s.substr(0, i);
}

bool is_binary_stl(std::string_view head, uint64_t size) {
  if (size < 84 || head.size() < 84) return false;
  const auto* b = reinterpret_cast<const unsigned char*>(head.data()) + 80;
  const uint64_t count = uint64_t(b[0]) | uint64_t(b[1]) << 8 | uint64_t(b[2]) << 16 | uint64_t(b[3]) << 24;
  return 84 + 50 * count == size;
}

bool is_off_header(std::string_view token) {
  // [C][N]OFF: the variants the OFF reader knows (colours, normals); ST, 4 and n variants are rejected there.
  return token == "OFF" || token == "COFF" || token == "NOFF" || token == "CNOFF";
}

// The first statement of a text file, past blank lines and '#' comments (OBJ's and OFF's comment syntax).
std::string_view first_statement(std::string_view head) {
  if (head.substr(0, 3) == "\xEF\xBB\xBF") head.remove_prefix(3);
  for (;;) {
    head = skip_space(head);
    if (head.empty() || head[0] != '#') return first_token(head);
    const size_t eol = head.find_first_of("\r\n");
    if (eol == std::string_view::npos) return {};
    head.remove_prefix(eol);
  }
}

bool is_obj_statement(std::string_view token) {
  static constexpr std::string_view kStarts[] = {"v", "vt", "vn", "vp", "f", "o", "g", "s", "mtllib", "usemtl",
                                                 "l", "p"};
  return std::find(std::begin(kStarts), std::end(kStarts), token) != std::end(kStarts);
}

bool by_content(std::string_view head, uint64_t size, MeshFormat* format) {
  if (head.substr(0, 4) == "glTF") return *format = MeshFormat::glb, true;
  if (head.substr(0, 4) == "ply\n" || head.substr(0, 5) == "ply\r\n" || head.substr(0, 4) == "ply\r") {
    return *format = MeshFormat::assimp, true;
  }
  if (is_binary_stl(head, size)) return *format = MeshFormat::assimp, true;
  if (head.find('\0') != std::string_view::npos) return false;  // the rest are text formats
  const std::string_view text = skip_space(head);
  if (!text.empty() && text[0] == '{' && text.find("\"asset\"") != std::string_view::npos) {
    return *format = MeshFormat::gltf, true;
  }
  const std::string_view statement = first_statement(head);
  if (is_off_header(statement)) return *format = MeshFormat::off, true;
  if (statement == "solid" && text.find("facet") != std::string_view::npos) {
    return *format = MeshFormat::assimp, true;
  }
  if (is_obj_statement(statement)) return *format = MeshFormat::obj, true;
  return false;
}

std::string lower_extension(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  const size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return {};
  std::string ext = path.substr(dot);
  for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

bool by_extension(const std::string& ext, MeshFormat* format) {
  if (ext == ".obj") return *format = MeshFormat::obj, true;
  if (ext == ".gltf") return *format = MeshFormat::gltf, true;
  if (ext == ".glb") return *format = MeshFormat::glb, true;
  if (ext == ".ply" || ext == ".stl") return *format = MeshFormat::assimp, true;
  if (ext == ".off") return *format = MeshFormat::off, true;
  if (formats::assimp_reads_extension(ext)) return *format = MeshFormat::assimp_scene, true;
  return false;
}

}  // namespace

bool has_mesh_extension(const std::string& path) {
  MeshFormat format = MeshFormat::obj;
  return by_extension(lower_extension(path), &format);
}

const char* mesh_format_name(MeshFormat format) {
  switch (format) {
    case MeshFormat::obj: return "OBJ";
    case MeshFormat::gltf: return "glTF";
    case MeshFormat::glb: return "GLB";
    case MeshFormat::assimp: return "PLY or STL";
    case MeshFormat::off: return "OFF";
    case MeshFormat::assimp_scene: return "a format Assimp reads";
  }
  return "unknown";
}

MeshFormat detect_mesh_format(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    const int error = errno;
    fail(path, error == ENOENT ? std::string("no such file") : std::string("cannot open: ") + std::strerror(error));
  }
  if (S_ISDIR(info.st_mode)) fail(path, "is a directory, not a mesh file");
  if (!S_ISREG(info.st_mode)) fail(path, "not a regular file");
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) fail(path, std::string("cannot open: ") + std::strerror(errno));
  std::string head(kHeadBytes, '\0');
  head.resize(std::fread(&head[0], 1, head.size(), file.get()));
  if (std::ferror(file.get())) fail(path, std::string("read error: ") + std::strerror(errno));

  MeshFormat format = MeshFormat::obj;
  if (by_content(head, uint64_t(info.st_size), &format)) return format;
  const std::string ext = lower_extension(path);
  if (by_extension(ext, &format)) return format;
  const std::string what = head.empty() ? "empty file (0 bytes)" : "content of no mesh format slabcast reads";
  fail(path, what + (ext.empty() ? ", and no extension" : ", and the extension '" + ext + "' names none") +
                 "; slabcast reads " + kFormatsRead);
}

Mesh load_mesh(const std::string& path, const LoadProgress& progress, const LoadWarning& warn) {
  switch (detect_mesh_format(path)) {
    case MeshFormat::obj: return load_obj(path, progress, warn);
    case MeshFormat::assimp: return formats::load_assimp_mesh(path, progress, warn);
    case MeshFormat::off: return formats::load_off(path, progress, warn);
    case MeshFormat::assimp_scene: return formats::load_assimp_scene(path, progress, warn);
    case MeshFormat::gltf:
    case MeshFormat::glb:
#if SLABCAST_HAVE_GLTF
      return load_gltf(path, progress, warn);
#else
      fail(path, "glTF support is not built in");
#endif
  }
  fail(path, "internal error: unknown mesh format");
}

}  // namespace slabcast
