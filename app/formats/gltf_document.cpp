// The glTF document layer under app/formats/gltf_mesh.cpp: reading a .gltf / .glb through tinygltf, and every
// accessor through one bounds-checked reader (gltf_document.h).
//
//   read_document   the file's bytes; a .glb's header and chunk table checked here (tinygltf trusts them), then
//                   tinygltf parses the JSON and loads buffers and images. Images are kept encoded (keep_encoded) for
//                   the mesh loader to decode, so that one bad image is a warning, not a failed load.
//   read_accessor   component types, normalized integers, byteStride, sparse substitution; numbers as doubles.
#include "gltf_document.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <set>
#include <sstream>
#include <stdexcept>

namespace slabcast::gltf {

const std::vector<int> kFloatOrNormalized = {
    TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE, TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT};
const std::vector<int> kAnyComponent = {
    TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_COMPONENT_TYPE_BYTE, TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE,
    TINYGLTF_COMPONENT_TYPE_SHORT, TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT, TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT};

void fail(const std::string& file, const std::string& what) { throw std::runtime_error(file + ": " + what); }

namespace {

constexpr uint64_t kMaxAccessorCount = uint64_t(1) << 32;
constexpr uint64_t kMaxByteStride = 252;  // the specification's bound
constexpr uint32_t kGlbMagic = 0x46546C67;  // "glTF"
constexpr uint32_t kGlbJsonChunk = 0x4E4F534A;  // "JSON"

// Extensions that a file may require and this loader honours (quantization: the reader takes every component type).
const std::set<std::string> kSupportedRequiredExtensions = {"KHR_mesh_quantization"};

uint32_t read_u32(const std::vector<unsigned char>& bytes, size_t at) {
  uint32_t v;
  std::memcpy(&v, bytes.data() + at, 4);
  return v;
}

// tinygltf's messages, one per line, as one line.
std::string one_line(const std::string& text) {
  std::string out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out += (out.empty() ? "" : "; ") + line;
  return out;
}

// ---- read_document ----

std::vector<unsigned char> read_bytes(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    const int error = errno;
    fail(path, error == ENOENT ? std::string("no such file") : std::string("cannot open: ") + std::strerror(error));
  }
  if (S_ISDIR(info.st_mode)) fail(path, "is a directory, not a glTF file");
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, std::string("cannot open: ") + std::strerror(errno));
  std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) fail(path, "read error");
  return bytes;
}

// The GLB container's header and chunk table
// (https://registry.khronos.org/glTF/specs/2.0/glTF-2.0.html#glb-file-format-specification).
void check_glb(const std::string& file, const std::vector<unsigned char>& bytes) {
  const size_t size = bytes.size();
  if (size < 20) fail(file, "truncated .glb: " + std::to_string(size) + " bytes, too short for the header and a chunk");
  const uint32_t version = read_u32(bytes, 4), length = read_u32(bytes, 8);
  if (version != 2) fail(file, "GLB container version " + std::to_string(version) + " (only version 2 is supported)");
  if (length > size)
    fail(file, "truncated .glb: the header says " + std::to_string(length) + " bytes, the file has " +
                   std::to_string(size));
  if (length < size) fail(file, "the GLB header says " + std::to_string(length) + " bytes, but the file has " +
                                    std::to_string(size) + " (trailing data)");
  size_t at = 12;
  for (int chunk = 0; at < length; ++chunk) {
    if (length - at < 8) fail(file, "truncated .glb: chunk " + std::to_string(chunk) + " has no complete header");
    const uint64_t chunk_length = read_u32(bytes, at), type = read_u32(bytes, at + 4);
    if (chunk == 0 && type != kGlbJsonChunk) fail(file, "the first GLB chunk is not JSON");
    if (chunk_length > length - at - 8)
      fail(file, "truncated .glb: chunk " + std::to_string(chunk) + " needs " + std::to_string(chunk_length) +
                     " bytes, " + std::to_string(length - at - 8) + " remain");
    at += 8 + size_t(chunk_length);
  }
}

// tinygltf's image callback: keeps the encoded bytes (decode_image decodes them), so that an undecodable image is a
// warning of ours instead of a failed load.
bool keep_encoded(tinygltf::Image* image, const int, std::string*, std::string*, int, int, const unsigned char* bytes,
                  int size, void*) {
  image->image.assign(bytes, bytes + size);
  image->as_is = true;
  image->width = image->height = 0;
  return true;
}

}  // namespace

tinygltf::Model read_document(const std::string& path, const LoadWarning& warn) {
  const std::vector<unsigned char> bytes = read_bytes(path);
  const bool glb = bytes.size() >= 4 && read_u32(bytes, 0) == kGlbMagic;
  if (glb) check_glb(path, bytes);
  if (bytes.size() > std::numeric_limits<unsigned int>::max()) fail(path, "file too large (4 GiB or more)");
  const size_t slash = path.find_last_of('/');
  const std::string base_dir = slash == std::string::npos ? "." : path.substr(0, slash);

  tinygltf::Model model;
  tinygltf::TinyGLTF loader;
  loader.SetImageLoader(keep_encoded, nullptr);
  std::string err, warnings;
  bool ok = false;
  try {
    ok = glb ? loader.LoadBinaryFromMemory(&model, &err, &warnings, bytes.data(), unsigned(bytes.size()), base_dir)
             : loader.LoadASCIIFromString(&model, &err, &warnings, reinterpret_cast<const char*>(bytes.data()),
                                          unsigned(bytes.size()), base_dir);
  } catch (const std::exception& e) {  // tinygltf and its JSON parser may throw on malformed input
    fail(path, std::string("not a valid glTF file: ") + e.what());
  }
  if (!ok)
    fail(path, "not a valid glTF file: " + (err.empty() ? std::string("tinygltf could not read it") : one_line(err)));
  if (warn) {
    std::istringstream in(warnings);
    for (std::string line; std::getline(in, line);)
      if (!line.empty()) warn(path + ": " + line);
  }
  for (const std::string& ext : model.extensionsRequired)
    if (!kSupportedRequiredExtensions.count(ext))
      fail(path, "requires the glTF extension " + ext + ", which slabcast does not support");
  return model;
}

// ---- read_accessor ----


namespace {

double read_component(const unsigned char* p, int type, bool normalized) {
  switch (type) {
    case TINYGLTF_COMPONENT_TYPE_BYTE: {
      int8_t x;
      std::memcpy(&x, p, 1);
      return normalized ? std::max(x / 127.0, -1.0) : x;
    }
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: return normalized ? *p / 255.0 : *p;
    case TINYGLTF_COMPONENT_TYPE_SHORT: {
      int16_t x;
      std::memcpy(&x, p, 2);
      return normalized ? std::max(x / 32767.0, -1.0) : x;
    }
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: {
      uint16_t x;
      std::memcpy(&x, p, 2);
      return normalized ? x / 65535.0 : x;
    }
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT: {
      uint32_t x;
      std::memcpy(&x, p, 4);
      return normalized ? x / 4294967295.0 : x;
    }
    default: {  // TINYGLTF_COMPONENT_TYPE_FLOAT (the only other type read_accessor lets through)
      float x;
      std::memcpy(&x, p, 4);
      return x;
    }
  }
}

int component_bytes(int type) {
  switch (type) {
    case TINYGLTF_COMPONENT_TYPE_BYTE:
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: return 1;
    case TINYGLTF_COMPONENT_TYPE_SHORT:
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: return 2;
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT:
    case TINYGLTF_COMPONENT_TYPE_FLOAT: return 4;
    default: return 0;
  }
}

// The bytes [offset, offset + bytes) of bufferView `view`, checked against the view and its buffer.
const unsigned char* view_range(const tinygltf::Model& m, const std::string& file, int view, uint64_t offset,
                                uint64_t bytes, const std::string& where) {
  if (view < 0 || size_t(view) >= m.bufferViews.size())
    fail(file, "bufferView " + std::to_string(view) + " does not exist (the file has " +
                   std::to_string(m.bufferViews.size()) + ") (" + where + ")");
  const tinygltf::BufferView& bv = m.bufferViews[size_t(view)];
  if (bv.buffer < 0 || size_t(bv.buffer) >= m.buffers.size())
    fail(file, "bufferView " + std::to_string(view) + " refers to buffer " + std::to_string(bv.buffer) +
                   ", which does not exist (" + where + ")");
  const std::vector<unsigned char>& data = m.buffers[size_t(bv.buffer)].data;
  if (uint64_t(bv.byteOffset) > data.size() || uint64_t(bv.byteLength) > data.size() - bv.byteOffset)
    fail(file, "bufferView " + std::to_string(view) + " (bytes " + std::to_string(bv.byteOffset) + " + " +
                   std::to_string(bv.byteLength) + ") lies past the end of buffer " + std::to_string(bv.buffer) +
                   " (" + std::to_string(data.size()) + " bytes) (" + where + ")");
  if (offset > bv.byteLength || bytes > bv.byteLength - offset)
    fail(file, "accessor out of bounds: it needs bytes " + std::to_string(offset) + " to " +
                   std::to_string(offset + bytes) + " of bufferView " + std::to_string(view) + ", which has " +
                   std::to_string(bv.byteLength) + " (" + where + ")");
  return data.data() + bv.byteOffset + offset;
}

}  // namespace

Numbers read_accessor(const tinygltf::Model& m, const std::string& file, int index, const std::string& what) {
  const std::string where = what + ", accessor " + std::to_string(index);
  if (index < 0 || size_t(index) >= m.accessors.size())
    fail(file, "accessor " + std::to_string(index) + " does not exist (the file has " +
                   std::to_string(m.accessors.size()) + ") (" + what + ")");
  const tinygltf::Accessor& a = m.accessors[size_t(index)];
  Numbers out;
  out.component_type = a.componentType;
  out.components = tinygltf::GetNumComponentsInType(uint32_t(a.type));
  const int csize = component_bytes(a.componentType);
  if (csize == 0) fail(file, "unknown componentType " + std::to_string(a.componentType) + " (" + where + ")");
  if (out.components <= 0) fail(file, "unknown accessor type " + std::to_string(a.type) + " (" + where + ")");
  if (out.components >= 4 && a.type != TINYGLTF_TYPE_VEC4 && csize < 4)  // MAT2/3/4 columns of bytes are padded
    fail(file, "matrices of 8- or 16-bit components are not supported (" + where + ")");
  if (uint64_t(a.count) > kMaxAccessorCount)
    fail(file, "accessor count " + std::to_string(a.count) + " is too large (" + where + ")");
  out.count = a.count;
  const uint64_t elem = uint64_t(out.components) * uint64_t(csize);
  // An accessor without a bufferView (zeros, then its sparse values) is backed by no data at all; its count, which a
  // real file ties to its vertices, may not exceed the file's buffer bytes, so that a forged count cannot make this
  // reader allocate without bound.
  uint64_t buffer_bytes = 0;
  for (const tinygltf::Buffer& b : m.buffers) buffer_bytes += b.data.size();
  if (a.bufferView < 0 && uint64_t(a.count) > buffer_bytes)
    fail(file, "accessor count " + std::to_string(a.count) + " exceeds the file's " + std::to_string(buffer_bytes) +
                   " bytes of buffers (" + where + ")");

  auto read_elements = [&](const unsigned char* base, uint64_t stride, size_t n, auto&& target) {
    for (size_t i = 0; i < n; ++i)
      for (int c = 0; c < out.components; ++c)
        out.v[target(i) * size_t(out.components) + size_t(c)] =
            read_component(base + i * stride + uint64_t(c) * uint64_t(csize), a.componentType, a.normalized);
  };

  if (a.bufferView >= 0 && out.count > 0) {
    const tinygltf::BufferView* bv =
        size_t(a.bufferView) < m.bufferViews.size() ? &m.bufferViews[size_t(a.bufferView)] : nullptr;
    const uint64_t stride = bv && bv->byteStride ? uint64_t(bv->byteStride) : elem;
    if (stride < elem || stride > kMaxByteStride + elem)
      fail(file, "byteStride " + std::to_string(stride) + " does not fit elements of " + std::to_string(elem) +
                     " bytes (" + where + ")");
    const unsigned char* base =
        view_range(m, file, a.bufferView, a.byteOffset, stride * (out.count - 1) + elem, where);
    out.v.assign(out.count * size_t(out.components), 0.0);
    read_elements(base, stride, out.count, [](size_t i) { return i; });
  }
  out.v.resize(out.count * size_t(out.components), 0.0);  // zeros where there is no bufferView
  if (a.sparse.isSparse) {
    const auto& s = a.sparse;
    if (s.count < 1 || uint64_t(s.count) > out.count || s.indices.byteOffset < 0 || s.values.byteOffset < 0)
      fail(file, "sparse accessor with count " + std::to_string(s.count) + " or a negative offset (" + where + ")");
    const int isize = component_bytes(s.indices.componentType);
    if (isize == 0 || s.indices.componentType == TINYGLTF_COMPONENT_TYPE_BYTE ||
        s.indices.componentType == TINYGLTF_COMPONENT_TYPE_SHORT ||
        s.indices.componentType == TINYGLTF_COMPONENT_TYPE_FLOAT)
      fail(file, "sparse indices of componentType " + std::to_string(s.indices.componentType) + " (" + where + ")");
    const size_t n = size_t(s.count);
    const unsigned char* idx = view_range(m, file, s.indices.bufferView, uint64_t(s.indices.byteOffset),
                                          uint64_t(isize) * n, where + " sparse indices");
    const unsigned char* val =
        view_range(m, file, s.values.bufferView, uint64_t(s.values.byteOffset), elem * n, where + " sparse values");
    std::vector<size_t> targets(n);
    for (size_t i = 0; i < n; ++i) {
      const double t = read_component(idx + i * size_t(isize), s.indices.componentType, false);
      if (t >= double(out.count))
        fail(file, "sparse index " + std::to_string(uint64_t(t)) + " is out of range: the accessor has " +
                       std::to_string(out.count) + " elements (" + where + ")");
      targets[i] = size_t(t);
    }
    read_elements(val, elem, n, [&](size_t i) { return targets[i]; });
  }
  return out;
}

// An accessor that must have `components` numbers per element of one of `types` and, if given, `count` elements.
Numbers read_checked(const tinygltf::Model& m, const std::string& file, int index, const std::string& what,
                     int components, const std::vector<int>& types, int64_t count) {
  Numbers n = read_accessor(m, file, index, what);
  if (n.components != components)
    fail(file, "expected " + std::to_string(components) + " components per element, the accessor has " +
                   std::to_string(n.components) + " (" + what + ")");
  if (std::find(types.begin(), types.end(), n.component_type) == types.end())
    fail(file, "componentType " + std::to_string(n.component_type) + " is not allowed here (" + what + ")");
  if (count >= 0 && n.count != uint64_t(count))
    fail(file, "the accessor has " + std::to_string(n.count) + " elements, expected " + std::to_string(count) + " (" +
                   what + ")");
  for (size_t i = 0; i < n.v.size(); ++i)
    if (!std::isfinite(n.v[i]))
      fail(file, "non-finite number at element " + std::to_string(i / size_t(components)) + " (" + what + ")");
  return n;
}


int attribute(const tinygltf::Primitive& p, const std::string& name) {
  const auto it = p.attributes.find(name);
  return it == p.attributes.end() ? -1 : it->second;
}


}  // namespace slabcast::gltf
