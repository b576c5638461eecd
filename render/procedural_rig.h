// A generated rig for any mesh, so that skinning and morphing can be benchmarked and tested on meshes of any size
// without a file: a chain of joints up the mesh's height bending it from side to side, four influences a vertex
// (cubic B-spline weights of the vertex's height along the chain), and two morph targets (a bulge away from the
// centre and a ripple across the height).
#pragma once
#include "render/renderer.h"

#include <vector>

namespace slabcast {

// Adds the rig to a mesh that has none (its rig positions are its positions: the rest pose is the identity).
// `joints` >= 4. Throws std::invalid_argument otherwise or when the mesh already has a rig.
void add_procedural_rig(Mesh& mesh, int joints);

// The pose at `seconds`: each joint turns about +Z at its pivot by a swinging angle, the chain compounding it; the
// morph weights swing between 0 and 1.
FramePose procedural_rig_pose(const Mesh& mesh, float seconds);
// The same from the joints' pivots (procedural_rig_pivots, computed once: it reads every vertex).
std::vector<glm::vec3> procedural_rig_pivots(const Mesh& mesh);
FramePose procedural_rig_pose(const std::vector<glm::vec3>& pivots, float seconds);

}  // namespace slabcast
