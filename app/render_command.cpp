#include "app/render_command.h"

#include "app/image_io.h"
#include "app/mesh_io.h"
#include "app/output_file.h"
#include "prim/device_buffer.h"
#include "render/cuda_check.h"

#include <cuda_runtime.h>
#include <unistd.h>

#if SLABCAST_HAVE_GL
#include "app/gl/gl_raster.h"
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace slabcast {
namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// 1234567 -> "1,234,567"
std::string grouped(uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// "1 triangle", "1,234 triangles", "1 vertex", "3 vertices".
std::string counted(uint64_t n, const char* one, const char* many) { return grouped(n) + " " + (n == 1 ? one : many); }

// A heat view's colour scale in words: "colour scale: ray tests per pixel, log, blue = 0 ... red = 1,234".
std::string heat_legend(Shading shading, uint64_t heat_max) {
  const char* what = shading == Shading::ray_tests ? "ray tests per pixel" : "triangle references per tile";
  return std::string("colour scale: ") + what + ", log, blue = 0 ... red = " + grouped(heat_max);
}

// --legend: the colour scale as a bar across the image's bottom rows, position x / (width - 1) on the scale (left
// blue = 0, right red = FrameStats::heat_max), under a dark row that parts it from the image. The values are in the
// printed legend: a PNG has no room for text without a font.
void draw_legend_bar(std::vector<uint8_t>& rgba, int width, int height) {
  constexpr int kMinRows = 4, kMaxRows = 24, kImageRowsPerBarRow = 24;
  const int rows = std::min(height, std::clamp(height / kImageRowsPerBarRow, kMinRows, kMaxRows));
  for (int y = height - rows; y < height; ++y) {
    uint8_t* row = rgba.data() + size_t(y) * size_t(width) * 4;
    for (int x = 0; x < width; ++x) {
      const float position = width > 1 ? float(x) / float(width - 1) : 0.0f;
      const Color8 c = y == height - rows && rows > 1 ? Color8{0, 0, 0, 255} : heat_scale_color(position);
      row[4 * x] = c.r;
      row[4 * x + 1] = c.g;
      row[4 * x + 2] = c.b;
      row[4 * x + 3] = 255;
    }
  }
}

// With samples > 1 the counts are sums over the sample frames (renderer.h, FrameStats), so the ratios are per ray.
void print_stats(std::ostream& out, const FrameStats& s, const FrameSettings& f) {
  const uint64_t samples = uint64_t(f.samples);
  const uint64_t rays = uint64_t(f.width) * uint64_t(f.height) * samples;
  const char* const per_ray = samples > 1 ? " per ray" : " per pixel";
  const char* const of_rays = samples > 1 ? " % of the rays" : " % of the image";
  const auto row = [&](const char* name, uint64_t value, const std::string& note = {}) {
    out << "  " << std::left << std::setw(22) << name << std::right << std::setw(15) << grouped(value)
        << (note.empty() ? "" : "   " + note) << "\n";
  };
  const auto ratio = [](double a, double b, const char* unit) {
    std::ostringstream text;
    text << std::fixed << std::setprecision(2) << (b > 0 ? a / b : 0.0) << unit;
    return text.str();
  };
  out << "statistics";
  if (samples > 1) out << " (sums over the " << samples << " samples)";
  out << "\n";
  row("triangles in", s.triangles_in);
  if (s.hidden_duplicates > 0) {
    row("hidden duplicates", s.hidden_duplicates, "(same vertices as an earlier triangle: never drawn)");
  }
  row("triangles binned", s.triangles_binned, ratio(100.0 * double(s.triangles_binned), double(s.triangles_in * samples), " % of in"));
  row("references (L1)", s.references, ratio(double(s.references), double(s.triangles_binned), " per binned triangle"));
  row("non-empty cells", s.nonempty_cells);
  row("max refs per tile", s.max_refs_per_tile);
  if (s.depth_sorted_cells > 0) row("depth-sorted cells", s.depth_sorted_cells, "(deep stacks, ordered by depth)");
  row("ray-triangle tests", s.ray_triangle_tests, ratio(double(s.ray_triangle_tests), double(rays), per_ray));
  row("pixels hit", s.pixels_hit, ratio(100.0 * double(s.pixels_hit), double(rays), of_rays));
  if (frame_has_shadows(f)) {
    row("shadow samples", s.shadow_samples, ratio(100.0 * double(s.shadow_samples), double(rays), of_rays));
    row("light references", s.light_references, ratio(double(s.light_references), double(s.triangles_in * samples), " per triangle"));
    row("shadow pairs", s.shadow_tests, ratio(double(s.shadow_tests), double(s.shadow_samples), " per sample"));
  }
  if (s.frame_redone > 0) row("frame redone", uint64_t(s.frame_redone), "(buffers grew)");
  if (is_heat_view(f.shading)) out << heat_legend(f.shading, s.heat_max) << "\n";
  const StageTimes& t = s.ms;
  out << "stage times (ms)" << std::fixed << std::setprecision(3) << "\n"
      << "  deform " << t.deform << "  bin " << t.bin << "  L1 " << t.l1 << "  L2 " << t.l2 << "  L3 " << t.l3
      << "  cast " << t.cast;
  if (frame_has_shadows(f)) {
    out << "  shadow samples " << t.shadow_samples << "  shadow bin " << t.shadow_bin << "  shadow test "
        << t.shadow_test;
  }
  out << "  shade " << t.shade << "  total " << t.total << "\n";
  out << std::defaultfloat;
}

// Renames a run's outputs into place together (app/output_file.h) and names them.
void land(OutputBatch& outputs, const std::vector<std::string>& written, std::ostream& out) {
  const std::string failed = outputs.commit();
  if (!failed.empty()) throw std::runtime_error(failed + " (cannot rename into place)");
  for (const std::string& line : written) out << "wrote " << line << "\n";
}

// `render --backend gl-raster`: the same scene, camera and deformation drawn by the OpenGL hardware-raster reference
// in an EGL context (on the CUDA device's EGL device where there is one, else Mesa's software device).
int run_render_gl_raster(const RenderOptions& options, const Mesh& mesh, const FrameSettings& frame, double load_ms,
                         std::ostream& out) {
#if SLABCAST_HAVE_GL
  int cuda_device = -1;
  if (cudaGetDevice(&cuda_device) != cudaSuccess) cuda_device = -1;
  (void)cudaGetLastError();  // no device: GL on Mesa's software device
  const gl::GlRasterFrame f = gl::render_gl_raster_frame(mesh, frame, cuda_device, 0, options.shadow_map_size);
  const size_t pixels = size_t(frame.width) * size_t(frame.height);
  if (f.color.size() != pixels * 4) throw std::runtime_error("the gl-raster reference returned no colour image");
  out << std::setprecision(6) << "slabcast render: " << mesh.name << " (" << counted(mesh.triangle_count(), "triangle", "triangles")
      << "), " << frame.width << "x" << frame.height << ", gl-raster reference (" << f.gl_description
      << ")\n"
      << "  deform  " << to_string(frame.deform.kind) << " amount " << frame.deform.amount << " time "
      << frame.deform.time << "\n"
      << std::fixed << std::setprecision(1) << "  load " << load_ms << " ms; first frame ";
  if (std::isfinite(f.gpu_ms)) {
    out << std::setprecision(3) << f.gpu_ms << " ms (GPU, GL timer query)\n";
  } else {
    out << "not timed (this OpenGL's timer query is missing or gave an impossible value)\n";
  }
  out << std::defaultfloat;
  OutputBatch outputs;
  std::vector<std::string> written;
  write_png(options.out, f.color.data(), frame.width, frame.height, size_t(frame.width) * 4, &outputs);
  written.push_back(options.out + " (" + std::to_string(frame.width) + "x" + std::to_string(frame.height) + " RGBA8 PNG)");
  if (!options.ids_path.empty()) {
    if (f.triangle_ids.size() != pixels) throw std::runtime_error("the gl-raster reference returned no triangle-ID buffer");
    write_ids(options.ids_path, f.triangle_ids.data(), frame.width, frame.height, &outputs);
    written.push_back(options.ids_path + " (triangle IDs, uint32, miss = 0xFFFFFFFF)");
  }
  if (!options.shadow_mask_path.empty()) {
    if (f.shadow_mask.size() != pixels) throw std::runtime_error("the gl-raster reference returned no shadow mask");
    write_pgm(options.shadow_mask_path, f.shadow_mask.data(), frame.width, frame.height, &outputs);
    written.push_back(options.shadow_mask_path + " (the shadow map's mask, PGM: 0 in shadow, 255 lit, 128 no hit)");
  }
  land(outputs, written, out);
  return kExitOk;
#else
  (void)options, (void)mesh, (void)frame, (void)load_ms, (void)out;
  throw std::runtime_error("--backend gl-raster: this slabcast was built without the OpenGL raster reference "
                           "(app/gl/gl_raster.h and the viewer are needed)");
#endif
}

// Frame k's outputs (`frame_file`: the names' frame number), landing together (app/output_file.h).
void write_frame_outputs(const RenderOptions& options, int k, const Mesh& mesh, const FrameSettings& frame,
                         const std::vector<uint8_t>& host, const FrameExtras& extras, const Renderer& renderer,
                         std::ostream& out) {
  const size_t pitch = size_t(frame.width) * 4;
  OutputBatch outputs;
  std::vector<std::string> written;
  const std::string png = frame_file(options.out, k);
  write_png(png, host.data(), frame.width, frame.height, pitch, &outputs);
  written.push_back(png + " (" + std::to_string(frame.width) + "x" + std::to_string(frame.height) + " RGBA8 PNG)");
  const size_t pixels = size_t(frame.width) * size_t(frame.height);
  if (!options.depth_path.empty()) {
    if (extras.depth.size() != pixels) throw std::runtime_error("the renderer returned no depth buffer");
    const std::string path = frame_file(options.depth_path, k);
    write_pfm(path, extras.depth.data(), frame.width, frame.height, &outputs);
    written.push_back(path + " (depth, PFM float32, miss = +inf)");
  }
  if (!options.ids_path.empty()) {
    if (extras.triangle_id.size() != pixels) throw std::runtime_error("the renderer returned no triangle-ID buffer");
    const std::string path = frame_file(options.ids_path, k);
    write_ids(path, extras.triangle_id.data(), frame.width, frame.height, &outputs);
    written.push_back(path + " (triangle IDs, uint32, miss = 0xFFFFFFFF)");
  }
  if (!options.shadow_mask_path.empty()) {
    if (extras.shadow_mask.size() != pixels) throw std::runtime_error("the renderer returned no shadow mask");
    const std::string path = frame_file(options.shadow_mask_path, k);
    write_pgm(path, extras.shadow_mask.data(), frame.width, frame.height, &outputs);
    written.push_back(path + " (shadow mask, PGM: 0 in shadow, 255 lit, 128 no hit)");
  }
  if (!options.deformed_mesh_path.empty()) {
    const std::vector<glm::vec3> deformed = renderer.last_deformed_positions();
    if (deformed.size() != mesh.positions.size()) throw std::runtime_error("the renderer returned no deformed positions");
    std::ostringstream comment;
    comment << mesh.name << " deformed by " << to_string(frame.deform.kind) << " amount " << frame.deform.amount
            << " time " << frame.deform.time << " (slabcast render)";
    const std::string path = frame_file(options.deformed_mesh_path, k);
    write_obj(path, deformed, mesh.indices, comment.str(), &outputs);
    written.push_back(path + " (deformed mesh, OBJ)");
  }
  land(outputs, written, out);
}

}  // namespace

Backend choose_backend(const std::optional<Backend>& requested, std::ostream& log) {
  if (requested) return *requested;
  int devices = 0;
  const cudaError_t status = cudaGetDeviceCount(&devices);
  if (status == cudaSuccess && devices > 0) return Backend::cuda;
  cudaGetLastError();  // clear the sticky "no device" error
  log << "[slabcast] note: no CUDA device ("
      << (status == cudaSuccess ? std::string("none found") : std::string(cudaGetErrorString(status)))
      << "); using the cpu backend\n";
  return Backend::cpu;
}

Camera resolve_camera(const SceneOptions& options, const Mesh& mesh) {
  Camera camera = options.frame.camera;
  if (options.orbit) {
    camera = orbit_camera(options, frame_mesh_all_around(mesh, options.frame.camera.fovy_degrees,
                                                         static_cast<float>(options.frame.width) /
                                                             static_cast<float>(options.frame.height),
                                                         options.frame.deform));
  } else if (!options.eye_given || !options.target_given) {
    const Camera framed = frame_mesh(mesh, options.frame.camera.fovy_degrees,
                                     static_cast<float>(options.frame.width) / static_cast<float>(options.frame.height),
                                     options.frame.deform);
    if (!options.eye_given) camera.eye = framed.eye;
    if (!options.target_given) camera.target = framed.target;
    if (!options.up_given) camera.up = framed.up;
  }
  check_camera(camera, options.eye_given, options.up_given);
  return camera;
}

int run_render(const RenderOptions& options, std::ostream& out, std::ostream& log) {
  if (options.gl_raster) {
    auto start = Clock::now();
    const LoadedScene scene = load_scene(options.scene, log);
    const Mesh& mesh = scene.mesh;
    if (scene.motion.moves()) throw UsageError("--backend gl-raster: draws meshes at rest only, not " + scene.motion.describe());
    const double load_ms = ms_since(start);
    FrameSettings frame = options.frame;
    frame.camera = resolve_camera(options, mesh);
    return run_render_gl_raster(options, mesh, frame, load_ms, out);
  }
  const Backend backend = choose_backend(options.backend, log);

  auto start = Clock::now();
  LoadedScene scene = load_scene(options.scene, log);
  const Mesh& mesh = scene.mesh;
  const double load_ms = ms_since(start);
  if (scene.motion.moves()) log << "[slabcast] " << mesh.name << " moves by itself: " << scene.motion.describe() << "\n";

  FrameSettings frame = options.frame;
  frame.camera = resolve_camera(options, mesh);

  start = Clock::now();
  RendererOptions renderer_options;
  renderer_options.threads = options.threads;
  std::unique_ptr<Renderer> renderer = make_renderer(backend, renderer_options);
  renderer->set_mesh(mesh);
  const double upload_ms = ms_since(start);

  const size_t pitch = size_t(frame.width) * 4;
  std::vector<uint8_t> host(pitch * size_t(frame.height));
  Surface surface{nullptr, frame.width, frame.height, pitch};
  prim::DeviceBuffer<uint8_t> device;  // the cuda backend's image
  if (backend == Backend::cuda) {
    SLABCAST_CUDA_CHECK(device.allocate(host.size()));
    surface.pixels = device.data();
  } else {
    surface.pixels = host.data();
  }

  const bool want_extras =
      !options.depth_path.empty() || !options.ids_path.empty() || !options.shadow_mask_path.empty();
  FrameExtras extras;
  const double base_time = frame.deform.time;
  for (int k = 0; k < options.frames; ++k) {
    // Frame k of an animation: the deformer's time advances by 1/fps a frame, and a turntable turns the orbit by
    // turntable * k / frames degrees.
    frame.deform.time = static_cast<float>(base_time + double(k) / double(options.fps));
    if (options.turntable != 0.0f) {
      SceneOptions turned = options;
      turned.orbit->x += static_cast<float>(double(options.turntable) * k / options.frames);
      frame.camera = resolve_camera(turned, mesh);
    }
    scene.motion.apply(frame.deform.time, frame);
    start = Clock::now();
    const FrameStats stats = renderer->render(frame, surface, want_extras ? &extras : nullptr);
    if (backend == Backend::cuda) SLABCAST_CUDA_CHECK(cudaDeviceSynchronize());
    const double render_ms = ms_since(start);
    if (backend == Backend::cuda) SLABCAST_CUDA_CHECK(device.download(host.data(), host.size()));

    const Camera& c = frame.camera;
    if (k == 0) {
      out << std::setprecision(6) << "slabcast render: " << mesh.name << " ("
          << counted(mesh.triangle_count(), "triangle", "triangles") << ", "
          << counted(mesh.positions.size(), "vertex", "vertices") << "), " << frame.width << "x" << frame.height
          << ", " << to_string(backend) << " backend, " << frame.slabs << " slabs, "
          << (frame.samples > 1 ? std::to_string(frame.samples) + " samples a pixel, " : "") << to_string(frame.shading)
          << " shading" << (options.frames > 1 ? ", " + counted(uint64_t(options.frames), "frame", "frames") : "")
          << "\n"
          << "  camera  eye " << c.eye.x << "," << c.eye.y << "," << c.eye.z << "  target " << c.target.x << ","
          << c.target.y << "," << c.target.z << "  up " << c.up.x << "," << c.up.y << "," << c.up.z << "  fovy "
          << c.fovy_degrees << "\n"
          << "  deform  " << to_string(frame.deform.kind) << " amount " << frame.deform.amount << " time "
          << frame.deform.time << "\n"
          << std::fixed << std::setprecision(1) << "  wall    load " << load_ms << " ms, upload " << upload_ms
          << " ms, first frame " << render_ms << " ms (includes one-time set-up)\n"
          << std::defaultfloat;
      print_stats(out, stats, frame);
    } else {
      out << std::setprecision(6) << "frame " << k << ": time " << frame.deform.time << ", eye " << c.eye.x << ","
          << c.eye.y << "," << c.eye.z << std::fixed << std::setprecision(1) << ", " << render_ms << " ms"
          << std::defaultfloat;
      if (is_heat_view(frame.shading)) out << ", " << heat_legend(frame.shading, stats.heat_max);
      out << "\n";
    }
    if (options.legend) draw_legend_bar(host, frame.width, frame.height);
    write_frame_outputs(options, k, mesh, frame, host, extras, *renderer, out);
  }
  return kExitOk;
}

}  // namespace slabcast
