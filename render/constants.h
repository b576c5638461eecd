// Compile-time tuning and limits of the renderer, in one place (style.md: tuning is data).
#pragma once
#include <cstdint>

namespace slabcast {

constexpr int kTileSize = 8;                        // tiles are kTileSize x kTileSize pixels
constexpr int kTilePixels = kTileSize * kTileSize;  // = threads per cast block
constexpr int kMaxSlabs = 64;                       // FrameSettings::slabs is 1..kMaxSlabs
constexpr int kDefaultSlabs = 16;

// The splits accept at most 2048 buckets (prim::kMaxMultiSplitBuckets, kMaxSegmentedSplitBuckets): L1 splits by
// tile column, L2 by tile row, so a frame has at most this many tiles per axis (16384 pixels).
constexpr int kMaxTilesPerAxis = 2048;

// Cast: a tile's references are brought into shared memory this many at a time, across slab boundaries (each
// thread loads kCastChunk / kTilePixels of them; their loads are independent, so one chunk costs one round trip
// for the references and one for their triangles and pixel boxes): the caster is latency-bound, and one chunk per
// cell would make three dependent global loads per slab. 128 holds a typical covered dragon tile (~125 references at
// 1024^2) whole; what a tile loads beyond the slab where its rays finish is read but not tested.
constexpr int kCastChunk = 2 * kTilePixels;
// Deep cells (stages/cast.h): a cell of more than kDepthSortedCell references, 256 a pixel of its tile, is ordered by
// near depth before the cast, and its rays take it kDepthGroup references at a time, stopping before a group whose
// first triangle lies behind their hit. Stacked geometry (layered scans, coplanar overlaps) makes such cells, and
// without the order every ray would test the whole stack. Dense meshes make cells of thousands of small triangles
// side by side, which the pixel boxes already thin out, and the block's sort of a cell (depth_sort_block.cuh) is
// latency-bound, some 30 us per thousand references on an H100, in one block that the frame then waits for: the
// benchmark's 16M-triangle sphere has cells of up to 9,200 references (3840x2160, one slab), and sorting cells from
// 1,024 references up made its frames up to 18% slower, from 8,192 up 16% slower in that row.
constexpr uint64_t kDepthGroup = 128;
constexpr uint64_t kDepthSortedCell = 2 * kDepthGroup * kTilePixels;
// Cast blocks an SM: caps the caster at 56 registers.
constexpr int kCastBlocksPerSm = 18;

// Binning (stages/bin.h) gives a triangle the pixels whose centres lie in its projected box, widened on each side by
//   kBinMarginPixels + kBinMarginRelative * (largest |projected coordinate| of its vertices, at least the frame size)
// so that rounding in the projection and in the ray-triangle test can never drop a covered pixel. Both round at a
// few ulps of the coordinates involved: about 1e-4 pixel on a 1024-pixel screen, proportionally more for a vertex
// that projects far off screen (one just in front of the eye); the relative term (about 80 ulps) covers that.
// Bin.EveryPixelTheRayTestHitsIsInTheTileRange puts box-bounding vertices on pixel centres: it fails with no margin
// and passes with 1/1024 + 1e-6, so this is 32x that. Binning by pixel centres rather than by every pixel the box
// touches (plus a pixel) halves the references: the dragon at 1024x1024 makes 0.94 per triangle instead of 2.04
// (1.20 per binned triangle, 22% of them falling between pixel centres), the same image.
constexpr float kBinMarginPixels = 1.0f / 32.0f;
constexpr float kBinMarginRelative = 1.0e-5f;

// Block sizes of the one-thread-per-item kernels (deform, bin, normals). The cuda backend shades in the caster.
constexpr int kVertexBlock = 256;
constexpr int kTriangleBlock = 256;

// Vertex normals (stages/deform.h): a vertex with more adjacent triangles than this is summed by a warp of
// kWarpSumLanes lanes instead of one thread. The 4M-triangle sphere's poles have 2000 triangles each, the 16M one's
// 4000; the dragon's vertices have at most 15, so each of its normals is one thread's sum.
constexpr int kWarpSumValence = 64;
constexpr int kWarpSumLanes = 32;

// L1 emits a triangle's references from one thread, one tile after the other: a triangle over more than
// kLargeTriangleTiles tiles (a floor under the scene, a triangle across the camera plane: the whole frame) would hold
// the split up for as long as its thousands of tiles take. The bin stage lists such a triangle's columns instead, as
// pieces, each an input of L1 of its own that emits that column's tiles (stages/build.h).
constexpr uint64_t kLargeTriangleTiles = 64;
constexpr uint64_t kInitialPieceCapacity = uint64_t(1) << 14;

// Reference capacity (triangle references after L1): initial guess per triangle, and growth factor on overflow.
// Binning by pixel centres makes about one reference per triangle on the target scenes (cpu backend counts: dragon
// 0.94 at 1024x1024 and 1.53 at 3840x2160, sphere 4M 0.81 at 1024x1024, sphere 16M 0.89 at 3840x2160), so two per
// triangle is room for most; a frame that needs more (the 1M sphere twisted at 3840x2160: 2.01) grows the buffers
// once and is redone. The two reference arrays of the 16M sphere are 512 MB at two per triangle (1 GB at four).
constexpr uint64_t kInitialRefsPerTriangle = 2;
constexpr uint64_t kMinReferenceCapacity = uint64_t(1) << 16;
constexpr double kReferenceGrowth = 1.5;

// Shadows (stages/shadow.h): light space gets a tile per kLightTileSamples pixels of the frame, or per
// kLightTileTriangles triangles of the mesh where that is more (a sun's one face: 512 x 512 tiles for the dragon at
// 1024x1024, 1414 x 1414 for the 16M sphere), so that a sample's tile holds few triangles besides those near its own
// shadow ray; a point light's six faces share that many, though its samples lie on one to three of them. A face has
// at most (kMaxLightColumns - 1) / faces tiles a side (a sun's 2047, a point light's 341). A triangle over more than
// kLargeLightTriangle tiles is a large one: instead of a reference in each, it goes to a list that every sample tests
// (a floor under the scene).
// A point light's faces stay this coarse although finer ones made the median frame faster: each face's grid is fitted
// to its samples' bounds however few they are, so on a face with a few samples in a small area finer tiles make many
// triangles large, and every sample of every face walks them (on the cpu backend, a 1M sphere at 512x512 under a
// point light, twisting: the test's p99 7.5x its median with half the tiles on each face, 1.6x with a sixth).
constexpr int kLightTileSamples = 4;
constexpr int kLightTileTriangles = 8;
constexpr int kMaxLightColumns = 2048;
constexpr uint64_t kLargeLightTriangle = 256;
// Light-space references a frame first has room for: kInitialRefsPerTriangle a triangle, plus two whole faces
// (a floor under the scene covers every tile).
constexpr uint64_t kInitialLightRefsPerTile = 2;
// Shadow test (cuda): a warp takes 32 consecutive samples (in light-tile order) and loads each of their tiles'
// triangles once for all of them (render/cuda/shadow_block.cuh); a block of kShadowTestBlock threads adds its test
// count to the frame's in one atomic. Warps take very different times (a lit sample walks its whole list), and a
// block's resources return only when its last warp ends, so blocks are small; kShadowTestBlocksPerSm caps the
// registers (the kernel is bound by latency, and more warps hide more of it).
constexpr int kShadowTestBlock = 128;
constexpr int kShadowTestBlocksPerSm = 10;

// A miss in the ID buffer.
constexpr uint32_t kNoHit = 0xFFFFFFFFu;

}  // namespace slabcast
