#include "render/cuda/device_arrays.h"

#include "render/mesh_duplicates.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "prim/sort.h"
#include "render/rig_setup.h"
#include "render/cuda/kernels.cuh"

namespace slabcast {
namespace {

template <typename T>
std::vector<T> download(const prim::DeviceBuffer<T>& buffer) {
  std::vector<T> host(buffer.size());
  if (!host.empty()) {
    SLABCAST_CUDA_CHECK(cudaMemcpy(host.data(), buffer.data(), host.size() * sizeof(T), cudaMemcpyDeviceToHost));
  }
  return host;
}

int vertex_key_bits(size_t vertices) {
  int bits = 1;
  while (bits < 32 && (uint64_t(1) << bits) < vertices) ++bits;
  return bits;
}

}  // namespace

DeviceArrays::DeviceArrays(cudaStream_t stream) : stream_(stream) {}

void DeviceArrays::set_mesh(const Mesh& mesh, uint64_t new_capacity) {
  const size_t V = mesh.positions.size(), T = mesh.triangle_count();
  const PackedAppearance appearance = pack_appearance(mesh);
  const uint64_t needed = mesh_upload_bytes(V, T, new_capacity) + flat_rig_bytes(mesh.rig) + appearance.bytes();
  // The frame's scratch depends on the triangle count: it is sized again at the next render().
  scratch.release();
  size = FrameSize{};
  const uint64_t held = mesh_bytes_held();
  size_t free_bytes = 0, total_bytes = 0;
  SLABCAST_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (needed > free_bytes + held) {
    const std::string beyond = held > 0 ? ", beyond the " + format_bytes(held) + " the previous mesh holds" : "";
    throw OutOfMemory(out_of_memory_message("GPU", mesh.name, needed - held,
                                            mesh_buffers_what(V, T, new_capacity,
                                                              appearance.empty()
                                                                  ? -1
                                                                  : static_cast<int64_t>(appearance.textures.size())) +
                                                beyond,
                                            free_bytes, total_bytes) +
                      (held > 0 ? "; the previous mesh is kept" : ""));
  }
  std::unique_ptr<Mesh> previous;
  PackedAppearance previous_appearance;
  uint64_t previous_capacity = 0;
  if (held > 0) {
    previous = std::make_unique<Mesh>(download_mesh());
    previous_appearance = download_appearance();
    previous_capacity = capacity;
  }
  release_mesh();
  try {
    upload_mesh(mesh, appearance, new_capacity);
  } catch (const OutOfMemory& e) {
    release_mesh();
    if (!previous) throw;
    try {
      upload_mesh(*previous, previous_appearance, previous_capacity);
    } catch (const OutOfMemory&) {
      release_mesh();
      throw OutOfMemory(std::string(e.what()) + "; restoring the previous mesh failed too: the renderer has no mesh");
    }
    throw OutOfMemory(std::string(e.what()) + "; the previous mesh is kept");
  }
}

void DeviceArrays::grow_references(uint64_t new_capacity, const std::string& what) {
  const uint64_t bytes = 2 * new_capacity * sizeof(TriangleRef);
  const uint64_t held = a.refs_a.bytes() + a.refs_b.bytes();
  size_t free_bytes = 0, total_bytes = 0;
  SLABCAST_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (bytes > free_bytes + held) {
    throw OutOfMemory(out_of_memory_message("GPU", mesh_name, bytes - held, what, free_bytes, total_bytes) +
                      "; this frame is not drawn");
  }
  const uint64_t old_capacity = capacity;
  try {
    allocate(a.refs_a, new_capacity, what);
    allocate(a.refs_b, new_capacity, what);
    capacity = new_capacity;
  } catch (const OutOfMemory& e) {
    try {
      allocate(a.refs_a, old_capacity, "triangle references");
      allocate(a.refs_b, old_capacity, "triangle references");
    } catch (const OutOfMemory&) {
      release_mesh();
      throw OutOfMemory(std::string(e.what()) + "; keeping the old reference buffers failed too: the renderer "
                                                "has no mesh");
    }
    throw OutOfMemory(std::string(e.what()) + "; this frame is not drawn");
  }
}

void DeviceArrays::reserve_frame(const FrameSize& c) {
  const size_t pixels = static_cast<size_t>(c.width) * c.height;
  const size_t columns = static_cast<size_t>(c.tiles_x) + 1, tiles = static_cast<size_t>(c.tiles_x) * c.tiles_y + 1,
               cells = static_cast<size_t>(c.tiles_x) * c.tiles_y * c.slabs + 1;
  // The arrays that grow are freed before they are allocated again, so what they hold counts as free.
  uint64_t needed = 0, held = 0;
  const auto count_growth = [&](size_t count, size_t element, size_t have) {
    if (count <= have) return;
    needed += count * element;
    held += have * element;
  };
  count_growth(pixels, sizeof(float), a.hit_t.size());
  count_growth(pixels, sizeof(uint32_t), a.hit_id.size());
  count_growth(pixels, sizeof(uint32_t), a.ray_tests.size());
  count_growth(columns, sizeof(uint64_t), a.column_offsets.size());
  count_growth(tiles, sizeof(uint64_t), a.tile_offsets.size());
  count_growth(cells, sizeof(uint64_t), a.cell_offsets.size());
  count_growth(tiles, sizeof(uint32_t), a.deep_tiles.size());
  count_growth(kInitialPieceCapacity, sizeof(uint64_t), a.pieces.size());
  // The references' offsets: a tile each, then the large triangles' run; the tiles' deepest samples.
  const size_t light_runs = c.shadows() ? c.light_tiles() + 2 : 0, light_depths = c.shadows() ? c.light_tiles() : 0;
  const size_t light_boxes = c.shadows() ? static_cast<size_t>(c.light_faces) * static_cast<size_t>(num_triangles) : 0;
  const size_t faces_reached = c.shadows() && c.light_faces > 1 ? static_cast<size_t>(num_triangles) : 0;
  const size_t shadow_pixels = c.shadows() ? pixels : 0;
  const size_t light_capacity = c.shadows() ? initial_light_capacity(c, static_cast<uint64_t>(num_triangles)) : 0;
  count_growth(shadow_pixels, sizeof(ShadowOrigin), a.shadow_origin.size());
  count_growth(shadow_pixels, sizeof(uint8_t), a.shadow_mask.size());
  count_growth(shadow_pixels, sizeof(uint64_t), a.light_samples.size());
  count_growth(shadow_pixels, sizeof(uint64_t), a.light_samples_scratch.size());
  count_growth(light_depths, sizeof(uint32_t), a.light_tile_depth.size());
  count_growth(light_depths, sizeof(uint64_t), a.light_sample_offsets.size());
  count_growth(light_runs, sizeof(uint64_t), a.light_ref_offsets.size());
  count_growth(light_capacity, sizeof(uint64_t), a.light_refs.size());
  count_growth(light_boxes, sizeof(LightBox), a.light_boxes.size());
  count_growth(faces_reached, sizeof(uint8_t), a.light_faces_reached.size());
  const std::string what = "the per-pixel buffers of a " + std::to_string(c.width) + "x" + std::to_string(c.height) +
                           " frame";
  size_t free_bytes = 0, total_bytes = 0;
  SLABCAST_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (needed > free_bytes + held) {  // nothing changed: frames of the previous size still render
    throw OutOfMemory(out_of_memory_message("GPU", mesh_name, needed - held, what, free_bytes, total_bytes));
  }
  size = FrameSize{};  // until every buffer is in place; a failure below leaves the next render to redo this
  ensure(a.hit_t, pixels, what);
  ensure(a.hit_id, pixels, what);
  ensure(a.ray_tests, pixels, what);
  ensure(a.column_offsets, columns, "column offsets");
  ensure(a.tile_offsets, tiles, "tile offsets");
  ensure(a.cell_offsets, cells, "cell offsets");
  ensure(a.deep_tiles, tiles, "the deep-tile list");
  ensure(a.pieces, kInitialPieceCapacity, "the large triangles' columns");
  if (c.shadows()) {
    ensure(a.shadow_origin, pixels, "the shadow samples");
    ensure(a.shadow_mask, pixels, "the shadow mask");
    ensure(a.light_on_device, 1, "the frame's light");
    ensure(a.light_samples, pixels, "the shadow samples");
    ensure(a.light_samples_scratch, pixels, "the shadow samples");
    ensure(a.light_tile_depth, light_depths, "light-tile depths");
    ensure(a.light_sample_offsets, light_depths, "light-tile sample offsets");
    ensure(a.light_ref_offsets, light_runs, "light-tile offsets");
    ensure(a.light_refs, light_capacity, "light-space triangle references");
    ensure(a.light_boxes, light_boxes, "the triangles' light-space boxes");
    ensure(a.light_faces_reached, faces_reached, "the faces each triangle reaches");
  }
}

void DeviceArrays::grow_light_references(uint64_t new_capacity, const std::string& what) {
  const uint64_t bytes = new_capacity * sizeof(uint64_t);
  const uint64_t held = a.light_refs.bytes();
  const uint64_t old_capacity = a.light_refs.size();
  size_t free_bytes = 0, total_bytes = 0;
  SLABCAST_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (bytes > free_bytes + held) {
    throw OutOfMemory(out_of_memory_message("GPU", mesh_name, bytes - held, what, free_bytes, total_bytes) +
                      "; this frame is not drawn");
  }
  try {
    allocate(a.light_refs, new_capacity, what);
  } catch (const OutOfMemory& e) {
    a.light_refs.release();
    size = FrameSize{};  // the next render reserves the frame's buffers again
    throw OutOfMemory(std::string(e.what()) + "; this frame is not drawn (" + std::to_string(old_capacity) +
                      " references were held)");
  }
}

size_t DeviceArrays::mesh_bytes_held() const {
  return a.rest.bytes() + a.world.bytes() + a.view.bytes() + a.vertex_normals.bytes() + a.indices.bytes() +
         a.face_normals.bytes() + a.adjacency_offsets.bytes() + a.adjacency_triangles.bytes() + a.pixel_box.bytes() +
         a.nearest_depth.bytes() + a.tri_verts.bytes() + a.refs_a.bytes() + a.refs_b.bytes() +
         a.hidden_duplicate.bytes() + a.rig_positions.bytes() + a.rig_joints.bytes() + a.rig_weights.bytes() +
         a.morph_targets.bytes() + a.morph_deltas.bytes() + a.rig_palette.bytes() + a.morph_weights.bytes() +
         a.materials.bytes() + a.triangle_materials.bytes() + a.corner_uvs.bytes() +
         a.vertex_colors.bytes() + a.textures.bytes() + a.mip_levels.bytes() + a.texels.bytes();
}

size_t DeviceArrays::bytes_in_use() const {
  return mesh_bytes_held() + a.column_offsets.bytes() + a.tile_offsets.bytes() + a.cell_offsets.bytes() +
         a.hit_t.bytes() + a.hit_id.bytes() + a.ray_tests.bytes() + a.deep_tiles.bytes() + scratch.bytes() +
         counters.bytes() + a.pieces.bytes() + a.shadow_origin.bytes() + a.shadow_mask.bytes() + a.light_on_device.bytes() +
         a.light_samples.bytes() + a.light_samples_scratch.bytes() + a.light_tile_depth.bytes() +
         a.light_sample_offsets.bytes() + a.light_refs.bytes() + a.light_ref_offsets.bytes() + a.light_boxes.bytes() +
         a.light_faces_reached.bytes() + a.keyframe_slot[0].bytes() + a.keyframe_slot[1].bytes() +
         a.displacement_offsets.bytes() + a.displacement_weights.bytes() + sample_sums.bytes();
}

// Bytes set_mesh allocates for a mesh: what it keeps, the adjacency build's temporaries and its sort's scratch.
size_t DeviceArrays::mesh_upload_bytes(size_t V, size_t T, uint64_t new_capacity) {
  size_t sort_temp = 0;
  SLABCAST_CUDA_CHECK(prim::sort_pairs<uint32_t, uint32_t>(nullptr, sort_temp, nullptr, nullptr, nullptr, nullptr,
                                                           prim::ItemCount(static_cast<int64_t>(3 * T)), 0,
                                                           vertex_key_bits(V), stream_));
  return mesh_bytes(V, T, new_capacity) + sort_temp;
}

// The current mesh as set (rest positions and indices), to upload again if its successor does not fit.
Mesh DeviceArrays::download_mesh() const {
  Mesh m;
  m.name = mesh_name;
  std::vector<Vec3> rest(static_cast<size_t>(num_vertices));
  m.indices.resize(3 * static_cast<size_t>(num_triangles));
  SLABCAST_CUDA_CHECK(cudaMemcpy(rest.data(), a.rest.data(), rest.size() * sizeof(Vec3), cudaMemcpyDeviceToHost));
  SLABCAST_CUDA_CHECK(
      cudaMemcpy(m.indices.data(), a.indices.data(), m.indices.size() * sizeof(uint32_t), cudaMemcpyDeviceToHost));
  m.positions.resize(rest.size());
  for (size_t v = 0; v < rest.size(); ++v) m.positions[v] = glm::vec3(rest[v].x, rest[v].y, rest[v].z);
  if (a.rig_positions.size() > 0) {
    FlatRig rig;
    rig.positions = download(a.rig_positions);
    rig.influences = static_cast<int>(a.rig_joints.size() / rest.size());
    rig.joints = download(a.rig_joints);
    rig.weights = download(a.rig_weights);
    rig.morph_targets = download(a.morph_targets);
    rig.morph_deltas = download(a.morph_deltas);
    rig.palette_size = static_cast<uint32_t>(a.rig_palette.size());
    rig.morph_weight_count = static_cast<uint32_t>(a.morph_weights.size());
    m.rig = unflatten_rig(rig);
  }
  return m;
}

// The appearance as uploaded, to upload again if the next mesh does not fit.
PackedAppearance DeviceArrays::download_appearance() const {
  PackedAppearance p;
  const auto download = [](const auto& buffer, auto& host) {
    host.resize(buffer.size());
    if (!host.empty()) {
      SLABCAST_CUDA_CHECK(cudaMemcpy(host.data(), buffer.data(), buffer.bytes(), cudaMemcpyDeviceToHost));
    }
  };
  download(a.materials, p.materials);
  download(a.triangle_materials, p.triangle_materials);
  download(a.corner_uvs, p.corner_uvs);
  download(a.vertex_colors, p.vertex_colors);
  download(a.textures, p.textures);
  download(a.mip_levels, p.mip_levels);
  download(a.texels, p.texels);
  return p;
}

// Allocates and fills every mesh buffer; throws OutOfMemory (the buffers so far stay: the caller releases).
void DeviceArrays::upload_mesh(const Mesh& mesh, const PackedAppearance& appearance, uint64_t new_capacity) {
  const size_t V = mesh.positions.size(), T = mesh.triangle_count();
  mesh_name = mesh.name;
  allocate(a.rest, V, "rest positions");
  allocate(a.world, V, "deformed positions");
  allocate(a.view, V, "view-space positions");
  allocate(a.vertex_normals, V, "vertex normals");
  allocate(a.indices, 3 * T, "triangle indices");
  const std::vector<uint8_t> hidden = find_hidden_duplicates(mesh, &hidden_duplicates);
  if (hidden.empty()) {
    a.hidden_duplicate.release();
  } else {
    allocate(a.hidden_duplicate, T, "hidden-duplicate flags");
  }
  allocate(a.face_normals, T, "face normals");
  allocate(a.adjacency_offsets, V + 1, "vertex adjacency offsets");
  allocate(a.adjacency_triangles, 3 * T, "vertex adjacency");
  allocate(a.pixel_box, T, "pixel boxes");
  allocate(a.nearest_depth, T, "nearest depths");
  allocate(a.tri_verts, T, "view-space triangles");
  allocate(a.refs_a, new_capacity, "triangle references");
  allocate(a.refs_b, new_capacity, "triangle references");
  capacity = new_capacity;
  const FlatRig rig = flatten_rig(mesh.rig);
  upload(a.rig_positions, rig.positions, "the rig's positions");
  upload(a.rig_joints, rig.joints, "the rig's joints");
  upload(a.rig_weights, rig.weights, "the rig's weights");
  upload(a.morph_targets, rig.morph_targets, "the morph targets");
  upload(a.morph_deltas, rig.morph_deltas, "the morph targets' deltas");
  if (rig.palette_size > 0) allocate(a.rig_palette, rig.palette_size, "the pose's joint matrices");
  if (rig.morph_weight_count > 0) allocate(a.morph_weights, rig.morph_weight_count, "the pose's morph weights");

  std::vector<Vec3> rest(V);
  for (size_t v = 0; v < V; ++v) rest[v] = Vec3{mesh.positions[v].x, mesh.positions[v].y, mesh.positions[v].z};
  SLABCAST_CUDA_CHECK(cudaMemcpyAsync(a.rest.data(), rest.data(), V * sizeof(Vec3), cudaMemcpyHostToDevice, stream_));
  SLABCAST_CUDA_CHECK(cudaMemcpyAsync(a.indices.data(), mesh.indices.data(), 3 * T * sizeof(uint32_t),
                                      cudaMemcpyHostToDevice, stream_));
  if (!hidden.empty()) {
    SLABCAST_CUDA_CHECK(cudaMemcpyAsync(a.hidden_duplicate.data(), hidden.data(), T, cudaMemcpyHostToDevice, stream_));
  }
  upload(a.materials, appearance.materials, "materials");
  upload(a.triangle_materials, appearance.triangle_materials, "triangle materials");
  upload(a.corner_uvs, appearance.corner_uvs, "corner UVs");
  upload(a.vertex_colors, appearance.vertex_colors, "vertex colours");
  upload(a.textures, appearance.textures, "textures");
  upload(a.mip_levels, appearance.mip_levels, "mip levels");
  upload(a.texels, appearance.texels, "texels (every texture's mip pyramid)");

  // Vertex -> triangle adjacency, once: a stable sort of the 3T (vertex, triangle) corners by vertex, so each
  // vertex's triangles come in ascending ID order and the normal sums have a fixed order (no float atomics).
  {
    size_t sort_temp = 0;
    SLABCAST_CUDA_CHECK(prim::sort_pairs<uint32_t, uint32_t>(nullptr, sort_temp, nullptr, nullptr, nullptr,
                                                             nullptr, prim::ItemCount(static_cast<int64_t>(3 * T)),
                                                             0, vertex_key_bits(V), stream_));
    prim::DeviceBuffer<uint32_t> corner_triangle, sorted_vertex;
    prim::DeviceBuffer<unsigned char> temp;
    allocate(corner_triangle, 3 * T, "the adjacency sort's input");
    allocate(sorted_vertex, 3 * T, "the adjacency sort's output");
    allocate(temp, std::max<size_t>(sort_temp, 1), "the adjacency sort's scratch");
    corner_triangle_kernel<<<grid_for(3 * T, kTriangleBlock), kTriangleBlock, 0, stream_>>>(
        corner_triangle.data(), static_cast<int64_t>(3 * T));
    SLABCAST_CUDA_CHECK_LAUNCH(corner_triangle_kernel);
    size_t bytes = temp.bytes();
    SLABCAST_CUDA_CHECK(prim::sort_pairs<uint32_t, uint32_t>(
        temp.data(), bytes, a.indices.data(), sorted_vertex.data(), corner_triangle.data(),
        a.adjacency_triangles.data(), prim::ItemCount(static_cast<int64_t>(3 * T)), 0, vertex_key_bits(V), stream_));
    adjacency_offsets_kernel<<<grid_for(3 * T + 1, kTriangleBlock), kTriangleBlock, 0, stream_>>>(
        sorted_vertex.data(), static_cast<int64_t>(3 * T), static_cast<int64_t>(V), a.adjacency_offsets.data());
    SLABCAST_CUDA_CHECK_LAUNCH(adjacency_offsets_kernel);
    SLABCAST_CUDA_CHECK(cudaStreamSynchronize(stream_));  // before the setup buffers (and `rest`) are freed
  }
  bounds = rest_bounds(mesh);
  num_vertices = static_cast<int64_t>(V);
  num_triangles = static_cast<int64_t>(T);
  size = FrameSize{};  // frame buffers and scratch are sized at the next render()
  have_frame = false;
}

void DeviceArrays::release_mesh() {
  a.rest.release();
  a.world.release();
  a.view.release();
  a.vertex_normals.release();
  a.indices.release();
  a.hidden_duplicate.release();
  hidden_duplicates = 0;
  a.face_normals.release();
  a.adjacency_offsets.release();
  a.adjacency_triangles.release();
  a.pixel_box.release();
  a.nearest_depth.release();
  a.tri_verts.release();
  a.refs_a.release();
  a.refs_b.release();
  a.rig_positions.release();
  a.rig_joints.release();
  a.rig_weights.release();
  a.morph_targets.release();
  a.morph_deltas.release();
  a.rig_palette.release();
  a.morph_weights.release();
  for (prim::DeviceBuffer<Vec3>& slot : a.keyframe_slot) slot.release();
  keyframe_slots = KeyframeSlots{};
  a.displacement_offsets.release();
  a.displacement_weights.release();
  displacement_slot = DisplacementSlot{};
  a.materials.release();
  a.triangle_materials.release();
  a.corner_uvs.release();
  a.vertex_colors.release();
  a.textures.release();
  a.mip_levels.release();
  a.texels.release();
  capacity = 0;
  num_vertices = 0;
  num_triangles = 0;
  size = FrameSize{};
  have_frame = false;
}

}  // namespace slabcast
