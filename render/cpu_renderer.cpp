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

  void set_mesh(const Mesh& mesh) override {
    validate_mesh(mesh);
    const size_t V = mesh.positions.size(), T = mesh.triangle_count();
    rest_.resize(V);
    for (size_t v = 0; v < V; ++v) rest_[v] = Vec3{mesh.positions[v].x, mesh.positions[v].y, mesh.positions[v].z};
    indices_ = mesh.indices;
    bounds_ = rest_bounds(mesh);

    // Vertex -> triangle adjacency, once: a stable split of the 3T (vertex, triangle) corners by vertex, so each
    // vertex's triangles come in ascending ID order (the same order the device's stable sort gives).
    std::vector<uint32_t> corner_triangle(3 * T), sorted_vertex(3 * T);
    for (size_t c = 0; c < 3 * T; ++c) corner_triangle[c] = static_cast<uint32_t>(c / 3);
    adjacency_offsets_.assign(V + 1, 0);
    adjacency_triangles_.assign(3 * T, 0);
    prim::reference::split_pairs(indices_.data(), sorted_vertex.data(), corner_triangle.data(),
                                 adjacency_triangles_.data(), static_cast<int64_t>(3 * T), static_cast<uint32_t>(V),
                                 VertexOfCorner{}, adjacency_offsets_.data());

    world_.assign(V, Vec3{0, 0, 0});
    view_.assign(V, Vec3{0, 0, 0});
    vertex_normals_.assign(V, Vec3{0, 0, 0});
    face_normals_.assign(T, Vec3{0, 0, 0});
    tile_range_.assign(T, culled_range());
    nearest_depth_.assign(T, kCulledDepth);
    tri_verts_.assign(T, TriangleVerts{});
    capacity_ = initial_reference_capacity(options_, T);
    refs_a_.assign(capacity_, 0);
    refs_b_.assign(capacity_, 0);
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
    p.tile_range = tile_range_.data();
    p.nearest_depth = nearest_depth_.data();
    p.tri_verts = tri_verts_.data();
    p.depth_range = depth_range_;
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
      for (int64_t v = 0; v < V; ++v) vertex_normal_one(p, v);
    }
    stats.ms.deform = ms_since(t);

    // ---- 2. project and bin; depth range by reduction ----
    for (int64_t i = 0; i < T; ++i) counters.binned += bin_one(p, i) ? 1 : 0;
    float lo = INFINITY, hi = -INFINITY;
    for (int64_t i = 0; i < T; ++i) {
      lo = NearestInFrontMin{}(lo, nearest_depth_[i]);
      hi = NearestInFrontMax{}(hi, nearest_depth_[i]);
    }
    depth_range_[0] = lo;
    depth_range_[1] = hi;
    stats.ms.bin = ms_since(t);

    // ---- 3. build: L1 multi-split by column (grow and redo on overflow), L2 by row, L3 by slab ----
    const TileColumnEmitter emitter{tile_range_.data(), nearest_depth_.data(), depth_range_, slabs_};
    uint64_t total = 0;
    for (;;) {
      prim::reference::multi_split(T, emitter, static_cast<uint32_t>(tiles_x_), refs_a_.data(),
                                   static_cast<int64_t>(capacity_), column_offsets_.data(), &total);
      if (total <= capacity_) break;
      capacity_ = grown_reference_capacity(capacity_, total);
      refs_a_.assign(capacity_, 0);
      refs_b_.assign(capacity_, 0);
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
    BuildView b{tiles_x_, tiles_y_, slabs_, depth_range_[0], depth_range_[1], tile_range_.data(),
                nearest_depth_.data(), tile_range_.size(), cell_offsets_.data(), refs_a_.data()};
    return to_frame_structure(b);
  }

  std::vector<glm::vec3> last_deformed_positions() const override {
    std::vector<glm::vec3> out(world_.size());
    for (size_t v = 0; v < world_.size(); ++v) out[v] = glm::vec3(world_[v].x, world_[v].y, world_[v].z);
    return out;
  }
  Backend backend() const override { return Backend::cpu; }
  size_t device_bytes_in_use() const override { return 0; }

 private:
  void resize(const FrameSettings& s) {
    tiles_x_ = tiles_for(s.width);
    tiles_y_ = tiles_for(s.height);
    slabs_ = s.slabs;
    const size_t pixels = static_cast<size_t>(s.width) * s.height;
    hit_t_.resize(pixels);
    hit_id_.resize(pixels);
    ray_tests_.resize(pixels);
    column_offsets_.resize(static_cast<size_t>(tiles_x_) + 1);
    tile_offsets_.resize(static_cast<size_t>(tiles_x_) * tiles_y_ + 1);
    cell_offsets_.resize(static_cast<size_t>(tiles_x_) * tiles_y_ * slabs_ + 1);
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
        ++tests;
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
  std::vector<Vec3> rest_;
  std::vector<uint32_t> indices_;
  MeshBounds bounds_;
  std::vector<uint64_t> adjacency_offsets_;
  std::vector<uint32_t> adjacency_triangles_;

  std::vector<Vec3> world_, view_, face_normals_, vertex_normals_;
  std::vector<TileRange> tile_range_;
  std::vector<float> nearest_depth_;
  std::vector<TriangleVerts> tri_verts_;
  float depth_range_[2] = {0, 0};

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
