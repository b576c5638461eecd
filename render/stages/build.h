// Stage 3, build (docs/architecture.md, frame step 3): the reference key layout and the functors of the three
// splits, shared by the cuda backend (device primitives) and the cpu backend (the primitives' host references), so
// both build the same structure.
//
//   L1  multi_split of triangles by tile column: a triangle emits one reference per tile of its range
//   L2  segmented_split of each column by tile row
//   L3  segmented_split of each tile by slab
//
// After L3 the references are packed by cell, cells in the order (tx * tiles_y + ty) * slabs + slab (column
// major, the order the splits produce; FrameStructure converts to its documented row-major order).
#pragma once
#include <cstdint>

#include "render/frame_params.h"
#include "render/hd_math.h"
#include "render/stages/bin.h"

namespace slabcast {

// A triangle reference (TriangleRef, frame_params.h: the payload of all three splits), 64 bits:
//
//   bit 63 ........ 58 | 57 ............ 32 | 31 ............ 0
//        slab (6 bits) |  tile row (26 bits) |  triangle ID (32)
//
// The tile column is not stored: after L1 it is the segment a reference lies in. 6 bits hold slabs 0..63
// (kMaxSlabs = 64); 26 bits hold 67M tile rows (any image that fits in memory); the ID holds 2^32 - 1
// triangles (0xFFFFFFFF is the miss value, so a mesh has fewer triangles than that).
constexpr int kRefRowShift = 32;
constexpr int kRefSlabShift = 58;
constexpr uint64_t kRefRowMask = (uint64_t(1) << 26) - 1;
constexpr uint64_t kRefSlabMask = (uint64_t(1) << 6) - 1;
static_assert(kMaxSlabs <= 64, "slab field is 6 bits");

SC_HD TriangleRef pack_ref(uint32_t triangle, uint32_t row, uint32_t slab) {
  return (static_cast<uint64_t>(slab) << kRefSlabShift) | (static_cast<uint64_t>(row) << kRefRowShift) |
         static_cast<uint64_t>(triangle);
}
SC_HD uint32_t ref_triangle(TriangleRef r) { return static_cast<uint32_t>(r); }
SC_HD uint32_t ref_row(TriangleRef r) { return static_cast<uint32_t>((r >> kRefRowShift) & kRefRowMask); }
SC_HD uint32_t ref_slab(TriangleRef r) { return static_cast<uint32_t>((r >> kRefSlabShift) & kRefSlabMask); }

// L1 emitter: the same functor runs the multi-split's count pass and its emit pass (style.md 7), so the two
// cannot disagree about how many references a triangle makes. Emits, column by column and within a column
// row by row, one reference per tile of the triangle's range.
//
// L1's inputs are the triangles, then the pieces of the large ones (FrameParams::pieces): a large triangle emits
// nothing itself, and each of its pieces emits its column's tiles, so that no input emits more than a column.
struct TileColumnEmitter {
  const PixelBox* pixel_box;          // [triangles] (stages/bin.h)
  const float* nearest_depth;         // [triangles], view depth (stages/bin.h)
  const DepthRangeKeys* depth_range;  // the frame's depth range (stages/bin.h)
  int slabs;
  int64_t triangles;
  const uint64_t* pieces;             // inputs from `triangles` on

  template <class Emit>
  SC_HD void operator()(int64_t i, Emit& emit) const {
    int64_t t = i;
    int first_column = 0, last_column = 0;
    if (i >= triangles) {  // a piece: one column of a large triangle
      const uint64_t piece = pieces[i - triangles];
      t = static_cast<int64_t>(piece >> 32);
      first_column = last_column = static_cast<int>(static_cast<uint32_t>(piece));
    }
    const TileRange r = tile_range_of(pixel_box[t]);
    if (is_culled(r)) return;
    if (i < triangles) {
      if (is_large(r)) return;  // its pieces emit it
      first_column = r.x0;
      last_column = r.x1;
    }
    const SlabRange sr = make_slab_range(*depth_range, slabs);
    const uint32_t slab = slab_of_depth(sr, nearest_depth[t]);
    for (int tx = first_column; tx <= last_column; ++tx) {
      for (int ty = r.y0; ty <= r.y1; ++ty) {
        emit(static_cast<uint32_t>(tx), pack_ref(static_cast<uint32_t>(t), static_cast<uint32_t>(ty), slab));
      }
    }
  }
};

struct RowOfRef {  // L2 bucket
  SC_HD uint32_t operator()(const TriangleRef& r) const { return ref_row(r); }
};
struct SlabOfRef {  // L3 bucket
  SC_HD uint32_t operator()(const TriangleRef& r) const { return ref_slab(r); }
};

// Cell index in the build's order (to_frame_structure converts to FrameStructure's documented order).
SC_HD uint64_t build_cell(int tx, int ty, int slab, int tiles_y, int slabs) {
  return (static_cast<uint64_t>(tx) * static_cast<uint64_t>(tiles_y) + static_cast<uint64_t>(ty)) *
             static_cast<uint64_t>(slabs) + static_cast<uint64_t>(slab);
}

// The references of tile (tx, ty), all slabs.
SC_HD uint64_t tile_reference_count(const FrameParams& p, int tx, int ty) {
  const uint64_t first = build_cell(tx, ty, 0, p.tiles_y, p.slabs);
  return p.cell_offsets[first + static_cast<uint64_t>(p.slabs)] - p.cell_offsets[first];
}

}  // namespace slabcast
