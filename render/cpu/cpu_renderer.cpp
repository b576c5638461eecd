// The cpu backend: the same stages, the same per-item bodies (render/stages/) and the same build (the primitives'
// host references with the same functors) as the cuda backend, run as plain loops. It is the reference the gpu tests
// compare against and what runs where there is no NVIDIA GPU.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "primitives/reference/multi_split_reference.h"
#include "primitives/reference/range_tree_reference.h"
#include "primitives/reference/segmented_split_reference.h"
#include "primitives/reference/split_reference.h"
#include "render/appearance.h"
#include "render/backends.h"
#include "render/frame_params.h"
#include "render/cpu/parallel.h"
#include "render/frame_setup.h"
#include "render/mesh_duplicates.h"
#include "render/rig_setup.h"
#include "render/samples.h"
#include "render/stages/bin.h"
#include "render/stages/build.h"
#include "render/stages/cast.h"
#include "render/stages/deform.h"
#include "render/stages/resolve.h"
#include "render/stages/select.h"
#include "render/stages/shade.h"
#include "render/stages/shadow.h"

namespace slabcast {
namespace {

using Clock = std::chrono::steady_clock;

float ms_since(Clock::time_point& start) {
  const Clock::time_point now = Clock::now();
  const float ms = std::chrono::duration<float, std::milli>(now - start).count();
  start = now;
  return ms;
}

template <typename T>
using HostArray = std::vector<T>;

// Items a thread takes at least (below this a loop stays on fewer threads: starting one costs some microseconds).
constexpr int64_t kItemsPerChunk = 16384;
constexpr int64_t kCellsPerChunk = 4096;

// The cast's tiles on `threads` threads: tile costs vary widely (a silhouette tile holds thousands of references, a
// background tile none), so the tiles are taken in small interleaved blocks, not one contiguous run a thread.
template <class Body>
std::vector<FrameCounters> parallel_tiles(int64_t tiles, int threads, Body&& body) {
  constexpr int64_t kTilesPerBlock = 16;
  const int64_t blocks = (tiles + kTilesPerBlock - 1) / kTilesPerBlock;
  const int64_t lanes = std::max<int64_t>(1, std::min<int64_t>(threads, blocks));
  return parallel_chunks(lanes, static_cast<int>(lanes), 1, FrameCounters{}, [&](FrameCounters& own, int64_t lane) {
    for (int64_t b = lane; b < blocks; b += lanes) {
      for (int64_t tile = b * kTilesPerBlock; tile < std::min(tiles, (b + 1) * kTilesPerBlock); ++tile) {
        body(own, tile);
      }
    }
  });
}

struct VertexOfCorner {  // adjacency build: bucket of a (vertex, triangle) pair is its vertex
  uint32_t operator()(uint32_t vertex) const { return vertex; }
};

class CpuRenderer final : public Renderer {
 public:
  explicit CpuRenderer(const RendererOptions& options) : options_(options), threads_(cpu_threads(options.threads)) {}

  // All or nothing: the new mesh's arrays are built beside the old ones and swapped in at the end, so a failure
  // (out of host memory: OutOfMemory naming what was needed) leaves the previous mesh in place.
// GCC 12 at -O3 reports a false -Wfree-nonheap-object in set_mesh (the destructor of a local vector after the
// swaps, with an offset it cannot bound); the vectors are ordinary heap allocations.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ == 12
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wfree-nonheap-object"
#endif
  void set_mesh(const Mesh& mesh) override {
    validate_mesh(mesh);
    const size_t V = mesh.positions.size(), T = mesh.triangle_count();
    const uint64_t capacity = initial_reference_capacity(options_, T);
    const std::string what =
        mesh_buffers_what(V, T, capacity, mesh.materials.empty() ? -1 : static_cast<int64_t>(mesh.textures.size()));
    const std::string kept = a_.indices.empty() ? "" : "; the previous mesh is kept";
    const uint64_t rig_bytes = 2 * flat_rig_bytes(mesh.rig);  // the flat copy and its source
    const uint64_t bytes = mesh_bytes(V, T, capacity) + rig_bytes + appearance_bytes(mesh);
    try {
      check_host_memory(mesh.name, bytes, what);
    } catch (const OutOfMemory& e) {
      throw OutOfMemory(e.what() + kept);
    }
    try {
      std::vector<Vec3> rest(V);
      for (size_t v = 0; v < V; ++v) rest[v] = Vec3{mesh.positions[v].x, mesh.positions[v].y, mesh.positions[v].z};
      std::vector<uint32_t> indices = mesh.indices;
      uint64_t hidden_count = 0;
      std::vector<uint8_t> hidden_duplicate = find_hidden_duplicates(mesh, &hidden_count);

      // Vertex -> triangle adjacency, once: a stable split of the 3T (vertex, triangle) corners by vertex, so each
      // vertex's triangles come in ascending ID order (the same order the device's stable sort gives).
      std::vector<uint64_t> adjacency_offsets(V + 1, 0);
      std::vector<uint32_t> adjacency_triangles(3 * T, 0);
      {
        std::vector<uint32_t> corner_triangle(3 * T), sorted_vertex(3 * T);
        for (size_t c = 0; c < 3 * T; ++c) corner_triangle[c] = static_cast<uint32_t>(c / 3);
        prim::reference::split_pairs(indices.data(), sorted_vertex.data(), corner_triangle.data(),
                                     adjacency_triangles.data(), static_cast<int64_t>(3 * T),
                                     static_cast<uint32_t>(V), VertexOfCorner{}, adjacency_offsets.data());
      }
      std::vector<Vec3> world(V, Vec3{0, 0, 0}), vertex_normals(V, Vec3{0, 0, 0});
      std::vector<ViewVertex> view(V, ViewVertex{Vec3{0, 0, 0}, 0.0f});
      std::vector<Vec3> face_normals(T, Vec3{0, 0, 0});
      std::vector<PixelBox> pixel_box(T, empty_pixel_box());
      std::vector<float> nearest_depth(T, kCulledDepth);
      std::vector<TriangleVerts> tri_verts(T, TriangleVerts{});
      std::vector<TriangleRef> refs_a(capacity, 0), refs_b(capacity, 0);
      FlatRig rig = flatten_rig(mesh.rig);
      std::vector<RigMatrix> rig_palette(rig.palette_size, RigMatrix{});
      std::vector<float> morph_weights(rig.morph_weight_count, 0.0f);
      PackedAppearance appearance = pack_appearance(mesh);

      // ---- nothing below throws: swap the new mesh in ----
      a_.rest.swap(rest);
      a_.indices.swap(indices);
      a_.hidden_duplicate.swap(hidden_duplicate);
      hidden_duplicates_ = hidden_count;
      a_.adjacency_offsets.swap(adjacency_offsets);
      a_.adjacency_triangles.swap(adjacency_triangles);
      a_.world.swap(world);
      a_.view.swap(view);
      a_.vertex_normals.swap(vertex_normals);
      a_.face_normals.swap(face_normals);
      a_.pixel_box.swap(pixel_box);
      a_.nearest_depth.swap(nearest_depth);
      a_.tri_verts.swap(tri_verts);
      a_.refs_a.swap(refs_a);
      a_.refs_b.swap(refs_b);
      a_.rig_positions.swap(rig.positions);
      a_.rig_joints.swap(rig.joints);
      a_.rig_weights.swap(rig.weights);
      a_.morph_targets.swap(rig.morph_targets);
      a_.morph_deltas.swap(rig.morph_deltas);
      a_.rig_palette.swap(rig_palette);
      a_.morph_weights.swap(morph_weights);
      a_.materials.swap(appearance.materials);
      a_.triangle_materials.swap(appearance.triangle_materials);
      a_.corner_uvs.swap(appearance.corner_uvs);
      a_.vertex_colors.swap(appearance.vertex_colors);
      a_.textures.swap(appearance.textures);
      a_.mip_levels.swap(appearance.mip_levels);
      a_.texels.swap(appearance.texels);
    } catch (const std::bad_alloc&) {
      uint64_t available = 0, total = 0;
      host_memory_info(&available, &total);
      throw OutOfMemory(out_of_memory_message("host", mesh.name, bytes, what, available, total) + kept);
    }
    for (HostArray<Vec3>& slot : a_.keyframe_slot) {
      slot.clear();
      slot.shrink_to_fit();
    }
    keyframe_slots_ = KeyframeSlots{};
    a_.displacement_offsets.clear();
    a_.displacement_weights.clear();
    displacement_slot_ = DisplacementSlot{};
    bounds_ = rest_bounds(mesh);
    progression_.forget();
    mesh_name_ = mesh.name;
    capacity_ = capacity;
    have_frame_ = false;
  }
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ == 12
#pragma GCC diagnostic pop
#endif

  FrameStats render(const FrameSettings& settings, const Surface& target, FrameExtras* extras) override {
    if (a_.indices.empty()) throw std::logic_error("slabcast: render() before set_mesh()");
    check_settings(settings);
    check_target(settings, target);
    progression_.begin(settings);
    if (settings.samples == 1) return render_frame(settings, kPixelCentre, target, extras);
    const size_t pixels = static_cast<size_t>(settings.width) * settings.height;
    if (sample_sums_.size() < pixels) {
      check_host_memory(mesh_name_, (pixels - sample_sums_.size()) * sizeof(SampleSum),
                        "the sample sums of a " + std::to_string(settings.width) + "x" +
                            std::to_string(settings.height) + " frame");
      sample_sums_.resize(pixels);
    }
    const SampleImage image{target.pixels,          target.pitch_bytes, settings.width,
                            settings.height,        sample_sums_.data(), settings.samples,
                            settings.progressive_sample >= 0};
    const auto frame = [&](SampleOffset offset, FrameExtras* frame_extras) {
      return render_frame(settings, offset, target, frame_extras);
    };
    const auto accumulate = [&](int k) {
      Clock::time_point t = Clock::now();
      parallel_for(settings.height, threads_, 8, [&](int64_t py) {
        for (int px = 0; px < settings.width; ++px) accumulate_sample(image, px, static_cast<int>(py), k);
      });
      return ms_since(t);
    };
    const FrameStats stats = render_samples(settings, extras, frame, accumulate);
    progression_.done(settings);
    return stats;
  }

 private:
  // One frame whose rays pass through `offset` of their pixels (camera.h), into `target`.
  FrameStats render_frame(const FrameSettings& settings, SampleOffset offset, const Surface& target,
                          FrameExtras* extras) {
    resize(settings);
    if (settings.pose != nullptr && !a_.rig_positions.empty()) {
      pose_to_device_layout(*settings.pose, static_cast<uint32_t>(a_.rig_palette.size()),
                            static_cast<uint32_t>(a_.morph_weights.size()), a_.rig_palette, a_.morph_weights);
    }
    const int64_t V = static_cast<int64_t>(a_.rest.size()), T = static_cast<int64_t>(a_.indices.size() / 3);
    const KeyframePlan keyframes = settings.keyframes ? place_keyframes(*settings.keyframes) : KeyframePlan{};
    if (settings.displacement) place_displacement(*settings.displacement);
    counters_ = FrameCounters{};
    FrameCounters& counters = counters_;
    FrameParams p = make_frame_params(settings, bounds_, size_, V, T, capacity_, a_, &counters);
    p.view.pixel_offset_x = offset.x;
    p.view.pixel_offset_y = offset.y;
    if (settings.keyframes) {
      p.keyframe_a = a_.keyframe_slot[keyframes.slot_a].data();
      p.keyframe_b = a_.keyframe_slot[keyframes.slot_b].data();
    }

    FrameStats stats;
    stats.triangles_in = static_cast<uint64_t>(T);
    stats.hidden_duplicates = hidden_duplicates_;
    const Clock::time_point frame_start = Clock::now();
    Clock::time_point t = frame_start;

    // Every stage but the three splits runs on threads_ threads (parallel.h); its per-thread counters are merged in
    // order, integer sums and maxima, so the frame is the same for any thread count.
    const int threads = threads_;

    // ---- 1. deform (+ smooth normals) ----
    parallel_for(V, threads, kItemsPerChunk, [&](int64_t v) { deform_one(p, v); });
    if (p.need_smooth_normals) {
      parallel_for(T, threads, kItemsPerChunk, [&](int64_t i) { face_normal_one(p, i); });
      parallel_for(V, threads, kItemsPerChunk, [&](int64_t v) { vertex_normal_on_host(p, v); });
    }
    stats.ms.deform = ms_since(t);

    // ---- 2. project and bin; the depth range ----
    for (const FrameCounters& c : parallel_chunks(T, threads, kItemsPerChunk, FrameCounters{},
                                                  [&](FrameCounters& own, int64_t i) {
                                                    own.binned += bin_one(p, i) ? 1 : 0;
                                                    accumulate_depth(own.depth_range, a_.nearest_depth[i]);
                                                  })) {
      counters.binned += c.binned;
      counters.depth_range.nearest = std::max(counters.depth_range.nearest, c.depth_range.nearest);
      counters.depth_range.farthest = std::max(counters.depth_range.farthest, c.depth_range.farthest);
    }
    stats.ms.bin = ms_since(t);

    // ---- 3. build: L1 multi-split by column (grow and redo on overflow), L2 by row, L3 by slab ----
    const int tiles_x = size_.tiles_x, tiles_y = size_.tiles_y, slabs = size_.slabs;
    // The large triangles' columns, as L1's pieces (stages/build.h), in triangle order.
    a_.pieces.clear();
    for (int64_t i = 0; i < T; ++i) {
      const TileRange r = tile_range_of(a_.pixel_box[i]);
      if (!is_large(r)) continue;
      for (int column = r.x0; column <= r.x1; ++column) a_.pieces.push_back(pack_piece(i, column));
    }
    counters.pieces = a_.pieces.size();
    const TileColumnEmitter emitter{a_.pixel_box.data(), a_.nearest_depth.data(), &counters.depth_range, slabs, T,
                                    a_.pieces.data()};
    const int64_t l1_inputs = T + static_cast<int64_t>(a_.pieces.size());
    uint64_t total = 0;
    for (;;) {
      prim::reference::multi_split(l1_inputs, emitter, static_cast<uint32_t>(tiles_x), a_.refs_a.data(),
                                   static_cast<int64_t>(capacity_), a_.column_offsets.data(), &total);
      if (total <= capacity_) break;
      grow_references(grown_reference_capacity(capacity_, total), total, settings);
      ++stats.frame_redone;
    }
    counters.references = total;
    stats.ms.l1 = ms_since(t);
    const int64_t tiles = static_cast<int64_t>(tiles_x) * tiles_y;
    prim::reference::segmented_split(a_.refs_a.data(), a_.refs_b.data(), static_cast<int64_t>(capacity_),
                                     a_.column_offsets.data(), tiles_x, static_cast<uint32_t>(tiles_y), RowOfRef{},
                                     a_.tile_offsets.data());
    stats.ms.l2 = ms_since(t);
    prim::reference::segmented_split(a_.refs_b.data(), a_.refs_a.data(), static_cast<int64_t>(capacity_),
                                     a_.tile_offsets.data(), tiles, static_cast<uint32_t>(slabs), SlabOfRef{},
                                     a_.cell_offsets.data());
    p.reference_capacity = capacity_;  // grow_references may have replaced the reference arrays
    p.cell_refs = a_.refs_a.data();
    p.cell_refs_scratch = a_.refs_b.data();
    // Deep cells in near-depth order (stages/cast.h); the cuda backend does this in its cast kernel.
    struct SortState {
      uint64_t sorted = 0;
      std::vector<unsigned long long> keys;
    };
    const int64_t cells = tiles * slabs;
    for (const SortState& s : parallel_chunks(cells, threads, kCellsPerChunk, SortState{}, [&](SortState& own, int64_t c) {
           if (!is_depth_sorted_cell(a_.cell_offsets[c + 1] - a_.cell_offsets[c])) return;
           sort_cell_by_depth_on_host(p, a_.cell_offsets[c], a_.cell_offsets[c + 1], own.keys);
           ++own.sorted;
         })) {
      counters.depth_sorted_cells += s.sorted;
    }
    stats.ms.l3 = ms_since(t);

    // ---- 4. cast ----
    const SlabRange sr = frame_slab_range(p);
    // Tile by tile, in chunks of tiles (a tile's cost varies: many small chunks balance the threads).
    const auto cast_tile = [&](FrameCounters& own, int64_t tile) {
      const int ty = static_cast<int>(tile / tiles_x), tx = static_cast<int>(tile % tiles_x);
      uint64_t tile_refs = 0;
      for (int s = 0; s < slabs; ++s) {
        const uint64_t c = build_cell(tx, ty, s, tiles_y, slabs);
        const uint64_t n = a_.cell_offsets[c + 1] - a_.cell_offsets[c];
        own.nonempty_cells += n > 0 ? 1 : 0;
        tile_refs += n;
      }
      own.max_refs_per_tile = std::max<uint64_t>(own.max_refs_per_tile, tile_refs);
      for (int py = ty * kTileSize; py < std::min(settings.height, (ty + 1) * kTileSize); ++py) {
        for (int px = tx * kTileSize; px < std::min(settings.width, (tx + 1) * kTileSize); ++px) {
          cast_pixel(p, sr, tx, ty, px, py, own);
        }
      }
    };
    for (const FrameCounters& c : parallel_tiles(tiles, threads, cast_tile)) {
      counters.nonempty_cells += c.nonempty_cells;
      counters.max_refs_per_tile = std::max(counters.max_refs_per_tile, c.max_refs_per_tile);
      counters.ray_tests += c.ray_tests;
      counters.max_ray_tests = std::max(counters.max_ray_tests, c.max_ray_tests);
      counters.pixels_hit += c.pixels_hit;
    }
    stats.ms.cast = ms_since(t);

    // ---- 4b. shadows ----
    if (size_.shadows()) cast_shadows(p, settings, stats, t);

    // ---- 5. shade ----
    parallel_for(settings.height, threads, 8, [&](int64_t py) {
      uint8_t* row = target.pixels + static_cast<size_t>(py) * target.pitch_bytes;
      for (int px = 0; px < settings.width; ++px) {
        const Rgba8 c = shade_one(p, px, static_cast<int>(py));
        std::memcpy(row + 4 * static_cast<size_t>(px), &c, 4);
      }
    });
    stats.ms.shade = ms_since(t);
    stats.ms.total = std::chrono::duration<float, std::milli>(Clock::now() - frame_start).count();

    copy_counters(counters, settings.shading, stats);
    if (extras) {
      extras->depth = a_.hit_t;
      depth_to_world_units(extras->depth, p.view.scale_exponent);
      extras->triangle_id = a_.hit_id;
      extras->ray_tests = a_.ray_tests;
      if (size_.shadows()) {
        extras->shadow_mask = a_.shadow_mask;
      } else {
        extras->shadow_mask.clear();
      }
    }
    last_view_ = p.view;
    have_frame_ = true;
    return stats;
  }

 public:
  FrameStructure last_structure() const override {
    if (!have_frame_) return FrameStructure{};
    const DepthRangeKeys& range = counters_.depth_range;
    const BuildView b{size_.tiles_x,       size_.tiles_y,           size_.slabs,
                      nearest_of(range),   farthest_of(range),      a_.pixel_box.data(),
                      a_.nearest_depth.data(), a_.pixel_box.size(), a_.cell_offsets.data(),
                      a_.refs_a.data()};
    return to_frame_structure(b);
  }

  // The frame's keyframes into the two slots (plan_keyframes); the slots change only once every check has passed.
  KeyframePlan place_keyframes(const Keyframes& k) {
    const size_t V = a_.rest.size();
    KeyframeSlots next = keyframe_slots_;
    const KeyframePlan plan = plan_keyframes(next, k);
    if (plan.upload_a) check_keyframe(k.a, V, k.a_key);
    if (plan.upload_b) check_keyframe(k.b, V, k.b_key);
    for (HostArray<Vec3>& slot : a_.keyframe_slot) slot.resize(V);
    const auto copy = [&](int slot, const glm::vec3* from) {
      for (size_t v = 0; v < V; ++v) a_.keyframe_slot[slot][v] = Vec3{from[v].x, from[v].y, from[v].z};
    };
    if (plan.upload_a) copy(plan.slot_a, k.a);
    if (plan.upload_b) copy(plan.slot_b, k.b);
    keyframe_slots_ = next;
    return plan;
  }

  // The frame's displacement arrays (take_displacement), copied only for a key not yet held.
  void place_displacement(const Displacement& d) {
    const size_t V = a_.rest.size();
    if (!take_displacement(displacement_slot_, d, V)) return;
    a_.displacement_offsets.clear();
    a_.displacement_weights.clear();
    if (d.offsets != nullptr) {
      a_.displacement_offsets.resize(V);
      for (size_t v = 0; v < V; ++v) a_.displacement_offsets[v] = Vec3{d.offsets[v].x, d.offsets[v].y, d.offsets[v].z};
    }
    if (d.weights != nullptr) a_.displacement_weights.assign(d.weights, d.weights + V);
  }

  // The same tree as the device's (primitives/reference/range_tree_reference.h), so both backends select by one rule.
  std::vector<SelectedVertex> select_vertices(const ImageRect& rect) override {
    if (!have_frame_) return {};
    const int64_t V = static_cast<int64_t>(a_.rest.size());
    std::vector<float> x(static_cast<size_t>(V)), y(static_cast<size_t>(V)), depth(static_cast<size_t>(V));
    parallel_for(V, threads_, kItemsPerChunk,
                 [&](int64_t v) { project_vertex_one(last_view_, a_.view.data(), v, x.data(), y.data(), depth.data()); });
    const prim::reference::RangeTreeHost tree(x.data(), y.data(), nullptr, V, /*report=*/true);
    std::vector<uint32_t> inside =
        prim::reference::range_tree_report(tree.view(), prim::RangeBox{rect.x_min, rect.x_max, rect.y_min, rect.y_max});
    std::sort(inside.begin(), inside.end());
    std::vector<SelectedVertex> out(inside.size());
    for (size_t i = 0; i < inside.size(); ++i) {
      SelectedVertexRecord r;
      selected_vertex_one(x.data(), y.data(), depth.data(), last_view_.scale_exponent, inside[i], r);
      out[i] = SelectedVertex{r.vertex, r.x, r.y, r.depth};
    }
    return out;
  }

  std::vector<glm::vec3> last_deformed_positions() const override { return to_glm(a_.world); }
  std::vector<glm::vec3> last_vertex_normals() const override { return to_glm(a_.vertex_normals); }
  Backend backend() const override { return Backend::cpu; }
  size_t device_bytes_in_use() const override { return 0; }

 private:
  // Stage 4b (stages/shadow.h): the samples and their bounds, the samples' and the triangles' keys sorted by light
  // tile (the light references grow when they overflow, and their emission is redone), the tests.
  void cast_shadows(FrameParams& p, const FrameSettings& settings, FrameStats& stats, Clock::time_point& t) {
    FrameCounters& counters = counters_;
    const int64_t pixels = static_cast<int64_t>(settings.width) * settings.height;
    const int64_t T = static_cast<int64_t>(a_.indices.size() / 3);
    struct SampleState {
      LightFaceKeys faces[kMaxLightFaces] = {};
    };
    for (const SampleState& own : parallel_chunks(pixels, threads_, kItemsPerChunk, SampleState{},
                                                  [&](SampleState& own, int64_t pix) {
                                                    LightCoord c;
                                                    if (shadow_sample_one(p, pix, c)) {
                                                      accumulate_face(own.faces[c.face], c.u, c.v);
                                                    }
                                                  })) {
      for (int f = 0; f < kMaxLightFaces; ++f) {
        LightFaceKeys& k = counters.light_faces[f];
        k.u_min = std::max(k.u_min, own.faces[f].u_min);
        k.u_max = std::max(k.u_max, own.faces[f].u_max);
        k.v_min = std::max(k.v_min, own.faces[f].v_min);
        k.v_max = std::max(k.v_max, own.faces[f].v_max);
      }
    }
    for (int f = 0; f < p.light.faces; ++f) counters.light_grids[f] = face_grid(counters.light_faces[f], p.light.grid);
    const uint64_t tiles = size_.light_tiles();
    parallel_for(pixels, threads_, kItemsPerChunk, [&](int64_t i) {
      a_.light_samples_scratch[i] = light_sample_key(a_.shadow_origin.data(), &p.light, counters.light_faces, i).key;
    });
    sort_by_light_tile(a_.light_samples_scratch.data(), static_cast<uint64_t>(pixels), tiles + 1,
                       a_.light_samples.data(), a_.light_sample_offsets.data());
    // Each tile's deepest sample (the cuda backend takes the same maximum by atomics as it makes the keys).
    parallel_for(static_cast<int64_t>(tiles), threads_, kItemsPerChunk, [&](int64_t tile) {
      uint32_t deepest = 0;
      for (uint64_t k = a_.light_sample_offsets[tile]; k < a_.light_sample_offsets[tile + 1]; ++k) {
        const int64_t pixel = static_cast<int64_t>(static_cast<uint32_t>(a_.light_samples[k]));
        deepest = std::max(
            deepest, light_sample_key(a_.shadow_origin.data(), &p.light, counters.light_faces, pixel).depth_key);
      }
      a_.light_tile_depth[tile] = deepest;
    });
    const uint64_t samples = a_.light_sample_offsets[tiles];
    counters.shadow_samples = samples;
    stats.ms.shadow_samples = ms_since(t);

    parallel_for(T, threads_, kItemsPerChunk, [&](int64_t i) { light_box_one(p, i); });
    const LightTileEmitter triangle_emitter{frame_light_tiles(p)};
    uint64_t references = 0;
    for (;;) {  // one bucket: the triangles' keys in triangle order
      uint64_t run[2];
      prim::reference::multi_split(T, triangle_emitter, 1, a_.light_refs_scratch.data(),
                                   static_cast<int64_t>(a_.light_refs.size()), run, &references);
      if (references <= a_.light_refs.size()) break;
      grow_light_references(grown_reference_capacity(a_.light_refs.size(), references), references, settings);
      ++stats.frame_redone;
    }
    sort_by_light_tile(a_.light_refs_scratch.data(), references, tiles + 2, a_.light_refs.data(),
                       a_.light_ref_offsets.data());
    p.light_capacity = a_.light_refs.size();
    p.light_refs = a_.light_refs.data();
    p.light_refs_scratch = a_.light_refs_scratch.data();
    counters.light_references = references;
    stats.ms.shadow_bin = ms_since(t);

    for (uint64_t tests : parallel_chunks(static_cast<int64_t>(samples), threads_, kItemsPerChunk / 4, uint64_t{0},
                                          [&](uint64_t& own, int64_t k) { shadow_test_one(p, k, own); })) {
      counters.shadow_tests += tests;
    }
    stats.ms.shadow_test = ms_since(t);
  }

  // The n keys (stages/shadow.h: light_key), whose tiles are below `entries`, into `sorted` by tile, stably: a
  // counting sort, whose starts are offsets[t], t < entries (the cuda backend sorts by radix and searches the runs).
  // The starts serve as the scatter's cursors, which leaves each at its tile's end, the next tile's start: one shift
  // restores them, with no array of cursors beside them.
  static void sort_by_light_tile(const uint64_t* keys, uint64_t n, uint64_t entries, uint64_t* sorted,
                                 uint64_t* offsets) {
    std::fill(offsets, offsets + entries, uint64_t{0});
    for (uint64_t i = 0; i < n; ++i) ++offsets[light_key_tile(keys[i])];
    uint64_t start = 0;
    for (uint64_t t = 0; t < entries; ++t) start += std::exchange(offsets[t], start);
    for (uint64_t i = 0; i < n; ++i) sorted[offsets[light_key_tile(keys[i])]++] = keys[i];
    std::copy_backward(offsets, offsets + entries - 1, offsets + entries);
    offsets[0] = 0;
  }

  void grow_light_references(uint64_t capacity, uint64_t needed, const FrameSettings& s) {
    const uint64_t bytes = 2 * capacity * sizeof(uint64_t);
    const std::string what = "light-space triangle references (this " + std::to_string(s.width) + "x" +
                             std::to_string(s.height) + " frame's shadows make " + std::to_string(needed) + ")";
    grow_pair(a_.light_refs, a_.light_refs_scratch, capacity, bytes, what);
  }

  // The frame's sizes change only here; the arrays grow to them (resize keeps what fits).
  void resize(const FrameSettings& s) {
    const FrameSize size = frame_size(s, a_.indices.size() / 3);
    const int tiles_x = size.tiles_x, tiles_y = size.tiles_y;
    const size_t pixels = static_cast<size_t>(s.width) * s.height;
    const size_t cells = static_cast<size_t>(tiles_x) * tiles_y * s.slabs;
    const uint64_t grow = pixels > a_.hit_t.size() ? (pixels - a_.hit_t.size()) * 12 : 0;  // depth, ID, test count
    const uint64_t grow_cells = cells + 1 > a_.cell_offsets.size() ? (cells + 1 - a_.cell_offsets.size()) * 8 : 0;
    // Shadows: per pixel a sample, its mask byte and two sample slots; per light tile two offsets and a depth; the
    // references.
    const uint64_t light_capacity =
        size.shadows() ? std::max<uint64_t>(a_.light_refs.size(), initial_light_capacity(size, a_.indices.size() / 3)) : 0;
    const uint64_t shadow_bytes =
        size.shadows() ? pixels * (sizeof(ShadowOrigin) + 1 + 16) + (2 * 8 + 4) * (size.light_tiles() + 2) +
                             16 * light_capacity + sizeof(LightBox) * size.light_faces * (a_.indices.size() / 3)
                       : 0;
    const std::string what = "the per-pixel buffers of a " + std::to_string(s.width) + "x" +
                             std::to_string(s.height) + " frame";
    check_host_memory(mesh_name_, grow + grow_cells + shadow_bytes, what);
    try {
      if (size.shadows()) {
        a_.shadow_origin.resize(pixels);
        a_.shadow_mask.resize(pixels);
        a_.light_samples.resize(pixels);
        a_.light_samples_scratch.resize(pixels);
        a_.light_sample_offsets.resize(size.light_tiles() + 1);
        a_.light_tile_depth.resize(size.light_tiles());
        a_.light_boxes.resize(static_cast<size_t>(size.light_faces) * (a_.indices.size() / 3));
        a_.light_ref_offsets.resize(size.light_tiles() + 2);
        a_.light_refs.resize(light_capacity);
        a_.light_refs_scratch.resize(light_capacity);
      }
      a_.hit_t.resize(pixels);
      a_.hit_id.resize(pixels);
      a_.ray_tests.resize(pixels);
      a_.column_offsets.resize(static_cast<size_t>(tiles_x) + 1);
      a_.tile_offsets.resize(static_cast<size_t>(tiles_x) * tiles_y + 1);
      a_.cell_offsets.resize(cells + 1);
    } catch (const std::bad_alloc&) {
      uint64_t available = 0, total = 0;
      host_memory_info(&available, &total);
      throw OutOfMemory(out_of_memory_message("host", mesh_name_, grow + grow_cells, what, available, total));
    }
    size_ = size;
  }

  // After L1 overflowed: both reference arrays grow to `capacity`. A failure keeps the old ones (the frame is not
  // drawn; frames that need fewer references still are).
  void grow_references(uint64_t capacity, uint64_t needed_refs, const FrameSettings& s) {
    const uint64_t bytes = 2 * capacity * sizeof(TriangleRef);
    const std::string what = "triangle references (this " + std::to_string(s.width) + "x" +
                             std::to_string(s.height) + " frame makes " + std::to_string(needed_refs) + ")";
    grow_pair(a_.refs_a, a_.refs_b, capacity, bytes, what);
    capacity_ = capacity;
  }

  // Two arrays of `capacity` zeroed elements in place of `a` and `b`; out of host memory (OutOfMemory naming `what`)
  // keeps the old ones.
  template <typename T>
  void grow_pair(std::vector<T>& a, std::vector<T>& b, uint64_t capacity, uint64_t bytes, const std::string& what) {
    check_host_memory(mesh_name_, bytes, what);
    try {
      std::vector<T> grown_a(capacity, T{}), grown_b(capacity, T{});
      a.swap(grown_a);
      b.swap(grown_b);
    } catch (const std::bad_alloc&) {
      uint64_t available = 0, total = 0;
      host_memory_info(&available, &total);
      throw OutOfMemory(out_of_memory_message("host", mesh_name_, bytes, what, available, total));
    }
  }

  RendererOptions options_;
  std::string mesh_name_;  // in out-of-memory messages
  MeshBounds bounds_;
  KeyframeSlots keyframe_slots_;  // what a_.keyframe_slot holds
  DisplacementSlot displacement_slot_;  // what a_.displacement_offsets / a_.displacement_weights hold
  uint64_t hidden_duplicates_ = 0;
  int threads_;
  uint64_t capacity_ = 0;  // of the reference arrays
  FrameArrays<HostArray> a_;
  FrameSize size_;                // what the frame arrays were sized for
  std::vector<SampleSum> sample_sums_;  // samples > 1: each pixel's colour sum (stages/resolve.h)
  SampleProgression progression_;       // which progressive sample the sums are ready for (samples.h)
  FrameCounters counters_{};      // the last frame's (its depth range is the structure's)
  ViewParams last_view_{};        // the last frame's camera (select_vertices projects with it)
  bool have_frame_ = false;
};

}  // namespace

std::unique_ptr<Renderer> make_cpu_renderer(const RendererOptions& options) {
  return std::make_unique<CpuRenderer>(options);
}

}  // namespace slabcast
