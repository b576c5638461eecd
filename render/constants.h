// Compile-time tuning and limits of the renderer, in one place (style.md: tuning is data).
#pragma once
#include <cstdint>

namespace slabcast {

constexpr int kTileSize = 8;                        // tiles are kTileSize x kTileSize pixels
constexpr int kTilePixels = kTileSize * kTileSize;  // = threads per cast block (one thread per pixel ray)
constexpr int kMaxSlabs = 64;                       // FrameSettings::slabs is 1..kMaxSlabs
constexpr int kDefaultSlabs = 16;

// The splits accept at most 2048 buckets (prim::kMaxMultiSplitBuckets, kMaxSegmentedSplitBuckets): L1 splits by
// tile column, L2 by tile row, so a frame has at most this many tiles per axis (16384 pixels).
constexpr int kMaxTilesPerAxis = 2048;

// Cast: triangles of one cell are brought into shared memory in batches of this many (one per thread).
constexpr int kCastBatch = kTilePixels;

// Conservative binning: a triangle's projected bounding box is widened by this many pixels on each side,
// so that float rounding in the projection (vs. the ray-triangle test) can never drop a covered pixel.
constexpr float kBinMarginPixels = 1.0f;

// Block sizes of the one-thread-per-item kernels (deform, bin, normals, shade).
constexpr int kVertexBlock = 256;
constexpr int kTriangleBlock = 256;
constexpr int kShadeBlockX = 32;
constexpr int kShadeBlockY = 8;

// Reference capacity (triangle references after L1): initial guess per triangle, and growth factor on overflow.
constexpr uint64_t kInitialRefsPerTriangle = 4;
constexpr uint64_t kMinReferenceCapacity = uint64_t(1) << 16;
constexpr double kReferenceGrowth = 1.5;

// A miss in the ID buffer.
constexpr uint32_t kNoHit = 0xFFFFFFFFu;

}  // namespace slabcast
