#include "app/bench/measure_row.h"

#include "prim/device_buffer.h"
#include "render/cuda_check.h"

#include <cmath>
#include <cuda_runtime.h>

#include <algorithm>
#include <exception>
#include <iomanip>
#include <memory>
#include <optional>
#include <sstream>
#include <thread>
#include <utility>

namespace slabcast::bench {
namespace {

// The frame's surface for the backend: device memory for cuda, host memory for cpu.
class PlainSurface {
 public:
  PlainSurface(Backend backend, int width, int height) {
    const size_t pitch = size_t(width) * 4, bytes = pitch * size_t(height);
    uint8_t* pixels = nullptr;
    if (backend == Backend::cuda) {
      SLABCAST_CUDA_CHECK(device_.allocate(bytes));
      pixels = device_.data();
    } else {
      host_.resize(bytes);
      pixels = host_.data();
    }
    surface_ = Surface{pixels, width, height, pitch};
  }
  const Surface& surface() const { return surface_; }

 private:
  prim::DeviceBuffer<uint8_t> device_;
  std::vector<uint8_t> host_;
  Surface surface_;
};

// Device memory in use, whole device (cudaMemGetInfo); nullopt without CUDA.
std::optional<uint64_t> device_used_bytes() {
  size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
    (void)cudaGetLastError();
    return std::nullopt;
  }
  return uint64_t(total_bytes - free_bytes);
}

double frame_time(const BenchOptions& options, int frame) {
  return double(options.deform.time) + frame * kBenchFrameSeconds;
}

FrameSettings settings_for(const BenchOptions& options, const Camera& camera, ImageSize size, int slabs, int frame) {
  FrameSettings s;
  s.width = size.width;
  s.height = size.height;
  s.camera = camera;
  s.deform = options.deform;
  s.deform.time = float(frame_time(options, frame));
  s.slabs = slabs;
  s.shading = Shading::phong;
  s.light = options.light;
  s.shadows = options.shadows;
  s.wireframe = options.wireframe;
  s.samples = options.samples;
  s.background = options.background;
  return s;
}

constexpr int kReferenceSlabs = 16;  // the raster ignores slabs; any valid count

// The frames whose stages are timed (FrameSettings::stage_times): one in kStageTimingInterval, counted from the first
// timed frame, so that every row has at least one, and some warm-up frames, so that the renderer makes both of its
// frame graphs before the timed frames.
bool stages_timed(int frame, int warmup) { return (frame - warmup) % kStageTimingInterval == 0; }

}  // namespace

ReferenceResult run_reference(RowContext& ctx, Reference& reference, const Camera& camera, ImageSize size) {
  const int total = ctx.plan.warmup + ctx.plan.frames;
  std::vector<double> ms;
  ms.reserve(size_t(ctx.plan.frames));
  for (int i = 0; i < total; ++i) {
    const FrameSettings s = settings_for(ctx.options, camera, size, kReferenceSlabs, i);
    if (i < ctx.plan.warmup) {
      reference.render_untimed(s);
    } else {
      ms.push_back(reference.render(s));
    }
    ctx.progress.frame();
  }
  ReferenceResult r;
  r.measured = true;
  r.timed = std::all_of(ms.begin(), ms.end(), [](double m) { return std::isfinite(m); });
  if (r.timed) r.ms = summarize(ms);
  // The IDs (and the shadow map's mask) of the last timed frame, still in the reference's framebuffer.
  r.ids = reference.triangle_ids();
  r.shadow_mask = reference.shadow_mask();
  return r;
}

void compare_shadow_masks(const std::vector<uint8_t>& exact, const std::vector<uint8_t>& map,
                          const std::vector<uint32_t>& exact_ids, const std::vector<uint32_t>& map_ids, BenchRow& row) {
  if (exact.empty() || exact.size() != map.size() || exact_ids.size() != exact.size() ||
      map_ids.size() != exact.size()) {
    return;
  }
  row.shadow_map_measured = true;
  for (size_t i = 0; i < exact.size(); ++i) {
    if (exact[i] == 128 || map[i] == 128 || exact_ids[i] != map_ids[i]) continue;
    ++row.shadow_map_compared;
    if (exact[i] != map[i]) ++row.shadow_map_wrong;
  }
}

BenchRow run_row(RowContext& ctx, const Mesh& mesh, const std::string& label, const Camera& camera, ImageSize size,
                 int slabs, std::vector<uint32_t>* ids, std::vector<uint8_t>* shadow_mask, SceneMotion* motion) {
  BenchRow row;
  row.scene = label;
  row.triangles = mesh.triangle_count();
  row.width = size.width;
  row.height = size.height;
  row.slabs = slabs;
  row.frames = ctx.plan.frames;

  // Surfaces and the display path first, so that the memory baseline below holds them and the delta is the
  // renderer's own.
  PlainSurface plain(ctx.backend, size.width, size.height);
#if SLABCAST_HAVE_GL
  std::unique_ptr<DisplayMeter> display;
  if (ctx.gl.feed) {
    try {
      display = std::make_unique<DisplayMeter>(size.width, size.height, *ctx.gl.feed);
    } catch (const std::exception& e) {  // e.g. CUDA refuses to register the GL buffer: time the frames anyway
      ctx.gl.display_absent = std::string("the display path could not be set up: ") + e.what();
      ctx.gl.feed.reset();
      ctx.note("display cost not measured from here on: " + ctx.gl.display_absent);
    }
  }
  row.display_feed = ctx.gl.feed ? gl::feed_name(*ctx.gl.feed) : ctx.gl.display_absent;
#else
  row.display_feed = ctx.gl.display_absent;
#endif
  const bool cuda = ctx.backend == Backend::cuda;
  std::optional<uint64_t> baseline;
  if (cuda) {
    SLABCAST_CUDA_CHECK(cudaDeviceSynchronize());
    baseline = device_used_bytes();
  }
  uint64_t peak_used = 0;
  const auto sample_memory = [&] {
    if (!baseline) return;
    if (const auto used = device_used_bytes()) peak_used = std::max(peak_used, *used);
  };

  // A renderer per row: its buffers only grow, so a shared one would report the largest row's memory everywhere.
  RendererOptions renderer_options;
  renderer_options.threads = ctx.options.threads;
  std::unique_ptr<Renderer> renderer = make_renderer(ctx.backend, renderer_options);
  renderer->set_mesh(mesh);
  sample_memory();

  const int total = ctx.plan.warmup + ctx.plan.frames;
  std::vector<double> deform, bin, l1, l2, l3, build, cast, shade, all, host, feed, blit, shown;
  std::vector<double> references, tests, binned, hit;
  std::vector<double> shadow_samples, shadow_bin, shadow_test, shadow, light_references, shadow_tests;
  for (std::vector<double>* v : {&deform, &bin, &l1, &l2, &l3, &build, &cast, &shade, &all, &host, &feed, &blit,
                                 &shown, &references, &tests, &binned, &hit, &shadow_samples, &shadow_bin,
                                 &shadow_test, &shadow, &light_references, &shadow_tests}) {
    v->reserve(size_t(ctx.plan.frames));
  }
  // A mesh sequence plays in real time, one frame every kBenchFrameSeconds of wall time, as a viewer shows it: its
  // frames are decoded on host threads meanwhile, and the row reports how many timed frames had to wait for one.
  const SequencePlayer* sequence = motion ? motion->sequence_player() : nullptr;
  const Clock::time_point paced_start = Clock::now();
  SequenceStalls stalls_at_warmup;
  std::vector<double> apply_ms;
  for (int i = 0; i < total; ++i) {
    if (sequence) {
      std::this_thread::sleep_until(paced_start + std::chrono::duration_cast<Clock::duration>(
                                                      std::chrono::duration<double>(i * kBenchFrameSeconds)));
      if (i == ctx.plan.warmup) stalls_at_warmup = sequence->stalls();
    }
    FrameSettings s = settings_for(ctx.options, camera, size, slabs, i);
    s.stage_times = stages_timed(i, ctx.plan.warmup);
    const Clock::time_point apply_start = Clock::now();
    if (motion) motion->apply(frame_time(ctx.options, i), s);
    if (i >= ctx.plan.warmup) apply_ms.push_back(ms_between(apply_start, Clock::now()));
    FrameStats stats;
    double feed_ms = 0, blit_ms = 0, host_ms = 0;
    const auto render_timed = [&](const Surface& target) {
      const Clock::time_point start = Clock::now();
      stats = renderer->render(s, target);
      host_ms = ms_between(start, Clock::now());
    };
#if SLABCAST_HAVE_GL
    if (display) {
      const Surface target = display->acquire();
      try {
        render_timed(target);
      } catch (...) {
        display->present();  // unmaps the buffer before the error goes on
        throw;
      }
      display->present();
      feed_ms = display->feed_ms();
      blit_ms = display->blit_ms();
    } else {
      render_timed(plain.surface());
    }
#else
    render_timed(plain.surface());
#endif
    row.renderer_peak_bytes = std::max<uint64_t>(row.renderer_peak_bytes, renderer->device_bytes_in_use());
    if (i + 1 == ctx.plan.warmup) sample_memory();
    if (i >= ctx.plan.warmup) {
      const StageTimes& t = stats.ms;
      if (s.stage_times) {
        deform.push_back(t.deform);
        bin.push_back(t.bin);
        l1.push_back(t.l1);
        l2.push_back(t.l2);
        l3.push_back(t.l3);
        build.push_back(double(t.l1) + double(t.l2) + double(t.l3));
        cast.push_back(t.cast);
        shade.push_back(t.shade);
        shadow_samples.push_back(t.shadow_samples);
        shadow_bin.push_back(t.shadow_bin);
        shadow_test.push_back(t.shadow_test);
        shadow.push_back(double(t.shadow_samples) + double(t.shadow_bin) + double(t.shadow_test));
      }
      light_references.push_back(double(stats.light_references));
      shadow_tests.push_back(double(stats.shadow_tests));
      all.push_back(t.total);
      host.push_back(host_ms);
      feed.push_back(feed_ms);
      blit.push_back(blit_ms);
      shown.push_back(feed_ms + blit_ms);
      references.push_back(double(stats.references));
      tests.push_back(double(stats.ray_triangle_tests));
      binned.push_back(double(stats.triangles_binned));
      hit.push_back(double(stats.pixels_hit));
      row.frames_redone += stats.frame_redone;
    }
    ctx.progress.frame();
  }
  sample_memory();
  if (sequence) {
    const SequenceStalls after = sequence->stalls();
    const Summary apply = summarize(apply_ms);
    std::ostringstream line;
    line << label << " " << size.width << "x" << size.height << ": mesh sequence played in real time at "
         << std::lround(1.0 / kBenchFrameSeconds) << " frames a second: " << (after.waits - stalls_at_warmup.waits)
         << " of " << ctx.plan.frames << " timed frames waited for a frame to decode ("
         << std::setprecision(3) << 1000.0 * (after.wait_seconds - stalls_at_warmup.wait_seconds)
         << " ms in all); keyframes per frame " << apply.median << " ms median, " << apply.p99 << " ms p99";
    ctx.note(line.str());
  }
  if (ids != nullptr) {
    FrameExtras extras;
    FrameSettings s = settings_for(ctx.options, camera, size, slabs, total - 1);
    if (motion) motion->apply(frame_time(ctx.options, total - 1), s);
    renderer->render(s, plain.surface(), &extras);
    *ids = std::move(extras.triangle_id);
    if (shadow_mask != nullptr) *shadow_mask = std::move(extras.shadow_mask);
  }

  row.deform = summarize(deform);
  row.bin = summarize(bin);
  row.l1 = summarize(l1);
  row.l2 = summarize(l2);
  row.l3 = summarize(l3);
  row.build = summarize(build);
  row.cast = summarize(cast);
  row.shade = summarize(shade);
  row.shadows = ctx.options.shadows;
  row.shadow_samples = summarize(shadow_samples);
  row.shadow_bin = summarize(shadow_bin);
  row.shadow_test = summarize(shadow_test);
  row.shadow = summarize(shadow);
  row.light_references = median_of(light_references);
  row.shadow_tests = median_of(shadow_tests);
  row.total = summarize(all);
  row.host = summarize(host);
#if SLABCAST_HAVE_GL
  if (display && !std::all_of(blit.begin(), blit.end(), [](double ms) { return std::isfinite(ms); })) {
    row.display_feed = "not measured: the GL timer gave a blit time longer than the wall time around it";
  } else if (display) {
    row.display_measured = true;
    row.feed = summarize(feed);
    row.blit = summarize(blit);
    row.display = summarize(shown);
  }
#endif
  row.references = median_of(references);
  row.ray_triangle_tests = median_of(tests);
  row.triangles_binned = median_of(binned);
  row.pixels_hit = median_of(hit);
  if (baseline && peak_used >= *baseline) row.device_delta_bytes = int64_t(peak_used - *baseline);
  return row;
}

}  // namespace slabcast::bench
