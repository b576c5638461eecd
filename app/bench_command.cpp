#include "bench_command.h"

#include "render_command.h"

#include <cuda_runtime.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <utility>

#if SLABCAST_HAVE_VIEWER
#include "app/viewer/cuda_interop.h"
#include "app/viewer/display_path.h"
#include "app/viewer/egl_context.h"
#include "app/viewer/gl_util.h"
#endif
#if SLABCAST_HAVE_GL_RASTER
#include "app/viewer/gl_raster.h"
#endif

#ifndef SLABCAST_GIT_COMMIT
#define SLABCAST_GIT_COMMIT ""
#endif

namespace slabcast {
namespace {

// The animation step per frame, as in the headless viewer: every row sees the same sequence of deformations.
constexpr double kFrameSeconds = 1.0 / 60.0;
constexpr const char* kDragonPath = "assets/models/dragon.obj";
constexpr const char* kDragonLabel = "dragon.obj";

void check_cuda_call(cudaError_t status, const char* call, const char* file, int line) {
  if (status != cudaSuccess) {
    std::ostringstream s;
    s << call << " failed at " << file << ":" << line << ": " << cudaGetErrorName(status) << " ("
      << cudaGetErrorString(status) << ")";
    throw std::runtime_error(s.str());
  }
}
#define BENCH_CUDA_CHECK(call) check_cuda_call((call), #call, __FILE__, __LINE__)

using Clock = std::chrono::steady_clock;
double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// ---------------------------------------------------------------------------------------------- suites

struct SuiteDefaults {
  std::vector<SceneSpec> scenes;  // the dragon is added in front where it exists
  bool dragon = false;
  std::vector<ImageSize> sizes;
  std::vector<int> slabs;
  int frames = 200, warmup = 20;
};

SceneSpec procedural(const char* name, uint64_t triangles) {
  SceneSpec s;
  s.procedural_name = name;
  s.procedural_triangles = triangles;
  return s;
}

SuiteDefaults suite_defaults(BenchSuite suite) {
  SuiteDefaults d;
  switch (suite) {
    case BenchSuite::issue5:
      d.dragon = true;
      d.scenes = {procedural("sphere", 1000000), procedural("sphere", 4000000), procedural("sphere", 16000000)};
      d.sizes = {{1024, 1024}, {1920, 1080}, {3840, 2160}};
      d.slabs = {1, 4, 8, 16};
      break;
    case BenchSuite::thesis:  // Tables 7.1 and 7.2: one model at 1024x1024, the slab count swept
      d.dragon = true;
      d.sizes = {{1024, 1024}};
      d.slabs = {1, 2, 4, 8, 16, 32, 64};
      break;
    case BenchSuite::quick:  // small enough for the cpu backend to finish in seconds
      d.scenes = {procedural("sphere", 20000)};
      d.sizes = {{128, 128}, {192, 108}};
      d.slabs = {1, 16};
      d.frames = 20;
      d.warmup = 3;
      break;
  }
  return d;
}

// ---------------------------------------------------------------------------------------------- environment

std::string read_first_line(const std::string& path, const std::string& prefix = {}) {
  std::ifstream f(path);
  std::string line;
  while (std::getline(f, line)) {
    if (line.compare(0, prefix.size(), prefix) == 0) return line;
  }
  return {};
}

std::string version_text(int v) {  // CUDA's 13000 -> "13.0"
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

BenchEnvironment gather_environment(Backend backend) {
  BenchEnvironment env;
  env.backend = to_string(backend);
  const char* commit = std::getenv("SLABCAST_GIT_COMMIT");
  env.git_commit = commit != nullptr && *commit != '\0' ? commit : SLABCAST_GIT_COMMIT;
  if (env.git_commit.empty()) env.git_commit = "unknown";
  char stamp[32];
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &utc);
  env.date = stamp;
  const std::string cpu = read_first_line("/proc/cpuinfo", "model name");
  const size_t colon = cpu.find(':');  // "model name\t: AMD EPYC ..."
  env.host = colon == std::string::npos ? "unknown" : cpu.substr(std::min(cpu.size(), colon + 2));

  int runtime = 0, driver = 0;
  if (cudaRuntimeGetVersion(&runtime) == cudaSuccess) env.cuda_runtime = version_text(runtime);
  if (cudaDriverGetVersion(&driver) == cudaSuccess && driver > 0) env.driver = "CUDA " + version_text(driver);
  (void)cudaGetLastError();
  // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.05  ..." or "... Open Kernel Module for x86_64
  // 580.159.04 ...": the driver's own version is the first word after "Module" made of digits and dots.
  const std::string nvrm = read_first_line("/proc/driver/nvidia/version", "NVRM");
  const size_t module = nvrm.find("Module");
  if (module != std::string::npos) {
    std::istringstream words(nvrm.substr(module + 6));
    std::string word;
    while (words >> word) {
      const bool version_like = std::isdigit(static_cast<unsigned char>(word[0])) &&
                                word.find('.') != std::string::npos &&
                                word.find_first_not_of("0123456789.") == std::string::npos;
      if (version_like) {
        env.driver = word + (env.driver.empty() ? "" : " (" + env.driver + ")");
        break;
      }
    }
  }
  if (env.driver.empty()) env.driver = "none";
  if (backend == Backend::cuda) {
    int device = 0;
    cudaDeviceProp prop{};
    if (cudaGetDevice(&device) == cudaSuccess && cudaGetDeviceProperties(&prop, device) == cudaSuccess) {
      env.gpu = prop.name;
    }
    (void)cudaGetLastError();
  }
  if (env.gpu.empty()) env.gpu = "none (cpu backend)";
  return env;
}

// ---------------------------------------------------------------------------------------------- progress

// A bar rewritten in place on a terminal (at most every 100 ms); elsewhere a plain line per finished row, so that
// a log stays short and readable.
class Progress {
 public:
  Progress(std::ostream& log, uint64_t total_frames, int total_rows)
      : log_(log), total_(std::max<uint64_t>(total_frames, 1)), rows_(total_rows), tty_(isatty(STDERR_FILENO) != 0),
        start_(Clock::now()) {}

  void begin(std::string what) {
    what_ = std::move(what);
    draw(true);
  }
  void frame() {
    ++done_;
    draw(false);
  }
  void row_done(const std::string& result) {
    ++rows_done_;
    if (tty_) {
      clear();
      log_ << "[bench] " << rows_done_ << "/" << rows_ << " " << what_ << ": " << result << "\n";
      draw(true);
    } else {
      log_ << "[bench] " << rows_done_ << "/" << rows_ << " (" << percent() << "%) " << what_ << ": " << result
           << "\n" << std::flush;
    }
  }
  void note(const std::string& line) {
    clear();
    log_ << "[bench] " << line << "\n" << std::flush;
    if (tty_) draw(true);
  }
  void finish() {
    clear();
    const double s = ms_between(start_, Clock::now()) / 1000.0;
    log_ << "[bench] done: " << rows_done_ << " rows in " << std::fixed << std::setprecision(1) << s << " s\n"
         << std::defaultfloat << std::flush;
  }

 private:
  int percent() const { return int(100.0 * double(std::min(done_, total_)) / double(total_)); }
  void clear() {
    if (tty_ && drawn_) log_ << "\r\033[K";
    drawn_ = false;
  }
  void draw(bool force) {
    if (!tty_) return;
    const auto now = Clock::now();
    if (!force && ms_between(last_draw_, now) < 100.0) return;
    last_draw_ = now;
    constexpr int kWidth = 30;
    const double fraction = double(std::min(done_, total_)) / double(total_);
    const int filled = int(fraction * kWidth);
    const double elapsed = ms_between(start_, now) / 1000.0;
    std::string bar(size_t(filled), '#');
    bar.resize(kWidth, '.');
    log_ << "\r\033[K[bench] [" << bar << "] " << std::setw(3) << percent() << "% " << what_;
    if (fraction > 0.02) log_ << "  ~" << int(elapsed / fraction - elapsed + 0.5) << " s left";
    log_ << std::flush;
    drawn_ = true;
  }

  std::ostream& log_;
  uint64_t total_, done_ = 0;
  int rows_, rows_done_ = 0;
  bool tty_, drawn_ = false;
  Clock::time_point start_, last_draw_{};
  std::string what_;
};

// ---------------------------------------------------------------------------------------------- surfaces

// Device memory for a frame's pixels (cuda backend), freed at scope exit.
class DeviceSurface {
 public:
  DeviceSurface(int width, int height) : surface_{nullptr, width, height, size_t(width) * 4} {
    BENCH_CUDA_CHECK(cudaMalloc(&surface_.pixels, surface_.pitch_bytes * size_t(height)));
  }
  ~DeviceSurface() { cudaFree(surface_.pixels); }
  DeviceSurface(const DeviceSurface&) = delete;
  DeviceSurface& operator=(const DeviceSurface&) = delete;
  const Surface& surface() const { return surface_; }

 private:
  Surface surface_;
};

// The frame's surface for the backend: device memory for cuda, host memory for cpu.
class PlainSurface {
 public:
  PlainSurface(Backend backend, int width, int height) {
    if (backend == Backend::cuda) {
      device_ = std::make_unique<DeviceSurface>(width, height);
      surface_ = device_->surface();
    } else {
      host_.resize(size_t(width) * size_t(height) * 4);
      surface_ = Surface{host_.data(), width, height, size_t(width) * 4};
    }
  }
  const Surface& surface() const { return surface_; }

 private:
  std::unique_ptr<DeviceSurface> device_;
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

// ---------------------------------------------------------------------------------------------- GL: display, reference

#if SLABCAST_HAVE_VIEWER
// The viewer's display path, instrumented: the same pixel buffer (registered with CUDA once, mapped per frame, or
// filled by an upload for the cpu backend), texture copy and full-screen pass as app/viewer/display_path.cpp, with
// each part timed. Every frame waits for its GL timer query, so that GL is idle when the next map starts: the map's
// wall time is then its own cost, not a wait for the previous frame's blit.
class DisplayMeter {
 public:
  DisplayMeter(int width, int height, viewer::Feed feed) : width_(width), height_(height), feed_(feed), target_(width, height) {
    const size_t bytes = size_t(width) * size_t(height) * 4;
    GLuint id = 0;
    glCreateBuffers(1, &id);
    pbo_.reset(id);
    SLABCAST_GL_CHECK(glNamedBufferData(pbo_.get(), GLsizeiptr(bytes), nullptr, GL_STREAM_DRAW));
    glCreateTextures(GL_TEXTURE_2D, 1, &id);
    texture_.reset(id);
    SLABCAST_GL_CHECK(glTextureStorage2D(texture_.get(), 1, GL_RGBA8, width, height));
    glCreateQueries(GL_TIME_ELAPSED, 1, &id);
    query_.reset(id);
    if (feed == viewer::Feed::cuda_interop) {
      interop_ = viewer::CudaGlBuffer(pbo_.get());
    } else {
      staging_.resize(bytes);
    }
    viewer::check_gl("DisplayMeter", __FILE__, __LINE__);
  }

  // Where the renderer writes this frame: the mapped pixel buffer (interop) or host memory (upload).
  Surface acquire() {
    const Surface plain{staging_.data(), width_, height_, size_t(width_) * 4};
    if (feed_ != viewer::Feed::cuda_interop) return plain;
    const auto t0 = Clock::now();
    size_t bytes = 0;
    uint8_t* pixels = interop_.map(&bytes);
    feed_ms_ = ms_between(t0, Clock::now());
    if (bytes < size_t(width_) * size_t(height_) * 4) {
      interop_.unmap();
      throw std::runtime_error("the mapped pixel buffer holds " + std::to_string(bytes) + " bytes, too few");
    }
    return Surface{pixels, width_, height_, size_t(width_) * 4};
  }

  // Hands the frame to GL (unmap, or upload), then PBO -> texture -> full-screen pass into an offscreen target.
  void present() {
    const auto t0 = Clock::now();
    if (feed_ == viewer::Feed::cuda_interop) {
      interop_.unmap();
      feed_ms_ += ms_between(t0, Clock::now());
    } else {
      SLABCAST_GL_CHECK(glNamedBufferSubData(pbo_.get(), 0, GLsizeiptr(staging_.size()), staging_.data()));
      feed_ms_ = ms_between(t0, Clock::now());
    }
    target_.bind();
    glBeginQuery(GL_TIME_ELAPSED, query_.get());
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pbo_.get());
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    glTextureSubImage2D(texture_.get(), 0, 0, 0, width_, height_, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    pass_.draw(texture_.get(), width_, height_, width_, height_);
    glEndQuery(GL_TIME_ELAPSED);
    GLuint64 ns = 0;
    glGetQueryObjectui64v(query_.get(), GL_QUERY_RESULT, &ns);  // waits: GL is idle afterwards
    viewer::check_gl("DisplayMeter::present", __FILE__, __LINE__);
    blit_ms_ = double(ns) * 1e-6;
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
  }

  double feed_ms() const { return feed_ms_; }
  double blit_ms() const { return blit_ms_; }

 private:
  int width_, height_;
  viewer::Feed feed_;
  viewer::OffscreenTarget target_;
  viewer::GlBuffer pbo_;
  viewer::GlTexture texture_;
  viewer::GlQuery query_;
  viewer::CudaGlBuffer interop_;
  std::vector<uint8_t> staging_;
  viewer::FullscreenPass pass_;
  double feed_ms_ = 0, blit_ms_ = 0;
};
#endif

// The OpenGL hardware-raster reference behind a small seam, so that the rest of bench builds and runs without it.
class Reference {
 public:
  virtual ~Reference() = default;
  virtual double render(const FrameSettings& settings) = 0;  // GPU ms of the frame (waits for it)
  virtual void render_untimed(const FrameSettings& settings) = 0;  // warm-up
  virtual std::vector<uint32_t> triangle_ids() const = 0;    // the last frame's, row 0 = top, miss = 0xFFFFFFFF
  // Pixels where two ID buffers agree; differences next to a silhouette or triangle edge are expected.
  virtual IdAgreementCounts compare(const std::vector<uint32_t>& ours, const std::vector<uint32_t>& theirs,
                                    int width, int height) const = 0;
};

#if SLABCAST_HAVE_GL_RASTER
class GlRasterReference final : public Reference {
 public:
  explicit GlRasterReference(const Mesh& mesh) : raster_(mesh) {}
  double render(const FrameSettings& settings) override { return double(raster_.render(settings)); }
  void render_untimed(const FrameSettings& settings) override { raster_.render_untimed(settings); }
  std::vector<uint32_t> triangle_ids() const override { return raster_.read_triangle_ids(); }
  IdAgreementCounts compare(const std::vector<uint32_t>& ours, const std::vector<uint32_t>& theirs, int width,
                            int height) const override {
    const viewer::IdAgreement a = viewer::compare_triangle_ids(ours, theirs, width, height);
    IdAgreementCounts c;
    c.measured = true;
    c.pixels = a.pixels;
    c.equal = a.equal;
    c.differing = a.differing;
    c.differing_off_edges = a.differing_off_edges;
    return c;
  }

 private:
  viewer::GlRaster raster_;
};
#endif

// Everything GL: the EGL context (one per process), and what it can do here.
struct GlSide {
#if SLABCAST_HAVE_VIEWER
  std::unique_ptr<viewer::EglContext> egl;
#endif
  std::string description;       // the context, for the JSON; empty without one
  std::string display_absent;    // why the display cost is not measured; empty when it is
  std::string reference_absent;  // why the reference is not run; empty when it is
#if SLABCAST_HAVE_VIEWER
  std::optional<viewer::Feed> feed;
#endif
};

GlSide open_gl(const BenchOptions& options, Backend backend) {
  GlSide gl;
  const bool want_reference = options.reference == BenchReference::gl_raster;
  if (!options.display) gl.display_absent = "--display off";
  if (!want_reference) gl.reference_absent = "--reference none";
  if (!options.display && !want_reference) return gl;
#if SLABCAST_HAVE_VIEWER
  int cuda_device = -1;
  if (backend == Backend::cuda) BENCH_CUDA_CHECK(cudaGetDevice(&cuda_device));
  try {
    gl.egl = std::make_unique<viewer::EglContext>(cuda_device);
    gl.description = gl.egl->description();
  } catch (const std::exception& e) {
    const std::string why = std::string("no OpenGL 4.5 context through EGL: ") + e.what();
    if (options.display) gl.display_absent = why;
    if (want_reference) gl.reference_absent = why;
    return gl;
  }
  // On the cuda backend the reference must run on the same GPU, or the ratio compares two different machines.
  if (want_reference && backend == Backend::cuda && !gl.egl->on_cuda_device()) {
    gl.reference_absent = "OpenGL runs on " + gl.description + ", not on the CUDA device: the reference would not "
                          "run on the same GPU (is NVIDIA's EGL library installed?)";
  }
  if (options.display) {
    if (backend == Backend::cpu) {
      gl.feed = viewer::Feed::host_upload;
    } else if (gl.egl->on_cuda_device()) {
      gl.feed = viewer::Feed::cuda_interop;
    } else {
      gl.display_absent = "OpenGL runs on " + gl.description + ", not on the CUDA device: no CUDA-GL interop";
    }
  }
#else
  (void)backend;
  const std::string why = "this slabcast was built without the viewer (app/viewer/), which has the OpenGL side";
  if (options.display) gl.display_absent = why;
  if (want_reference) gl.reference_absent = why;
#endif
  return gl;
}

std::unique_ptr<Reference> make_reference(const GlSide& gl, const Mesh& mesh) {
  if (!gl.reference_absent.empty()) return nullptr;
#if SLABCAST_HAVE_GL_RASTER
  return std::make_unique<GlRasterReference>(mesh);
#else
  (void)mesh;
  return nullptr;
#endif
}

// ---------------------------------------------------------------------------------------------- one row

struct RowContext {
  Backend backend;
  const BenchPlan& plan;
  const BenchOptions& options;
  GlSide& gl;
  Progress& progress;
  std::vector<std::string>& notes;  // what could not be measured, and why (stderr and the JSON)

  void note(const std::string& line) {
    progress.note("note: " + line);
    notes.push_back(line);
  }
};

double frame_time(const BenchOptions& options, int frame) { return double(options.deform.time) + frame * kFrameSeconds; }

FrameSettings settings_for(const BenchOptions& options, const Camera& camera, ImageSize size, int slabs, int frame) {
  FrameSettings s;
  s.width = size.width;
  s.height = size.height;
  s.camera = camera;
  s.deform = options.deform;
  s.deform.time = float(frame_time(options, frame));
  s.slabs = slabs;
  s.shading = Shading::phong;
  return s;
}

constexpr int kReferenceSlabs = 16;  // the raster ignores slabs; any valid count

struct ReferenceResult {
  bool measured = false;
  Summary ms;
  std::vector<uint32_t> ids;  // at the last timed frame's time
};

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
  r.ms = summarize(ms);
  // The IDs of the last timed frame, still in the reference's framebuffer.
  r.ids = reference.triangle_ids();
  return r;
}

// One row: warm-up and timed frames with a fresh renderer. `ids` (optional) gets our triangle IDs at the last timed
// frame's time, from one more, untimed frame into plain memory.
BenchRow run_row(RowContext& ctx, const Mesh& mesh, const std::string& label, const Camera& camera, ImageSize size,
                 int slabs, std::vector<uint32_t>* ids) {
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
#if SLABCAST_HAVE_VIEWER
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
  row.display_feed = ctx.gl.feed ? viewer::feed_name(*ctx.gl.feed) : ctx.gl.display_absent;
#else
  row.display_feed = ctx.gl.display_absent;
#endif
  const bool cuda = ctx.backend == Backend::cuda;
  std::optional<uint64_t> baseline;
  if (cuda) {
    BENCH_CUDA_CHECK(cudaDeviceSynchronize());
    baseline = device_used_bytes();
  }
  uint64_t peak_used = 0;
  const auto sample_memory = [&] {
    if (!baseline) return;
    if (const auto used = device_used_bytes()) peak_used = std::max(peak_used, *used);
  };

  // A renderer per row: its buffers only grow, so a shared one would report the largest row's memory everywhere.
  std::unique_ptr<Renderer> renderer = make_renderer(ctx.backend);
  renderer->set_mesh(mesh);
  sample_memory();

  const int total = ctx.plan.warmup + ctx.plan.frames;
  std::vector<double> deform, bin, l1, l2, l3, build, cast, shade, all, host, feed, blit, shown;
  std::vector<double> references, tests, binned, hit;
  for (std::vector<double>* v : {&deform, &bin, &l1, &l2, &l3, &build, &cast, &shade, &all, &host, &feed, &blit,
                                 &shown, &references, &tests, &binned, &hit}) {
    v->reserve(size_t(ctx.plan.frames));
  }
  for (int i = 0; i < total; ++i) {
    const FrameSettings s = settings_for(ctx.options, camera, size, slabs, i);
    FrameStats stats;
    double feed_ms = 0, blit_ms = 0, host_ms = 0;
    const auto render_timed = [&](const Surface& target) {
      const Clock::time_point start = Clock::now();
      stats = renderer->render(s, target);
      host_ms = ms_between(start, Clock::now());
    };
#if SLABCAST_HAVE_VIEWER
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
      deform.push_back(t.deform);
      bin.push_back(t.bin);
      l1.push_back(t.l1);
      l2.push_back(t.l2);
      l3.push_back(t.l3);
      build.push_back(double(t.l1) + double(t.l2) + double(t.l3));
      cast.push_back(t.cast);
      shade.push_back(t.shade);
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
  if (ids != nullptr) {
    FrameExtras extras;
    renderer->render(settings_for(ctx.options, camera, size, slabs, total - 1), plain.surface(), &extras);
    *ids = std::move(extras.triangle_id);
  }

  row.deform = summarize(deform);
  row.bin = summarize(bin);
  row.l1 = summarize(l1);
  row.l2 = summarize(l2);
  row.l3 = summarize(l3);
  row.build = summarize(build);
  row.cast = summarize(cast);
  row.shade = summarize(shade);
  row.total = summarize(all);
  row.host = summarize(host);
#if SLABCAST_HAVE_VIEWER
  if (display) {
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

std::string short_ms(double ms) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(ms < 10 ? 3 : ms < 100 ? 2 : 1) << ms;
  return s.str();
}

std::string size_text(int width, int height) { return std::to_string(width) + "x" + std::to_string(height); }

}  // namespace

// ---------------------------------------------------------------------------------------------- statistics

double median_of(std::vector<double> values) {
  if (values.empty()) return 0.0;
  const size_t n = values.size();
  std::nth_element(values.begin(), values.begin() + long(n / 2), values.end());
  const double upper = values[n / 2];
  if (n % 2 == 1) return upper;
  const double lower = *std::max_element(values.begin(), values.begin() + long(n / 2));
  return 0.5 * (lower + upper);
}

double percentile_of(std::vector<double> values, double p) {
  if (values.empty()) return 0.0;
  if (!(p > 0.0 && p <= 100.0)) throw std::invalid_argument("percentile " + std::to_string(p) + " not in (0, 100]");
  std::sort(values.begin(), values.end());
  const double rank = std::ceil(p / 100.0 * double(values.size()));
  const size_t index = size_t(std::max(1.0, rank)) - 1;
  return values[std::min(index, values.size() - 1)];
}

Summary summarize(const std::vector<double>& values) { return Summary{median_of(values), percentile_of(values, 99.0)}; }

// ---------------------------------------------------------------------------------------------- plan

std::string find_dragon() {
  std::error_code ec;
  if (std::filesystem::is_regular_file(kDragonPath, ec)) return kDragonPath;
#ifdef SLABCAST_SOURCE_DIR
  const std::string in_source = std::string(SLABCAST_SOURCE_DIR) + "/" + kDragonPath;
  if (std::filesystem::is_regular_file(in_source, ec)) return in_source;
#endif
  return {};
}

BenchPlan plan_bench(const BenchOptions& options) {
  const SuiteDefaults d = suite_defaults(options.suite);
  BenchPlan plan;
  plan.scenes = options.scenes;
  if (plan.scenes.empty()) {
    if (d.dragon) {
      const std::string dragon = find_dragon();
      if (!dragon.empty()) {
        SceneSpec s;
        s.mesh_path = dragon;
        plan.scenes.push_back(s);
      } else {
        plan.notes.push_back(std::string(kDragonPath) + " is missing: run assets/fetch-models.sh to fetch the Stanford "
                             "dragon (the issue's main scene); " +
                             (d.scenes.empty() ? "using a 1M-triangle sphere instead" : "benchmarking without it"));
      }
    }
    plan.scenes.insert(plan.scenes.end(), d.scenes.begin(), d.scenes.end());
    if (plan.scenes.empty()) plan.scenes.push_back(procedural("sphere", 1000000));
  }
  plan.sizes = options.sizes.empty() ? d.sizes : options.sizes;
  plan.slabs = options.slabs.empty() ? d.slabs : options.slabs;
  plan.frames = options.frames.value_or(d.frames);
  plan.warmup = options.warmup.value_or(d.warmup);
  if (plan.frames < 1) throw UsageError("--frames: at least one timed frame is needed");
  if (plan.warmup < 0) throw UsageError("--warmup: must not be negative");
  return plan;
}

// ---------------------------------------------------------------------------------------------- output

namespace {

std::string json_escape(const std::string& s) {
  std::string out;
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string quote(const std::string& s) { return "\"" + json_escape(s) + "\""; }

// A finite number as JSON / CSV text (milliseconds to the nanosecond; counts exact up to 2^53).
std::string number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  if (std::fabs(v) >= 1e6 && std::fabs(v) < 9e15 && v == std::floor(v)) std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

std::string summary_json(const Summary& s) {
  return "{\"median\": " + number(s.median) + ", \"p99\": " + number(s.p99) + "}";
}

// Written to PATH.tmp, then renamed: the file is rewritten after every row, and a run killed mid-write must still
// leave the previous complete version under PATH.
class OutputFile {
 public:
  explicit OutputFile(std::string path) : path_(std::move(path)), temp_(path_ + ".tmp") {
    stream.open(temp_, std::ios::binary | std::ios::trunc);
    if (!stream) throw std::runtime_error(path_ + ": cannot write (" + std::strerror(errno) + ")");
  }
  void commit() {
    stream.close();
    if (!stream) throw std::runtime_error(path_ + ": cannot write (write failed)");
    std::error_code ec;
    std::filesystem::rename(temp_, path_, ec);
    if (ec) throw std::runtime_error(path_ + ": cannot write (" + ec.message() + ")");
  }
  std::ofstream stream;

 private:
  std::string path_, temp_;
};

// The CSV's columns, in order, with how each is taken from a row (empty: not measured).
struct CsvColumn {
  const char* name;
  std::string (*value)(const BenchRow&);
};

#define BENCH_SUMMARY_COLUMNS(field) \
  {#field "_ms_median", [](const BenchRow& r) { return number(r.field.median); }}, \
  {#field "_ms_p99", [](const BenchRow& r) { return number(r.field.p99); }}
#define BENCH_DISPLAY_COLUMNS(field) \
  {#field "_ms_median", [](const BenchRow& r) { return r.display_measured ? number(r.field.median) : std::string(); }}, \
  {#field "_ms_p99", [](const BenchRow& r) { return r.display_measured ? number(r.field.p99) : std::string(); }}

std::string csv_text(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (const char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

const std::vector<CsvColumn>& csv_columns() {
  static const std::vector<CsvColumn> columns = {
      {"scene", [](const BenchRow& r) { return csv_text(r.scene); }},
      {"triangles", [](const BenchRow& r) { return std::to_string(r.triangles); }},
      {"width", [](const BenchRow& r) { return std::to_string(r.width); }},
      {"height", [](const BenchRow& r) { return std::to_string(r.height); }},
      {"slabs", [](const BenchRow& r) { return std::to_string(r.slabs); }},
      {"frames", [](const BenchRow& r) { return std::to_string(r.frames); }},
      BENCH_SUMMARY_COLUMNS(deform), BENCH_SUMMARY_COLUMNS(bin), BENCH_SUMMARY_COLUMNS(l1),
      BENCH_SUMMARY_COLUMNS(l2), BENCH_SUMMARY_COLUMNS(l3), BENCH_SUMMARY_COLUMNS(build),
      BENCH_SUMMARY_COLUMNS(cast), BENCH_SUMMARY_COLUMNS(shade), BENCH_SUMMARY_COLUMNS(total),
      BENCH_SUMMARY_COLUMNS(host),
      {"display_feed", [](const BenchRow& r) { return r.display_measured ? csv_text(r.display_feed) : std::string(); }},
      BENCH_DISPLAY_COLUMNS(feed), BENCH_DISPLAY_COLUMNS(blit), BENCH_DISPLAY_COLUMNS(display),
      {"references", [](const BenchRow& r) { return number(r.references); }},
      {"ray_triangle_tests", [](const BenchRow& r) { return number(r.ray_triangle_tests); }},
      {"triangles_binned", [](const BenchRow& r) { return number(r.triangles_binned); }},
      {"pixels_hit", [](const BenchRow& r) { return number(r.pixels_hit); }},
      {"frames_redone", [](const BenchRow& r) { return std::to_string(r.frames_redone); }},
      {"renderer_peak_bytes", [](const BenchRow& r) { return std::to_string(r.renderer_peak_bytes); }},
      {"device_delta_bytes",
       [](const BenchRow& r) { return r.device_delta_bytes >= 0 ? std::to_string(r.device_delta_bytes) : std::string(); }},
      {"reference_ms_median",
       [](const BenchRow& r) { return r.reference_measured ? number(r.reference_ms.median) : std::string(); }},
      {"reference_ms_p99",
       [](const BenchRow& r) { return r.reference_measured ? number(r.reference_ms.p99) : std::string(); }},
      {"speedup", [](const BenchRow& r) { return r.reference_measured ? number(r.speedup) : std::string(); }},
      {"id_pixels", [](const BenchRow& r) { return r.ids.measured ? std::to_string(r.ids.pixels) : std::string(); }},
      {"id_equal", [](const BenchRow& r) { return r.ids.measured ? std::to_string(r.ids.equal) : std::string(); }},
      {"id_differing",
       [](const BenchRow& r) { return r.ids.measured ? std::to_string(r.ids.differing) : std::string(); }},
      {"id_differing_off_edges",
       [](const BenchRow& r) { return r.ids.measured ? std::to_string(r.ids.differing_off_edges) : std::string(); }},
      {"id_agreement", [](const BenchRow& r) { return r.ids.measured ? number(r.ids.fraction()) : std::string(); }},
  };
  return columns;
}

}  // namespace

void write_bench_json(const std::string& path, const BenchEnvironment& env, const BenchOptions& options,
                      const BenchPlan& plan, const std::vector<BenchRow>& rows, bool complete) {
  OutputFile file(path);
  std::ofstream& f = file.stream;
  f << "{\n  \"tool\": \"slabcast bench\",\n  \"schema\": 1,\n  \"complete\": " << (complete ? "true" : "false")
    << ",\n"
    << "  \"environment\": {\"backend\": " << quote(env.backend) << ", \"gpu\": " << quote(env.gpu)
    << ", \"driver\": " << quote(env.driver) << ", \"cuda_runtime\": " << quote(env.cuda_runtime)
    << ", \"gl\": " << quote(env.gl) << ", \"git_commit\": " << quote(env.git_commit) << ", \"date\": "
    << quote(env.date) << ", \"host_cpu\": " << quote(env.host) << "},\n"
    << "  \"settings\": {\"suite\": " << quote(to_string(options.suite)) << ", \"frames\": " << plan.frames
    << ", \"warmup\": " << plan.warmup << ", \"deform\": " << quote(to_string(options.deform.kind))
    << ", \"deform_amount\": " << number(options.deform.amount) << ", \"time_start_s\": "
    << number(options.deform.time) << ", \"time_step_s\": " << number(kFrameSeconds) << ", \"fovy_degrees\": "
    << number(options.fovy_degrees) << ", \"reference\": " << quote(to_string(options.reference))
    << ", \"display\": " << (options.display ? "true" : "false") << ",\n    \"timing\": "
    << quote(env.backend == "cuda" ? "stage times from CUDA events around each stage; total = first to last event "
                                     "(deform + bin + L1 + L2 + L3 + cast + shade into the surface)"
                                   : "stage times by the host's wall clock (cpu backend)")
    << ",\n    \"host_timing\": "
    << quote("host_ms = the host's wall time of one Renderer::render call (build and launch the frame, wait for it, "
             "read its statistics back)")
    << ",\n    \"display_timing\": "
    << quote("feed = host wall time of the CUDA-GL map + unmap (interop) or of the PBO upload (cpu backend); blit = GL "
             "timer query (GL_TIME_ELAPSED) around PBO -> texture + full-screen pass, waited for every frame")
    << ",\n    \"memory\": "
    << quote("renderer_peak_bytes = max Renderer::device_bytes_in_use(); device_delta_bytes = max cudaMemGetInfo "
             "used bytes during the row (after set_mesh, after the warm-up, at the end) minus before the renderer "
             "was made")
    << "},\n  \"notes\": [";
  for (size_t i = 0; i < plan.notes.size(); ++i) f << (i ? ", " : "") << quote(plan.notes[i]);
  f << "],\n  \"rows\": [\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    const BenchRow& r = rows[i];
    f << "    {\"scene\": " << quote(r.scene) << ", \"triangles\": " << r.triangles << ", \"width\": " << r.width
      << ", \"height\": " << r.height << ", \"slabs\": " << r.slabs << ", \"frames\": " << r.frames
      << ",\n     \"ms\": {\"deform\": " << summary_json(r.deform) << ", \"bin\": " << summary_json(r.bin)
      << ", \"l1\": " << summary_json(r.l1) << ", \"l2\": " << summary_json(r.l2) << ", \"l3\": " << summary_json(r.l3)
      << ",\n            \"build\": " << summary_json(r.build) << ", \"cast\": " << summary_json(r.cast)
      << ", \"shade\": " << summary_json(r.shade) << ", \"total\": " << summary_json(r.total) << "},\n     \"host_ms\": "
      << summary_json(r.host) << ",\n     \"display\": ";
    if (r.display_measured) {
      f << "{\"feed\": " << quote(r.display_feed) << ", \"feed_ms\": " << summary_json(r.feed) << ", \"blit_ms\": "
        << summary_json(r.blit) << ", \"display_ms\": " << summary_json(r.display) << "}";
    } else {
      f << "null, \"display_absent\": " << quote(r.display_feed);
    }
    f << ",\n     \"references\": " << number(r.references) << ", \"ray_triangle_tests\": "
      << number(r.ray_triangle_tests) << ", \"triangles_binned\": " << number(r.triangles_binned)
      << ", \"pixels_hit\": " << number(r.pixels_hit) << ", \"frames_redone\": " << r.frames_redone
      << ", \"renderer_peak_bytes\": " << r.renderer_peak_bytes << ", \"device_delta_bytes\": "
      << (r.device_delta_bytes >= 0 ? std::to_string(r.device_delta_bytes) : std::string("null"))
      << ",\n     \"reference\": ";
    if (r.reference_measured) {
      f << "{\"backend\": \"gl-raster\", \"ms\": " << summary_json(r.reference_ms) << ", \"speedup\": "
        << number(r.speedup) << ", \"ids\": ";
      if (r.ids.measured) {
        f << "{\"pixels\": " << r.ids.pixels << ", \"equal\": " << r.ids.equal << ", \"differing\": "
          << r.ids.differing << ", \"differing_off_edges\": " << r.ids.differing_off_edges
          << ", \"agreement\": " << number(r.ids.fraction()) << "}";
      } else {
        f << "null";
      }
      f << "}";
    } else {
      f << "null";
    }
    f << "}" << (i + 1 < rows.size() ? "," : "") << "\n";
  }
  f << "  ]\n}\n";
  file.commit();
}

void write_bench_csv(const std::string& path, const std::vector<BenchRow>& rows) {
  OutputFile file(path);
  std::ofstream& f = file.stream;
  const std::vector<CsvColumn>& columns = csv_columns();
  for (size_t c = 0; c < columns.size(); ++c) f << (c ? "," : "") << columns[c].name;
  f << "\n";
  for (const BenchRow& r : rows) {
    for (size_t c = 0; c < columns.size(); ++c) f << (c ? "," : "") << columns[c].value(r);
    f << "\n";
  }
  file.commit();
}

namespace {

// A table with right-aligned columns (the first left-aligned), each as wide as its widest cell.
void print_table(std::ostream& out, const std::vector<std::vector<std::string>>& cells) {
  std::vector<size_t> width;
  for (const auto& row : cells) {
    width.resize(std::max(width.size(), row.size()));
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  for (const auto& row : cells) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      const std::string pad(width[c] - row[c].size(), ' ');
      line += c == 0 ? row[c] + pad : "  " + pad + row[c];
    }
    out << line << "\n";
  }
}

std::string millions(double v) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(v >= 1e7 ? 1 : 2) << v / 1e6 << "M";
  return s.str();
}

std::string mib(uint64_t bytes) { return std::to_string((bytes + (1u << 19)) >> 20); }

std::string fixed(double v, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

}  // namespace

void print_bench_tables(std::ostream& out, const std::vector<BenchRow>& rows) {
  if (rows.empty()) return;
  std::vector<std::vector<std::string>> cells = {
      {"scene", "tris", "size", "slabs", "deform", "bin", "build", "cast", "shade", "total", "p99", "host", "display",
       "refs", "tests", "peak MiB", "raster", "speedup", "IDs equal"}};
  for (const BenchRow& r : rows) {
    cells.push_back({r.scene, millions(double(r.triangles)), size_text(r.width, r.height), std::to_string(r.slabs),
                     short_ms(r.deform.median), short_ms(r.bin.median), short_ms(r.build.median),
                     short_ms(r.cast.median), short_ms(r.shade.median), short_ms(r.total.median),
                     short_ms(r.total.p99), short_ms(r.host.median),
                     r.display_measured ? short_ms(r.display.median) : "-",
                     millions(r.references), millions(r.ray_triangle_tests), mib(r.renderer_peak_bytes),
                     r.reference_measured ? short_ms(r.reference_ms.median) : "-",
                     r.reference_measured ? fixed(r.speedup, 2) + "x" : "-",
                     r.ids.measured ? fixed(100.0 * r.ids.fraction(), 2) + "%" : "-"});
  }
  out << "per row: medians over the timed frames, ms (p99 of the total); host = the host's wall time of one render() "
         "call; refs and tests per frame; peak = the renderer's device memory; raster = the gl-raster reference; "
         "speedup = raster / total\n";
  print_table(out, cells);

  // The thesis's tables for the first scene, at its first size: Table 7.2 (build, cast, total vs slabs) and
  // Table 7.1 (ray-triangle tests per frame with 16 slabs vs 1).
  const BenchRow& first = rows.front();
  std::vector<const BenchRow*> sweep;
  for (const BenchRow& r : rows) {
    if (r.scene == first.scene && r.width == first.width && r.height == first.height) sweep.push_back(&r);
  }
  std::sort(sweep.begin(), sweep.end(), [](const BenchRow* a, const BenchRow* b) { return a->slabs < b->slabs; });
  out << "\nbuild, cast and total vs slab count (thesis Table 7.2): " << first.scene << ", "
      << size_text(first.width, first.height) << ", ms\n";
  std::vector<std::vector<std::string>> t72 = {{"slabs", "build (L1+L2+L3)", "cast", "total"}};
  for (const BenchRow* r : sweep) {
    t72.push_back({std::to_string(r->slabs), short_ms(r->build.median), short_ms(r->cast.median), short_ms(r->total.median)});
  }
  print_table(out, t72);
  const BenchRow* one = nullptr;
  const BenchRow* sixteen = nullptr;
  for (const BenchRow* r : sweep) {
    if (r->slabs == 1) one = r;
    if (r->slabs == 16) sixteen = r;
  }
  out << "\nray-triangle tests per frame, 16 slabs vs 1 (thesis Table 7.1): " << first.scene << ", "
      << size_text(first.width, first.height) << "\n";
  if (one != nullptr && sixteen != nullptr) {
    print_table(out, {{"slabs", "tests per frame", "per pixel"},
                      {"1", fixed(one->ray_triangle_tests, 0),
                       fixed(one->ray_triangle_tests / (double(one->width) * one->height), 1)},
                      {"16", fixed(sixteen->ray_triangle_tests, 0),
                       fixed(sixteen->ray_triangle_tests / (double(sixteen->width) * sixteen->height), 1)}});
    if (sixteen->ray_triangle_tests > 0) {
      out << "  16 slabs test " << fixed(one->ray_triangle_tests / sixteen->ray_triangle_tests, 2)
          << "x fewer ray-triangle pairs than 1 slab\n";
    }
  } else {
    out << "  (needs rows with 1 and 16 slabs: --slabs 1,16)\n";
  }

  // The issue's targets (for an H100), where this run has the scene and size: the fastest slab count of each.
  struct Target {
    const char* scene;
    ImageSize size;
    double max_ms, min_speedup;
    uint64_t max_peak_bytes;  // 0: no memory target
  };
  const Target targets[] = {{kDragonLabel, {1024, 1024}, 0.35, 3.0, 0},
                            {kDragonLabel, {3840, 2160}, 0.60, 4.0, 0},
                            {"sphere:4000000", {1024, 1024}, 1.0, 2.5, 0},
                            {"sphere:16000000", {3840, 2160}, 4.0, 1.0, 4000000000ull}};
  std::vector<std::vector<std::string>> t = {
      {"target (issue 5, H100)", "slabs", "total", "limit", "speedup", "limit", "peak MiB", "limit", "verdict"}};
  for (const Target& target : targets) {
    const BenchRow* best = nullptr;
    for (const BenchRow& r : rows) {
      if (r.scene == target.scene && r.width == target.size.width && r.height == target.size.height &&
          (best == nullptr || r.total.median < best->total.median)) {
        best = &r;
      }
    }
    if (best == nullptr) continue;
    const bool time_ok = best->total.median <= target.max_ms;
    // "faster" (min_speedup 1) means strictly faster; the others are "at least N times".
    const bool speed_ok = best->reference_measured && (target.min_speedup > 1.0 ? best->speedup >= target.min_speedup
                                                                                 : best->speedup > 1.0);
    // Peak memory: the renderer's own count, or the device's "used" delta where that is larger (allocator rounding).
    const uint64_t peak = std::max<uint64_t>(best->renderer_peak_bytes,
                                             best->device_delta_bytes > 0 ? uint64_t(best->device_delta_bytes) : 0);
    const bool memory_ok = target.max_peak_bytes == 0 || peak <= target.max_peak_bytes;
    t.push_back({std::string(target.scene) + " " + size_text(target.size.width, target.size.height),
                 std::to_string(best->slabs), short_ms(best->total.median), "<= " + short_ms(target.max_ms),
                 best->reference_measured ? fixed(best->speedup, 2) + "x" : "-",
                 (target.min_speedup > 1.0 ? ">= " + fixed(target.min_speedup, 1) : std::string("> 1")) + "x",
                 mib(peak), target.max_peak_bytes ? "<= 3815 (4 GB)" : "-",
                 !best->reference_measured ? std::string(time_ok && memory_ok ? "time met, speedup not measured"
                                                                              : "missed (speedup not measured)")
                                           : (time_ok && speed_ok && memory_ok ? "met" : "missed")});
  }
  if (t.size() > 1) {
    out << "\nissue 5 targets (set for an H100; the fastest slab count of each scene and size)\n";
    print_table(out, t);
  }
}

// ---------------------------------------------------------------------------------------------- run

int run_bench(const BenchOptions& options, std::ostream& out, std::ostream& log) {
  const BenchPlan plan = plan_bench(options);
  for (const std::string& note : plan.notes) log << "[bench] note: " << note << "\n";
  const Backend backend = choose_backend(options.backend, log);
  BenchEnvironment env = gather_environment(backend);
  if (backend == Backend::cpu && options.suite != BenchSuite::quick && options.scenes.empty()) {
    log << "[bench] note: the cpu backend is the reference implementation, not a fast one: the " << to_string(options.suite)
        << " suite's meshes of millions of triangles take a long time on it (--suite quick runs in seconds)\n";
  }

  GlSide gl = open_gl(options, backend);
  env.gl = gl.description;
  if (!gl.display_absent.empty() && options.display) log << "[bench] note: display cost not measured: " << gl.display_absent << "\n";
  if (!gl.reference_absent.empty() && options.reference != BenchReference::none) {
    log << "[bench] note: reference not run: " << gl.reference_absent << "\n";
  }
  BenchPlan recorded = plan;
  if (!gl.display_absent.empty()) recorded.notes.push_back("display cost not measured: " + gl.display_absent);
  if (!gl.reference_absent.empty()) recorded.notes.push_back("reference not run: " + gl.reference_absent);

  const bool with_reference = gl.reference_absent.empty();
  const uint64_t frames_per_row = uint64_t(plan.warmup) + uint64_t(plan.frames);
  const uint64_t per_size = plan.slabs.size() * frames_per_row + (with_reference ? frames_per_row : 0);
  const int row_count = int(plan.scenes.size() * plan.sizes.size() * plan.slabs.size());
  Progress progress(log, per_size * plan.sizes.size() * plan.scenes.size(), row_count);
  RowContext ctx{backend, plan, options, gl, progress, recorded.notes};

  log << "[bench] " << plan.scenes.size() << " scene(s) x " << plan.sizes.size() << " size(s) x " << plan.slabs.size()
      << " slab count(s), " << plan.warmup << " warm-up + " << plan.frames << " timed frames each, " << to_string(backend)
      << " backend" << (backend == Backend::cuda ? " on " + env.gpu : std::string()) << "\n";

  std::vector<BenchRow> rows;
  for (const SceneSpec& spec : plan.scenes) {
    progress.note("loading " + spec.label());
    const Mesh mesh = load_scene(spec, log);
    const std::string label = spec.label();
    const Camera camera = frame_mesh(mesh, options.fovy_degrees);
    // A reference that fails (e.g. GL out of memory for a huge mesh) costs its columns, not the run.
    std::unique_ptr<Reference> reference;
    if (with_reference) {
      try {
        reference = make_reference(gl, mesh);
      } catch (const std::exception& e) {
        ctx.note("gl-raster reference not run for " + label + ": " + e.what());
      }
    }
    for (const ImageSize size : plan.sizes) {
      ReferenceResult ref;
      if (reference) {
        progress.begin(label + " " + size_text(size.width, size.height) + " gl-raster");
        try {
          ref = run_reference(ctx, *reference, camera, size);
        } catch (const std::exception& e) {
          ctx.note("gl-raster reference failed for " + label + " at " + size_text(size.width, size.height) + ": " +
                   e.what());
          ref = ReferenceResult{};
        }
      }
      for (const int slabs : plan.slabs) {
        progress.begin(label + " " + size_text(size.width, size.height) + " " + std::to_string(slabs) + " slabs");
        std::vector<uint32_t> ids;
        BenchRow row = run_row(ctx, mesh, label, camera, size, slabs, ref.measured ? &ids : nullptr);
        if (ref.measured) {
          row.reference_measured = true;
          row.reference_ms = ref.ms;
          row.speedup = row.total.median > 0 ? ref.ms.median / row.total.median : 0.0;
          row.ids = reference->compare(ids, ref.ids, size.width, size.height);
        }
        std::string result = "total " + short_ms(row.total.median) + " ms (p99 " + short_ms(row.total.p99) + ")";
        if (row.reference_measured) result += ", raster " + short_ms(row.reference_ms.median) + " ms, " +
                                              fixed(row.speedup, 2) + "x, IDs " + fixed(100 * row.ids.fraction(), 2) + "% equal";
        progress.row_done(result);
        rows.push_back(std::move(row));
        // Every row so far on disk: a run cut short by a time limit keeps what it measured.
        if (!options.json_path.empty()) write_bench_json(options.json_path, env, options, recorded, rows, false);
        if (!options.csv_path.empty()) write_bench_csv(options.csv_path, rows);
      }
    }
  }
  progress.finish();

  out << "slabcast bench: " << to_string(backend) << " backend, " << env.gpu << "; " << plan.warmup << " warm-up + "
      << plan.frames << " timed frames per row; deformation " << to_string(options.deform.kind) << " "
      << options.deform.amount << ", animated at 1/60 s per frame\n";
  print_bench_tables(out, rows);
  if (!options.json_path.empty()) {
    write_bench_json(options.json_path, env, options, recorded, rows);
    out << "wrote " << options.json_path << "\n";
  }
  if (!options.csv_path.empty()) {
    write_bench_csv(options.csv_path, rows);
    out << "wrote " << options.csv_path << "\n";
  }
  return kExitOk;
}

}  // namespace slabcast
