// The rig's host side, shared by both backends: its checks, the flat arrays the deform stage reads (FrameParams'
// rig block) and a frame's pose in the device layout (render/stages/deform.h: posed_vertex).
#pragma once
#include <cstdint>
#include <vector>

#include "render/frame_params.h"
#include "render/renderer.h"

namespace slabcast {

// A MeshRig as the backends hold it: positions as Vec3, the morph targets' deltas one after another.
struct FlatRig {
  std::vector<Vec3> positions;  // empty: no rig
  int influences = 0;
  std::vector<uint32_t> joints;
  std::vector<float> weights;
  std::vector<MorphRange> morph_targets;
  std::vector<Vec3> morph_deltas;
  uint32_t palette_size = 0;
  uint32_t morph_weight_count = 0;
  uint64_t bytes() const;  // what the arrays above take (and the pose's, on the device)
};

FlatRig flatten_rig(const MeshRig& rig);
uint64_t flat_rig_bytes(const MeshRig& rig);  // flatten_rig(rig).bytes(), without flattening
MeshRig unflatten_rig(const FlatRig& rig);  // the inverse (a backend restoring a mesh it had to free)

// Throws std::invalid_argument naming the mesh and the problem: arrays of the wrong size, a joint past the palette,
// a morph target past the vertices or its weight past the weights, a non-finite value.
void validate_rig(const Mesh& mesh);

// The pose as the deform stage reads it. Throws std::invalid_argument when it does not fit the rig (sizes) or holds
// a non-finite value.
void pose_to_device_layout(const FramePose& pose, uint32_t palette_size, uint32_t morph_weight_count,
                           std::vector<RigMatrix>& palette, std::vector<float>& morph_weights);

// The mesh's positions posed on the host, as the deform stage poses them (before any procedural deformer): for
// --deformed-mesh of a rest frame, framing, and tests.
std::vector<glm::vec3> pose_positions(const Mesh& mesh, const FramePose& pose);

}  // namespace slabcast
