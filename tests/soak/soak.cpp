// slabcast_soak: many frames in one process, watching host and device memory, and determinism across processes.
//
//   slabcast_soak [--backend cpu|cuda] [--frames N] [--size WxH] [--resize WxH] [--mesh NAME:TRIANGLES]
//                 [--warmup K] [--viewer] [--hash-at k1,k2,...] [--host-growth-mib M] [--device-growth-mib M]
//   slabcast_soak --determinism [same options]   runs the soak twice in separate processes and compares hashes
//   slabcast_soak --cold K [same options]        renders only frame K, in a fresh renderer, and prints its hash
//
// The frame schedule is a pure function of the frame number k and N (so any frame can be rendered on its own):
// the camera orbits the model (one turn per 600 frames, rising and sinking slowly), the deformer changes every
// 250 frames (none, twist, bend, wave, pulse), time is k/60 s, and the frame size is the --size for the first
// third of the frames, the --resize size for the second third and the --size again for the last (two resizes).
//
// Memory: host RSS (/proc/self/status VmRSS), device memory in use (cudaMemGetInfo: total - free, the whole
// device) and Renderer::device_bytes_in_use(), sampled K frames after each size change (warm-up) and at the end
// of that size's stretch. A stretch whose memory grew by more than the bounds fails the run (exit 1), unless the
// renderer grew its reference buffers in it (frames redone: a scene that needs more references, said in the
// report); so does a last stretch (back at the first size) that ends above the largest end of the stretches
// before it (buffers sized for the largest frame are kept on purpose, so it need not fall back to the first's).
//
// --viewer drives the viewer's headless display path instead of the bare renderer (Session: renderer -> pixel
// buffer -> texture -> full-screen pass into an offscreen framebuffer, in an OpenGL context from EGL's device
// platform); the hash is then of the displayed image. Exit codes: 0 pass, 1 failure, 2 usage, 77 the requested
// backend or the EGL context is not available here (SKIPPED under ctest).
#include <cuda_runtime.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "prim/device_buffer.h"
#include "render/cuda_check.h"
#include "render/renderer.h"

#ifdef SLABCAST_SOAK_VIEWER
#include "app/gl/egl_context.h"
#include "app/gl/gl_util.h"
#include "app/viewer/session.h"
#endif

namespace slabcast::soak {
namespace {

constexpr int kExitPass = 0, kExitFail = 1, kExitUsage = 2, kExitSkip = 77;
constexpr int kFramesPerOrbit = 600;
constexpr int kFramesPerDeformer = 250;
constexpr double kSecondsPerFrame = 1.0 / 60.0;
constexpr Deformer kDeformers[] = {Deformer::none, Deformer::twist, Deformer::bend, Deformer::wave, Deformer::pulse};

struct Options {
  Backend backend = Backend::cpu;
  int frames = 20000;
  int width = 160, height = 120;
  int resize_width = 224, resize_height = 168;
  std::string mesh_name = "torus_knot";
  uint64_t mesh_triangles = 20000;
  int warmup = 200;
  bool viewer = false;
  std::vector<int> hash_at;
  double host_growth_mib = 4.0;
  // The whole device (cudaMemGetInfo): the driver and, in --viewer mode, the GL driver allocate in pools of a few
  // MiB (seen on the H100: +2 MiB bare, +10 MiB through the viewer in one 300-frame stretch). A per-frame leak
  // exceeds this within a stretch; the renderer's own bytes are held to 0.
  double device_growth_mib = 16.0;
  bool determinism = false;
  int cold_frame = -1;
  std::vector<std::string> passthrough;  // the options as given, for the child processes of --determinism
  std::string self;                      // argv[0]
};

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

void parse_size(const std::string& flag, const std::string& text, int* w, int* h) {
  char x = 0;
  std::istringstream in(text);
  if (!(in >> *w >> x >> *h) || x != 'x' || *w < 1 || *h < 1 || !in.eof()) {
    throw UsageError(flag + ": expected WxH, got '" + text + "'");
  }
}

Options parse(int argc, char** argv) {
  Options o;
  o.self = argv[0];
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw UsageError(flag + " needs a value");
      return argv[++i];
    };
    auto integer = [&](int lo) {
      const std::string v = value();
      char* end = nullptr;
      const long n = std::strtol(v.c_str(), &end, 10);
      if (*end != '\0' || n < lo || n > 100000000) throw UsageError(flag + ": bad number '" + v + "'");
      return static_cast<int>(n);
    };
    const size_t before = static_cast<size_t>(i);
    if (flag == "--backend") {
      const std::string v = value();
      if (v == "cpu") o.backend = Backend::cpu;
      else if (v == "cuda") o.backend = Backend::cuda;
      else throw UsageError("--backend: cpu or cuda, not '" + v + "'");
    } else if (flag == "--frames") {
      o.frames = integer(3);
    } else if (flag == "--size") {
      parse_size(flag, value(), &o.width, &o.height);
    } else if (flag == "--resize") {
      parse_size(flag, value(), &o.resize_width, &o.resize_height);
    } else if (flag == "--mesh") {
      const std::string v = value();
      const size_t colon = v.find(':');
      if (colon == std::string::npos) throw UsageError("--mesh: expected NAME:TRIANGLES, got '" + v + "'");
      o.mesh_name = v.substr(0, colon);
      o.mesh_triangles = std::strtoull(v.c_str() + colon + 1, nullptr, 10);
    } else if (flag == "--warmup") {
      o.warmup = integer(0);
    } else if (flag == "--viewer") {
      o.viewer = true;
    } else if (flag == "--hash-at") {
      std::istringstream list(value());
      std::string item;
      while (std::getline(list, item, ',')) o.hash_at.push_back(std::atoi(item.c_str()));
    } else if (flag == "--host-growth-mib") {
      o.host_growth_mib = std::atof(value().c_str());
    } else if (flag == "--device-growth-mib") {
      o.device_growth_mib = std::atof(value().c_str());
    } else if (flag == "--determinism") {
      o.determinism = true;
      continue;  // not passed on to the children
    } else if (flag == "--cold") {
      o.cold_frame = integer(0);
      continue;
    } else {
      throw UsageError("unknown option '" + flag + "'");
    }
    for (size_t k = before; k <= static_cast<size_t>(i); ++k) o.passthrough.push_back(argv[k]);
  }
  for (int k : o.hash_at) {
    if (k < 0 || k >= o.frames) throw UsageError("--hash-at: frame " + std::to_string(k) + " is not in 0.." +
                                                 std::to_string(o.frames - 1));
  }
  if (o.cold_frame >= o.frames) throw UsageError("--cold: frame past --frames");
  if (3 * o.warmup >= o.frames) throw UsageError("--warmup must be under a third of --frames");
  return o;
}

// ------------------------------------------------------------------------------------------ the schedule

struct Stretch {
  int begin, end;  // frames [begin, end)
  int width, height;
};

std::array<Stretch, 3> stretches(const Options& o) {
  const int a = o.frames / 3, b = 2 * o.frames / 3;
  return {Stretch{0, a, o.width, o.height}, Stretch{a, b, o.resize_width, o.resize_height},
          Stretch{b, o.frames, o.width, o.height}};
}

FrameSettings frame_settings(const Options& o, const Camera& framed, int k) {
  FrameSettings s;
  for (const Stretch& st : stretches(o)) {
    if (k >= st.begin && k < st.end) {
      s.width = st.width;
      s.height = st.height;
    }
  }
  const glm::vec3 offset = framed.eye - framed.target;
  const float distance = glm::length(offset);
  const double yaw = 2.0 * 3.14159265358979 * k / kFramesPerOrbit;
  const double pitch = 0.5 * std::sin(2.0 * 3.14159265358979 * k / (3.3 * kFramesPerOrbit));
  s.camera = framed;
  s.camera.eye = framed.target + distance * glm::vec3(static_cast<float>(std::cos(pitch) * std::sin(yaw)),
                                                      static_cast<float>(std::sin(pitch)),
                                                      static_cast<float>(std::cos(pitch) * std::cos(yaw)));
  s.camera.up = {0.0f, 1.0f, 0.0f};
  s.deform.kind = kDeformers[(k / kFramesPerDeformer) % 5];
  s.deform.amount = 1.0f;
  s.deform.time = static_cast<float>(k * kSecondsPerFrame);
  return s;
}

// ------------------------------------------------------------------------------------------ hashing, memory

// FNV-1a over 64-bit words (bytes for the tail): every frame's colour, IDs and depth go through it, and the
// byte-wise form cost 10 ms per 1024x768 frame, most of a cuda soak's time.
struct Fnv1a {
  uint64_t h = 1469598103934665603ull;
  void add(const void* data, size_t bytes) {
    const auto* p = static_cast<const uint8_t*>(data);
    size_t i = 0;
    for (; i + 8 <= bytes; i += 8) {
      uint64_t word;
      std::memcpy(&word, p + i, 8);
      h = (h ^ word) * 1099511628211ull;
    }
    for (; i < bytes; ++i) h = (h ^ p[i]) * 1099511628211ull;
  }
};

uint64_t host_rss_bytes() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::strtoull(line.c_str() + 6, nullptr, 10) * 1024;
  }
  return 0;
}

struct MemorySample {
  int frame = -1;
  uint64_t host_rss = 0, device_used = 0, renderer_bytes = 0;
  int64_t frames_redone = 0;  // so far in the run: reference buffers grew (legitimate growth, bounded)
};

MemorySample sample(int frame, const Renderer* renderer, bool cuda, int64_t frames_redone) {
  MemorySample m;
  m.frame = frame;
  m.frames_redone = frames_redone;
  m.host_rss = host_rss_bytes();
  if (cuda) {
    size_t free_bytes = 0, total = 0;
    if (cudaMemGetInfo(&free_bytes, &total) == cudaSuccess) m.device_used = total - free_bytes;
  }
  m.renderer_bytes = renderer ? renderer->device_bytes_in_use() : 0;
  return m;
}

double mib(double bytes) { return bytes / (1024.0 * 1024.0); }

// ------------------------------------------------------------------------------------------ frame sources

// Renders frame k and returns the hash of what it produced: colour, IDs and depth (bare renderer), or the
// displayed image (viewer).
class FrameSource {
 public:
  virtual ~FrameSource() = default;
  virtual uint64_t render(const FrameSettings& s) = 0;
  virtual const Renderer* renderer() const = 0;
  int64_t frames_redone = 0;  // FrameStats::frame_redone summed over the run
};

class RendererSource final : public FrameSource {
 public:
  RendererSource(const Options& o, const Mesh& mesh) : backend_(o.backend), renderer_(make_renderer(o.backend)) {
    renderer_->set_mesh(mesh);
    // Both sizes' targets exist from the start, so the soak's own allocations do not show as growth.
    for (const Stretch& st : stretches(o)) target(st.width, st.height);
  }
  uint64_t render(const FrameSettings& s) override {
    const Surface surface = target(s.width, s.height);
    frames_redone += renderer_->render(s, surface, &extras_).frame_redone;
    const size_t bytes = 4 * static_cast<size_t>(s.width) * s.height;
    colour_.resize(bytes);
    if (backend_ == Backend::cuda) {
      SLABCAST_CUDA_CHECK(cudaMemcpy(colour_.data(), surface.pixels, bytes, cudaMemcpyDeviceToHost));
    } else {
      std::memcpy(colour_.data(), surface.pixels, bytes);
    }
    Fnv1a h;
    h.add(colour_.data(), bytes);
    h.add(extras_.triangle_id.data(), extras_.triangle_id.size() * sizeof(uint32_t));
    h.add(extras_.depth.data(), extras_.depth.size() * sizeof(float));
    return h.h;
  }
  const Renderer* renderer() const override { return renderer_.get(); }

 private:
  Surface target(int w, int h) {
    const uint64_t key = (static_cast<uint64_t>(w) << 32) | static_cast<uint32_t>(h);
    const size_t pitch = 4 * static_cast<size_t>(w);
    if (backend_ == Backend::cuda) {
      prim::DeviceBuffer<uint8_t>& device = device_targets_[key];
      if (device.empty()) SLABCAST_CUDA_CHECK(device.allocate(pitch * h));
      return Surface{device.data(), w, h, pitch};
    }
    std::vector<uint8_t>& host = host_targets_[key];
    host.resize(pitch * h);
    return Surface{host.data(), w, h, pitch};
  }

  Backend backend_;
  std::unique_ptr<Renderer> renderer_;
  std::map<uint64_t, std::vector<uint8_t>> host_targets_;
  std::map<uint64_t, prim::DeviceBuffer<uint8_t>> device_targets_;
  FrameExtras extras_;
  std::vector<uint8_t> colour_;
};

#ifdef SLABCAST_SOAK_VIEWER
// The viewer's headless display path: the Session that the window and `view --headless` use, its renderer and
// pixel buffer, into offscreen framebuffers (one per size, made up front); no overlay, so the hash is the 3D image.
class ViewerSource final : public FrameSource {
 public:
  ViewerSource(const Options& o, gl::EglContext& egl) {
    ViewOptions vo;
    vo.scene.procedural_name = o.mesh_name;
    vo.scene.procedural_triangles = o.mesh_triangles;
    vo.backend = o.backend;
    vo.animate = false;
    vo.show_overlay = false;
    vo.headless = true;
    vo.frame.width = o.width;
    vo.frame.height = o.height;
    session_ = std::make_unique<viewer::Session>(vo, egl.on_cuda_device(), egl.description(), /*windowed=*/false);
    for (const Stretch& st : stretches(o)) target(st.width, st.height);
  }
  uint64_t render(const FrameSettings& s) override {
    session_->settings.deform = s.deform;
    session_->camera.set_home(s.camera);
    target(s.width, s.height).bind();
    session_->render_and_present(s.width, s.height);
    frames_redone += session_->stats.frame_redone;
    const std::vector<uint8_t> pixels = gl::read_pixels_top_down(s.width, s.height);
    Fnv1a h;
    h.add(pixels.data(), pixels.size());
    return h.h;
  }
  const Renderer* renderer() const override { return nullptr; }  // the Session owns it; its bytes: device_used

 private:
  gl::OffscreenTarget& target(int w, int h) {
    const uint64_t key = (static_cast<uint64_t>(w) << 32) | static_cast<uint32_t>(h);
    auto it = targets_.find(key);
    if (it == targets_.end()) it = targets_.emplace(key, std::make_unique<gl::OffscreenTarget>(w, h)).first;
    return *it->second;
  }
  std::unique_ptr<viewer::Session> session_;
  std::map<uint64_t, std::unique_ptr<gl::OffscreenTarget>> targets_;
};
#endif

bool cuda_usable(std::string* why) {
  int devices = 0;
  const cudaError_t status = cudaGetDeviceCount(&devices);
  if (status != cudaSuccess || devices == 0) {
    *why = status != cudaSuccess ? cudaGetErrorString(status) : "no CUDA device";
    (void)cudaGetLastError();
    return false;
  }
  return true;
}

// ------------------------------------------------------------------------------------------ the runs

int run_soak(const Options& o) {
  const bool cuda = o.backend == Backend::cuda;
  const Mesh mesh = make_procedural_mesh(o.mesh_name, o.mesh_triangles);
  const Camera framed = frame_mesh(mesh);
#ifdef SLABCAST_SOAK_VIEWER
  std::unique_ptr<gl::EglContext> egl;
#endif
  std::unique_ptr<FrameSource> source;
  if (o.viewer) {
#ifdef SLABCAST_SOAK_VIEWER
    try {
      egl = std::make_unique<gl::EglContext>(cuda ? 0 : -1);
    } catch (const std::exception& e) {
      std::printf("SKIPPED: no EGL context for the viewer's display path (%s)\n", e.what());
      return kExitSkip;
    }
    source = std::make_unique<ViewerSource>(o, *egl);
#else
    std::printf("SKIPPED: built without the viewer (SLABCAST_WITH_APP=OFF)\n");
    return kExitSkip;
#endif
  } else {
    source = std::make_unique<RendererSource>(o, mesh);
  }

  if (o.cold_frame >= 0) {
    const uint64_t h = source->render(frame_settings(o, framed, o.cold_frame));
    std::printf("hash frame %d: %016" PRIx64 "\n", o.cold_frame, h);
    return kExitPass;
  }

  const std::array<Stretch, 3> plan = stretches(o);
  std::vector<std::pair<MemorySample, MemorySample>> per_stretch;  // (after warm-up, at the end)
  MemorySample warm;
  Fnv1a run_hash;
  size_t next_hash = 0;
  std::vector<int> hash_at = o.hash_at;
  std::sort(hash_at.begin(), hash_at.end());
  const auto start = std::chrono::steady_clock::now();
  for (int k = 0; k < o.frames; ++k) {
    const uint64_t h = source->render(frame_settings(o, framed, k));
    run_hash.add(&h, sizeof(h));
    while (next_hash < hash_at.size() && hash_at[next_hash] == k) {
      std::printf("hash frame %d: %016" PRIx64 "\n", k, h);
      ++next_hash;
    }
    for (const Stretch& st : plan) {
      if (k == st.begin + o.warmup) warm = sample(k, source->renderer(), cuda, source->frames_redone);
      if (k == st.end - 1) per_stretch.emplace_back(warm, sample(k, source->renderer(), cuda, source->frames_redone));
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("run hash: %016" PRIx64 "\n", run_hash.h);
  std::printf("%d frames (%s backend%s, %s) in %.1f s, %.2f ms/frame\n", o.frames, cuda ? "cuda" : "cpu",
              o.viewer ? ", viewer display path" : "", mesh.name.c_str(), seconds, 1000.0 * seconds / o.frames);

  // ---- memory: flat within each stretch after its warm-up; back at the first size, no higher than before ----
  bool ok = true;
  const double host_bound = o.host_growth_mib * 1024 * 1024, device_bound = o.device_growth_mib * 1024 * 1024;
  std::printf("%-9s %-9s %-13s %-30s %-23s %-23s\n", "stretch", "size", "frames", "host RSS MiB (warm->end)",
              "device used MiB", "renderer bytes");
  for (size_t i = 0; i < per_stretch.size(); ++i) {
    const MemorySample &a = per_stretch[i].first, &b = per_stretch[i].second;
    const double host_growth = static_cast<double>(b.host_rss) - static_cast<double>(a.host_rss);
    const double device_growth = static_cast<double>(b.device_used) - static_cast<double>(a.device_used);
    const double renderer_growth = static_cast<double>(b.renderer_bytes) - static_cast<double>(a.renderer_bytes);
    char size[32], frames[32], host[48], device[48], renderer[48];
    std::snprintf(size, sizeof size, "%dx%d", plan[i].width, plan[i].height);
    std::snprintf(frames, sizeof frames, "%d..%d", a.frame, b.frame);
    std::snprintf(host, sizeof host, "%.1f -> %.1f (%+.0f KiB)", mib(a.host_rss), mib(b.host_rss), host_growth / 1024);
    std::snprintf(device, sizeof device, "%.1f -> %.1f", mib(a.device_used), mib(b.device_used));
    if (source->renderer() != nullptr) {
      std::snprintf(renderer, sizeof renderer, "%" PRIu64 " -> %" PRIu64, a.renderer_bytes, b.renderer_bytes);
    } else {  // the viewer's Session owns its renderer: its bytes are inside "device used"
      std::snprintf(renderer, sizeof renderer, "(in device used)");
    }
    std::printf("%-9zu %-9s %-13s %-30s %-23s %-23s\n", i + 1, size, frames, host, device, renderer);
    const int64_t redone = b.frames_redone - a.frames_redone;
    if (redone > 0) {  // the reference buffers grew for a scene that needed more: allowed, and said
      std::printf("note: stretch %zu redid %" PRId64 " frames after growing the reference buffers; growth allowed\n",
                  i + 1, redone);
      continue;
    }
    if (host_growth > host_bound) {
      std::printf("FAIL: host RSS grew %.2f MiB in stretch %zu (bound %.2f MiB)\n", mib(host_growth), i + 1,
                  o.host_growth_mib);
      ok = false;
    }
    if (cuda && (device_growth > device_bound || renderer_growth > 0)) {
      std::printf("FAIL: device memory grew in stretch %zu: %.2f MiB on the device (bound %.2f), %.0f bytes in the "
                  "renderer (bound 0)\n", i + 1, mib(device_growth), o.device_growth_mib, renderer_growth);
      ok = false;
    }
  }
  if (per_stretch.size() == 3) {
    // Back at the first size: no higher than the highest the earlier stretches ended at (the buffers sized for
    // the larger frame are kept, by design: no reallocation when the size goes back and forth).
    const MemorySample& last = per_stretch[2].second;
    const double before = static_cast<double>(std::max(per_stretch[0].second.host_rss, per_stretch[1].second.host_rss));
    if (static_cast<double>(last.host_rss) > before + host_bound) {
      std::printf("FAIL: back at %dx%d the host RSS is %.1f MiB, above the %.1f MiB the earlier stretches ended at\n",
                  o.width, o.height, mib(last.host_rss), mib(before));
      ok = false;
    }
  }
  std::printf("%s\n", ok ? "PASS: memory flat after warm-up" : "FAIL");
  return ok ? kExitPass : kExitFail;
}

// Runs this program with `args`, returns its output and exit code.
int run_child(const std::string& self, const std::vector<std::string>& args, std::string* output) {
  std::string command = "'" + self + "'";
  for (const std::string& a : args) command += " '" + a + "'";
  command += " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) throw std::runtime_error("cannot start " + command);
  char buffer[4096];
  size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) output->append(buffer, n);
  const int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

std::map<std::string, std::string> hashes_of(const std::string& output) {
  std::map<std::string, std::string> hashes;
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    const size_t colon = line.find(": ");
    if (line.rfind("hash frame ", 0) == 0 || line.rfind("run hash", 0) == 0) {
      hashes[line.substr(0, colon)] = line.substr(colon + 2);
    }
  }
  return hashes;
}

// Determinism across processes: the same run twice gives the same hashes (every frame folded into the run hash,
// and the --hash-at frames printed); each --hash-at frame rendered alone in a fresh process (cold: no buffers
// grown by earlier frames, no history) gives the hash it had inside the long run.
int run_determinism(const Options& o) {
  if (o.hash_at.empty()) throw UsageError("--determinism needs --hash-at");
  std::string first, second;
  const int rc1 = run_child(o.self, o.passthrough, &first);
  if (rc1 == kExitSkip) {
    std::printf("%s", first.c_str());
    return kExitSkip;
  }
  const int rc2 = run_child(o.self, o.passthrough, &second);
  const std::map<std::string, std::string> a = hashes_of(first), b = hashes_of(second);
  bool ok = rc1 == kExitPass && rc2 == kExitPass && a.size() == o.hash_at.size() + 1 && a == b;
  std::printf("run 1 (exit %d):\n%s\nrun 2 (exit %d):\n%s\n", rc1, first.c_str(), rc2, second.c_str());
  for (int k : o.hash_at) {
    std::vector<std::string> args = o.passthrough;
    args.push_back("--cold");
    args.push_back(std::to_string(k));
    std::string cold;
    const int rc = run_child(o.self, args, &cold);
    const std::string key = "hash frame " + std::to_string(k);
    const std::map<std::string, std::string> c = hashes_of(cold);
    const bool same = rc == kExitPass && c.count(key) && a.count(key) && c.at(key) == a.at(key);
    std::printf("frame %d alone in a fresh process: %s (%s)\n", k, c.count(key) ? c.at(key).c_str() : "none",
                same ? "same as in the long run" : "DIFFERENT from the long run");
    ok = ok && same;
  }
  std::printf("%s\n", ok ? "PASS: bit-identical across processes" : "FAIL: runs differ (see above)");
  return ok ? kExitPass : kExitFail;
}

int main_soak(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // lines appear as they are printed, also into a log file
  Options o;
  try {
    o = parse(argc, argv);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "slabcast_soak: error: %s\n", e.what());
    return kExitUsage;
  }
  std::string why;
  if (o.backend == Backend::cuda && !cuda_usable(&why)) {
    std::printf("SKIPPED: the cuda backend needs a CUDA device (%s)\n", why.c_str());
    return kExitSkip;
  }
  try {
    return o.determinism ? run_determinism(o) : run_soak(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "slabcast_soak: error: %s\n", e.what());
    return kExitFail;
  }
}

}  // namespace
}  // namespace slabcast::soak

int main(int argc, char** argv) { return slabcast::soak::main_soak(argc, argv); }
