// glTF 2.0 in (.gltf with .bin files or data URIs, and .glb), through tinygltf: the scene flattened into one Mesh,
// with its appearance and, for an animated file, its rig and a GltfAnimations that poses it.
//
// Strict like app/mesh_io.h: a broken file ends in one std::runtime_error "FILE: what is wrong (mesh 3 primitive 1
// ...)", never in a crash; tinygltf's own errors are passed on the same way. Warnings ("FILE: what") go to `warn`.
//
// What becomes the Mesh
//   Triangles: the default scene (or scene 0; without scenes, every root node) flattened in this order, which
//   defines the triangle IDs: the scene's root nodes in order, each node before its children, children in order
//   (depth first); a node's mesh's primitives in order; each primitive's indices in order (0, 1, 2, ... when it has
//   none). TRIANGLES as they are; TRIANGLE_STRIP and TRIANGLE_FAN converted per the specification (strip triangle i:
//   (i, i+1, i+2) for even i, (i, i+2, i+1) for odd i; fan triangle i: (i+1, i+2, 0)); POINTS and LINES skipped
//   with one warning for the file. Every primitive instance gets vertices of its own (none are shared).
//   Accessors: every component type the specification allows, normalized integers, byteStride, sparse accessors
//   (also without a bufferView), all bounds-checked.
//   Positions: a static node's primitives (no skin, no morph targets, neither it nor an ancestor animated) have
//   their node's global transform baked in. Everything else is in the rig, below.
//   Appearance: Mesh::materials = the file's materials in order (baseColorFactor; baseColorTexture -> its image,
//   decoded to RGBA8 from 1..4 channels of 8 or 16 bits), then one default white material if some primitive has
//   none; triangle_materials per triangle. corner_uvs from the TEXCOORD_n set that each triangle's base colour
//   texture names (glTF's v as stored: v = 0 is the image's top row, as Mesh wants), (0, 0) elsewhere, empty when no
//   triangle has them. vertex_colors from COLOR_0 (float, normalized u8 or u16; RGB or RGBA; rounded to 8 bits),
//   white elsewhere, empty when no primitive has them. NORMAL, TANGENT, other texture slots: not read (the renderer
//   computes its normals from the positions).
//
// The rig (when some vertex is skinned, under an animated node, or morphed) — MeshRig's formula in renderer.h:
//   palette entry 0        the identity, for the static vertices (whose positions are baked to world space);
//   one entry per node     that carries an unskinned mesh and is animated or has morph targets: the node's global
//                          transform; its vertices are in the primitive's local (mesh) space;
//   one block per skin     (in the order the scene first uses the skins), one entry per joint:
//                          global(joint) x inverseBindMatrix; its vertices are in mesh space (the skinned node's own
//                          transform is ignored, as the specification says).
//   influences = 4 x the most JOINTS_n/WEIGHTS_n sets of any skinned primitive (1 without skins), the same for every
//   vertex: a skinned vertex has all its sets' (joint, weight) pairs, as stored (nothing is normalized), then pairs
//   (0, 0); any other vertex has (its entry, 1), then pairs (0, 0).
//   Morph targets (POSITION; a target's NORMAL and TANGENT are ignored, since the renderer computes normals from the
//   positions): one MorphTarget per (primitive instance, target), first_vertex = the primitive's first vertex;
//   morph weight slots: one per (node, target index) of each node whose mesh has targets, in scene order.
//   Rest weights: the node's `weights`, else the mesh's, else 0.
//
// A file without animations comes back static: its rig evaluated at the rest pose into Mesh::positions (world
// space), Mesh::rig empty, GltfModel::animations null.
#pragma once
#include "app/formats/gltf_animation.h"
#include "app/mesh_io.h"  // LoadProgress, LoadWarning
#include "render/renderer.h"

#include <memory>
#include <string>

namespace slabcast {

struct GltfModel {
  Mesh mesh;  // with a rig when `animations` is set: pose it with animations->pose_at() or rest_pose()
  std::shared_ptr<const GltfAnimations> animations;  // null when the file has no animation
};

// Loads FILE.gltf or FILE.glb (recognised by the 'glTF' magic, not by the name) with its rig and animations.
// Mesh::name is the file's base name. Throws std::runtime_error "FILE: what is wrong".
GltfModel load_gltf_model(const std::string& path, const LoadProgress& progress = {}, const LoadWarning& warn = {});

// The same file as a static Mesh: the rest pose (no animation applied) baked into Mesh::positions, Mesh::rig empty,
// so that it renders right with FrameSettings::pose = nullptr. For animation use load_gltf_model.
Mesh load_gltf(const std::string& path, const LoadProgress& progress = {}, const LoadWarning& warn = {});

}  // namespace slabcast
