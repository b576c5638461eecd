#include "app/viewer/session.h"

#include "render/camera.h"
#include "render/constants.h"
#include "render/frame_setup.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <utility>

namespace slabcast::viewer {

namespace {

namespace fs = std::filesystem;

constexpr auto kMemoryCheckInterval = std::chrono::milliseconds(500);

}  // namespace

Session::Session(const ViewOptions& view_options, bool gl_on_cuda_device, std::string gl_info, bool is_window)
    : options(view_options),
      settings(view_options.frame),
      animate(view_options.animate),
      time_scale(view_options.time_scale),
      vsync(view_options.vsync),
      show_overlay(view_options.show_overlay),
      windowed(is_window),
      refine_samples(is_window),
      gl_description(std::move(gl_info)),
      gl_on_cuda_device_(gl_on_cuda_device) {
  cuda_available = gl::cuda_device_or_none(&cuda_absent_reason) >= 0;
  if (options.backend) {
    backend = *options.backend;
    if (backend == Backend::cuda && !cuda_available) {
      throw std::runtime_error("the cuda backend was asked for, but CUDA is not available (" + cuda_absent_reason +
                               "); use --backend cpu");
    }
  } else {
    backend = cuda_available ? Backend::cuda : Backend::cpu;
  }
  renderer_ = make_renderer(backend, renderer_options());
  gl_raster = options.gl_raster;  // install_mesh makes the reference for the first mesh

  models = list_models();
  ModelChoice first;
  const SceneSpec& scene = options.scene;
  if (!scene.mesh_path.empty()) {
    first = {fs::path(scene.mesh_path).filename().string(), scene.mesh_path, "", 0};
    path_field = scene.mesh_path;
  } else {
    first = {scene.label(), "", scene.procedural_name, scene.procedural_triangles};
  }
  std::error_code error;
  const std::string canonical_path = first.path.empty() ? "" : fs::weakly_canonical(first.path, error).string();
  for (size_t i = 0; i < models.size(); ++i) {
    if (models[i].path == canonical_path && models[i].procedural == first.procedural &&
        models[i].triangles == first.triangles) {
      model_index = static_cast<int>(i);
    }
  }
  if (windowed) {
    // The window opens at once and shows the load's progress; a failure of this first load still ends the run
    // with the error (poll_loading rethrows it), as `slabcast render` would.
    initial_load_ = true;
    load_in_background(scene, first.path.empty() ? first.label : fs::path(first.path).filename().string());
  } else {
    install_scene(load_model(scene, &load_progress), /*keep_camera=*/true);
  }
}

Session::~Session() {
  // A load still running in the background finishes before the renderer goes away (std::future's destructor
  // would wait anyway; waiting here makes the order explicit).
  if (pending_.valid()) pending_.wait();
}

void Session::start_loading(const ModelChoice& model) {
  load_in_background(scene_of(model, options.scene),
                     model.path.empty() ? model.label : fs::path(model.path).filename().string());
}

void Session::load_in_background(SceneSpec scene, std::string name) {
  if (pending_.valid()) {
    last_error = "still loading " + loading_name + "; try again when it is done";
    return;
  }
  last_error.clear();
  loading_name = std::move(name);
  loading_since = std::chrono::steady_clock::now();
  load_progress.store(0.0);
  pending_ = std::async(std::launch::async, load_model, std::move(scene), &load_progress);
}

void Session::poll_loading() {
  if (!pending_.valid() || pending_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return;
  const bool initial = std::exchange(initial_load_, false);
  const std::string name = std::exchange(loading_name, std::string());
  try {
    install_scene(pending_.get(), /*keep_camera=*/initial);
    if (!initial) last_message = "loaded " + name;
  } catch (const std::exception& e) {
    if (initial) throw;  // nothing to show: the run fails with the reason
    last_error = e.what();
    std::fprintf(stderr, "slabcast: loading %s failed: %s\n", name.c_str(), e.what());
  }
}

void Session::wait_for_loading() {
  if (!pending_.valid()) return;
  pending_.wait();
  poll_loading();
}

void Session::install_scene(LoadedScene scene, bool keep_camera) {
  install_mesh(std::make_shared<const Mesh>(std::move(scene.mesh)), keep_camera);
  // The motion only once its mesh is in: if the mesh fails, the old model keeps moving as it did. The frame's
  // pointers into the old motion go first, since replacing it frees what they point to.
  settings.pose = nullptr;
  settings.keyframes = nullptr;
  motion_ = std::move(scene.motion);
  if (motion_.moves()) std::fprintf(stderr, "slabcast: %s moves by itself: %s\n", mesh_name.c_str(), motion_.describe().c_str());
}

void Session::install_mesh(std::shared_ptr<const Mesh> mesh, bool keep_camera) {
  // The reference first: if it fails (out of GPU memory), nothing has changed yet and the old mesh stays.
  std::unique_ptr<gl::GlRaster> raster = gl_raster ? std::make_unique<gl::GlRaster>(*mesh) : nullptr;
  renderer_->set_mesh(*mesh);
  raster_ = std::move(raster);
  mesh_ = std::move(mesh);
  mesh_name = mesh_->name;
  mesh_triangles = mesh_->triangle_count();
  framing_mesh_ = nullptr;  // the points of the mesh before are stale, even if the new one lands at its address
  refinement_.restart();
  Camera home = settings.camera;
  const bool eye_given = keep_camera && options.eye_given;
  const bool target_given = keep_camera && options.target_given;
  const bool up_given = keep_camera && options.up_given;
  camera_framed_ = !(keep_camera && options.orbit) && !eye_given && !target_given && !up_given;
  if (camera_framed_) {
    home = framed_camera(settings.camera.fovy_degrees);
  } else if (keep_camera && options.orbit) {  // as `slabcast render` resolves it
    home = orbit_camera(options,
                        frame_mesh_all_around(*mesh_, settings.camera.fovy_degrees, aspect(), settings.deform));
  } else if (!eye_given || !target_given) {  // as `slabcast render` resolves a partly given camera
    const Camera framed = frame_mesh(*mesh_, settings.camera.fovy_degrees, aspect(), settings.deform);
    if (!eye_given) home.eye = framed.eye;
    if (!target_given) home.target = framed.target;
    if (!up_given) home.up = framed.up;
  }
  camera.set_home(home);
  frame_times.clear();
  vertex_edit.reset(mesh_->positions.size());
  vertex_drag_ = VertexDrag::none;
}

void Session::choose_model(int index) {
  if (index < 0 || index >= static_cast<int>(models.size())) return;
  model_index = index;
  path_field = models[static_cast<size_t>(index)].path;
  start_loading(models[static_cast<size_t>(index)]);
}

glm::vec3 sun_direction(float azimuth_degrees, float elevation_degrees) {
  const float az = glm::radians(azimuth_degrees), el = glm::radians(elevation_degrees);
  return glm::vec3(std::cos(el) * std::sin(az), std::sin(el), std::cos(el) * std::cos(az));
}

glm::vec3 Session::default_point_light() const {
  if (!mesh_) return glm::vec3(0.0f, 2.0f, 0.0f);
  const Camera framed = frame_mesh(*mesh_, camera.camera().fovy_degrees, aspect(), settings.deform);
  return framed.target + glm::vec3(0.0f, glm::length(framed.eye - framed.target), 0.0f);
}

float Session::point_light_step() const {
  if (!mesh_) return 0.01f;
  const Camera framed = frame_mesh(*mesh_, camera.camera().fovy_degrees, aspect(), settings.deform);
  return 0.01f * glm::length(framed.eye - framed.target);
}

void Session::drag_sun(float dx, float dy) {
  sun_azimuth = std::remainder(sun_azimuth + 0.4f * dx, 360.0f);
  sun_elevation = std::clamp(sun_elevation - 0.4f * dy, 1.0f, 90.0f);
  settings.light.type = LightType::sun;
  settings.light.vector = sun_direction(sun_azimuth, sun_elevation);
}

void Session::frame_model() {
  if (!mesh_) return;
  camera.set_home(framed_camera(camera.camera().fovy_degrees));
  camera_framed_ = true;
}

Camera Session::framed_camera(float fovy_degrees) {
  if (windowed && area_width_ > 0 && area_height_ > 0) {
    if (framing_mesh_ != mesh_.get() || framing_deform_.kind != settings.deform.kind ||
        framing_deform_.amount != settings.deform.amount) {
      framing_points_ = framing_points(*mesh_, settings.deform);
      framing_mesh_ = mesh_.get();
      framing_deform_ = settings.deform;
    }
    return frame_points_in_rect(framing_points_, fovy_degrees, area_width_, area_height_, free_area_);
  }
  return frame_mesh(*mesh_, fovy_degrees, aspect(), settings.deform);
}

void Session::set_free_area(int width, int height, const PixelRect& free) {
  const bool changed = width != area_width_ || height != area_height_ || free.x != free_area_.x ||
                       free.y != free_area_.y || free.width != free_area_.width || free.height != free_area_.height;
  area_width_ = width;
  area_height_ = height;
  free_area_ = free;
  if (!changed || !mesh_ || !camera_framed_) return;
  const Camera& now = camera.camera();
  const Camera& home = camera.home();
  const bool moved = now.eye != home.eye || now.target != home.target || now.up != home.up ||
                     now.fovy_degrees != home.fovy_degrees;
  if (!moved) camera.set_home(framed_camera(home.fovy_degrees));  // a camera the user moved stays where it is
}

void Session::set_backend(Backend wanted) {
  if (wanted == backend) return;
  if (!mesh_) {
    last_error = "switch the backend once the model has loaded";
    return;
  }
  try {
    std::unique_ptr<Renderer> renderer = make_renderer(wanted, renderer_options());
    renderer->set_mesh(*mesh_);
    renderer_ = std::move(renderer);
    backend = wanted;
    refinement_.restart();
    frame_times.clear();
    last_error.clear();
  } catch (const std::exception& e) {
    last_error = std::string("switching the backend failed: ") + e.what();
    std::fprintf(stderr, "slabcast: %s\n", last_error.c_str());
  }
}

void Session::set_gl_raster(bool on) {
  if (on == gl_raster) return;
  if (!on) {
    raster_.reset();
    gl_raster = false;
    refinement_.restart();  // the display path's image is the ray caster's last, but its samples start again
    frame_times.clear();
    last_error.clear();
    return;
  }
  if (!mesh_) {
    last_error = "switch to the gl-raster reference once the model has loaded";
    return;
  }
  try {
    raster_ = std::make_unique<gl::GlRaster>(*mesh_);
    gl_raster = true;
    frame_times.clear();
    last_error.clear();
  } catch (const std::exception& e) {
    last_error = std::string("switching to the gl-raster reference failed: ") + e.what();
    std::fprintf(stderr, "slabcast: %s\n", last_error.c_str());
  }
}

void Session::advance_time(double seconds) {
  if (animate && mesh_) settings.deform.time += static_cast<float>(seconds * time_scale);
}

void Session::choose_animation(int index) {
  const GltfAnimations* animations = motion_.animations();
  if (animations == nullptr || index < 0 || index >= animations->count()) return;
  motion_.choose(index);
}

void Session::apply_motion() {
  try {
    motion_.apply(settings.deform.time, settings);
  } catch (const std::exception& e) {
    // A sequence that broke stays broken (every later frame would throw again): show the model at rest, say why.
    settings.pose = nullptr;
    settings.keyframes = nullptr;
    motion_ = SceneMotion();
    refinement_.restart();
    last_error = e.what();
    std::fprintf(stderr, "slabcast: the scene stopped moving: %s\n", e.what());
  }
}

bool Session::time_moves_image() const {
  return (settings.deform.kind != Deformer::none && settings.deform.amount != 0.0f) || motion_.moves();
}

gl::Feed Session::choose_feed() const {
  if (backend == Backend::cpu) return gl::Feed::host_upload;
  return gl_on_cuda_device_ && !interop_failed_ ? gl::Feed::cuda_interop : gl::Feed::cuda_copy;
}

void Session::render_and_present(int fb_width, int fb_height) {
  if (fb_width <= 0 || fb_height <= 0) return;  // minimized: nothing to show, nothing to render
  if (!mesh_) {  // the first model is still loading: the frames' background under the overlay's progress bar
    glViewport(0, 0, fb_width, fb_height);
    const Color8& bg = settings.background;
    glClearColor(bg.r / 255.0f, bg.g / 255.0f, bg.b / 255.0f, 1.0f);
    SLABCAST_GL_CHECK(glClear(GL_COLOR_BUFFER_BIT));
    return;
  }
  const int width = std::max(1, static_cast<int>(std::lround(fb_width * resolution_scale)));
  const int height = std::max(1, static_cast<int>(std::lround(fb_height * resolution_scale)));
  settings.width = width;
  settings.height = height;
  settings.camera = camera.camera();
  settings.displacement = vertex_edit.displacement();
  apply_motion();
  // The reference draws into its own framebuffer, then a blit shows it (no PBO, no interop). It draws the mesh at
  // rest (it knows no rig or keyframes): the overlay says so when the scene moves.
  if (raster_) {
    gl_raster_ms = raster_->render(settings);
    stats = FrameStats{};
    stats.triangles_in = raster_->triangle_count();
    stats.ms.total = std::isfinite(gl_raster_ms) ? gl_raster_ms : 0.0f;
    glViewport(0, 0, fb_width, fb_height);
    raster_->blit_to_bound_framebuffer(fb_width, fb_height);
    display_ms = 0.0f;
    renderer_bytes = raster_->gpu_bytes();
    update_device_memory();
    return;
  }
  FrameSettings frame = settings;
  if (refine_samples) {
    frame.progressive_sample = refinement_.next(settings, time_moves_image());
    if (frame.progressive_sample < 0 && !pick_pending_) {  // every sample is in: show the image again
      // A rectangle drawn over the still image selects from the frame on screen.
      vertex_edit.refresh(*renderer_);
      display_.present(fb_width, fb_height);
      display_ms = display_.display_ms();
      return;
    }
    if (frame.progressive_sample < 0) frame.progressive_sample = 0;  // a pick needs a frame: its IDs are read back
  }
  const gl::Feed feed = choose_feed();
  try {
    display_.resize(width, height, feed);
  } catch (const std::exception& e) {
    if (feed != gl::Feed::cuda_interop) throw;
    // Registration fails when the GL context is not on the CUDA device (e.g. a window on another GPU):
    // the frame then goes through host memory.
    interop_failed_ = true;
    std::fprintf(stderr, "slabcast: CUDA-GL interop unavailable (%s); copying frames through the host\n", e.what());
    display_.resize(width, height, choose_feed());
  }
  refinement_.restart();  // until this frame is drawn: a frame that throws leaves no progression to continue
  // The overlay shows the last timed frame's stages beside every frame's total (FrameSettings::stage_times).
  frame.stage_times = frames_rendered_++ % kStageTimingInterval == 0;
  const StageTimes last_stages = stats.ms;
  if (pick_pending_) {  // this frame also downloads its IDs and depth (a click's frame only)
    FrameExtras extras;
    stats = display_.render(*renderer_, frame, &extras);
    finish_pick(extras);
  } else {
    stats = display_.render(*renderer_, frame);
  }
  if (!frame.stage_times) {
    const float total = stats.ms.total;
    stats.ms = last_stages;
    stats.ms.total = total;
  }
  if (refine_samples) refinement_.rendered(settings, frame.progressive_sample);
  // The selection follows the vertices as they move: its query after every frame that has a rectangle (a host wait).
  vertex_edit.refresh(*renderer_);
  display_.present(fb_width, fb_height);
  display_ms = display_.display_ms();
  renderer_bytes = renderer_->device_bytes_in_use();
  update_device_memory();
}

void Session::request_pick(double fb_x, double fb_y) {
  pick_pending_ = true;
  pick_fb_x_ = fb_x;
  pick_fb_y_ = fb_y;
}

void Session::finish_pick(const FrameExtras& extras) {
  pick_pending_ = false;
  const int w = settings.width, h = settings.height;
  if (extras.triangle_id.size() != static_cast<size_t>(w) * static_cast<size_t>(h) || !mesh_) return;
  Pick p;
  p.done = true;
  p.px = std::clamp(static_cast<int>(pick_fb_x_ * resolution_scale), 0, w - 1);
  p.py = std::clamp(static_cast<int>(pick_fb_y_ * resolution_scale), 0, h - 1);
  p.tile_x = p.px / kTileSize;
  p.tile_y = p.py / kTileSize;
  const size_t pixel = static_cast<size_t>(p.py) * static_cast<size_t>(w) + static_cast<size_t>(p.px);
  p.triangle = extras.triangle_id[pixel];
  if (p.triangle != kNoHit && p.triangle < mesh_->triangle_count()) {
    p.distance = extras.depth[pixel];
    const std::vector<glm::vec3> deformed = renderer_->last_deformed_positions();
    for (int k = 0; k < 3; ++k) {
      p.vertices[k] = mesh_->indices[3 * static_cast<size_t>(p.triangle) + static_cast<size_t>(k)];
      p.positions[k] = deformed[p.vertices[k]];
    }
    const glm::vec3 n = glm::cross(p.positions[1] - p.positions[0], p.positions[2] - p.positions[0]);
    p.normal = glm::length(n) > 0.0f ? glm::normalize(n) : n;
    // The pixel centre's ray as the renderer casts it (render/camera.h), turned from view space to world.
    const ViewParams view = make_view_params(settings.camera, w, h);
    const Vec3 d = pixel_ray_view(view, p.px, p.py);
    const Vec3 world = view.right * d.x + view.up * d.y + view.back * d.z;
    p.point = settings.camera.eye + glm::vec3(world.x, world.y, world.z) * p.distance;
    // The slab as the renderer's own build placed the triangle (slow, but once a click), so that it cannot disagree
    // with the slab view's colours.
    const FrameStructure structure = renderer_->last_structure();
    if (p.triangle < structure.slab_of_triangle.size()) {
      p.slab = structure.slab_of_triangle[p.triangle];
      p.slabs = structure.slabs;
    }
  }
  picked = p;
}

void Session::update_device_memory() {
  if (!cuda_available) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - memory_checked_ < kMemoryCheckInterval) return;
  memory_checked_ = now;
  gl::cuda_memory_info(&device_used_bytes, &device_total_bytes);
}

}  // namespace slabcast::viewer
