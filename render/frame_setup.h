// Host-side preparation shared by both backends: settings checks, the camera's view parameters, the deformer's
// frame constants, the rest mesh's bounds. Everything that calls libm's transcendental functions for a frame
// does it here, once, so that both backends see the same float values.
#pragma once
#include <cstdint>

#include "render/deform.h"
#include "render/camera.h"
#include "render/constants.h"
#include "render/renderer.h"
#include "render/shade.h"

namespace slabcast {

struct MeshBounds {
  Vec3 center{0, 0, 0};  // centre of the bounding box of the rest positions
  float radius = 1;      // half the box diagonal; 1 for a single point
};

MeshBounds rest_bounds(const Mesh& mesh);

// Throws std::invalid_argument naming the bad value (size, slabs, camera).
void check_settings(const FrameSettings& settings);

ViewParams make_view_params(const Camera& camera, int width, int height);
DeformFrame make_deform_frame(const DeformParams& params, const MeshBounds& bounds);
ShadeMode to_shade_mode(Shading shading);
bool needs_smooth_normals(Shading shading);

inline int tiles_for(int pixels) { return (pixels + kTileSize - 1) / kTileSize; }

// Whether SLABCAST_SYNC_STAGES=1 is set (debug: synchronise and check after each stage).
bool sync_stages_requested();

// Whether the cuda backend launches each frame as a CUDA graph: yes unless SLABCAST_FRAME_GRAPH=0 (to time the
// difference, or to rule the graph out while debugging; SLABCAST_SYNC_STAGES=1 also turns it off).
bool frame_graph_requested();

}  // namespace slabcast
