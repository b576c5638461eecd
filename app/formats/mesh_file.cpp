#include "app/formats/mesh_file.h"

#include "app/polygon_triangulation.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>

namespace slabcast::formats {

namespace {
constexpr size_t kReadChunkBytes = size_t(8) << 20;  // progress is reported once a chunk
}  // namespace

void fail(const std::string& name, const std::string& what) { throw std::runtime_error(name + ": " + what); }
void fail(const std::string& name, size_t line, const std::string& what) {
  throw std::runtime_error(name + ":" + std::to_string(line) + ": " + what);
}

std::string base_name(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string read_mesh_file(const std::string& path, const LoadProgress& progress, double progress_end,
                           bool allow_empty) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    const int error = errno;
    fail(path, error == ENOENT ? std::string("no such file") : std::string("cannot open: ") + std::strerror(error));
  }
  if (S_ISDIR(info.st_mode)) fail(path, "is a directory, not a mesh file");
  if (!S_ISREG(info.st_mode)) fail(path, "not a regular file");
  if (info.st_size == 0 && !allow_empty) fail(path, "empty file (0 bytes)");

  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) fail(path, std::string("cannot open: ") + std::strerror(errno));
  std::string bytes;
  try {
    bytes.resize(size_t(info.st_size));
  } catch (const std::bad_alloc&) {
    fail(path, "out of host memory reading " + std::to_string(info.st_size) + " bytes");
  }
  size_t got = 0;
  while (got < bytes.size()) {
    const size_t n = std::fread(&bytes[got], 1, std::min(kReadChunkBytes, bytes.size() - got), file.get());
    if (n == 0) {
      if (std::ferror(file.get())) fail(path, std::string("read error: ") + std::strerror(errno));
      break;  // the file shrank while we read it: what is there is checked like any other content
    }
    got += n;
    if (progress) progress(progress_end * double(got) / double(bytes.size()));
  }
  bytes.resize(got);
  return bytes;
}

void FaceAssembler::add(const uint32_t* corners, size_t n, size_t face_number) {
  if (mesh_->indices.size() / 3 + (n - 2) > kMaxTriangles) {
    fail(name_, "more than " + std::to_string(kMaxTriangles) + " triangles (32-bit triangle IDs)");
  }
  if (n == 3) {
    mesh_->indices.insert(mesh_->indices.end(), corners, corners + 3);
    return;
  }
  polygon_.resize(n);
  for (size_t k = 0; k < n; ++k) polygon_[k] = mesh_->positions[corners[k]];
  local_.clear();
  const PolygonTriangles how = triangulate_polygon(polygon_.data(), uint32_t(n), &local_);
  if (local_.size() != 3 * (n - 2)) {
    fail(name_, "internal error: face " + std::to_string(face_number) + " of " + std::to_string(n) +
                    " corners became " + std::to_string(local_.size() / 3) + " triangles");
  }
  for (const uint32_t k : local_) mesh_->indices.push_back(corners[k]);
  if (how.method == PolygonMethod::fan_too_large && fanned_++ == 0) {
    first_fanned_ = face_number;
    first_fanned_corners_ = n;
    first_fanned_not_convex_ = how.not_convex_corners;
  }
}

void FaceAssembler::finish(const LoadWarning& warn) const {
  if (fanned_ == 0 || !warn) return;
  std::string what = "face " + std::to_string(first_fanned_) + ": concave polygon of " +
                     std::to_string(first_fanned_corners_) + " corners, " + std::to_string(first_fanned_not_convex_) +
                     " of them not convex, fanned instead of ear-clipped (past the ear-clipping work bound, " +
                     std::to_string(kMaxEarClipWork) + "): it may cover its notches";
  if (fanned_ > 1) what += "; " + std::to_string(fanned_ - 1) + " more such polygon" + (fanned_ > 2 ? "s" : "");
  warn(name_ + ": " + what);
}

}  // namespace slabcast::formats
