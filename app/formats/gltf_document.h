// The glTF document layer of the glTF loader (app/formats/gltf_mesh.h): the file through tinygltf, and accessors
// read with every bound checked. Errors are std::runtime_error "FILE: what is wrong (where)".
#pragma once
#include "app/mesh_io.h"  // LoadWarning

#include <tiny_gltf.h>  // the declarations only (the implementation is Debian's libtinygltf)

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace slabcast::gltf {

[[noreturn]] void fail(const std::string& file, const std::string& what);

// Reads PATH (.gltf with its .bin files and data URIs, or .glb, told apart by the 'glTF' magic) into a tinygltf
// model. A .glb's header and chunk table are checked first; tinygltf's errors and exceptions become "PATH: not a
// valid glTF file: ..."; its warnings go to `warn`; an extension in extensionsRequired that slabcast does not honour
// is an error. Images are not decoded: Image::image holds the encoded file (as_is), empty if it could not be read.
tinygltf::Model read_document(const std::string& path, const LoadWarning& warn);

// An accessor's elements as doubles.
struct Numbers {
  size_t count = 0;        // elements
  int components = 0;      // numbers per element
  int component_type = 0;  // TINYGLTF_COMPONENT_TYPE_*
  std::vector<double> v;   // count x components; normalized integers already mapped to [0, 1] / [-1, 1]
  double at(size_t i, int c) const { return v[i * size_t(components) + size_t(c)]; }
};

// Accessor `index` read whole: every component type, normalized integers, byteStride, sparse substitution (over
// the bufferView's values, or over zeros without one). Checks the accessor, bufferView and buffer indices, every
// byte range, the stride and each sparse index. `what` names the use in messages ("mesh 3 primitive 1 POSITION").
Numbers read_accessor(const tinygltf::Model& m, const std::string& file, int index, const std::string& what);

// read_accessor, then: `components` numbers per element, a component type in `types`, `count` elements (if >= 0),
// and every number finite.
Numbers read_checked(const tinygltf::Model& m, const std::string& file, int index, const std::string& what,
                     int components, const std::vector<int>& types, int64_t count = -1);

extern const std::vector<int> kFloatOrNormalized;  // float, normalized u8, normalized u16 (UVs, weights, colours)
extern const std::vector<int> kAnyComponent;       // every type the specification allows

// The accessor of attribute `name` of a primitive, or -1.
int attribute(const tinygltf::Primitive& p, const std::string& name);

}  // namespace slabcast::gltf
