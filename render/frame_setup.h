// Host-side setup shared by both backends, so that they cannot drift apart: settings and target checks, the rest
// mesh's bounds, the bytes a mesh needs, the arrays a frame points into and the fill of its FrameParams, the
// statistics from its counters. Everything that calls libm's transcendental functions for a frame does it here, once,
// so that both backends see the same float values.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "render/camera.h"
#include "render/constants.h"
#include "render/frame_params.h"
#include "render/renderer.h"

namespace slabcast {

struct MeshBounds {
  Vec3 center{0, 0, 0};  // centre of the bounding box of the rest positions
  float radius = 1;      // half the box diagonal; 1 for a single point
};

MeshBounds rest_bounds(const Mesh& mesh);

// Throws std::invalid_argument naming the bad value (size, slabs, samples, camera).
void check_settings(const FrameSettings& settings);
// Throws std::invalid_argument unless `target` is a surface of the frame's size.
void check_target(const FrameSettings& settings, const Surface& target);

// The camera's view parameters; view_scale (camera.h) is chosen for `bounds` (without: 1, for callers that use the
// view basis only).
ViewParams make_view_params(const Camera& camera, int width, int height, const MeshBounds* bounds = nullptr);
DeformFrame make_deform_frame(const DeformParams& params, const MeshBounds& bounds);
// The cast's distances (view units) as world distances: times 2^scale_exponent, exact; a miss stays +inf.
void depth_to_world_units(std::vector<float>& depth, int scale_exponent);
ShadeMode to_shade_mode(Shading shading);
bool needs_smooth_normals(Shading shading);

inline int tiles_for(int pixels) { return (pixels + kTileSize - 1) / kTileSize; }

// What a frame's buffers are sized by.
struct FrameSize {
  int width = 0, height = 0, slabs = 0, tiles_x = 0, tiles_y = 0;
  int light_faces = 0, light_grid = 0;  // shadows: light space's faces and tiles a side; 0 without shadows
  bool operator==(const FrameSize& o) const {
    return width == o.width && height == o.height && slabs == o.slabs && light_faces == o.light_faces &&
           light_grid == o.light_grid;
  }
  bool shadows() const { return light_faces > 0; }
  uint64_t light_columns() const { return static_cast<uint64_t>(light_faces) * light_grid; }
  uint64_t light_tiles() const { return light_columns() * light_grid; }
};
// `triangles`: the mesh's, which with the frame's pixels sizes light space's grid.
FrameSize frame_size(const FrameSettings& settings, uint64_t triangles);
// The frame's light in view space (`view` as make_view_params made it; faces and grid from `size`).
LightFrame make_light_frame(const FrameSettings& settings, const ViewParams& view, const FrameSize& size);
// Light references a frame of `size` first has room for, for a mesh of `triangles`.
uint64_t initial_light_capacity(const FrameSize& size, uint64_t triangles);

// Bytes set_mesh allocates for a mesh of V vertices, T triangles and room for `capacity` references: the arrays it
// keeps plus the adjacency build's temporaries (the cuda backend adds its sort's scratch).
uint64_t mesh_bytes(uint64_t V, uint64_t T, uint64_t capacity);
// "its buffers (T triangles, V vertices, room for N triangle references)", for out-of-memory messages.
// With `textures` >= 0 (the mesh has materials), "..., its materials and N textures with their mip levels".
std::string mesh_buffers_what(uint64_t V, uint64_t T, uint64_t capacity, int64_t textures = -1);

// The arrays a FrameParams points into, as both backends hold them: Array is std::vector (cpu backend) or
// prim::DeviceBuffer (cuda backend). Shapes and the stage that writes each: FrameParams.
template <template <typename> class Array>
struct FrameArrays {
  // the mesh (set_mesh)
  Array<Vec3> rest;
  Array<uint32_t> indices;
  Array<uint64_t> adjacency_offsets;
  Array<uint32_t> adjacency_triangles;
  Array<uint8_t> hidden_duplicate;  // empty when the mesh has no hidden copies (mesh_duplicates.h)
  // the rig (render/rig_setup.h: FlatRig; empty without one) and the frame's pose
  Array<Vec3> rig_positions;
  Array<uint32_t> rig_joints;
  Array<float> rig_weights;
  Array<MorphRange> morph_targets;
  Array<Vec3> morph_deltas;
  Array<RigMatrix> rig_palette;
  Array<float> morph_weights;
  // a mesh sequence's two resident keyframes (KeyframeSlots), allocated at the first frame that gives keyframes
  Array<Vec3> keyframe_slot[2];
  // the user displacement's arrays (take_displacement), empty while a frame has none of that term
  Array<Vec3> displacement_offsets;
  Array<float> displacement_weights;
  // the mesh's appearance (set_mesh, render/appearance.h): all empty when the mesh has no materials
  Array<MaterialRecord> materials;
  Array<uint32_t> triangle_materials, vertex_colors, texels;
  Array<UV> corner_uvs;
  Array<TextureRecord> textures;
  Array<MipLevel> mip_levels;
  // stage 1
  Array<Vec3> world, vertex_normals, face_normals;
  Array<ViewVertex> view;
  // stage 2
  Array<PixelBox> pixel_box;
  Array<float> nearest_depth;
  Array<TriangleVerts> tri_verts;
  Array<uint64_t> pieces;  // the large triangles' columns (stages/build.h)
  // stage 3: L1 -> refs_a (by column_offsets), L2 refs_a -> refs_b (tile_offsets), L3 refs_b -> refs_a (cell_offsets)
  Array<TriangleRef> refs_a, refs_b;
  Array<uint64_t> column_offsets, tile_offsets, cell_offsets;
  // stage 4
  Array<float> hit_t;
  Array<uint32_t> hit_id, ray_tests;
  Array<uint32_t> deep_tiles;  // cuda backend: the tiles with a deep cell, listed by the caster (stages/cast.h)
  // stage 4b, shadows (stages/shadow.h); empty without shadows
  Array<ShadowOrigin> shadow_origin;
  Array<uint8_t> shadow_mask;
  Array<LightFrame> light_on_device;  // cuda backend
  Array<uint64_t> light_samples, light_samples_scratch;
  // Tile k's samples are [k], [k + 1]), the sample count last. The cuda backend holds one entry a tile: each tile's
  // count, scanned into its end, from which its scatter takes the tile's slots (leaving its start there).
  Array<uint64_t> light_sample_offsets;
  Array<uint32_t> light_tile_depth;
  Array<uint64_t> light_refs, light_refs_scratch, light_ref_offsets;
  Array<LightBox> light_boxes;
  Array<uint8_t> light_faces_reached;  // cuda backend, a point light
};

// Which keyframes (renderer.h's Keyframes) the two device slots hold, and where a frame's two go: a keyframe already
// held stays where it is, a new one takes the slot the frame's other keyframe does not use.
struct KeyframeSlots {
  uint64_t key[2] = {0, 0};
  bool held[2] = {false, false};
};
struct KeyframePlan {
  int slot_a = 0, slot_b = 0;
  bool upload_a = false, upload_b = false;  // the slot must receive the keyframe's positions
};
// Updates `slots` to hold the frame's keyframes. Throws std::invalid_argument for a mix outside [0, 1] or a missing
// array that must be uploaded.
KeyframePlan plan_keyframes(KeyframeSlots& slots, const Keyframes& k);
// Throws std::invalid_argument naming the first non-finite coordinate of a keyframe about to be uploaded.
void check_keyframe(const glm::vec3* positions, size_t count, uint64_t key);
// Which Displacement (renderer.h) the backend's displacement arrays hold (set_mesh forgets it).
struct DisplacementSlot {
  bool held = false;
  uint64_t key = 0;
};
// Whether the frame's displacement must be copied into the backend's arrays: its key is not the one held. Then it
// checks the arrays (std::invalid_argument naming the first non-finite offset or weight outside [0, 1]) and records
// the key as held; the caller copies them.
bool take_displacement(DisplacementSlot& held, const Displacement& d, size_t vertices);
// A pixel's ray-cone spread angle for frames of `height` rows (stages/texture.h): atan(2 tan(fovy / 2) / height).
float cone_spread_angle(const ViewParams& view);

// The appearance's part of the parameter block: every pointer nullptr where its array is empty.
template <template <typename> class Array>
AppearanceFrame make_appearance_frame(const FrameArrays<Array>& a, const ViewParams& view) {
  const auto or_null = [](const auto& array) { return array.size() > 0 ? array.data() : nullptr; };
  AppearanceFrame f{};
  f.materials = or_null(a.materials);
  f.triangle_materials = or_null(a.triangle_materials);
  f.corner_uvs = or_null(a.corner_uvs);
  f.vertex_colors = or_null(a.vertex_colors);
  f.textures = or_null(a.textures);
  f.mip_levels = or_null(a.mip_levels);
  f.texels = or_null(a.texels);
  f.cone_spread = cone_spread_angle(view);
  return f;
}

// The frame's parameter block over a backend's arrays (both backends fill it here and only here).
template <template <typename> class Array>
FrameParams make_frame_params(const FrameSettings& s, const MeshBounds& bounds, const FrameSize& size,
                              int64_t vertices, int64_t triangles, uint64_t reference_capacity,
                              FrameArrays<Array>& a, FrameCounters* counters);

// The frame's counters into the statistics both backends report; `shading` picks the heat views' scale.
inline void copy_counters(const FrameCounters& c, Shading shading, FrameStats& stats) {
  stats.triangles_binned = c.binned;
  stats.references = c.references;
  stats.nonempty_cells = c.nonempty_cells;
  stats.max_refs_per_tile = c.max_refs_per_tile;
  stats.depth_sorted_cells = c.depth_sorted_cells;
  stats.ray_triangle_tests = c.ray_tests;
  stats.pixels_hit = c.pixels_hit;
  stats.shadow_samples = c.shadow_samples;
  stats.light_references = c.light_references;
  stats.shadow_tests = c.shadow_tests;
  stats.heat_max = shading == Shading::ray_tests        ? c.max_ray_tests
                   : shading == Shading::tile_triangles ? c.max_refs_per_tile
                                                        : 0;
}

// Whether SLABCAST_SYNC_STAGES=1 is set (debug: synchronise and check after each stage).
bool sync_stages_requested();

// Light space's tile density: a tile per `pixels` pixels of the frame, or per `triangles` triangles of the mesh
// where that makes more (constants.h); SLABCAST_LIGHT_TILES=P,T sets both, for tuning (values in [1, 4096]; anything
// else is ignored, with a warning on stderr).
struct LightTileDensity {
  double pixels, triangles;
};
LightTileDensity light_tile_density();

// Whether the cuda backend launches each frame as a CUDA graph: yes unless SLABCAST_FRAME_GRAPH=0 (to time the
// difference, or to rule the graph out while debugging; SLABCAST_SYNC_STAGES=1 also turns it off).
bool frame_graph_requested();

template <template <typename> class Array>
FrameParams make_frame_params(const FrameSettings& s, const MeshBounds& bounds, const FrameSize& size,
                              int64_t vertices, int64_t triangles, uint64_t reference_capacity,
                              FrameArrays<Array>& a, FrameCounters* counters) {
  FrameParams p{};
  p.num_vertices = vertices;
  p.num_triangles = triangles;
  p.rest_positions = a.rest.data();
  p.indices = a.indices.data();
  p.adjacency_offsets = a.adjacency_offsets.data();
  p.adjacency_triangles = a.adjacency_triangles.data();
  p.hidden_duplicate = a.hidden_duplicate.size() > 0 ? a.hidden_duplicate.data() : nullptr;
  if (s.keyframes != nullptr && a.keyframe_slot[0].size() > 0) {  // the backend placed them (plan_keyframes)
    p.keyframe_mix = s.keyframes->mix;
  } else if (s.pose != nullptr && a.rig_positions.size() > 0) {  // the backend has copied the pose into the arrays
    p.rig_positions = a.rig_positions.data();
    p.rig_influences = static_cast<int>(a.rig_joints.size() / static_cast<size_t>(vertices));
    p.rig_joints = a.rig_joints.data();
    p.rig_weights = a.rig_weights.data();
    p.morph_target_count = static_cast<int64_t>(a.morph_targets.size());
    p.morph_targets = a.morph_targets.data();
    p.morph_deltas = a.morph_deltas.data();
    p.rig_palette = a.rig_palette.data();
    p.morph_weights = a.morph_weights.data();
  }
  if (s.displacement != nullptr) {  // the backend has copied its arrays (take_displacement)
    p.displacement_offsets = a.displacement_offsets.size() > 0 ? a.displacement_offsets.data() : nullptr;
    p.displacement_weights = a.displacement_weights.size() > 0 ? a.displacement_weights.data() : nullptr;
    const glm::vec3& o = s.displacement->offset;
    p.displacement_offset = Vec3{o.x, o.y, o.z};
  }
  p.deform = make_deform_frame(s.deform, bounds);
  p.view = make_view_params(s.camera, s.width, s.height, &bounds);
  p.appearance = make_appearance_frame(a, p.view);
  p.tiles_x = size.tiles_x;
  p.tiles_y = size.tiles_y;
  p.slabs = size.slabs;
  p.shading = to_shade_mode(s.shading);
  p.need_smooth_normals = needs_smooth_normals(s.shading);
  p.wireframe = s.wireframe;
  p.background = Rgba8{s.background.r, s.background.g, s.background.b, 255};
  p.world_positions = a.world.data();
  p.view_positions = a.view.data();
  p.face_normals = a.face_normals.data();
  p.vertex_normals = a.vertex_normals.data();
  p.pixel_box = a.pixel_box.data();
  p.nearest_depth = a.nearest_depth.data();
  p.tri_verts = a.tri_verts.data();
  p.depth_range = &counters->depth_range;  // zeroed with the counters at the frame's start
  p.piece_capacity = a.pieces.size();
  p.pieces = a.pieces.data();
  p.reference_capacity = reference_capacity;
  p.cell_refs = a.refs_a.data();
  p.cell_refs_scratch = a.refs_b.data();
  p.cell_offsets = a.cell_offsets.data();
  p.hit_t = a.hit_t.data();
  p.hit_id = a.hit_id.data();
  p.ray_tests = a.ray_tests.data();
  p.deep_tiles = a.deep_tiles.data();
  p.light = make_light_frame(s, p.view, size);
  p.shadow_origin = a.shadow_origin.data();
  p.shadow_mask = a.shadow_mask.data();
  p.light_on_device = a.light_on_device.data();
  p.light_samples = a.light_samples.data();
  p.light_samples_scratch = a.light_samples_scratch.data();
  p.light_tile_depth = a.light_tile_depth.data();
  p.light_sample_offsets = a.light_sample_offsets.data();
  p.light_boxes = a.light_boxes.data();
  p.light_faces_reached = a.light_faces_reached.data();
  p.light_capacity = a.light_refs.size();
  p.light_refs = a.light_refs.data();
  p.light_refs_scratch = a.light_refs_scratch.data();
  p.light_ref_offsets = a.light_ref_offsets.data();
  p.counters = counters;
  return p;
}

}  // namespace slabcast
