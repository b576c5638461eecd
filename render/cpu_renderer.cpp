// The cpu backend: the same stages, the same shared per-item functions (frame_params.h) and the same build
// (the primitives' host references with the same functors) as the cuda backend, run as plain loops. It is the
// reference the gpu tests compare against and what runs where there is no NVIDIA GPU.
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "reference/multi_split_reference.h"
#include "reference/segmented_split_reference.h"
#include "reference/split_reference.h"
#include "render/backends.h"
#include "render/frame_params.h"
#include "render/frame_setup.h"

namespace slabcast {
namespace {

using Clock = std::chrono::steady_clock;

float ms_since(Clock::time_point& start) {
  const Clock::time_point now = Clock::now();
  const float ms = std::chrono::duration<float, std::milli>(now - start).count();
  start = now;
  return ms;
}

struct VertexOfCorner {  // adjacency build: bucket of a (vertex, triangle) pair is its vertex
  uint32_t operator()(uint32_t vertex) const { return vertex; }
};

class CpuRenderer final : public Renderer {
 public:
  explicit CpuRenderer(const RendererOptions& options) : options_(options) {}

  // All or nothing: the new mesh's arrays are built beside the old ones and swapped in at the end, so a failure
  // (out of host memory: OutOfMemory naming what was needed) leaves the previous mesh in place.
  void set_mesh(const Mesh& mesh) override {
    validate_mesh(mesh);
    const size_t V = mesh.positions.size(), T = mesh.triangle_count();
    const uint64_t capacity = initial_reference_capacity(options_, T);
    const std::string what = "its buffers (" + std::to_string(T) + " triangles, " + std::to_string(V) +
                             " vertices, room for " + std::to_string(capacity) + " triangle references)";
    const std::string kept = indices_.empty() ? "" : "; the previous mesh is kept";
    try {
      check_host_memory(mesh.name, mesh_bytes(V, T, capacity), what);
    } catch (const OutOfMemory& e) {
      throw OutOfMemory(e.what() + kept);
    }
    try {
      std::vector<Vec3> rest(V);
      for (size_t v = 0; v < V; ++v) rest[v] = Vec3{mesh.positions[v].x, mesh.positions[v].y, mesh.positions[v].z};
      std::vector<uint32_t> indices = mesh.indices;

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

      // ---- nothing below throws: swap the new mesh in ----
      rest_.swap(rest);
      indices_.swap(indices);
      adjacency_offsets_.swap(adjacency_offsets);
      adjacency_triangles_.swap(adjacency_triangles);
      world_.swap(world);
      view_.swap(view);
      vertex_normals_.swap(vertex_normals);
      face_normals_.swap(face_normals);
      pixel_box_.swap(pixel_box);
      nearest_depth_.swap(nearest_depth);
      tri_verts_.swap(tri_verts);
      refs_a_.swap(refs_a);
      refs_b_.swap(refs_b);
    } catch (const std::bad_alloc&) {
      uint64_t available = 0, total = 0;
      host_memory_info(&available, &total);
      throw OutOfMemory(out_of_memory_message("host", mesh.name, mesh_bytes(V, T, capacity), what, available, total) +
                        kept);
    }
    bounds_ = rest_bounds(mesh);
    mesh_name_ = mesh.name;
    capacity_ = capacity;
    have_frame_ = false;
  }

  FrameStats render(const FrameSettings& settings, const Surface& target, FrameExtras* extras) override {
    if (indices_.empty()) throw std::logic_error("slabcast: render() before set_mesh()");
    check_settings(settings);
    if (target.pixels == nullptr || target.width != settings.width || target.height != settings.height ||
        target.pitch_bytes < 4 * static_cast<size_t>(target.width)) {
      throw std::invalid_argument("slabcast: the target surface does not match the frame size " +
                                  std::to_string(settings.width) + "x" + std::to_string(settings.height));
    }
    resize(settings);
    const int64_t V = static_cast<int64_t>(rest_.size()), T = static_cast<int64_t>(indices_.size() / 3);

    FrameParams p{};
    p.num_vertices = V;
    p.num_triangles = T;
    p.rest_positions = rest_.data();
    p.indices = indices_.data();
    p.adjacency_offsets = adjacency_offsets_.data();
    p.adjacency_triangles = adjacency_triangles_.data();
    p.deform = make_deform_frame(settings.deform, bounds_);
    p.view = make_view_params(settings.camera, settings.width, settings.height);
    p.tiles_x = tiles_x_;
    p.tiles_y = tiles_y_;
    p.slabs = slabs_;
    p.shading = to_shade_mode(settings.shading);
    p.need_smooth_normals = needs_smooth_normals(settings.shading);
    p.world_positions = world_.data();
    p.view_positions = view_.data();
    p.face_normals = face_normals_.data();
    p.vertex_normals = vertex_normals_.data();
    p.pixel_box = pixel_box_.data();
    p.nearest_depth = nearest_depth_.data();
    p.tri_verts = tri_verts_.data();
    p.depth_range = &depth_range_;
    p.hit_t = hit_t_.data();
    p.hit_id = hit_id_.data();
    p.ray_tests = ray_tests_.data();
    FrameCounters counters{};
    p.counters = &counters;

    FrameStats stats;
    stats.triangles_in = static_cast<uint64_t>(T);
    const Clock::time_point frame_start = Clock::now();
    Clock::time_point t = frame_start;

    // ---- 1. deform (+ smooth normals) ----
    for (int64_t v = 0; v < V; ++v) deform_one(p, v);
    if (p.need_smooth_normals) {
      for (int64_t i = 0; i < T; ++i) face_normal_one(p, i);
      for (int64_t v = 0; v < V; ++v) vertex_normal_on_host(p, v);
    }
    stats.ms.deform = ms_since(t);

    // ---- 2. project and bin; the depth range ----
    for (int64_t i = 0; i < T; ++i) counters.binned += bin_one(p, i) ? 1 : 0;
    depth_range_ = DepthRangeKeys{};
    for (int64_t i = 0; i < T; ++i) accumulate_depth(depth_range_, nearest_depth_[i]);
    stats.ms.bin = ms_since(t);

    // ---- 3. build: L1 multi-split by column (grow and redo on overflow), L2 by row, L3 by slab ----
    const TileColumnEmitter emitter{pixel_box_.data(), nearest_depth_.data(), &depth_range_, slabs_};
    uint64_t total = 0;
    for (;;) {
      prim::reference::multi_split(T, emitter, static_cast<uint32_t>(tiles_x_), refs_a_.data(),
                                   static_cast<int64_t>(capacity_), column_offsets_.data(), &total);
      if (total <= capacity_) break;
      grow_references(grown_reference_capacity(capacity_, total), total, settings);
      ++stats.frame_redone;
    }
    counters.references = total;
    stats.ms.l1 = ms_since(t);
    const int64_t tiles = static_cast<int64_t>(tiles_x_) * tiles_y_;
    prim::reference::segmented_split(refs_a_.data(), refs_b_.data(), static_cast<int64_t>(capacity_),
                                     column_offsets_.data(), tiles_x_, static_cast<uint32_t>(tiles_y_), RowOfRef{},
                                     tile_offsets_.data());
    stats.ms.l2 = ms_since(t);
    prim::reference::segmented_split(refs_b_.data(), refs_a_.data(), static_cast<int64_t>(capacity_),
                                     tile_offsets_.data(), tiles, static_cast<uint32_t>(slabs_), SlabOfRef{},
                                     cell_offsets_.data());
    p.reference_capacity = capacity_;
    p.cell_refs = refs_a_.data();
    p.cell_offsets = cell_offsets_.data();
    stats.ms.l3 = ms_since(t);

    // ---- 4. cast ----
    const SlabRange sr = frame_slab_range(p);
    for (int ty = 0; ty < tiles_y_; ++ty) {
      for (int tx = 0; tx < tiles_x_; ++tx) {
        uint64_t tile_refs = 0;
        for (int s = 0; s < slabs_; ++s) {
          const uint64_t c = build_cell(tx, ty, s, tiles_y_, slabs_);
          const uint64_t n = cell_offsets_[c + 1] - cell_offsets_[c];
          counters.nonempty_cells += n > 0 ? 1 : 0;
          tile_refs += n;
        }
        counters.max_refs_per_tile = std::max<uint64_t>(counters.max_refs_per_tile, tile_refs);
        for (int py = ty * kTileSize; py < std::min(settings.height, (ty + 1) * kTileSize); ++py) {
          for (int px = tx * kTileSize; px < std::min(settings.width, (tx + 1) * kTileSize); ++px) {
            cast_pixel(p, sr, tx, ty, px, py, counters);
          }
        }
      }
    }
    stats.ms.cast = ms_since(t);

    // ---- 5. shade ----
    for (int py = 0; py < settings.height; ++py) {
      uint8_t* row = target.pixels + static_cast<size_t>(py) * target.pitch_bytes;
      for (int px = 0; px < settings.width; ++px) {
        const Rgba8 c = shade_one(p, px, py);
        std::memcpy(row + 4 * static_cast<size_t>(px), &c, 4);
      }
    }
    stats.ms.shade = ms_since(t);
    stats.ms.total = std::chrono::duration<float, std::milli>(Clock::now() - frame_start).count();

    copy_counters(counters, stats);
    if (extras) {
      extras->depth = hit_t_;
      extras->triangle_id = hit_id_;
    }
    have_frame_ = true;
    return stats;
  }

  FrameStructure last_structure() const override {
    if (!have_frame_) return FrameStructure{};
    BuildView b{tiles_x_, tiles_y_, slabs_, nearest_of(depth_range_), farthest_of(depth_range_), pixel_box_.data(),
                nearest_depth_.data(), pixel_box_.size(), cell_offsets_.data(), refs_a_.data()};
    return to_frame_structure(b);
  }

  std::vector<glm::vec3> last_deformed_positions() const override { return to_glm(world_); }
  std::vector<glm::vec3> last_vertex_normals() const override { return to_glm(vertex_normals_); }
  Backend backend() const override { return Backend::cpu; }
  size_t device_bytes_in_use() const override { return 0; }

 private:
  // Bytes set_mesh keeps for a mesh, plus the adjacency sort's temporaries (freed again at its end).
  static uint64_t mesh_bytes(uint64_t V, uint64_t T, uint64_t capacity) {
    const uint64_t kept = V * (sizeof(Vec3) * 3 + sizeof(ViewVertex)) + (V + 1) * sizeof(uint64_t) +
                          3 * T * sizeof(uint32_t) * 2 +
                          T * (sizeof(Vec3) + sizeof(PixelBox) + sizeof(float) + sizeof(TriangleVerts)) +
                          2 * capacity * sizeof(TriangleRef);
    return kept + 3 * T * sizeof(uint32_t) * 2;
  }

  // The frame's sizes change only here; the arrays grow to them (resize keeps what fits).
  void resize(const FrameSettings& s) {
    const int tiles_x = tiles_for(s.width), tiles_y = tiles_for(s.height);
    const size_t pixels = static_cast<size_t>(s.width) * s.height;
    const size_t cells = static_cast<size_t>(tiles_x) * tiles_y * s.slabs;
    const uint64_t grow = pixels > hit_t_.size() ? (pixels - hit_t_.size()) * 12 : 0;  // depth, ID, test count
    const uint64_t grow_cells = cells + 1 > cell_offsets_.size() ? (cells + 1 - cell_offsets_.size()) * 8 : 0;
    const std::string what = "the per-pixel buffers of a " + std::to_string(s.width) + "x" +
                             std::to_string(s.height) + " frame";
    check_host_memory(mesh_name_, grow + grow_cells, what);
    try {
      hit_t_.resize(pixels);
      hit_id_.resize(pixels);
      ray_tests_.resize(pixels);
      column_offsets_.resize(static_cast<size_t>(tiles_x) + 1);
      tile_offsets_.resize(static_cast<size_t>(tiles_x) * tiles_y + 1);
      cell_offsets_.resize(cells + 1);
    } catch (const std::bad_alloc&) {
      uint64_t available = 0, total = 0;
      host_memory_info(&available, &total);
      throw OutOfMemory(out_of_memory_message("host", mesh_name_, grow + grow_cells, what, available, total));
    }
    tiles_x_ = tiles_x;
    tiles_y_ = tiles_y;
    slabs_ = s.slabs;
  }

  // After L1 overflowed: both reference arrays grow to `capacity`. A failure keeps the old ones (the frame is not
  // drawn; frames that need fewer references still are).
  void grow_references(uint64_t capacity, uint64_t needed_refs, const FrameSettings& s) {
    const uint64_t bytes = 2 * capacity * sizeof(TriangleRef);
    const std::string what = "triangle references (this " + std::to_string(s.width) + "x" +
                             std::to_string(s.height) + " frame makes " + std::to_string(needed_refs) + ")";
    check_host_memory(mesh_name_, bytes, what);
    try {
      std::vector<TriangleRef> a(capacity, 0), b(capacity, 0);
      refs_a_.swap(a);
      refs_b_.swap(b);
    } catch (const std::bad_alloc&) {
      uint64_t available = 0, total = 0;
      host_memory_info(&available, &total);
      throw OutOfMemory(out_of_memory_message("host", mesh_name_, bytes, what, available, total));
    }
    capacity_ = capacity;
  }

  // One pixel's ray, slab by slab, with exactly the per-ray semantics of the cuda caster: the ray tests every
  // triangle of a slab's cell until it is finished after some slab (frame_params.h).
  static void cast_pixel(const FrameParams& p, const SlabRange& sr, int tx, int ty, int px, int py,
                         FrameCounters& counters) {
    const Vec3 dir = pixel_ray_view(p.view, px, py);
    const RayShear shear = make_ray_shear(dir);
    float best_t = INFINITY;
    uint32_t best_id = kNoHit;
    uint32_t tests = 0;
    for (int s = 0; s < p.slabs; ++s) {
      const uint64_t c = build_cell(tx, ty, s, p.tiles_y, p.slabs);
      for (uint64_t k = p.cell_offsets[c]; k < p.cell_offsets[c + 1]; ++k) {
        const uint32_t id = ref_triangle(p.cell_refs[k]);
        const TriangleVerts& tv = p.tri_verts[id];
        float t = 0.0f, bary[3];
        ++tests;  // a candidate counts as a test also where the pixel box settles it (the cuda caster counts so too)
        if (!box_holds(p.pixel_box[id], px, py)) continue;  // outside the box the test misses (bin.h)
        if (intersect_watertight(shear, tv.a, tv.b, tv.c, t, bary) && closer_hit(t, id, best_t, best_id)) {
          best_t = t;
          best_id = id;
        }
      }
      if (ray_finished_after(sr, s, best_t, -dir.z)) break;
    }
    const int64_t pix = static_cast<int64_t>(py) * p.view.width + px;
    p.hit_t[pix] = best_t;
    p.hit_id[pix] = best_id;
    p.ray_tests[pix] = tests;
    counters.ray_tests += tests;
    counters.pixels_hit += best_id != kNoHit ? 1 : 0;
  }

  RendererOptions options_;
  std::string mesh_name_;
  std::vector<Vec3> rest_;
  std::vector<uint32_t> indices_;
  MeshBounds bounds_;
  std::vector<uint64_t> adjacency_offsets_;
  std::vector<uint32_t> adjacency_triangles_;

  std::vector<Vec3> world_, face_normals_, vertex_normals_;
  std::vector<ViewVertex> view_;
  std::vector<PixelBox> pixel_box_;
  std::vector<float> nearest_depth_;
  std::vector<TriangleVerts> tri_verts_;
  DepthRangeKeys depth_range_{};

  uint64_t capacity_ = 0;
  std::vector<TriangleRef> refs_a_, refs_b_;
  std::vector<uint64_t> column_offsets_, tile_offsets_, cell_offsets_;
  std::vector<float> hit_t_;
  std::vector<uint32_t> hit_id_, ray_tests_;
  int tiles_x_ = 0, tiles_y_ = 0, slabs_ = 0;
  bool have_frame_ = false;
};

}  // namespace

std::unique_ptr<Renderer> make_cpu_renderer(const RendererOptions& options) {
  return std::make_unique<CpuRenderer>(options);
}

}  // namespace slabcast
