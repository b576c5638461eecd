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
// circle (the model's bounding sphere projects to about one), then the one of larger area. Without panels (or when
// they cover everything) the whole window.
PixelRect free_rect(int width, int height, const std::vector<PixelRect>& panels);

// A camera looking down -Z with +Y up (as frame_mesh's) whose width x height image shows `sphere`, enlarged by
// kFramingMargin, whole and as large as it can be inside `free` (a rectangle of that image). The camera's image
// centre stays the window's (camera.h has no lens shift): the eye moves sideways instead, so the sphere's centre lies
// off the view axis, and the camera looks at the point beside it on that axis (orbiting turns about that point).
Camera frame_sphere_in_rect(const BoundingSphere& sphere, float fovy_degrees, int width, int height,
                            const PixelRect& free);

}  // namespace slabcast::viewer
