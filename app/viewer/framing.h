// Where the default camera puts the model in a window whose overlay panels cover parts of it: in the largest part
// they leave free. Pure maths on render::Camera (no GL, no ImGui), so it is unit-tested on its own.
#pragma once
#include "render/renderer.h"

#include <vector>

namespace slabcast::viewer {

// A rectangle of the window (pixels, origin top-left; an overlay panel, or the area they leave free).
struct PixelRect {
  int x = 0, y = 0, width = 0, height = 0;
};

// The largest rectangle of a width x height window that none of `panels` overlaps: the one that holds the largest
// square (the model's shape is not known here; a model seen from anywhere is about as wide as high on average), then
// the one of larger area. Without panels (or when
// they cover everything) the whole window.
PixelRect free_rect(int width, int height, const std::vector<PixelRect>& panels);

// The camera looking down -Z with +Y up (frame_points, as frame_mesh's) whose width x height image shows every
// point's ball as large as it can be inside `free` (a rectangle of that image) shrunk about its centre by
// kFramingMargin: the model's bounds fit the free area in both directions, its projection centred there. The
// camera's image centre stays the window's (camera.h has no lens shift): the eye moves sideways instead, and the
// camera looks at the point on its axis at the depth of the points' centre (orbiting turns about that point).
// Without panels (free = the whole window) this is frame_mesh's camera.
Camera frame_points_in_rect(const std::vector<FramingPoint>& points, float fovy_degrees, int width, int height,
                            const PixelRect& free);

}  // namespace slabcast::viewer
