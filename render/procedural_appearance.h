// A generated texture for any mesh, so that textured shading can be benchmarked and tested on meshes that come
// without one (the dragon, the procedural meshes): corner UVs from a spherical projection about the mesh's centre
// and one material with a coloured checker texture.
#pragma once
#include "render/renderer.h"

namespace slabcast {

// Replaces the mesh's appearance: corner UVs (longitude and latitude of each corner about the bounding box's
// centre; a triangle across the seam takes its corners' longitudes within half a turn of its first corner's, so
// it does not sample the whole texture), one material with a `texture_size`² checker of `checks`² squares in four
// colours. Throws std::invalid_argument for a size below 2 or above 8192, or checks outside 1..texture_size.
void add_checker_texture(Mesh& mesh, int texture_size, int checks);

}  // namespace slabcast
