// The cuda backend's driver: one frame = deform -> project and bin -> L1 / L2 / L3 split -> cast and shade, all on one
// stream and launched as one CUDA graph (frame_graph.h), with no allocation and no host synchronisation inside the
// frame except the single wait at its end that reads the statistics (and tells whether L1 overflowed the reference
// buffer: then the buffer grows and the frame is redone, so an overflow costs time, never a wrong image).
//
// The kernels are one-line entry points (kernels.cu) around the stage bodies (render/stages/, shared with the cpu
// backend, and the block-cooperative render/cuda/*_block.cuh); the build's splits are the primitives'. The device
// memory and its out-of-memory handling are device_arrays.h's.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "prim/multi_split.h"
#include "prim/scan.h"
#include "prim/segmented_split.h"
#include "render/backends.h"
#include "render/cuda/device_arrays.h"
#include "render/cuda/frame_graph.h"
#include "render/cuda/kernels.cuh"
#include "render/cuda/vertex_select.h"
#include "render/cuda_check.h"
#include "render/frame_params.h"
#include "render/frame_setup.h"
#include "render/rig_setup.h"
#include "render/samples.h"
#include "render/stages/bin.h"
#include "render/stages/build.h"
#include "render/stages/resolve.h"
#include "render/stages/shade.h"
#include "render/stages/shadow.h"

namespace slabcast {
namespace {

// L2 and L3 send every segment through the segmented split's tile engine: with its large-segment path on (columns or
// tiles of more than 49152 references) every scene of `slabcast bench` is slower on the H100, the path's launches
// costing more than the few large columns gain.
constexpr prim::SegmentedSplitOptions kBuildSegmentedOptions{false};

cudaStream_t create_stream() {
  cudaStream_t stream = nullptr;
  SLABCAST_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  return stream;
}

// Where the frame is shaded after the cast (shades_after_cast) the caster writes the hit buffers and leaves the pixels
// to the shade kernel; otherwise it shades them as if lit, and where a lit view's shadowed pixels are one grey the
// shadow test writes it into them.
CastTarget cast_target(const Surface& target, bool write_hits, const FrameParams& p) {
  const bool aligned = reinterpret_cast<uintptr_t>(target.pixels) % 4 == 0 && target.pitch_bytes % 4 == 0;
  const bool shade_after_cast = shades_after_cast(p);
  return CastTarget{target.pixels,           target.pitch_bytes,
                    aligned,                 write_hits || shade_after_cast,
                    !shade_after_cast,       shadowed_pixels_are_grey(p),
                    shadowed_grey(p.light)};
}

class CudaRenderer final : public Renderer {
 public:
  explicit CudaRenderer(const RendererOptions& options)
      : options_(options),
        sync_stages_(sync_stages_requested()),
        frame_graph_enabled_(frame_graph_requested() && !sync_stages_),
        stream_(create_stream()),
        side_stream_(create_stream()),
        d_(stream_) {
    for (cudaEvent_t& e : events_) SLABCAST_CUDA_CHECK(cudaEventCreate(&e));
    for (cudaEvent_t& e : fork_events_) SLABCAST_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    for (cudaEvent_t& e : resolve_events_) SLABCAST_CUDA_CHECK(cudaEventCreate(&e));
    SLABCAST_CUDA_CHECK(cudaMallocHost(&host_counters_, sizeof(FrameCounters)));
    d_.allocate(d_.counters, 1, "frame counters");
  }
  ~CudaRenderer() override {
    if (stream_) cudaStreamSynchronize(stream_);
    if (side_stream_) cudaStreamSynchronize(side_stream_);
    for (FrameGraph& graph : graphs_) graph.release();
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
    for (cudaEvent_t e : fork_events_) cudaEventDestroy(e);
    for (cudaEvent_t e : resolve_events_) cudaEventDestroy(e);
    if (host_counters_) cudaFreeHost(host_counters_);
    if (side_stream_) cudaStreamDestroy(side_stream_);
    if (stream_) cudaStreamDestroy(stream_);
  }

  // All or nothing (DeviceArrays::set_mesh): on failure the previous mesh stays and still renders.
  void set_mesh(const Mesh& mesh) override {
    validate_mesh(mesh);
    SLABCAST_CUDA_CHECK(cudaStreamSynchronize(stream_));
    progression_.forget();
    d_.set_mesh(mesh, initial_reference_capacity(options_, mesh.triangle_count()));
  }

  FrameStats render(const FrameSettings& settings, const Surface& target, FrameExtras* extras) override {
    if (d_.num_triangles == 0) {
      throw std::logic_error("slabcast: render() without a mesh (none was set, or running out of memory dropped it)");
    }
    check_settings(settings);
    check_target(settings, target);
    progression_.begin(settings);
    if (settings.samples == 1) return render_frame(settings, kPixelCentre, target, extras);
    const size_t pixels = static_cast<size_t>(settings.width) * settings.height;
    if (d_.sample_sums.size() < pixels) {  // (grows with the frame size, not inside a frame)
      SLABCAST_CUDA_CHECK(cudaStreamSynchronize(stream_));
      d_.allocate(d_.sample_sums, pixels,
                  "the sample sums of a " + std::to_string(settings.width) + "x" + std::to_string(settings.height) +
                      " frame");
    }
    const SampleImage image{target.pixels,   target.pitch_bytes,     settings.width,
                            settings.height, d_.sample_sums.data(), settings.samples,
                            settings.progressive_sample >= 0};
    const auto frame = [&](SampleOffset offset, FrameExtras* frame_extras) {
      return render_frame(settings, offset, target, frame_extras);
    };
    // After the sample's frame (whose end the host has waited for): its colours into the sums, timed by its own
    // events. The wait for them costs a few microseconds a sample; the sample frames wait at their ends anyway.
    const auto accumulate = [&](int k) {
      SLABCAST_CUDA_CHECK(cudaEventRecord(resolve_events_[0], stream_));
      accumulate_sample_kernel<<<grid_for(pixels, kPixelBlock), kPixelBlock, 0, stream_>>>(image, k);
      SLABCAST_CUDA_CHECK_LAUNCH(accumulate_sample_kernel);
      SLABCAST_CUDA_CHECK(cudaEventRecord(resolve_events_[1], stream_));
      SLABCAST_CUDA_CHECK(cudaEventSynchronize(resolve_events_[1]));
      float ms = 0;
      SLABCAST_CUDA_CHECK(cudaEventElapsedTime(&ms, resolve_events_[0], resolve_events_[1]));
      return ms;
    };
    const FrameStats stats = render_samples(settings, extras, frame, accumulate);
    progression_.done(settings);
    return stats;
  }

 private:
  // One frame whose rays pass through `offset` of their pixels (camera.h), into `target`.
  FrameStats render_frame(const FrameSettings& settings, SampleOffset offset, const Surface& target,
                          FrameExtras* extras) {
    configure(frame_size(settings, static_cast<uint64_t>(d_.num_triangles)));
    if (settings.pose != nullptr && d_.a.rig_positions.size() > 0) upload_pose(*settings.pose);
    const KeyframePlan keyframes = settings.keyframes ? place_keyframes(*settings.keyframes) : KeyframePlan{};
    if (settings.displacement) place_displacement(*settings.displacement);

    FrameStats stats;
    stats.triangles_in = static_cast<uint64_t>(d_.num_triangles);
    stats.hidden_duplicates = d_.hidden_duplicates;
    int scale_exponent = 0;  // of the frame's view space (camera.h)
    time_stages_ = settings.stage_times;
    for (;;) {
      FrameParams p = make_frame_params(settings, d_.bounds, d_.size, d_.num_vertices, d_.num_triangles, d_.capacity,
                                        d_.a, d_.counters.data());
      const BuiltCells cells = built_cells();
      p.cell_refs = cells.refs;
      p.cell_refs_scratch = cells.scratch;
      p.cell_offsets = cells.offsets;
      p.view.pixel_offset_x = offset.x;
      p.view.pixel_offset_y = offset.y;
      if (settings.keyframes) {
        p.keyframe_a = d_.a.keyframe_slot[keyframes.slot_a].data();
        p.keyframe_b = d_.a.keyframe_slot[keyframes.slot_b].data();
      }
      scale_exponent = p.view.scale_exponent;
      last_view_ = p.view;
      // The frame's last event: after the shade kernel, where the frame has one, else after the caster (which
      // shades) or with shadows after the test.
      last_event_ = shade_event() + (shades_after_cast(p) ? 1 : 0);
      const CastTarget cast = cast_target(target, extras != nullptr, p);
      if (frame_graph_enabled_) {
        graphs_[time_stages_ ? 1 : 0].launch(p, cast, graph_shape(p), stream_, [&] { encode_frame(p, cast); });
      } else {
        encode_frame(p, cast);
      }
      SLABCAST_CUDA_CHECK(cudaMemcpyAsync(host_counters_, d_.counters.data(), sizeof(FrameCounters),
                                          cudaMemcpyDeviceToHost, stream_));
      SLABCAST_CUDA_CHECK(cudaEventRecord(events_[kEventCount - 1], stream_));
      SLABCAST_CUDA_CHECK(cudaEventSynchronize(events_[kEventCount - 1]));  // the frame's one wait
      const bool pieces_overflow = host_counters_->pieces > d_.a.pieces.size();
      if (host_counters_->overflow == 0 && host_counters_->light_overflow == 0 && !pieces_overflow) break;
      if (pieces_overflow) grow_pieces(settings);
      // L1 (or the light-space references) needed more references than the buffer holds: grow it (and the scratch
      // sized by it), redo the frame.
      if (host_counters_->overflow != 0 && !pieces_overflow) {  // (L1 wrote nothing when the pieces overflowed)
        grow_references(grown_reference_capacity(d_.capacity, host_counters_->references),
                        host_counters_->references, settings);
      }
      if (host_counters_->light_overflow != 0) grow_light_references(settings);
      ++stats.frame_redone;
    }

    copy_counters(*host_counters_, settings.shading, stats);
    float* ms[kTimedStagesWithShadows] = {&stats.ms.deform,         &stats.ms.bin,        &stats.ms.l1,
                                          &stats.ms.l2,             &stats.ms.l3,         &stats.ms.cast,
                                          &stats.ms.shadow_samples, &stats.ms.shadow_bin, &stats.ms.shadow_test,
                                          &stats.ms.shade};
    if (time_stages_) {
      for (int i = 0; i < shade_event(); ++i) {
        SLABCAST_CUDA_CHECK(cudaEventElapsedTime(ms[i], events_[i], events_[i + 1]));
      }
      // The shade stage is the caster's and the test's (0 here), except in the frames with a shade kernel.
      if (last_event_ == shade_event() + 1) {
        SLABCAST_CUDA_CHECK(cudaEventElapsedTime(&stats.ms.shade, events_[shade_event()], events_[last_event_]));
      }
    }
    SLABCAST_CUDA_CHECK(cudaEventElapsedTime(&stats.ms.total, events_[0], events_[last_event_]));

    if (extras) {
      const size_t pixels = static_cast<size_t>(settings.width) * settings.height;
      extras->depth.resize(pixels);
      extras->triangle_id.resize(pixels);
      SLABCAST_CUDA_CHECK(
          cudaMemcpy(extras->depth.data(), d_.a.hit_t.data(), pixels * sizeof(float), cudaMemcpyDeviceToHost));
      SLABCAST_CUDA_CHECK(cudaMemcpy(extras->triangle_id.data(), d_.a.hit_id.data(), pixels * sizeof(uint32_t),
                                     cudaMemcpyDeviceToHost));
      extras->ray_tests.resize(pixels);
      SLABCAST_CUDA_CHECK(cudaMemcpy(extras->ray_tests.data(), d_.a.ray_tests.data(), pixels * sizeof(uint32_t),
                                     cudaMemcpyDeviceToHost));
      depth_to_world_units(extras->depth, scale_exponent);
      extras->shadow_mask.clear();
      if (d_.size.shadows()) {
        extras->shadow_mask.resize(pixels);
        SLABCAST_CUDA_CHECK(cudaMemcpy(extras->shadow_mask.data(), d_.a.shadow_mask.data(), pixels,
                                       cudaMemcpyDeviceToHost));
      }
    }
    d_.have_frame = true;
    return stats;
  }

 public:
  FrameStructure last_structure() const override {
    if (!d_.have_frame) return FrameStructure{};
    SLABCAST_CUDA_CHECK(cudaStreamSynchronize(stream_));
    const size_t T = static_cast<size_t>(d_.num_triangles);
    std::vector<PixelBox> boxes(T);
    std::vector<float> depth(T);
    DepthRangeKeys range;
    const FrameSize& c = d_.size;
    const uint64_t cells = static_cast<uint64_t>(c.tiles_x) * c.tiles_y * c.slabs;
    std::vector<uint64_t> offsets(cells + 1);
    SLABCAST_CUDA_CHECK(cudaMemcpy(boxes.data(), d_.a.pixel_box.data(), T * sizeof(PixelBox), cudaMemcpyDeviceToHost));
    SLABCAST_CUDA_CHECK(
        cudaMemcpy(depth.data(), d_.a.nearest_depth.data(), T * sizeof(float), cudaMemcpyDeviceToHost));
    SLABCAST_CUDA_CHECK(
        cudaMemcpy(&range, &d_.counters.data()->depth_range, sizeof(range), cudaMemcpyDeviceToHost));
    const BuiltCells built = built_cells();
    SLABCAST_CUDA_CHECK(
        cudaMemcpy(offsets.data(), built.offsets, offsets.size() * sizeof(uint64_t), cudaMemcpyDeviceToHost));
    std::vector<TriangleRef> refs(offsets.back());
    SLABCAST_CUDA_CHECK(
        cudaMemcpy(refs.data(), built.refs, refs.size() * sizeof(TriangleRef), cudaMemcpyDeviceToHost));
    const BuildView b{c.tiles_x,    c.tiles_y, c.slabs,        nearest_of(range), farthest_of(range),
                      boxes.data(), depth.data(), T, offsets.data(), refs.data()};
    return to_frame_structure(b);
  }

  std::vector<SelectedVertex> select_vertices(const ImageRect& rect) override {
    if (!d_.have_frame) return {};
    return select_.select(d_, last_view_, rect, stream_);
  }

  std::vector<glm::vec3> last_deformed_positions() const override { return download_vertices(d_.a.world); }
  std::vector<glm::vec3> last_vertex_normals() const override { return download_vertices(d_.a.vertex_normals); }

  Backend backend() const override { return Backend::cuda; }

  size_t device_bytes_in_use() const override { return d_.bytes_in_use() + select_.bytes(); }

 private:
  static constexpr int kTimedStages = 6;  // deform, bin, l1, l2, l3, cast (which shades)
  // With shadows: + the samples, the light bin, the tests; then the shade kernel, where the frame has one.
  static constexpr int kTimedStagesWithShadows = kTimedStages + 4;
  static constexpr int kEventCount = kTimedStagesWithShadows + 2;
  // The event before the shade kernel: the last stage's end.
  int shade_event() const { return d_.size.shadows() ? kTimedStages + 3 : kTimedStages; }

  // The frame's pose into the rig's palette and weights, ahead of the frame on its stream. The host copies are
  // members: the stream reads them after this returns (a pageable copy is staged before the call returns, but
  // keeping them costs nothing and keeps the rule simple).
  void upload_pose(const FramePose& pose) {
    pose_to_device_layout(pose, static_cast<uint32_t>(d_.a.rig_palette.size()),
                          static_cast<uint32_t>(d_.a.morph_weights.size()), pose_palette_, pose_weights_);
    if (!pose_palette_.empty()) {
      SLABCAST_CUDA_CHECK(cudaMemcpyAsync(d_.a.rig_palette.data(), pose_palette_.data(),
                                          pose_palette_.size() * sizeof(RigMatrix), cudaMemcpyHostToDevice, stream_));
    }
    if (!pose_weights_.empty()) {
      SLABCAST_CUDA_CHECK(cudaMemcpyAsync(d_.a.morph_weights.data(), pose_weights_.data(),
                                          pose_weights_.size() * sizeof(float), cudaMemcpyHostToDevice, stream_));
    }
  }

  // The frame's keyframes into the two device slots (plan_keyframes), ahead of the frame on its stream; the slots
  // are allocated at the first frame with keyframes (a new graph then: their addresses are new).
  KeyframePlan place_keyframes(const Keyframes& k) {
    const size_t V = static_cast<size_t>(d_.num_vertices);
    KeyframeSlots next = d_.keyframe_slots;
    const KeyframePlan plan = plan_keyframes(next, k);
    if (plan.upload_a) check_keyframe(k.a, V, k.a_key);
    if (plan.upload_b) check_keyframe(k.b, V, k.b_key);
    for (prim::DeviceBuffer<Vec3>& slot : d_.a.keyframe_slot) {
      if (slot.size() != V) d_.allocate(slot, V, "a mesh sequence's keyframe");
    }
    // A pageable source: the copy has read it before cudaMemcpyAsync returns, so the caller's array may change after
    // render() (the frame's wait at its end covers the rest).
    static_assert(sizeof(glm::vec3) == sizeof(Vec3), "glm::vec3 and Vec3 are three packed floats");
    const auto upload = [&](int slot, const glm::vec3* from) {
      SLABCAST_CUDA_CHECK(cudaMemcpyAsync(d_.a.keyframe_slot[slot].data(), from, V * sizeof(Vec3),
                                          cudaMemcpyHostToDevice, stream_));
    };
    if (plan.upload_a) upload(plan.slot_a, k.a);
    if (plan.upload_b) upload(plan.slot_b, k.b);
    d_.keyframe_slots = next;
    return plan;
  }

  // The frame's displacement arrays (take_displacement) onto the device, ahead of the frame on its stream, only for a
  // key not yet held; allocated when one first has that term (a new graph then: their addresses are new).
  void place_displacement(const Displacement& d) {
    const size_t V = static_cast<size_t>(d_.num_vertices);
    if (!take_displacement(d_.displacement_slot, d, V)) return;
    // From here on the slot names the new key: a failure below must not leave it claiming arrays it lacks.
    try {
      static_assert(sizeof(glm::vec3) == sizeof(Vec3), "glm::vec3 and Vec3 are three packed floats");
      place_displacement_term(d_.a.displacement_offsets, reinterpret_cast<const Vec3*>(d.offsets), V);
      place_displacement_term(d_.a.displacement_weights, d.weights, V);
    } catch (...) {
      d_.displacement_slot = DisplacementSlot{};
      throw;
    }
  }

  // One term of the displacement: released when the frame has none, else (re)allocated to V and copied. A pageable
  // source: the copy has read it before the call returns.
  template <typename T>
  void place_displacement_term(prim::DeviceBuffer<T>& term, const T* host, size_t V) {
    if (host == nullptr) {
      term.release();
      return;
    }
    if (term.size() != V) d_.allocate(term, V, "the displacement");
    SLABCAST_CUDA_CHECK(cudaMemcpyAsync(term.data(), host, V * sizeof(T), cudaMemcpyHostToDevice, stream_));
  }

  std::vector<glm::vec3> download_vertices(const prim::DeviceBuffer<Vec3>& a) const {
    SLABCAST_CUDA_CHECK(cudaStreamSynchronize(stream_));
    std::vector<Vec3> host(static_cast<size_t>(d_.num_vertices));
    SLABCAST_CUDA_CHECK(cudaMemcpy(host.data(), a.data(), host.size() * sizeof(Vec3), cudaMemcpyDeviceToHost));
    return to_glm(host);
  }

  // After L1 overflowed: the reference arrays grow (DeviceArrays::grow_references), then the scratch sized by them.
  void grow_references(uint64_t capacity, uint64_t needed_refs, const FrameSettings& s) {
    const std::string what = "triangle references (this " + std::to_string(s.width) + "x" +
                             std::to_string(s.height) + " frame makes " + std::to_string(needed_refs) + ")";
    d_.grow_references(capacity, what);
    try {
      size_scratch(d_.size);
    } catch (const OutOfMemory& e) {
      d_.size = FrameSize{};  // the scratch is gone: the next render() sizes it again (or reports again)
      throw OutOfMemory(std::string(e.what()) + "; this frame is not drawn");
    }
  }

  // L1's inputs: the triangles and the pieces of the large ones (stages/build.h), counted on the device by the bin
  // stage; more than the pieces' capacity makes L1 write nothing, and the frame is redone with more.
  prim::ItemCount l1_inputs() const {
    return prim::ItemCount(d_.num_triangles + static_cast<int64_t>(d_.a.pieces.size()), &d_.counters.data()->l1_inputs);
  }

  // After the bin stage listed more pieces than there is room for: room for them, then the scratch.
  void grow_pieces(const FrameSettings& s) {
    const uint64_t needed = host_counters_->pieces;
    const std::string what = "the large triangles' columns (this " + std::to_string(s.width) + "x" +
                             std::to_string(s.height) + " frame has " + std::to_string(needed) + ")";
    const FrameSize size = d_.size;
    d_.allocate(d_.a.pieces, grown_reference_capacity(d_.a.pieces.size(), needed), what);
    try {
      size_scratch(size);
    } catch (const OutOfMemory& e) {
      d_.size = FrameSize{};
      throw OutOfMemory(std::string(e.what()) + "; this frame is not drawn");
    }
  }

  // After the light-space references overflowed: their array grows, then the scratch.
  void grow_light_references(const FrameSettings& s) {
    const uint64_t needed = host_counters_->light_references;
    const std::string what = "light-space triangle references (this " + std::to_string(s.width) + "x" +
                             std::to_string(s.height) + " frame's shadows make " + std::to_string(needed) + ")";
    const FrameSize size = d_.size;
    d_.grow_light_references(grown_reference_capacity(d_.a.light_refs.size(), needed), what);
    try {
      size_scratch(size);
    } catch (const OutOfMemory& e) {
      d_.size = FrameSize{};
      throw OutOfMemory(std::string(e.what()) + "; this frame is not drawn");
    }
  }

  // Frame-size dependent buffers; allocates only when the size, slab count or light space changes (not inside a
  // frame).
  void configure(const FrameSize& c) {
    if (d_.size == c) return;
    SLABCAST_CUDA_CHECK(cudaStreamSynchronize(stream_));
    d_.reserve_frame(c);
    size_scratch(c);
    d_.size = c;
  }

  // One scratch blob for every primitive of the frame: the largest of their size queries (they run one after another
  // on one stream), which depend on the triangle count, the tile counts, the slabs and the capacity; then, from
  // side_scratch_offset_, the samples' scan's, which runs beside the triangles' light references on the side stream.
  void size_scratch(const FrameSize& c) {
    size_t need = 0, bytes = 0;
    const TileColumnEmitter no_emitter{nullptr, nullptr, nullptr, c.slabs, d_.num_triangles, nullptr};
    // The size queries validate their pointer arguments too, so they get the real offsets / counters.
    SLABCAST_CUDA_CHECK(prim::multi_split<TriangleRef>(nullptr, bytes, l1_inputs(), no_emitter,
                                                       static_cast<uint32_t>(c.tiles_x), nullptr,
                                                       static_cast<int64_t>(d_.capacity), d_.a.column_offsets.data(),
                                                       &d_.counters.data()->references, stream_));
    need = std::max(need, bytes);
    SLABCAST_CUDA_CHECK(prim::segmented_split<TriangleRef>(nullptr, bytes, nullptr, nullptr,
                                                           static_cast<int64_t>(d_.capacity),
                                                           d_.a.column_offsets.data(), c.tiles_x,
                                                           static_cast<uint32_t>(c.tiles_y), RowOfRef{},
                                                           d_.a.tile_offsets.data(), stream_, nullptr,
                                                           kBuildSegmentedOptions));
    need = std::max(need, bytes);
    SLABCAST_CUDA_CHECK(prim::segmented_split<TriangleRef>(
        nullptr, bytes, nullptr, nullptr, static_cast<int64_t>(d_.capacity), d_.a.tile_offsets.data(),
        static_cast<int64_t>(c.tiles_x) * c.tiles_y, static_cast<uint32_t>(c.slabs), SlabOfRef{},
        d_.a.cell_offsets.data(), stream_, nullptr, kBuildSegmentedOptions));
    need = std::max(need, bytes);
    size_t side = 0;
    if (c.shadows()) {
      SLABCAST_CUDA_CHECK(prim::inclusive_sum<uint64_t, uint64_t>(nullptr, side, nullptr, nullptr,
                                                                  static_cast<int64_t>(c.light_tiles()), side_stream_));
      SLABCAST_CUDA_CHECK(prim::inclusive_sum<uint64_t, uint64_t>(nullptr, bytes, nullptr, nullptr,
                                                                  static_cast<int64_t>(c.light_tiles()) + 2, stream_));
      need = std::max(need, bytes);
    }
    constexpr size_t kAlign = 256;
    side_scratch_offset_ = (need + kAlign - 1) / kAlign * kAlign;
    d_.ensure(d_.scratch, side_scratch_offset_ + side, "the build's scratch");
  }

  // With one slab, L3 would split each tile into one cell, keeping its references in order: a copy. The frame skips
  // it; the caster reads L2's tiles as the cells (refs_b by tile_offsets) and sorts deep cells in refs_a.
  bool cells_are_tiles() const { return d_.size.slabs == 1; }

  // Where the build leaves the cells (the frame's parameters and last_structure read them from here): L3's output,
  // or with one slab L2's; and the other reference array, free after the build, as the caster's scratch.
  struct BuiltCells {
    TriangleRef* refs;
    TriangleRef* scratch;
    uint64_t* offsets;
  };
  BuiltCells built_cells() const {
    const FrameArrays<prim::DeviceBuffer>& a = d_.a;
    if (cells_are_tiles()) return BuiltCells{a.refs_b.data(), a.refs_a.data(), a.tile_offsets.data()};
    return BuiltCells{a.refs_a.data(), a.refs_b.data(), a.cell_offsets.data()};
  }

  // Debug switch SLABCAST_SYNC_STAGES=1: wait after each stage and check, so a fault is pinned to its stage.
  void stage_done(const char* stage) const {
    if (!sync_stages_) return;
    cudaError_t status = cudaStreamSynchronize(stream_);
    if (status == cudaSuccess) status = cudaStreamSynchronize(side_stream_);
    if (status != cudaSuccess) {
      throw std::runtime_error(std::string("slabcast: CUDA error in stage '") + stage + "': " +
                               cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")");
    }
  }

  FrameGraph::Shape graph_shape(const FrameParams& p) const {
    return FrameGraph::Shape{p.need_smooth_normals,  d_.size.width,       d_.size.height,
                             d_.size.slabs,          d_.num_triangles,    d_.num_vertices,
                             d_.capacity,            d_.generation(),     d_.size.light_faces,
                             d_.size.light_grid,     d_.a.light_refs.size(),
                             shades_after_cast(p)};
  }

  // The stage timing events; inside a capture they become event-record nodes of the graph. A frame whose stages are
  // not timed records only its first and last (FrameSettings::stage_times: each costs the graph a few microseconds).
  void record_stage_event(int i) {
    if (!time_stages_ && i != 0 && i != last_event_) return;
    const bool capturing = graphs_[0].capturing() || graphs_[1].capturing();
    SLABCAST_CUDA_CHECK(
        cudaEventRecordWithFlags(events_[i], stream_, capturing ? cudaEventRecordExternal : cudaEventRecordDefault));
  }

  // Stream-ordered: no allocation, no synchronisation (unless SLABCAST_SYNC_STAGES).
  void encode_frame(const FrameParams& p, const CastTarget& cast) {
    const FrameSize& c = d_.size;
    const int64_t V = d_.num_vertices, T = d_.num_triangles;
    FrameArrays<prim::DeviceBuffer>& a = d_.a;
    FrameCounters* counters = d_.counters.data();
    SLABCAST_CUDA_CHECK(cudaMemsetAsync(counters, 0, sizeof(FrameCounters), stream_));

    // ---- 1. deform (+ smooth normals when the shading uses them) ----
    record_stage_event(0);
    deform_kernel<<<grid_for(V, kVertexBlock), kVertexBlock, 0, stream_>>>(p);
    SLABCAST_CUDA_CHECK_LAUNCH(deform_kernel);
    if (p.need_smooth_normals) {
      face_normal_kernel<<<grid_for(T, kTriangleBlock), kTriangleBlock, 0, stream_>>>(p);
      SLABCAST_CUDA_CHECK_LAUNCH(face_normal_kernel);
      vertex_normal_kernel<<<grid_for(V, kVertexBlock), kVertexBlock, 0, stream_>>>(p);
      SLABCAST_CUDA_CHECK_LAUNCH(vertex_normal_kernel);
    }
    stage_done("deform");

    // ---- 2. project and bin (the depth range too) ----
    record_stage_event(1);
    bin_kernel<<<grid_for(T, kTriangleBlock), kTriangleBlock, 0, stream_>>>(p);
    SLABCAST_CUDA_CHECK_LAUNCH(bin_kernel);
    stage_done("bin");

    // ---- 3. build: L1 by tile column (one reference per covered tile), L2 by row, L3 by slab (cells_are_tiles) ----
    record_stage_event(2);
    const TileColumnEmitter emitter{a.pixel_box.data(), a.nearest_depth.data(), p.depth_range, c.slabs, T,
                                    a.pieces.data()};
    size_t bytes = d_.scratch.bytes();
    SLABCAST_CUDA_CHECK(prim::multi_split<TriangleRef>(d_.scratch.data(), bytes, l1_inputs(), emitter,
                                                       static_cast<uint32_t>(c.tiles_x), a.refs_a.data(),
                                                       static_cast<int64_t>(d_.capacity), a.column_offsets.data(),
                                                       &counters->references, stream_));
    guard_overflow_kernel<<<1, 256, 0, stream_>>>(a.column_offsets.data(), c.tiles_x, &counters->references,
                                                  d_.capacity, &counters->overflow);
    SLABCAST_CUDA_CHECK_LAUNCH(guard_overflow_kernel);
    stage_done("L1");
    record_stage_event(3);
    bytes = d_.scratch.bytes();
    SLABCAST_CUDA_CHECK(prim::segmented_split(
        d_.scratch.data(), bytes, static_cast<const TriangleRef*>(a.refs_a.data()), a.refs_b.data(),
        static_cast<int64_t>(d_.capacity), a.column_offsets.data(), c.tiles_x, static_cast<uint32_t>(c.tiles_y),
        RowOfRef{}, a.tile_offsets.data(), stream_, nullptr, kBuildSegmentedOptions));
    stage_done("L2");
    record_stage_event(4);
    if (!cells_are_tiles()) {
      bytes = d_.scratch.bytes();
      SLABCAST_CUDA_CHECK(prim::segmented_split(
          d_.scratch.data(), bytes, static_cast<const TriangleRef*>(a.refs_b.data()), a.refs_a.data(),
          static_cast<int64_t>(d_.capacity), a.tile_offsets.data(), static_cast<int64_t>(c.tiles_x) * c.tiles_y,
          static_cast<uint32_t>(c.slabs), SlabOfRef{}, a.cell_offsets.data(), stream_, nullptr,
          kBuildSegmentedOptions));
    }
    stage_done("L3");

    // ---- 4. cast, and 5. shade into the caller's surface, by the same threads (with shadows: 4b's samples) ----
    record_stage_event(5);
    const unsigned cast_tiles = static_cast<unsigned>(c.tiles_x * c.tiles_y);
    if (c.shadows()) {
      cast_sample_kernel<<<cast_tiles, kTilePixels, 0, stream_>>>(p, cast);
      SLABCAST_CUDA_CHECK_LAUNCH(cast_sample_kernel);
    } else {
      cast_kernel<<<cast_tiles, kTilePixels, 0, stream_>>>(p, cast);
      SLABCAST_CUDA_CHECK_LAUNCH(cast_kernel);
    }
    {
      // A programmatic dependent launch: the deep-tile caster's launch overlaps the end of the caster, whose grid it
      // then waits for on the device (cudaGridDependencySynchronize), so that a frame without deep tiles hardly pays
      // for it. (The caster triggers it only as its blocks exit: a trigger at their start made the waiting
      // blocks take SM slots through the whole last wave, 7% slower frames at 3840x2160 on an H100.)
      cudaLaunchConfig_t config{};
      config.gridDim = dim3(kCastDeepBlocks);
      config.blockDim = dim3(kTilePixels);
      config.stream = stream_;
      cudaLaunchAttribute overlap{};
      overlap.id = cudaLaunchAttributeProgrammaticStreamSerialization;
      overlap.val.programmaticStreamSerializationAllowed = 1;
      config.attrs = &overlap;
      config.numAttrs = 1;
      SLABCAST_CUDA_CHECK(
          cudaLaunchKernelEx(&config, c.shadows() ? cast_deep_sample_kernel : cast_deep_kernel, p, cast));
    }
    stage_done("cast");
    if (c.shadows()) encode_shadows(p, cast);
    encode_shade(p, cast);
  }

  // 5. shade: the caster's (and with shadows the test's), with no kernel of its own and no events either (two back to
  // back cost ~1 us), except where the frame is shaded after the cast (stages/shade.h: shades_after_cast): one thread
  // a pixel, from the cast's buffers, timed as the shade.
  void encode_shade(const FrameParams& p, const CastTarget& cast) {
    record_stage_event(shade_event());
    if (!shades_after_cast(p)) return;
    const int64_t pixels = static_cast<int64_t>(d_.size.width) * d_.size.height;
    shade_kernel<<<grid_for(pixels, kPixelBlock), kPixelBlock, 0, stream_>>>(p, cast);
    SLABCAST_CUDA_CHECK_LAUNCH(shade_kernel);
    stage_done("shade");
    record_stage_event(shade_event() + 1);
  }

  // 4b. shadows (stages/shadow.h): the samples' keys (the caster made the samples), counted by light tile as they are
  // made; their scatter into tiles on the side stream, beside the triangles' light boxes and references in the same
  // tiles (a count, a scan and a scatter: render/cuda/shadow_block.cuh; their overflow redoes the frame, as L1's
  // does), neither of which fills the GPU alone; the tests, which write the grey of a lit view's shadowed pixels where
  // it is one (CastTarget::grey_shadows).
  void encode_shadows(const FrameParams& p, const CastTarget& cast) {
    const FrameSize& c = d_.size;
    FrameArrays<prim::DeviceBuffer>& a = d_.a;
    FrameCounters* counters = d_.counters.data();
    const int64_t pixels = static_cast<int64_t>(c.width) * c.height;
    const uint64_t tiles = c.light_tiles();
    record_stage_event(kTimedStages);
    // The caster (cast_sample_kernel) made the samples and their light-space bounds, and cleared the light tiles'
    // counters (the tiles' depths, their samples' and their triangles' counts) that the keys and the count add to.
    light_sample_key_kernel<<<grid_for(pixels, kPixelBlock), kPixelBlock, 0, stream_>>>(
        a.shadow_origin.data(), a.light_on_device.data(), counters->light_faces, counters->light_grids, pixels,
        a.light_samples_scratch.data(), a.light_tile_depth.data(), a.light_sample_offsets.data(),
        &counters->shadow_samples);
    SLABCAST_CUDA_CHECK_LAUNCH(light_sample_key_kernel);
    stage_done("shadow samples");

    record_stage_event(kTimedStages + 1);
    // Fork: the samples packed by tile on the side stream, their counts scanned into each tile's end, then scattered
    // (the test takes counters->shadow_samples of them). Its time is in the light bin's stage, beside which it runs.
    SLABCAST_CUDA_CHECK(cudaEventRecord(fork_events_[0], stream_));
    SLABCAST_CUDA_CHECK(cudaStreamWaitEvent(side_stream_, fork_events_[0], 0));
    size_t bytes = d_.scratch.bytes() - side_scratch_offset_;
    SLABCAST_CUDA_CHECK(prim::inclusive_sum(d_.scratch.data() + side_scratch_offset_, bytes,
                                            a.light_sample_offsets.data(), a.light_sample_offsets.data(),
                                            static_cast<int64_t>(tiles), side_stream_));
    light_sample_scatter_kernel<<<grid_for(pixels, kPixelBlock), kPixelBlock, 0, side_stream_>>>(
        a.light_samples_scratch.data(), pixels, tiles, a.light_sample_offsets.data(), a.light_samples.data());
    SLABCAST_CUDA_CHECK_LAUNCH(light_sample_scatter_kernel);
    SLABCAST_CUDA_CHECK(cudaEventRecord(fork_events_[1], side_stream_));
    // The count and scatter of a sun's one face, or of a point light's six.
    const bool sun = p.light.faces == 1;
    const auto light_ref_count = sun ? light_ref_count_sun_kernel : light_ref_count_cube_kernel;
    const auto light_ref_scatter = sun ? light_ref_scatter_sun_kernel : light_ref_scatter_cube_kernel;
    const unsigned triangle_grid = grid_for(d_.num_triangles, kTriangleBlock);
    light_ref_count<<<triangle_grid, kTriangleBlock, 0, stream_>>>(p);
    SLABCAST_CUDA_CHECK_LAUNCH(light_ref_count);
    bytes = side_scratch_offset_;  // the side stream's scan works past it
    SLABCAST_CUDA_CHECK(prim::inclusive_sum(d_.scratch.data(), bytes, a.light_ref_offsets.data(),
                                            a.light_ref_offsets.data(), static_cast<int64_t>(tiles) + 2, stream_));
    light_ref_scatter<<<triangle_grid, kTriangleBlock, 0, stream_>>>(p);
    SLABCAST_CUDA_CHECK_LAUNCH(light_ref_scatter);
    SLABCAST_CUDA_CHECK(cudaStreamWaitEvent(stream_, fork_events_[1], 0));  // join: the samples are packed
    stage_done("shadow bin");

    record_stage_event(kTimedStages + 2);
    // 32 samples a warp over the pixels, an upper bound of their count (which is on the device): the blocks past the
    // samples return at once.
    shadow_test_kernel<<<grid_for(pixels, kShadowTestBlock), kShadowTestBlock, 0, stream_>>>(p, cast);
    SLABCAST_CUDA_CHECK_LAUNCH(shadow_test_kernel);
    stage_done("shadow test");
  }

  RendererOptions options_;
  bool sync_stages_ = false;
  bool frame_graph_enabled_ = true;
  cudaStream_t stream_ = nullptr;
  cudaStream_t side_stream_ = nullptr;  // the samples' scan and scatter, beside the triangles' references
                                        // (encode_shadows)
  cudaEvent_t fork_events_[2] = {};      // its fork from stream_ and its join back
  size_t side_scratch_offset_ = 0;       // where in the scratch blob the side stream's primitive works
  DeviceArrays d_;   // every device array (after stream_: its uploads run on it)
  // The frame graphs of frames without and with their stages timed (record_stage_event), kept side by side: a
  // caller that times one frame in a few (the benchmark, the viewer) alternates between them.
  FrameGraph graphs_[2];
  bool time_stages_ = true;  // this frame's FrameSettings::stage_times
  int last_event_ = 0;       // the index in events_ of this frame's last event
  DeviceVertexSelect select_;  // select_vertices' buffers, allocated at its first call
  ViewParams last_view_{};     // the last frame's camera (select_vertices projects with it)
  cudaEvent_t events_[kEventCount] = {};
  cudaEvent_t resolve_events_[2] = {};      // around a sample's accumulation (samples > 1)
  FrameCounters* host_counters_ = nullptr;  // pinned
  std::vector<RigMatrix> pose_palette_;     // the last frame's pose (upload_pose)
  std::vector<float> pose_weights_;
  SampleProgression progression_;  // which progressive sample d_.sample_sums are ready for (samples.h)
};

}  // namespace

std::unique_ptr<Renderer> make_cuda_renderer(const RendererOptions& options) {
  return std::make_unique<CudaRenderer>(options);
}

}  // namespace slabcast
