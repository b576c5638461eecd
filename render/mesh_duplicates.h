// Triangles that can never be drawn: an earlier triangle (a lower ID) has the same three vertex positions, bit for
// bit, in the same order. Every stage computes the same values for both (the deformers are functions of a vertex's
// position, and every later stage of the triangle's three vertices), so a ray hits both at the same t and the nearest-
// hit rule's tie goes to the lower ID: the later copy can never win a pixel. The bin stage culls such copies
// (FrameParams::hidden_duplicate), which bounds the work of coincident stacks (a part duplicated in a CAD export,
// a file of 100,000 copies of one triangle) exactly: the image, IDs and depths are those of the full mesh.
// Copies whose vertices are rotated or mirrored are kept (the intersection's rounding depends on the order).
#pragma once
#include <cstdint>
#include <vector>

#include "render/renderer.h"

namespace slabcast {

// One byte a triangle, 1 for a hidden copy; empty when the mesh has none. `count` gets the number of copies.
std::vector<uint8_t> find_hidden_duplicates(const Mesh& mesh, uint64_t* count);

}  // namespace slabcast
