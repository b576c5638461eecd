// One frame's parameter block (cudaraster's CRParams): passed by value to every cuda kernel, and used the same way by
// the cpu backend's loops. The pointers are device memory for the cuda backend and host memory for the cpu backend.
// Fields are grouped "stage N output / stage N+1 input"; each pointer gives its shape, units and the stage that
// writes it. The records below are the element types of those arrays; the functions that make and read them are
// in the stage headers (render/stages/: deform.h, bin.h, build.h, cast.h, shade.h), in pipeline order.
#pragma once
#include <cstdint>

#include "render/camera.h"
#include "render/hd_math.h"

namespace slabcast {

// An 8-bit RGBA colour as the shade stage writes it (stages/shade.h).
struct Rgba8 {
  uint8_t r, g, b, a;
};

// ---- frame constants: the deformer (stages/deform.h) and the shading (stages/shade.h) ----

// The same values as render/renderer.h's Deformer (uint8_t), duplicated here so that device code does not need
// GLM; static_asserts in frame_setup.cpp keep the two in step.
enum class DeformKind : uint8_t { none = 0, twist = 1, bend = 2, wave = 3, pulse = 4 };

struct DeformFrame {
  DeformKind kind = DeformKind::none;
  float amount = 0;
  float time = 0;
  Vec3 center{0, 0, 0};  // centre of the rest mesh's bounding box
  float radius = 1;      // half its diagonal (> 0)
  float unit = 1;        // the power of two nearest below 1 / radius: d * unit is d at unit size, exactly
};

// The same values as renderer.h's Shading (static_asserts in frame_setup.cpp keep them in step).
enum class ShadeMode : uint8_t { phong = 0, flat, depth, normals, triangle_id, slab, ray_tests, tile_triangles, shadow,
                              albedo };

// The same values as renderer.h's LightType (static_asserts in frame_setup.cpp).
enum class LightKind : uint8_t { headlight = 0, sun = 1, point = 2 };

// The frame's light in view space (frame_setup.cpp: make_light_frame; stages/shadow.h uses it). A headlight is a point
// light at the eye, for its shadows; it shades as the classic headlight (stages/shade.h).
struct LightFrame {
  LightKind kind = LightKind::headlight;
  bool shadows = false;   // the shadow stages run (and the shade reads their mask)
  Vec3 direction{0, 0, 1};  // sun: unit vector from the scene towards the sun
  Vec3 position{0, 0, 0};   // point light (headlight: the eye), view units
  Vec3 axis_u{1, 0, 0};     // sun: with axis_v an orthonormal basis of the plane across `direction`
  Vec3 axis_v{0, 1, 0};
  int faces = 1;            // light-space faces: 1 (sun, orthographic), 6 (point light: the cube around it)
  int grid = 1;             // light tiles along each side of a face
};

// ---- records ----

// An affine transform as four columns: x -> c0 * x.x + c1 * x.y + c2 * x.z + c3 (a FramePose palette entry).
struct RigMatrix {
  Vec3 c0, c1, c2, c3;
};

// One morph target (renderer.h's MorphTarget) over the flattened deltas: vertices [first_vertex, first_vertex +
// vertex_count) move by weight x morph_deltas[delta_offset + (v - first_vertex)].
struct MorphRange {
  uint32_t first_vertex;
  uint32_t vertex_count;
  uint32_t weight;        // index into FrameParams::morph_weights
  uint32_t unused;        // 0
  uint64_t delta_offset;
};

// A deformed vertex in view space, padded to 16 bytes: the bin stage gathers three per triangle, and a 12-byte
// vertex straddles two 32-byte sectors a third of the time (the bin kernel is bound by the L2's throughput).
struct alignas(16) ViewVertex {
  Vec3 p;
  float unused;  // written (as 0) so that the padding is defined
};

struct TriangleVerts {  // one triangle's vertices in view space (the caster's input record)
  Vec3 a, b, c;
};

// Inclusive range of the pixels whose centre ray can hit a triangle, clamped to the frame (empty: x0 > x1); the
// bin stage writes it, L1 and the caster read it (stages/bin.h says how it is made and why 16 bits a bound).
struct alignas(8) PixelBox {
  int16_t x0, y0, x1, y1;
};

// The frame's depth range as two integer keys, each a maximum, so both backends get the same bits in any order
// (stages/bin.h: nearest_depth_key, farthest_depth_key, make_slab_range).
struct DepthRangeKeys {
  uint32_t nearest;   // max over d of ~bits(d): the smallest d
  uint32_t farthest;  // max over d of bits(d): the largest d
};

// A triangle reference of the L1 / L2 / L3 build: slab, tile row and triangle ID in 64 bits (stages/build.h gives
// the bit layout, pack_ref and its readers).
using TriangleRef = uint64_t;

// The light-space bounds of one face's shadow samples as four integer keys, each a maximum (stages/shadow.h:
// ordered_key), so both backends get the same bits in any order; 0 = no sample on the face.
struct LightFaceKeys {
  uint32_t u_min, u_max, v_min, v_max;  // u_min and v_min hold the complement of the key
};
constexpr int kMaxLightFaces = 6;

// A box in one face's light-space coordinates (stages/shadow.h); empty when u0 > u1. A triangle's box also bounds
// its light depth from the light's side (near: no point of it is nearer the light); a face's sample bounds leave it 0.
struct LightBox {
  float u0, u1, v0, v1;
  float near;
};
// A face's grid (stages/shadow.h: face_grid): its samples' bounds (lo > hi: none) and the cells a unit along u and v.
struct LightFaceGrid {
  LightBox bounds;
  float u_cells, v_cells;
};

// A shadow sample: the origin of its shadow ray (the primary hit moved off its triangle by its rounding error,
// stages/shadow.h) and the triangle it lies on; id = kNoHit: no sample (a miss, or a point on the light itself).
struct alignas(16) ShadowOrigin {
  Vec3 origin;  // view units
  uint32_t id;
};

// Integer statistics accumulated during a frame (integer atomics only: deterministic).
struct FrameCounters {
  uint64_t binned;             // triangles that survived culling
  uint64_t references;         // L1 references (what L1 reported, also when over capacity)
  uint64_t ray_tests;          // ray-triangle tests of all pixels
  uint64_t pixels_hit;
  uint64_t nonempty_cells;
  uint64_t max_refs_per_tile;
  uint64_t overflow;           // 1 when L1 needed more than the reference capacity
  uint64_t depth_sorted_cells; // cells ordered by near depth for the cast (stages/cast.h)
  uint64_t deep_tiles;         // cuda backend: entries of FrameParams::deep_tiles
  uint64_t pieces;             // large triangles' columns listed by the bin stage (also beyond piece_capacity)
  uint64_t l1_inputs;          // cuda backend: L1's inputs, the triangles and the pieces
  uint64_t shadow_samples;     // pixels with a primary hit sent to the light
  uint64_t light_references;   // triangle references in light tiles, a large triangle's one (also when over
                               //   capacity)
  uint64_t light_overflow;     // 1 when the light references needed more than their capacity
  uint64_t shadow_tests;       // (sample, triangle) pairs of the light tiles (stages/shadow.h: shadow_test_one)
  uint64_t max_ray_tests;      // the most ray-triangle tests of one pixel: the ray_tests view's scale (the cuda
                               //   caster finds it for that view only, the cpu backend always)
  DepthRangeKeys depth_range;  // not a statistic: the bin stage's depth range, here to be zeroed with them
  LightFaceKeys light_faces[kMaxLightFaces];  // not a statistic: the samples' light-space bounds (stages/shadow.h)
  LightFaceGrid light_grids[kMaxLightFaces];  // not a statistic: each face's grid, made from light_faces once a frame
                                              //   (with the samples' keys) for the triangles' walks
};

// ---- the mesh's appearance (render/appearance.h packs it at set_mesh; stages/texture.h reads it) ----

struct UV {  // texture coordinates; v = 0 at the texture's top row, 1 texture = 1 unit (repeats)
  float u, v;
};

// A material: the base colour factor as stored (RGBA) and its texture (index into AppearanceFrame::textures, -1 =
// none).
struct MaterialRecord {
  float r, g, b, a;
  int32_t texture;
};

// One texture's mip pyramid: levels first_level .. first_level + levels - 1 of AppearanceFrame::mip_levels, level 0
// the texture as stored, each next level half as wide and high (at least 1), down to 1x1.
struct TextureRecord {
  uint32_t first_level;
  uint32_t levels;
};

// One mip level: width x height texels at AppearanceFrame::texels[offset ..], row-major, row 0 = the top row.
struct MipLevel {
  uint64_t offset;
  int32_t width, height;
};

// The appearance as the shade stage reads it. `materials == nullptr`: the mesh has none, and the shade stage skips
// every step below (the image is the one a mesh without appearance always had).
struct AppearanceFrame {
  const MaterialRecord* materials;     // [materials]
  const uint32_t* triangle_materials;  // [num_triangles], material index; nullptr: every triangle uses material 0
  const UV* corner_uvs;                // [3 * num_triangles], triangle i's corners at 3i..3i+2; nullptr: no texturing
  const uint32_t* vertex_colors;       // [num_vertices], RGBA8 with r in the low byte; nullptr: white
  const TextureRecord* textures;       // [textures]
  const MipLevel* mip_levels;          // [sum of the textures' levels]
  const uint32_t* texels;              // every level of every texture, RGBA8 with r in the low byte
  float cone_spread;                   // a pixel's ray-cone spread angle, radians: atan(2 tan(fovy / 2) / height)
};

// ---- the block ----

struct FrameParams {
  // ---- the mesh (set_mesh) ----
  const uint8_t* hidden_duplicate;      // [num_triangles]: 1 where an earlier triangle has the same vertex
                                        //   positions (mesh_duplicates.h); nullptr when the mesh has none
  int64_t num_vertices;
  int64_t num_triangles;
  const Vec3* rest_positions;           // [num_vertices], world
  const uint32_t* indices;              // [3 * num_triangles], vertex IDs
  const uint64_t* adjacency_offsets;    // [num_vertices + 1]: vertex v's triangles are
  const uint32_t* adjacency_triangles;  //   adjacency_triangles[offsets[v] .. offsets[v+1]), ascending IDs

  // ---- the rig (set_mesh; renderer.h's MeshRig) and this frame's pose: rig_positions = nullptr when the mesh has
  // no rig or the frame no pose (the deform stage then starts from rest_positions) ----
  const Vec3* rig_positions;          // [num_vertices], the rig's space
  int rig_influences;                 // joint influences per vertex (0: no skinning)
  const uint32_t* rig_joints;         // [num_vertices * rig_influences], palette indices
  const float* rig_weights;           // [num_vertices * rig_influences]
  int64_t morph_target_count;
  const MorphRange* morph_targets;    // [morph_target_count]
  const Vec3* morph_deltas;           // the targets' position deltas, one after another
  const RigMatrix* rig_palette;       // [the rig's palette size]: this frame's pose
  const float* morph_weights;         // [the rig's morph weight count]: this frame's pose
  // A mesh sequence's keyframes (renderer.h's Keyframes): keyframe_a = nullptr without; then the deform stage
  // starts from keyframe_a + keyframe_mix * (keyframe_b - keyframe_a) in place of the rest positions and the rig.
  const Vec3* keyframe_a;             // [num_vertices]
  const Vec3* keyframe_b;             // [num_vertices]
  float keyframe_mix;
  // The user displacement (renderer.h's Displacement), after everything above: vertex v moves by
  // displacement_offsets[v] + displacement_weights[v] * displacement_offset; a nullptr array adds no term.
  const Vec3* displacement_offsets;   // [num_vertices], world
  const float* displacement_weights;  // [num_vertices], in [0, 1]
  Vec3 displacement_offset;           // world

  // ---- frame constants (host, frame_setup.h) ----
  DeformFrame deform;
  ViewParams view;           // camera; view.width x view.height pixels
  int tiles_x, tiles_y;      // kTileSize x kTileSize pixel tiles (the last row / column may be partial)
  int slabs;                 // 1..kMaxSlabs
  ShadeMode shading;
  bool need_smooth_normals;  // phong / normals views
  bool wireframe;            // darken the hits near their triangle's edges (stages/shade.h: near_triangle_edge)
  LightFrame light;          // the light, in view space (stages/shadow.h, stages/shade.h)
  Rgba8 background;          // the colour of a pixel whose ray hits nothing (FrameSettings::background), opaque

  // ---- the mesh's appearance (set_mesh; frame constant cone_spread): stage 5 (shade) input ----
  AppearanceFrame appearance;

  // ---- stage 1 (deform) output / stage 2 input ----
  Vec3* world_positions;       // [num_vertices], deformed, world
  ViewVertex* view_positions;  // [num_vertices], deformed, view space
  Vec3* face_normals;          // [num_triangles], cross(b - a, c - a) of the edges times view.view_scale, world
                               // orientation, area weighted (smooth normals only)
  Vec3* vertex_normals;        // [num_vertices], normalized sum of adjacent face normals, world (smooth normals only)

  // ---- stage 2 (project and bin) output / stage 3 input ----
  PixelBox* pixel_box;          // [num_triangles], pixels; empty when culled
  float* nearest_depth;         // [num_triangles], view depth of the nearest vertex (kStraddleDepth, kCulledDepth)
  TriangleVerts* tri_verts;     // [num_triangles], view space (written for binned triangles; with shadows for
                                //   all but hidden duplicates)
  DepthRangeKeys* depth_range;  // [1], the in-front triangles' nearest depths, min and max as keys
  uint64_t piece_capacity;      // elements of `pieces`
  uint64_t* pieces;             // [piece_capacity]: a large triangle's columns, (ID << 32 | tile column) each
                                //   (stages/build.h); the first counters->pieces, in no particular order

  // ---- stage 3 (build: L1 / L2 / L3) output / stage 4 input ----
  uint64_t reference_capacity;   // elements of the reference arrays
  TriangleRef* cell_refs;        // [reference_capacity]: references packed by cell, build order (stages/build.h);
                                 //   deep cells are put in near-depth order before the cast (stages/cast.h)
  TriangleRef* cell_refs_scratch;  // [reference_capacity]: free after the build; the cuda caster sorts deep cells in it
  const uint64_t* cell_offsets;  // [tiles_x * tiles_y * slabs + 1]: cell c is cell_refs[offsets[c] .. [c+1])

  // ---- stage 4 (cast) output / stage 5 (shade) input ----
  float* hit_t;         // [view.height * view.width], row-major, row 0 = top; distance along the ray, miss = +inf
  uint32_t* hit_id;     // [view.height * view.width], triangle ID; miss = kNoHit
  uint32_t* ray_tests;  // [view.height * view.width], ray-triangle tests of the pixel's ray
  uint32_t* deep_tiles; // [tiles_x * tiles_y] (cuda backend): the first counters->deep_tiles are the tiles with a
                        //   deep cell, which the ordinary caster leaves to the deep-cell caster

  // ---- stage 4b (shadows, when light.shadows; stages/shadow.h): cast output / shade input ----
  ShadowOrigin* shadow_origin;     // [view.height * view.width]: each pixel's sample
  uint8_t* shadow_mask;            // [view.height * view.width]: 0 in shadow, 255 lit, 128 no primary hit
  LightFrame* light_on_device;     // [1] (cuda backend): this frame's light, for the keys' kernel and emitter
  uint64_t* light_samples;         // [view.height * view.width]: the samples' keys (light tile << 32 | pixel)
                                   //   packed by tile, counters->shadow_samples of them; the cpu backend sorts
                                   //   them (the pixels without a sample last), the cuda backend scatters them in
                                   //   no set order within a tile (stages/shadow.h)
  uint64_t* light_samples_scratch; // [view.height * view.width]: the keys in pixel order
  uint32_t* light_tile_depth;      // [faces * grid * grid]: the light depth of tile k's deepest sample as an
                                   //   ordered key; 0 when it has none (stages/shadow.h: light_sample_key)
  uint64_t* light_sample_offsets;  // [faces * grid * grid (+ 1 on the cpu backend)]: tile k's samples are
                                   //   light_samples[[k], [k + 1]); on the cuda backend first each tile's count,
                                   //   then its end, then (after the scatter) its start
  LightBox* light_boxes;           // [faces * num_triangles]: triangle i's box on face f at f * num_triangles + i
                                   //   (widened for rounding; empty where it cannot block a sample of that face);
                                   //   the cuda backend writes a point light's only where light_faces_reached says
  uint8_t* light_faces_reached;    // [num_triangles] (cuda backend, a point light): bit f where triangle i reaches a
                                   //   tile of face f, or kLargeLightFaces for a large one, whose every box is written
                                   //   (render/cuda/shadow_block.cuh)
  uint64_t light_capacity;         // elements of the light reference arrays
  uint64_t* light_refs;            // [light_capacity]: keys (light tile << 32 | triangle ID) packed by tile, the
                                   //   large triangles (every sample tests them) in tile faces * grid * grid; the
                                   //   cpu backend sorts them, the cuda backend scatters them in no set order
                                   //   within a tile (render/cuda/shadow_block.cuh)
  uint64_t* light_refs_scratch;    // [light_capacity] (cpu backend): the keys in triangle order
  uint64_t* light_ref_offsets;     // [faces * grid * grid + 2]: light tile k's triangles are [k], [k + 1]); the
                                   //   large ones after the last tile's

  // ---- statistics, every stage ----
  FrameCounters* counters;  // [1], zeroed at the frame's start
};

}  // namespace slabcast
