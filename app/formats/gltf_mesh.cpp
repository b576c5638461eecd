// glTF loading in named steps (gltf_mesh.h says what comes out; app/formats/gltf_document.h reads the file and its
// accessors):
//
//   Loader::hierarchy     parents (one each, no cycle), node rest transforms and rest morph weights
//   Loader::scene_order   the scene's nodes, depth first: the order that defines the triangle IDs
//   Loader::animations    the channels, and which nodes move (animated themselves or below an animated node)
//   Loader::plan_rig      whether there is a rig, its influences per vertex, palette entry 0
//   Loader::emit_node / emit_primitive   positions, triangles, appearance and rig, in triangle-ID order
//   Loader::materials     materials and their decoded textures
#include "gltf_mesh.h"

#include "app/formats/gltf_document.h"
#include "app/formats/rig_pose.h"

// stb's decoder is compiled into this file, static (as app/image_io.cpp does with its own copy); tinygltf's own
// decoder is bypassed (gltf_document.h), so that an image it cannot decode is a warning, not a failed load.
#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_STATIC
#define STBI_ONLY_PNG
#define STBI_ONLY_JPEG
#include <stb/stb_image.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>

namespace slabcast {
namespace {

// Progress shares of the whole load.
constexpr double kParseEnd = 0.6;    // tinygltf has parsed the document
constexpr double kFlattenEnd = 0.9;  // the triangles and the rig are built; materials take the rest

constexpr uint64_t kMaxTriangles = 0xFFFFFFFEull;  // IDs are uint32 with 0xFFFFFFFF meaning "miss"
constexpr uint64_t kMaxVertices = 0xFFFFFFFFull;
constexpr int kInfluencesPerSet = 4;  // one JOINTS_n / WEIGHTS_n pair is a VEC4

using gltf::Numbers;
using gltf::attribute;
using gltf::fail;
using gltf::kAnyComponent;
using gltf::kFloatOrNormalized;
using gltf::read_accessor;
using gltf::read_checked;

std::string base_name(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

uint8_t to_u8(double x) { return uint8_t(std::lround(std::min(std::max(x, 0.0), 1.0) * 255.0)); }

// ---- the loader ----

class Loader {
 public:
  Loader(const tinygltf::Model& m, std::string file, const LoadWarning& warn)
      : m_(m), file_(std::move(file)), warn_(warn) {}

  GltfModel run(const LoadProgress& progress);

 private:
  std::string node_where(int n) const {
    const std::string& name = m_.nodes[size_t(n)].name;
    return "node " + std::to_string(n) + (name.empty() ? "" : " '" + name + "'");
  }
  void hierarchy();
  void scene_order();
  void animations();
  void plan_rig();
  void emit_node(int node, const std::vector<glm::dmat4>& rest_globals);
  void emit_primitive(int node, int mesh, int prim, const glm::dmat4* bake, uint32_t palette_entry,
                      uint32_t first_slot);
  uint32_t skin_block(int skin);
  void materials();
  int decode_image(int image);

  const tinygltf::Model& m_;
  std::string file_;
  const LoadWarning& warn_;
  Mesh mesh_;
  std::vector<GltfNode> nodes_;
  std::vector<int> order_;          // the scene's nodes, depth first
  std::vector<char> moves_;         // per node: its global transform is animated
  std::vector<GltfAnimation> animations_;
  std::vector<int> mesh_targets_;   // per mesh: morph targets
  bool rigged_ = false;
  int influences_ = 0;
  std::vector<GltfPaletteEntry> palette_;
  std::map<int, uint32_t> skin_base_;
  std::vector<GltfMorphSlot> slots_;
  std::vector<int> material_of_triangle_;  // glTF material, -1 = the default one
  std::vector<glm::vec2> uvs_;             // 3 per triangle
  bool any_uv_ = false, any_color_ = false;
  std::vector<Color8> colors_;
  std::string skipped_;                    // the first skipped points/lines primitive
  int skipped_count_ = 0;
  std::map<int, int> texture_of_image_;
};

void Loader::hierarchy() {
  const size_t count = m_.nodes.size();
  nodes_.resize(count);
  mesh_targets_.assign(m_.meshes.size(), 0);
  for (size_t mi = 0; mi < m_.meshes.size(); ++mi) {
    const auto& prims = m_.meshes[mi].primitives;
    for (size_t pi = 0; pi < prims.size(); ++pi)
      if (prims[pi].targets.size() != prims[0].targets.size())
        fail(file_, "primitives of one mesh have different numbers of morph targets (mesh " + std::to_string(mi) +
                        " primitive " + std::to_string(pi) + ")");
    if (!prims.empty()) mesh_targets_[mi] = int(prims[0].targets.size());
  }
  for (size_t i = 0; i < count; ++i) {
    const tinygltf::Node& n = m_.nodes[i];
    GltfNode& g = nodes_[i];
    g.name = n.name;
    for (int c : n.children) {
      if (c < 0 || size_t(c) >= count)
        fail(file_, "child " + std::to_string(c) + " does not exist (" + node_where(int(i)) + ")");
      if (nodes_[size_t(c)].parent >= 0 || size_t(c) == i)
        fail(file_, "node " + std::to_string(c) + " has more than one parent (" + node_where(int(i)) + ")");
      nodes_[size_t(c)].parent = int(i);
    }
    if (n.mesh >= 0 && size_t(n.mesh) >= m_.meshes.size())
      fail(file_, "mesh " + std::to_string(n.mesh) + " does not exist (" + node_where(int(i)) + ")");
    if (n.skin >= 0 && size_t(n.skin) >= m_.skins.size())
      fail(file_, "skin " + std::to_string(n.skin) + " does not exist (" + node_where(int(i)) + ")");
    auto numbers = [&](const std::vector<double>& v, size_t want, const char* what) {
      if (!v.empty() && v.size() != want)
        fail(file_, std::string(what) + " has " + std::to_string(v.size()) + " numbers (" + node_where(int(i)) + ")");
      for (double x : v)
        if (!std::isfinite(x)) fail(file_, std::string(what) + " is not finite (" + node_where(int(i)) + ")");
      return !v.empty();
    };
    if (numbers(n.matrix, 16, "matrix")) {
      g.has_matrix = true;
      for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r) g.matrix[c][r] = n.matrix[size_t(c * 4 + r)];  // column-major, as GLM
    }
    if (numbers(n.translation, 3, "translation"))
      g.translation = {n.translation[0], n.translation[1], n.translation[2]};
    if (numbers(n.rotation, 4, "rotation")) {
      g.rotation = glm::dquat(n.rotation[3], n.rotation[0], n.rotation[1], n.rotation[2]);  // (w, x, y, z)
      g.rotation = glm::normalize(g.rotation);
    }
    if (numbers(n.scale, 3, "scale")) g.scale = {n.scale[0], n.scale[1], n.scale[2]};
    const size_t targets = n.mesh >= 0 ? size_t(mesh_targets_[size_t(n.mesh)]) : 0;
    const std::vector<double>& own = !n.weights.empty() || n.mesh < 0 ? n.weights : m_.meshes[size_t(n.mesh)].weights;
    if (!own.empty() && own.size() != targets)
      fail(file_, "weights has " + std::to_string(own.size()) + " numbers for " + std::to_string(targets) +
                      " morph targets (" + node_where(int(i)) + ")");
    numbers(own, targets, "weights");
    g.weights = own.empty() ? std::vector<double>(targets, 0.0) : own;
  }
  // A cycle has no root above it: walking up from any node must end within `count` steps.
  for (size_t i = 0; i < count; ++i) {
    int n = int(i);
    for (size_t steps = 0; n >= 0; ++steps, n = nodes_[size_t(n)].parent)
      if (steps > count) fail(file_, "the node hierarchy has a cycle through " + node_where(int(i)));
  }
}

void Loader::scene_order() {
  std::vector<int> roots;
  if (m_.scenes.empty()) {
    for (size_t i = 0; i < nodes_.size(); ++i)
      if (nodes_[i].parent < 0) roots.push_back(int(i));
  } else {
    const int s = m_.defaultScene >= 0 ? m_.defaultScene : 0;
    if (size_t(s) >= m_.scenes.size()) fail(file_, "the default scene " + std::to_string(s) + " does not exist");
    std::set<int> seen;
    for (int r : m_.scenes[size_t(s)].nodes) {
      if (r < 0 || size_t(r) >= nodes_.size())
        fail(file_, "scene " + std::to_string(s) + " lists node " + std::to_string(r) + ", which does not exist");
      if (nodes_[size_t(r)].parent >= 0 || !seen.insert(r).second)
        fail(file_, "scene " + std::to_string(s) + " lists " + node_where(r) + ", which is not a root or listed twice");
      roots.push_back(r);
    }
  }
  // Depth first, each node before its children, children in order.
  std::vector<int> stack(roots.rbegin(), roots.rend());
  while (!stack.empty()) {
    const int n = stack.back();
    stack.pop_back();
    order_.push_back(n);
    const auto& children = m_.nodes[size_t(n)].children;
    stack.insert(stack.end(), children.rbegin(), children.rend());
  }
}

void Loader::animations() {
  std::vector<char> animated(nodes_.size(), 0);
  for (size_t ai = 0; ai < m_.animations.size(); ++ai) {
    const tinygltf::Animation& a = m_.animations[ai];
    GltfAnimation out;
    out.name = a.name;
    for (size_t ci = 0; ci < a.channels.size(); ++ci) {
      const tinygltf::AnimationChannel& c = a.channels[ci];
      const std::string where = "animation " + std::to_string(ai) + " channel " + std::to_string(ci);
      if (c.target_node < 0) continue;  // a target given by an extension: nothing of ours moves
      if (size_t(c.target_node) >= nodes_.size())
        fail(file_, "target node " + std::to_string(c.target_node) + " does not exist (" + where + ")");
      if (c.sampler < 0 || size_t(c.sampler) >= a.samplers.size())
        fail(file_, "sampler " + std::to_string(c.sampler) + " does not exist (" + where + ")");
      GltfChannel ch;
      ch.node = c.target_node;
      const GltfNode& node = nodes_[size_t(ch.node)];
      if (c.target_path == "translation" || c.target_path == "scale") {
        ch.path = c.target_path == "scale" ? GltfPath::scale : GltfPath::translation;
        ch.width = 3;
      } else if (c.target_path == "rotation") {
        ch.path = GltfPath::rotation;
        ch.width = 4;
      } else if (c.target_path == "weights") {
        ch.path = GltfPath::weights;
        ch.width = int(node.weights.size());
        if (ch.width == 0) {
          if (warn_) warn_(file_ + ": " + where + " animates the weights of a node without morph targets; ignored");
          continue;
        }
      } else {
        if (warn_) warn_(file_ + ": " + where + " animates '" + c.target_path + "', which slabcast ignores");
        continue;
      }
      if (ch.path != GltfPath::weights && node.has_matrix)
        fail(file_, "animates the TRS of " + node_where(ch.node) + ", which has a matrix (" + where + ")");
      const tinygltf::AnimationSampler& s = a.samplers[size_t(c.sampler)];
      if (s.interpolation.empty() || s.interpolation == "LINEAR") ch.interpolation = GltfInterpolation::linear;
      else if (s.interpolation == "STEP") ch.interpolation = GltfInterpolation::step;
      else if (s.interpolation == "CUBICSPLINE") ch.interpolation = GltfInterpolation::cubic_spline;
      else fail(file_, "unknown interpolation '" + s.interpolation + "' (" + where + ")");
      const Numbers in = read_checked(m_, file_, s.input, where + " input", 1, kAnyComponent);
      if (in.count == 0) fail(file_, "no keys (" + where + " input)");
      ch.times = in.v;
      for (size_t k = 1; k < ch.times.size(); ++k)
        if (ch.times[k] < ch.times[k - 1])
          fail(file_, "key times decrease at key " + std::to_string(k) + " (" + where + " input)");
      const size_t per_key = ch.interpolation == GltfInterpolation::cubic_spline ? 3 : 1;
      const int components = ch.path == GltfPath::weights ? 1 : ch.width;
      const Numbers outv = read_checked(m_, file_, s.output, where + " output", components, kAnyComponent);
      if (outv.v.size() != ch.times.size() * per_key * size_t(ch.width))
        fail(file_, "the output has " + std::to_string(outv.v.size()) + " numbers for " +
                        std::to_string(ch.times.size()) + " keys of " + std::to_string(per_key * size_t(ch.width)) +
                        " (" + where + ")");
      ch.values = outv.v;
      out.duration = std::max(out.duration, ch.times.back());
      if (ch.path != GltfPath::weights) animated[size_t(ch.node)] = 1;
      out.channels.push_back(std::move(ch));
    }
    animations_.push_back(std::move(out));
  }
  // A node moves when it or an ancestor is animated.
  moves_.assign(nodes_.size(), 0);
  for (size_t i = 0; i < nodes_.size(); ++i)
    for (int n = int(i); n >= 0 && !moves_[i]; n = nodes_[size_t(n)].parent) moves_[i] = animated[size_t(n)];
}

void Loader::plan_rig() {
  int sets = 0;
  for (int n : order_) {
    const tinygltf::Node& node = m_.nodes[size_t(n)];
    if (node.mesh < 0) continue;
    if (node.skin >= 0 || moves_[size_t(n)] || mesh_targets_[size_t(node.mesh)] > 0) rigged_ = true;
    if (node.skin < 0) continue;
    for (const tinygltf::Primitive& p : m_.meshes[size_t(node.mesh)].primitives) {
      int k = 0;
      while (attribute(p, "JOINTS_" + std::to_string(k)) >= 0) ++k;
      sets = std::max(sets, k);
    }
  }
  if (!rigged_) return;
  influences_ = std::max(1, kInfluencesPerSet * sets);
  palette_.push_back(GltfPaletteEntry{});  // entry 0: the identity, for the static (baked) vertices
}

uint32_t Loader::skin_block(int skin) {
  const auto found = skin_base_.find(skin);
  if (found != skin_base_.end()) return found->second;
  const tinygltf::Skin& s = m_.skins[size_t(skin)];
  const std::string where = "skin " + std::to_string(skin);
  if (s.joints.empty()) fail(file_, "the skin has no joints (" + where + ")");
  Numbers ibm;
  if (s.inverseBindMatrices >= 0)
    ibm = read_checked(m_, file_, s.inverseBindMatrices, where + " inverseBindMatrices", 16,
                       {TINYGLTF_COMPONENT_TYPE_FLOAT}, int64_t(s.joints.size()));
  const uint32_t base = uint32_t(palette_.size());
  for (size_t j = 0; j < s.joints.size(); ++j) {
    GltfPaletteEntry e;
    e.node = s.joints[j];
    if (e.node < 0 || size_t(e.node) >= nodes_.size())
      fail(file_, "joint " + std::to_string(j) + " is node " + std::to_string(e.node) + ", which does not exist (" +
                      where + ")");
    if (!ibm.v.empty())
      for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r) e.inverse_bind[c][r] = ibm.at(j, c * 4 + r);
    palette_.push_back(e);
  }
  skin_base_[skin] = base;
  return base;
}

void Loader::emit_node(int n, const std::vector<glm::dmat4>& rest_globals) {
  const tinygltf::Node& node = m_.nodes[size_t(n)];
  if (node.mesh < 0) return;
  const bool morphed = mesh_targets_[size_t(node.mesh)] > 0;
  uint32_t entry = 0;                       // the static vertices' identity
  const glm::dmat4* bake = &rest_globals[size_t(n)];
  if (node.skin >= 0) {
    entry = skin_block(node.skin);          // skinned: mesh space, the node's own transform ignored
    bake = nullptr;
  } else if (moves_[size_t(n)] || morphed) {
    entry = uint32_t(palette_.size());      // the node's global transform, each frame
    palette_.push_back(GltfPaletteEntry{n, glm::dmat4(1.0)});
    bake = nullptr;
  }
  const uint32_t first_slot = uint32_t(slots_.size());
  for (int t = 0; t < mesh_targets_[size_t(node.mesh)]; ++t) slots_.push_back(GltfMorphSlot{n, t});
  const auto& prims = m_.meshes[size_t(node.mesh)].primitives;
  for (size_t p = 0; p < prims.size(); ++p) emit_primitive(n, node.mesh, int(p), bake, entry, first_slot);
}

void Loader::emit_primitive(int n, int mesh, int prim, const glm::dmat4* bake, uint32_t entry, uint32_t first_slot) {
  const tinygltf::Primitive& p = m_.meshes[size_t(mesh)].primitives[size_t(prim)];
  const std::string where = "mesh " + std::to_string(mesh) + " primitive " + std::to_string(prim);
  if (p.mode >= TINYGLTF_MODE_POINTS && p.mode <= TINYGLTF_MODE_LINE_STRIP) {
    if (skipped_count_++ == 0) skipped_ = where;
    return;
  }
  if (p.mode != TINYGLTF_MODE_TRIANGLES && p.mode != TINYGLTF_MODE_TRIANGLE_STRIP &&
      p.mode != TINYGLTF_MODE_TRIANGLE_FAN)
    fail(file_, "unknown primitive mode " + std::to_string(p.mode) + " (" + where + ")");
  const int pos_index = attribute(p, "POSITION");
  if (pos_index < 0) fail(file_, "the primitive has no POSITION (" + where + ")");
  const Numbers pos = read_checked(m_, file_, pos_index, where + " POSITION", 3, kAnyComponent);
  const size_t vertices = pos.count;
  const size_t first = mesh_.positions.size();
  if (first + vertices > kMaxVertices) fail(file_, "more vertices than 32-bit indices can address (" + where + ")");

  // Positions: baked to world space, or as stored (the rig's palette moves them).
  for (size_t v = 0; v < vertices; ++v) {
    glm::dvec4 q(pos.at(v, 0), pos.at(v, 1), pos.at(v, 2), 1.0);
    if (bake) q = *bake * q;
    const glm::vec3 f(q);
    if (!std::isfinite(f.x) || !std::isfinite(f.y) || !std::isfinite(f.z))
      fail(file_, "vertex " + std::to_string(v) + " is not finite in world space (" + where + " POSITION)");
    mesh_.positions.push_back(f);
  }

  // Triangles, in the primitive's index order.
  std::vector<uint32_t> idx(vertices);
  if (p.indices >= 0) {
    const Numbers in = read_checked(m_, file_, p.indices, where + " indices", 1,
                                    {TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE, TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT,
                                     TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT});
    idx.resize(in.count);
    for (size_t i = 0; i < in.count; ++i) {
      if (in.v[i] >= double(vertices))
        fail(file_, "index " + std::to_string(uint64_t(in.v[i])) + " at position " + std::to_string(i) +
                        " is out of range: the primitive has " + std::to_string(vertices) + " vertices (" + where +
                        ")");
      idx[i] = uint32_t(in.v[i]);
    }
  } else {
    for (size_t i = 0; i < vertices; ++i) idx[i] = uint32_t(i);
  }
  std::vector<uint32_t> tri;  // 3 per triangle, primitive-local
  if (p.mode == TINYGLTF_MODE_TRIANGLES) {
    if (idx.size() % 3 != 0)
      fail(file_, std::to_string(idx.size()) + " indices is not a whole number of triangles (" + where + ")");
    tri = idx;
  } else {
    for (size_t i = 0; i + 2 < idx.size(); ++i) {
      if (p.mode == TINYGLTF_MODE_TRIANGLE_STRIP)
        tri.insert(tri.end(), {idx[i], idx[i + 1 + i % 2], idx[i + 2 - i % 2]});
      else
        tri.insert(tri.end(), {idx[i + 1], idx[i + 2], idx[0]});
    }
  }
  if ((mesh_.indices.size() + tri.size()) / 3 > kMaxTriangles)
    fail(file_, "more than 2^32 - 2 triangles (" + where + ")");
  for (uint32_t i : tri) mesh_.indices.push_back(uint32_t(first) + i);

  // Appearance: material, the base colour texture's UV set, COLOR_0.
  const int material = p.material;
  if (material >= 0 && size_t(material) >= m_.materials.size())
    fail(file_, "material " + std::to_string(material) + " does not exist (" + where + ")");
  material_of_triangle_.insert(material_of_triangle_.end(), tri.size() / 3, material);
  const int uv_set = material >= 0 && m_.materials[size_t(material)].pbrMetallicRoughness.baseColorTexture.index >= 0
                         ? m_.materials[size_t(material)].pbrMetallicRoughness.baseColorTexture.texCoord
                         : -1;
  const int uv_index = uv_set >= 0 ? attribute(p, "TEXCOORD_" + std::to_string(uv_set)) : -1;
  if (uv_index >= 0) {
    const Numbers uv = read_checked(m_, file_, uv_index, where + " TEXCOORD_" + std::to_string(uv_set), 2,
                                    kFloatOrNormalized, int64_t(vertices));
    for (uint32_t i : tri) uvs_.push_back(glm::vec2(float(uv.at(i, 0)), float(uv.at(i, 1))));
    any_uv_ = true;
  } else {
    uvs_.resize(uvs_.size() + tri.size(), glm::vec2(0.0f));
  }
  colors_.resize(first + vertices);
  if (const int ci = attribute(p, "COLOR_0"); ci >= 0) {
    Numbers c = read_accessor(m_, file_, ci, where + " COLOR_0");
    if ((c.components != 3 && c.components != 4) ||
        std::find(kFloatOrNormalized.begin(), kFloatOrNormalized.end(), c.component_type) == kFloatOrNormalized.end())
      fail(file_, "COLOR_0 must be VEC3 or VEC4 of floats or normalized u8 / u16 (" + where + ")");
    if (c.count != vertices)
      fail(file_, "COLOR_0 has " + std::to_string(c.count) + " elements for " + std::to_string(vertices) +
                      " vertices (" + where + ")");
    if (c.component_type != TINYGLTF_COMPONENT_TYPE_FLOAT && !m_.accessors[size_t(ci)].normalized) {
      // Integer colours are normalized even where the file forgot to say so.
      const double scale = c.component_type == TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE ? 255.0 : 65535.0;
      for (double& x : c.v) x /= scale;
    }
    for (size_t v = 0; v < vertices; ++v)
      colors_[first + v] = Color8{to_u8(c.at(v, 0)), to_u8(c.at(v, 1)), to_u8(c.at(v, 2)),
                                  c.components == 4 ? to_u8(c.at(v, 3)) : uint8_t(255)};
    any_color_ = true;
  }

  // The rig: morph targets, then influences.
  const auto& targets = p.targets;
  for (size_t t = 0; t < targets.size(); ++t) {
    const auto it = targets[t].find("POSITION");
    if (it == targets[t].end()) continue;  // a target of normals only
    const Numbers d = read_checked(m_, file_, it->second, where + " target " + std::to_string(t) + " POSITION", 3,
                                   kAnyComponent, int64_t(vertices));
    MorphTarget mt;
    mt.first_vertex = uint32_t(first);
    mt.weight = first_slot + uint32_t(t);
    for (size_t v = 0; v < vertices; ++v)
      mt.position_deltas.emplace_back(float(d.at(v, 0)), float(d.at(v, 1)), float(d.at(v, 2)));
    mesh_.rig.morph_targets.push_back(std::move(mt));
  }
  if (!rigged_) return;
  const size_t per = size_t(influences_);
  mesh_.rig.joints.resize((first + vertices) * per, 0);
  mesh_.rig.weights.resize((first + vertices) * per, 0.0f);
  const int skin = m_.nodes[size_t(n)].skin;
  if (skin < 0) {
    for (size_t v = first; v < first + vertices; ++v) {
      mesh_.rig.joints[v * per] = entry;
      mesh_.rig.weights[v * per] = 1.0f;
    }
    return;
  }
  const size_t joint_count = m_.skins[size_t(skin)].joints.size();
  if (attribute(p, "JOINTS_0") < 0)
    fail(file_, "the node has a skin, but the primitive has no JOINTS_0 (" + where + ")");
  for (int set = 0; attribute(p, "JOINTS_" + std::to_string(set)) >= 0; ++set) {
    const std::string js = "JOINTS_" + std::to_string(set), ws = "WEIGHTS_" + std::to_string(set);
    if (attribute(p, ws) < 0) fail(file_, js + " has no " + ws + " (" + where + ")");
    const Numbers j = read_checked(m_, file_, attribute(p, js), where + " " + js, 4,
                                   {TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE, TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT},
                                   int64_t(vertices));
    const Numbers w = read_checked(m_, file_, attribute(p, ws), where + " " + ws, 4, kFloatOrNormalized,
                                   int64_t(vertices));
    for (size_t v = 0; v < vertices; ++v)
      for (int k = 0; k < kInfluencesPerSet; ++k) {
        const size_t slot = (first + v) * per + size_t(set * kInfluencesPerSet + k);
        const double joint = j.at(v, k), weight = w.at(v, k);
        if (joint >= double(joint_count)) {
          if (weight != 0.0)
            fail(file_, js + " of vertex " + std::to_string(v) + " names joint " + std::to_string(uint64_t(joint)) +
                            ", but skin " + std::to_string(skin) + " has " + std::to_string(joint_count) + " (" +
                            where + ")");
          continue;  // an unused slot with a stray joint number: left as (0, 0)
        }
        mesh_.rig.joints[slot] = entry + uint32_t(joint);
        mesh_.rig.weights[slot] = float(weight);
      }
  }
}

int Loader::decode_image(int image) {
  const auto found = texture_of_image_.find(image);
  if (found != texture_of_image_.end()) return found->second;
  const tinygltf::Image& img = m_.images[size_t(image)];
  const bool external = !img.uri.empty() && img.uri.compare(0, 5, "data:") != 0;
  const std::string name = external ? img.uri : file_ + ":image " + std::to_string(image);
  const std::string what = "image " + std::to_string(image) + (external ? " (" + img.uri + ")" : std::string());
  int result = -1;
  if (img.image.empty()) {
    if (warn_) warn_(file_ + ": " + what + " could not be read; drawn untextured");
  } else if (img.image.size() > size_t(std::numeric_limits<int>::max())) {
    if (warn_) warn_(file_ + ": " + what + " is too large; drawn untextured");
  } else {
    int w = 0, h = 0, channels = 0;
    // Four channels asked for: stb converts grey, grey + alpha and RGB to RGBA, and 16-bit samples to 8 bits.
    stbi_uc* rgba = stbi_load_from_memory(img.image.data(), int(img.image.size()), &w, &h, &channels, 4);
    if (!rgba) {
      if (warn_)
        warn_(file_ + ": " + what + " cannot be decoded (" + stbi_failure_reason() + "); drawn untextured");
    } else {
      Texture t;
      t.name = name;
      t.width = w;
      t.height = h;
      t.rgba.assign(rgba, rgba + size_t(w) * size_t(h) * 4);
      stbi_image_free(rgba);
      result = int(mesh_.textures.size());
      mesh_.textures.push_back(std::move(t));
    }
  }
  texture_of_image_[image] = result;
  return result;
}

void Loader::materials() {
  bool need_default = false;
  for (int mat : material_of_triangle_) need_default |= mat < 0;
  for (size_t i = 0; i < m_.materials.size(); ++i) {
    const auto& pbr = m_.materials[i].pbrMetallicRoughness;
    const std::string where = "material " + std::to_string(i);
    Material out;
    if (pbr.baseColorFactor.size() != 4) fail(file_, "baseColorFactor must have 4 numbers (" + where + ")");
    for (int c = 0; c < 4; ++c) out.base_color[c] = float(pbr.baseColorFactor[size_t(c)]);
    if (const int tex = pbr.baseColorTexture.index; tex >= 0) {
      if (size_t(tex) >= m_.textures.size())
        fail(file_, "texture " + std::to_string(tex) + " does not exist (" + where + ")");
      const int source = m_.textures[size_t(tex)].source;
      if (source >= 0 && size_t(source) >= m_.images.size())
        fail(file_, "image " + std::to_string(source) + " does not exist (texture " + std::to_string(tex) + ")");
      if (source < 0) {
        if (warn_)
          warn_(file_ + ": texture " + std::to_string(tex) + " has no image slabcast can read; drawn untextured");
      } else {
        out.texture = decode_image(source);
      }
    }
    mesh_.materials.push_back(out);
  }
  const uint32_t default_material = uint32_t(mesh_.materials.size());
  if (need_default) mesh_.materials.push_back(Material{});  // white, untextured
  if (!mesh_.materials.empty())
    for (int mat : material_of_triangle_)
      mesh_.triangle_materials.push_back(mat < 0 ? default_material : uint32_t(mat));
}

GltfModel Loader::run(const LoadProgress& progress) {
  hierarchy();
  scene_order();
  animations();
  plan_rig();
  const std::vector<glm::dmat4> rest_globals =
      GltfAnimations(file_, nodes_, {}, {}, {}).node_globals(-1, 0.0);
  for (size_t i = 0; i < order_.size(); ++i) {
    emit_node(order_[i], rest_globals);
    if (progress && (i % 64) == 0) progress(kParseEnd + (kFlattenEnd - kParseEnd) * double(i) / double(order_.size()));
  }
  if (skipped_count_ > 0 && warn_)
    warn_(file_ + ": skipped " + std::to_string(skipped_count_) + " primitive(s) of points or lines (the first: " +
          skipped_ + "); slabcast draws triangles only");
  if (mesh_.indices.empty()) fail(file_, "the scene has no triangles");
  if (progress) progress(kFlattenEnd);

  materials();
  if (any_uv_) mesh_.corner_uvs = std::move(uvs_);
  if (any_color_) mesh_.vertex_colors = std::move(colors_);
  if (rigged_) {
    mesh_.rig.positions = mesh_.positions;  // the rig's space; Mesh::positions becomes the world rest pose below
    mesh_.rig.influences = influences_;
    mesh_.rig.palette_size = uint32_t(palette_.size());
    mesh_.rig.morph_weight_count = uint32_t(slots_.size());
  }
  GltfModel out;
  auto anims = std::make_shared<GltfAnimations>(file_, std::move(nodes_), std::move(animations_), std::move(palette_),
                                                std::move(slots_));
  if (!mesh_.rig.empty()) mesh_.positions = apply_rig(mesh_, anims->rest_pose());
  if (anims->count() > 0 && !mesh_.rig.empty()) {
    out.animations = std::move(anims);
  } else {  // nothing moves: the rest pose, baked
    mesh_.rig = MeshRig{};
  }
  for (size_t v = 0; v < mesh_.positions.size(); ++v)
    if (!std::isfinite(mesh_.positions[v].x) || !std::isfinite(mesh_.positions[v].y) ||
        !std::isfinite(mesh_.positions[v].z))
      fail(file_, "vertex " + std::to_string(v) + " of the flattened scene is not finite at rest");
  out.mesh = std::move(mesh_);
  if (progress) progress(1.0);
  return out;
}

}  // namespace

GltfModel load_gltf_model(const std::string& path, const LoadProgress& progress, const LoadWarning& warn) {
  if (progress) progress(0.0);
  const tinygltf::Model model = gltf::read_document(path, warn);
  if (progress) progress(kParseEnd);
  GltfModel out = Loader(model, path, warn).run(progress);
  out.mesh.name = base_name(path);
  return out;
}

Mesh load_gltf(const std::string& path, const LoadProgress& progress, const LoadWarning& warn) {
  GltfModel model = load_gltf_model(path, progress, warn);
  model.mesh.rig = MeshRig{};  // Mesh::positions already holds the rest pose
  return std::move(model.mesh);
}

}  // namespace slabcast
