// The cuda backend: one frame = deform -> project and bin -> L1 / L2 / L3 split -> cast -> shade, all on one
// stream, with no allocation and no host synchronisation inside the frame except the single wait at its end
// that reads the statistics (and tells whether L1 overflowed the reference buffer: then the buffer grows and
// the frame is redone, so an overflow costs time, never a wrong image).
//
// The per-item work of every stage is the shared __host__ __device__ code of frame_params.h, which the cpu
// backend runs in plain loops; the kernels here are thin shims around it, except the caster, whose block
// cooperation (batches of triangles in shared memory, the block-wide early exit) is GPU-specific.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "prim/multi_split.h"
#include "prim/reduce.h"
#include "prim/segmented_split.h"
#include "prim/sort.h"
#include "render/backends.h"
#include "render/cuda_check.h"
#include "render/frame_params.h"
#include "render/frame_setup.h"

namespace slabcast {
namespace {

// ============================================================================================ kernels

__global__ void __launch_bounds__(kVertexBlock) deform_kernel(FrameParams p) {
  const int64_t v = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (v < p.num_vertices) deform_one(p, v);
}

__global__ void __launch_bounds__(kTriangleBlock) face_normal_kernel(FrameParams p) {
  const int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t < p.num_triangles) face_normal_one(p, t);
}

__global__ void __launch_bounds__(kVertexBlock) vertex_normal_kernel(FrameParams p) {
  const int64_t v = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (v < p.num_vertices) vertex_normal_one(p, v);
}

__global__ void __launch_bounds__(kTriangleBlock) bin_kernel(FrameParams p) {
  const int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool binned = t < p.num_triangles && bin_one(p, t);
  const int block_binned = __syncthreads_count(binned);  // every thread of the block reaches this
  if (threadIdx.x == 0 && block_binned > 0) {
    atomicAdd(reinterpret_cast<unsigned long long*>(&p.counters->binned), static_cast<unsigned long long>(block_binned));
  }
}

// After L1: if the references did not fit, mark the overflow and empty the column offsets, so that L2, L3, the
// cast and the shade see an empty structure (they run, cheaply, on consistent data) and the host redoes the
// frame. Without this L2 would be handed a count above its capacity and leave its offsets unwritten.
__global__ void guard_overflow_kernel(uint64_t* column_offsets, int tiles_x, const uint64_t* total,
                                      uint64_t capacity, uint64_t* overflow) {
  const bool over = *total > capacity;
  if (!over) return;
  for (int i = threadIdx.x; i <= tiles_x; i += blockDim.x) column_offsets[i] = 0;
  if (threadIdx.x == 0) *overflow = 1;
}

// One block per tile, one thread per pixel ray. Slabs front to back; each slab's triangles come through shared
// memory in batches of kCastBatch, loaded by the whole block; each ray keeps its nearest hit (ties: lower ID)
// and stops testing once finished (frame_params.h: ray_finished_after); the block leaves when all its rays have.
// Per-ray semantics are exactly those of the cpu backend's cast_pixel.
__global__ void __launch_bounds__(kTilePixels) cast_kernel(FrameParams p) {
  __shared__ TriangleVerts batch_verts[kCastBatch];
  __shared__ uint32_t batch_ids[kCastBatch];

  // Block -> tile in build order (column major), so consecutive blocks read neighbouring cells.
  const int tx = static_cast<int>(blockIdx.x / static_cast<unsigned>(p.tiles_y));
  const int ty = static_cast<int>(blockIdx.x % static_cast<unsigned>(p.tiles_y));
  const int px = tx * kTileSize + static_cast<int>(threadIdx.x) % kTileSize;
  const int py = ty * kTileSize + static_cast<int>(threadIdx.x) / kTileSize;
  const bool inside = px < p.view.width && py < p.view.height;

  const Vec3 dir = inside ? pixel_ray_view(p.view, px, py) : Vec3{0.0f, 0.0f, -1.0f};
  const RayShear shear = make_ray_shear(dir);
  const SlabRange sr = frame_slab_range(p);
  float best_t = INFINITY;
  uint32_t best_id = kNoHit;
  uint32_t tests = 0;
  bool finished = !inside;  // pixels past the image's right / bottom edge take no part

  for (int s = 0; s < p.slabs; ++s) {
    const uint64_t cell = build_cell(tx, ty, s, p.tiles_y, p.slabs);
    const uint64_t begin = p.cell_offsets[cell], end = p.cell_offsets[cell + 1];  // block-uniform
    for (uint64_t base = begin; base < end; base += kCastBatch) {
      const int n = static_cast<int>(end - base < static_cast<uint64_t>(kCastBatch) ? end - base : kCastBatch);
      __syncthreads();  // the previous batch has been consumed
      if (static_cast<int>(threadIdx.x) < n) {
        const uint32_t id = ref_triangle(p.cell_refs[base + threadIdx.x]);
        batch_ids[threadIdx.x] = id;
        batch_verts[threadIdx.x] = p.tri_verts[id];
      }
      __syncthreads();
      if (!finished) {
        for (int j = 0; j < n; ++j) {
          const TriangleVerts tv = batch_verts[j];
          const uint32_t id = batch_ids[j];
          float t = 0.0f, bary[3];
          ++tests;
          if (intersect_watertight(shear, tv.a, tv.b, tv.c, t, bary) && closer_hit(t, id, best_t, best_id)) {
            best_t = t;
            best_id = id;
          }
        }
      }
    }
    finished = finished || ray_finished_after(sr, s, best_t, -dir.z);
    if (__syncthreads_and(finished)) break;
  }

  if (inside) {
    const int64_t pix = static_cast<int64_t>(py) * p.view.width + px;
    p.hit_t[pix] = best_t;
    p.hit_id[pix] = best_id;
    p.ray_tests[pix] = tests;
  }

  // ---- statistics: per-block sums, one atomic each ----
  __shared__ unsigned long long block_tests;
  __shared__ unsigned int block_hits;
  if (threadIdx.x == 0) {
    block_tests = 0;
    block_hits = 0;
  }
  __syncthreads();
  atomicAdd(&block_tests, static_cast<unsigned long long>(tests));
  if (inside && best_id != kNoHit) atomicAdd(&block_hits, 1u);
  __syncthreads();
  if (threadIdx.x == 0) {
    atomicAdd(reinterpret_cast<unsigned long long*>(&p.counters->ray_tests), block_tests);
    atomicAdd(reinterpret_cast<unsigned long long*>(&p.counters->pixels_hit),
              static_cast<unsigned long long>(block_hits));
    unsigned long long nonempty = 0;
    for (int s = 0; s < p.slabs; ++s) {
      const uint64_t cell = build_cell(tx, ty, s, p.tiles_y, p.slabs);
      nonempty += p.cell_offsets[cell + 1] > p.cell_offsets[cell] ? 1 : 0;
    }
    if (nonempty > 0) atomicAdd(reinterpret_cast<unsigned long long*>(&p.counters->nonempty_cells), nonempty);
    atomicMax(reinterpret_cast<unsigned long long*>(&p.counters->max_refs_per_tile),
              static_cast<unsigned long long>(tile_reference_count(p, tx, ty)));
  }
}

__global__ void __launch_bounds__(kShadeBlockX* kShadeBlockY)
    shade_kernel(FrameParams p, uint8_t* pixels, size_t pitch_bytes, bool word_aligned) {
  const int px = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int py = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (px >= p.view.width || py >= p.view.height) return;
  const Rgba8 c = shade_one(p, px, py);
  uint8_t* out = pixels + static_cast<size_t>(py) * pitch_bytes + 4 * static_cast<size_t>(px);
  if (word_aligned) {
    *reinterpret_cast<uchar4*>(out) = make_uchar4(c.r, c.g, c.b, c.a);
  } else {
    out[0] = c.r;
    out[1] = c.g;
    out[2] = c.b;
    out[3] = c.a;
  }
}

// ---- set_mesh helpers ----

__global__ void corner_triangle_kernel(uint32_t* corner_triangle, int64_t corners) {
  const int64_t c = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c < corners) corner_triangle[c] = static_cast<uint32_t>(c / 3);
}

// CSR offsets from the corners' vertices sorted ascending: offsets[v] = first corner of vertex v; vertices
// without triangles get an empty range. Position i fills the offsets of the vertices in (key[i-1], key[i]].
__global__ void adjacency_offsets_kernel(const uint32_t* sorted_vertex, int64_t corners, int64_t vertices,
                                         uint64_t* offsets) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i > corners) return;
  const int64_t prev = i == 0 ? -1 : static_cast<int64_t>(sorted_vertex[i - 1]);
  const int64_t cur = i == corners ? vertices : static_cast<int64_t>(sorted_vertex[i]);
  for (int64_t v = prev + 1; v <= cur; ++v) offsets[v] = static_cast<uint64_t>(i);
}

template <typename Count>
unsigned grid_for(Count n, int block) {
  return static_cast<unsigned>((static_cast<int64_t>(n) + block - 1) / block);
}

// ============================================================================================ device memory

// An owning device allocation. Growth and the out-of-memory message are the renderer's job (allocate()).
template <typename T>
class DeviceArray {
 public:
  DeviceArray() = default;
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  ~DeviceArray() { reset(); }
  void reset() {
    if (ptr_) cudaFree(ptr_);  // release path: nothing to report to
    ptr_ = nullptr;
    count_ = 0;
  }
  T* get() const { return ptr_; }
  size_t count() const { return count_; }
  size_t bytes() const { return count_ * sizeof(T); }
  // Allocates exactly `count` elements (old contents dropped). Throws with needed / free bytes on failure.
  void allocate(size_t count, const char* what) {
    reset();
    if (count == 0) return;
    void* p = nullptr;
    const cudaError_t status = cudaMalloc(&p, count * sizeof(T));
    if (status != cudaSuccess) {
      (void)cudaGetLastError();
      size_t free_bytes = 0, total_bytes = 0;
      cudaMemGetInfo(&free_bytes, &total_bytes);
      throw std::runtime_error(std::string("slabcast: cannot allocate ") + std::to_string(count * sizeof(T)) +
                               " bytes of GPU memory for " + what + " (" + std::to_string(free_bytes) + " of " +
                               std::to_string(total_bytes) + " bytes free): " + cudaGetErrorString(status));
    }
    ptr_ = static_cast<T*>(p);
    count_ = count;
  }
  void ensure(size_t count, const char* what) {
    if (count > count_) allocate(count, what);
  }

 private:
  T* ptr_ = nullptr;
  size_t count_ = 0;
};

// ============================================================================================ the renderer

class CudaRenderer final : public Renderer {
 public:
  explicit CudaRenderer(const RendererOptions& options) : options_(options), sync_stages_(sync_stages_requested()) {
    SLABCAST_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    for (cudaEvent_t& e : events_) SLABCAST_CUDA_CHECK(cudaEventCreate(&e));
    SLABCAST_CUDA_CHECK(cudaMallocHost(&host_counters_, sizeof(FrameCounters)));
    counters_.allocate(1, "frame counters");
    depth_range_.allocate(2, "depth range");
  }
  ~CudaRenderer() override {
    if (stream_) cudaStreamSynchronize(stream_);
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
    if (host_counters_) cudaFreeHost(host_counters_);
    if (stream_) cudaStreamDestroy(stream_);
  }

  void set_mesh(const Mesh& mesh) override {
    validate_mesh(mesh);
    SLABCAST_CUDA_CHECK(cudaStreamSynchronize(stream_));
    const size_t V = mesh.positions.size(), T = mesh.triangle_count();
    bounds_ = rest_bounds(mesh);
    num_vertices_ = static_cast<int64_t>(V);
    num_triangles_ = static_cast<int64_t>(T);
    const uint64_t capacity = initial_reference_capacity(options_, T);

    // Everything set_mesh allocates, checked against free memory first so the error says what was asked for.
    size_t sort_temp = 0;
    SLABCAST_CUDA_CHECK(prim::sort_pairs<uint32_t, uint32_t>(nullptr, sort_temp, nullptr, nullptr, nullptr, nullptr,
                                                             prim::ItemCount(static_cast<int64_t>(3 * T)), 0,
                                                             vertex_key_bits(V), stream_));
    const size_t mesh_bytes = V * sizeof(Vec3) * 5 + (V + 1) * sizeof(uint64_t) + 3 * T * sizeof(uint32_t) * 2 +
                              T * (sizeof(Vec3) + sizeof(TileRange) + sizeof(float) + sizeof(TriangleVerts)) +
                              2 * capacity * sizeof(TriangleRef);
    const size_t setup_bytes = 3 * T * sizeof(uint32_t) * 2 + sort_temp;  // freed again below
    release_mesh();
    size_t free_bytes = 0, total_bytes = 0;
    SLABCAST_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (mesh_bytes + setup_bytes > free_bytes) {
      throw std::runtime_error("slabcast: not enough GPU memory for mesh '" + mesh.name + "' (" + std::to_string(T) +
                               " triangles): needs " + std::to_string(mesh_bytes + setup_bytes) + " bytes, " +
                               std::to_string(free_bytes) + " of " + std::to_string(total_bytes) + " bytes free");
    }

    rest_.allocate(V, "rest positions");
    world_.allocate(V, "deformed positions");
    view_.allocate(V, "view-space positions");
    vertex_normals_.allocate(V, "vertex normals");
    indices_.allocate(3 * T, "triangle indices");
    face_normals_.allocate(T, "face normals");
    adjacency_offsets_.allocate(V + 1, "vertex adjacency offsets");
    adjacency_triangles_.allocate(3 * T, "vertex adjacency");
    tile_range_.allocate(T, "tile ranges");
    nearest_depth_.allocate(T, "nearest depths");
    tri_verts_.allocate(T, "view-space triangles");
    allocate_references(capacity);

    std::vector<Vec3> rest(V);
    for (size_t v = 0; v < V; ++v) rest[v] = Vec3{mesh.positions[v].x, mesh.positions[v].y, mesh.positions[v].z};
    SLABCAST_CUDA_CHECK(cudaMemcpyAsync(rest_.get(), rest.data(), V * sizeof(Vec3), cudaMemcpyHostToDevice, stream_));
    SLABCAST_CUDA_CHECK(cudaMemcpyAsync(indices_.get(), mesh.indices.data(), 3 * T * sizeof(uint32_t),
                                        cudaMemcpyHostToDevice, stream_));

    // Vertex -> triangle adjacency, once: a stable sort of the 3T (vertex, triangle) corners by vertex, so each
    // vertex's triangles come in ascending ID order and the normal sums have a fixed order (no float atomics).
    {
      DeviceArray<uint32_t> corner_triangle, sorted_vertex;
      DeviceArray<unsigned char> temp;
      corner_triangle.allocate(3 * T, "adjacency setup");
      sorted_vertex.allocate(3 * T, "adjacency setup");
      temp.allocate(std::max<size_t>(sort_temp, 1), "adjacency sort scratch");
      corner_triangle_kernel<<<grid_for(3 * T, kTriangleBlock), kTriangleBlock, 0, stream_>>>(
          corner_triangle.get(), static_cast<int64_t>(3 * T));
      SLABCAST_CUDA_CHECK_LAUNCH(corner_triangle_kernel);
      size_t bytes = temp.bytes();
      SLABCAST_CUDA_CHECK(prim::sort_pairs<uint32_t, uint32_t>(
          temp.get(), bytes, indices_.get(), sorted_vertex.get(), corner_triangle.get(), adjacency_triangles_.get(),
          prim::ItemCount(static_cast<int64_t>(3 * T)), 0, vertex_key_bits(V), stream_));
      adjacency_offsets_kernel<<<grid_for(3 * T + 1, kTriangleBlock), kTriangleBlock, 0, stream_>>>(
          sorted_vertex.get(), static_cast<int64_t>(3 * T), static_cast<int64_t>(V), adjacency_offsets_.get());
      SLABCAST_CUDA_CHECK_LAUNCH(adjacency_offsets_kernel);
      SLABCAST_CUDA_CHECK(cudaStreamSynchronize(stream_));  // before the setup buffers are freed
    }
    configured_ = Config{};  // frame buffers and scratch are sized at the next render()
    have_frame_ = false;
  }

  FrameStats render(const FrameSettings& settings, const Surface& target, FrameExtras* extras) override {
    if (num_triangles_ == 0) throw std::logic_error("slabcast: render() before set_mesh()");
    check_settings(settings);
    if (target.pixels == nullptr || target.width != settings.width || target.height != settings.height ||
        target.pitch_bytes < 4 * static_cast<size_t>(target.width)) {
      throw std::invalid_argument("slabcast: the target surface does not match the frame size " +
                                  std::to_string(settings.width) + "x" + std::to_string(settings.height));
    }
    configure(settings.width, settings.height, settings.slabs);

    FrameStats stats;
    stats.triangles_in = static_cast<uint64_t>(num_triangles_);
    for (;;) {
      const FrameParams p = frame_params(settings);
      encode_frame(p, settings, target);
      SLABCAST_CUDA_CHECK(cudaMemcpyAsync(host_counters_, counters_.get(), sizeof(FrameCounters),
                                          cudaMemcpyDeviceToHost, stream_));
      SLABCAST_CUDA_CHECK(cudaEventRecord(events_[kEventCount - 1], stream_));
      SLABCAST_CUDA_CHECK(cudaEventSynchronize(events_[kEventCount - 1]));  // the frame's one wait
      if (host_counters_->overflow == 0) break;
      // L1 needed more references than the buffer holds: grow it (and the scratch sized by it), redo the frame.
      allocate_references(grown_reference_capacity(capacity_, host_counters_->references));
      size_scratch();
      ++stats.frame_redone;
    }

    const FrameCounters& c = *host_counters_;
    copy_counters(c, stats);
    float* ms[] = {&stats.ms.deform, &stats.ms.bin, &stats.ms.l1, &stats.ms.l2,
                   &stats.ms.l3, &stats.ms.cast, &stats.ms.shade};
    for (int i = 0; i < kStages; ++i) SLABCAST_CUDA_CHECK(cudaEventElapsedTime(ms[i], events_[i], events_[i + 1]));
    SLABCAST_CUDA_CHECK(cudaEventElapsedTime(&stats.ms.total, events_[0], events_[kStages]));

    if (extras) {
      const size_t pixels = static_cast<size_t>(settings.width) * settings.height;
      extras->depth.resize(pixels);
      extras->triangle_id.resize(pixels);
      SLABCAST_CUDA_CHECK(cudaMemcpy(extras->depth.data(), hit_t_.get(), pixels * sizeof(float), cudaMemcpyDeviceToHost));
      SLABCAST_CUDA_CHECK(
          cudaMemcpy(extras->triangle_id.data(), hit_id_.get(), pixels * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    }
    have_frame_ = true;
    return stats;
  }

  FrameStructure last_structure() const override {
    if (!have_frame_) return FrameStructure{};
    SLABCAST_CUDA_CHECK(cudaStreamSynchronize(stream_));
    const size_t T = static_cast<size_t>(num_triangles_);
    std::vector<TileRange> ranges(T);
    std::vector<float> depth(T);
    float range[2];
    const uint64_t cells = static_cast<uint64_t>(configured_.tiles_x) * configured_.tiles_y * configured_.slabs;
    std::vector<uint64_t> offsets(cells + 1);
    SLABCAST_CUDA_CHECK(cudaMemcpy(ranges.data(), tile_range_.get(), T * sizeof(TileRange), cudaMemcpyDeviceToHost));
    SLABCAST_CUDA_CHECK(cudaMemcpy(depth.data(), nearest_depth_.get(), T * sizeof(float), cudaMemcpyDeviceToHost));
    SLABCAST_CUDA_CHECK(cudaMemcpy(range, depth_range_.get(), sizeof(range), cudaMemcpyDeviceToHost));
    SLABCAST_CUDA_CHECK(
        cudaMemcpy(offsets.data(), cell_offsets_.get(), offsets.size() * sizeof(uint64_t), cudaMemcpyDeviceToHost));
    std::vector<TriangleRef> refs(offsets.back());
    SLABCAST_CUDA_CHECK(
        cudaMemcpy(refs.data(), refs_a_.get(), refs.size() * sizeof(TriangleRef), cudaMemcpyDeviceToHost));
    const BuildView b{configured_.tiles_x, configured_.tiles_y, configured_.slabs, range[0], range[1], ranges.data(),
                      depth.data(), T, offsets.data(), refs.data()};
    return to_frame_structure(b);
  }

  std::vector<glm::vec3> last_deformed_positions() const override {
    SLABCAST_CUDA_CHECK(cudaStreamSynchronize(stream_));
    std::vector<Vec3> w(static_cast<size_t>(num_vertices_));
    SLABCAST_CUDA_CHECK(cudaMemcpy(w.data(), world_.get(), w.size() * sizeof(Vec3), cudaMemcpyDeviceToHost));
    std::vector<glm::vec3> out(w.size());
    for (size_t v = 0; v < w.size(); ++v) out[v] = glm::vec3(w[v].x, w[v].y, w[v].z);
    return out;
  }

  Backend backend() const override { return Backend::cuda; }

  size_t device_bytes_in_use() const override {
    return rest_.bytes() + world_.bytes() + view_.bytes() + vertex_normals_.bytes() + indices_.bytes() +
           face_normals_.bytes() + adjacency_offsets_.bytes() + adjacency_triangles_.bytes() + tile_range_.bytes() +
           nearest_depth_.bytes() + tri_verts_.bytes() + refs_a_.bytes() + refs_b_.bytes() + column_offsets_.bytes() +
           tile_offsets_.bytes() + cell_offsets_.bytes() + hit_t_.bytes() + hit_id_.bytes() + ray_tests_.bytes() +
           scratch_.bytes() + counters_.bytes() + depth_range_.bytes();
  }

 private:
  static constexpr int kStages = 7;  // deform, bin, l1, l2, l3, cast, shade
  static constexpr int kEventCount = kStages + 2;

  struct Config {
    int width = 0, height = 0, slabs = 0, tiles_x = 0, tiles_y = 0;
  };

  static int vertex_key_bits(size_t vertices) {
    int bits = 1;
    while (bits < 32 && (uint64_t(1) << bits) < vertices) ++bits;
    return bits;
  }

  void release_mesh() {
    rest_.reset();
    world_.reset();
    view_.reset();
    vertex_normals_.reset();
    indices_.reset();
    face_normals_.reset();
    adjacency_offsets_.reset();
    adjacency_triangles_.reset();
    tile_range_.reset();
    nearest_depth_.reset();
    tri_verts_.reset();
    refs_a_.reset();
    refs_b_.reset();
  }

  void allocate_references(uint64_t capacity) {
    refs_a_.reset();
    refs_b_.reset();
    refs_a_.allocate(capacity, "triangle references");
    refs_b_.allocate(capacity, "triangle references");
    capacity_ = capacity;
  }

  // Frame-size dependent buffers; allocates only when the size or slab count changes (not inside a frame).
  void configure(int width, int height, int slabs) {
    if (configured_.width == width && configured_.height == height && configured_.slabs == slabs) return;
    SLABCAST_CUDA_CHECK(cudaStreamSynchronize(stream_));
    Config c;
    c.width = width;
    c.height = height;
    c.slabs = slabs;
    c.tiles_x = tiles_for(width);
    c.tiles_y = tiles_for(height);
    const size_t pixels = static_cast<size_t>(width) * height;
    hit_t_.ensure(pixels, "per-pixel depth");
    hit_id_.ensure(pixels, "per-pixel triangle IDs");
    ray_tests_.ensure(pixels, "per-pixel ray tests");
    column_offsets_.ensure(static_cast<size_t>(c.tiles_x) + 1, "column offsets");
    tile_offsets_.ensure(static_cast<size_t>(c.tiles_x) * c.tiles_y + 1, "tile offsets");
    cell_offsets_.ensure(static_cast<size_t>(c.tiles_x) * c.tiles_y * slabs + 1, "cell offsets");
    configured_ = c;
    size_scratch();
  }

  // One scratch blob for every primitive of the frame (they run one after another on one stream): the largest
  // of their size queries, which depend on the triangle count, the tile counts, the slabs and the capacity.
  void size_scratch() {
    const Config& c = configured_;
    size_t need = 0, bytes = 0;
    const TileColumnEmitter no_emitter{nullptr, nullptr, nullptr, c.slabs};
    // The size queries validate their pointer arguments too, so they get the real offsets / counters.
    SLABCAST_CUDA_CHECK(prim::multi_split<TriangleRef>(nullptr, bytes, prim::ItemCount(num_triangles_), no_emitter,
                                                       static_cast<uint32_t>(c.tiles_x), nullptr,
                                                       static_cast<int64_t>(capacity_), column_offsets_.get(),
                                                       &counters_.get()->references, stream_));
    need = std::max(need, bytes);
    SLABCAST_CUDA_CHECK(prim::segmented_split<TriangleRef>(nullptr, bytes, nullptr, nullptr,
                                                           static_cast<int64_t>(capacity_), column_offsets_.get(),
                                                           c.tiles_x, static_cast<uint32_t>(c.tiles_y), RowOfRef{},
                                                           tile_offsets_.get(), stream_));
    need = std::max(need, bytes);
    SLABCAST_CUDA_CHECK(prim::segmented_split<TriangleRef>(
        nullptr, bytes, nullptr, nullptr, static_cast<int64_t>(capacity_), tile_offsets_.get(),
        static_cast<int64_t>(c.tiles_x) * c.tiles_y, static_cast<uint32_t>(c.slabs), SlabOfRef{}, cell_offsets_.get(),
        stream_));
    need = std::max(need, bytes);
    SLABCAST_CUDA_CHECK(prim::reduce(nullptr, bytes, static_cast<const float*>(nullptr), static_cast<float*>(nullptr),
                                     num_triangles_, NearestInFrontMin{}, INFINITY, stream_));
    need = std::max(need, bytes);
    SLABCAST_CUDA_CHECK(prim::reduce(nullptr, bytes, static_cast<const float*>(nullptr), static_cast<float*>(nullptr),
                                     num_triangles_, NearestInFrontMax{}, -INFINITY, stream_));
    need = std::max(need, bytes);
    scratch_.ensure(need, "split scratch");
  }

  FrameParams frame_params(const FrameSettings& s) const {
    FrameParams p{};
    p.num_vertices = num_vertices_;
    p.num_triangles = num_triangles_;
    p.rest_positions = rest_.get();
    p.indices = indices_.get();
    p.adjacency_offsets = adjacency_offsets_.get();
    p.adjacency_triangles = adjacency_triangles_.get();
    p.deform = make_deform_frame(s.deform, bounds_);
    p.view = make_view_params(s.camera, s.width, s.height);
    p.tiles_x = configured_.tiles_x;
    p.tiles_y = configured_.tiles_y;
    p.slabs = configured_.slabs;
    p.shading = to_shade_mode(s.shading);
    p.need_smooth_normals = needs_smooth_normals(s.shading);
    p.world_positions = world_.get();
    p.view_positions = view_.get();
    p.face_normals = face_normals_.get();
    p.vertex_normals = vertex_normals_.get();
    p.tile_range = tile_range_.get();
    p.nearest_depth = nearest_depth_.get();
    p.tri_verts = tri_verts_.get();
    p.depth_range = depth_range_.get();
    p.reference_capacity = capacity_;
    p.cell_refs = refs_a_.get();
    p.cell_offsets = cell_offsets_.get();
    p.hit_t = hit_t_.get();
    p.hit_id = hit_id_.get();
    p.ray_tests = ray_tests_.get();
    p.counters = counters_.get();
    return p;
  }

  // Debug switch SLABCAST_SYNC_STAGES=1: wait after each stage and check, so a fault is pinned to its stage.
  void stage_done(const char* stage) const {
    if (!sync_stages_) return;
    const cudaError_t status = cudaStreamSynchronize(stream_);
    if (status != cudaSuccess) {
      throw std::runtime_error(std::string("slabcast: CUDA error in stage '") + stage + "': " +
                               cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")");
    }
  }

  // Stream-ordered: no allocation, no synchronisation (unless SLABCAST_SYNC_STAGES).
  void encode_frame(const FrameParams& p, const FrameSettings& s, const Surface& target) {
    const Config& c = configured_;
    const int64_t V = num_vertices_, T = num_triangles_;
    SLABCAST_CUDA_CHECK(cudaMemsetAsync(counters_.get(), 0, sizeof(FrameCounters), stream_));

    // ---- 1. deform (+ smooth normals when the shading uses them) ----
    SLABCAST_CUDA_CHECK(cudaEventRecord(events_[0], stream_));
    deform_kernel<<<grid_for(V, kVertexBlock), kVertexBlock, 0, stream_>>>(p);
    SLABCAST_CUDA_CHECK_LAUNCH(deform_kernel);
    if (p.need_smooth_normals) {
      face_normal_kernel<<<grid_for(T, kTriangleBlock), kTriangleBlock, 0, stream_>>>(p);
      SLABCAST_CUDA_CHECK_LAUNCH(face_normal_kernel);
      vertex_normal_kernel<<<grid_for(V, kVertexBlock), kVertexBlock, 0, stream_>>>(p);
      SLABCAST_CUDA_CHECK_LAUNCH(vertex_normal_kernel);
    }
    stage_done("deform");

    // ---- 2. project and bin; the depth range by reduction ----
    SLABCAST_CUDA_CHECK(cudaEventRecord(events_[1], stream_));
    bin_kernel<<<grid_for(T, kTriangleBlock), kTriangleBlock, 0, stream_>>>(p);
    SLABCAST_CUDA_CHECK_LAUNCH(bin_kernel);
    size_t bytes = scratch_.bytes();
    SLABCAST_CUDA_CHECK(prim::reduce(scratch_.get(), bytes, static_cast<const float*>(nearest_depth_.get()),
                                     depth_range_.get(), T, NearestInFrontMin{}, INFINITY, stream_));
    bytes = scratch_.bytes();
    SLABCAST_CUDA_CHECK(prim::reduce(scratch_.get(), bytes, static_cast<const float*>(nearest_depth_.get()),
                                     depth_range_.get() + 1, T, NearestInFrontMax{}, -INFINITY, stream_));
    stage_done("bin");

    // ---- 3. build: L1 by tile column (one reference per covered tile), L2 by row, L3 by slab ----
    SLABCAST_CUDA_CHECK(cudaEventRecord(events_[2], stream_));
    const TileColumnEmitter emitter{tile_range_.get(), nearest_depth_.get(), depth_range_.get(), c.slabs};
    bytes = scratch_.bytes();
    SLABCAST_CUDA_CHECK(prim::multi_split<TriangleRef>(scratch_.get(), bytes, prim::ItemCount(T), emitter,
                                                       static_cast<uint32_t>(c.tiles_x), refs_a_.get(),
                                                       static_cast<int64_t>(capacity_), column_offsets_.get(),
                                                       &counters_.get()->references, stream_));
    guard_overflow_kernel<<<1, 256, 0, stream_>>>(column_offsets_.get(), c.tiles_x, &counters_.get()->references,
                                                  capacity_, &counters_.get()->overflow);
    SLABCAST_CUDA_CHECK_LAUNCH(guard_overflow_kernel);
    stage_done("L1");
    SLABCAST_CUDA_CHECK(cudaEventRecord(events_[3], stream_));
    bytes = scratch_.bytes();
    SLABCAST_CUDA_CHECK(prim::segmented_split(scratch_.get(), bytes, static_cast<const TriangleRef*>(refs_a_.get()),
                                              refs_b_.get(), static_cast<int64_t>(capacity_), column_offsets_.get(),
                                              c.tiles_x, static_cast<uint32_t>(c.tiles_y), RowOfRef{},
                                              tile_offsets_.get(), stream_));
    stage_done("L2");
    SLABCAST_CUDA_CHECK(cudaEventRecord(events_[4], stream_));
    bytes = scratch_.bytes();
    SLABCAST_CUDA_CHECK(prim::segmented_split(scratch_.get(), bytes, static_cast<const TriangleRef*>(refs_b_.get()),
                                              refs_a_.get(), static_cast<int64_t>(capacity_), tile_offsets_.get(),
                                              static_cast<int64_t>(c.tiles_x) * c.tiles_y,
                                              static_cast<uint32_t>(c.slabs), SlabOfRef{}, cell_offsets_.get(),
                                              stream_));
    stage_done("L3");

    // ---- 4. cast ----
    SLABCAST_CUDA_CHECK(cudaEventRecord(events_[5], stream_));
    cast_kernel<<<static_cast<unsigned>(c.tiles_x * c.tiles_y), kTilePixels, 0, stream_>>>(p);
    SLABCAST_CUDA_CHECK_LAUNCH(cast_kernel);
    stage_done("cast");

    // ---- 5. shade into the caller's surface ----
    SLABCAST_CUDA_CHECK(cudaEventRecord(events_[6], stream_));
    const dim3 block(kShadeBlockX, kShadeBlockY);
    const dim3 grid(grid_for(s.width, kShadeBlockX), grid_for(s.height, kShadeBlockY));
    const bool aligned = reinterpret_cast<uintptr_t>(target.pixels) % 4 == 0 && target.pitch_bytes % 4 == 0;
    shade_kernel<<<grid, block, 0, stream_>>>(p, target.pixels, target.pitch_bytes, aligned);
    SLABCAST_CUDA_CHECK_LAUNCH(shade_kernel);
    SLABCAST_CUDA_CHECK(cudaEventRecord(events_[7], stream_));
    stage_done("shade");
  }

  RendererOptions options_;
  bool sync_stages_ = false;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t events_[kEventCount] = {};
  FrameCounters* host_counters_ = nullptr;  // pinned

  // mesh (set_mesh)
  MeshBounds bounds_;
  int64_t num_vertices_ = 0, num_triangles_ = 0;
  DeviceArray<Vec3> rest_, world_, view_, vertex_normals_, face_normals_;
  DeviceArray<uint32_t> indices_, adjacency_triangles_;
  DeviceArray<uint64_t> adjacency_offsets_;
  DeviceArray<TileRange> tile_range_;
  DeviceArray<float> nearest_depth_;
  DeviceArray<TriangleVerts> tri_verts_;
  // build
  uint64_t capacity_ = 0;
  DeviceArray<TriangleRef> refs_a_, refs_b_;  // L1 -> a, L2 a -> b, L3 b -> a (cells)
  DeviceArray<uint64_t> column_offsets_, tile_offsets_, cell_offsets_;
  DeviceArray<unsigned char> scratch_;
  DeviceArray<FrameCounters> counters_;
  DeviceArray<float> depth_range_;
  // frame size
  Config configured_;
  DeviceArray<float> hit_t_;
  DeviceArray<uint32_t> hit_id_, ray_tests_;
  bool have_frame_ = false;
};

}  // namespace

std::unique_ptr<Renderer> make_cuda_renderer(const RendererOptions& options) {
  return std::make_unique<CudaRenderer>(options);
}

}  // namespace slabcast
