// The state of one viewer run, shared by the window and the headless mode: the scene, what moves it by itself
// and its loading, the renderer, the frame settings the overlay edits, the camera, the display path and the frame statistics.
#pragma once
#include "app/gl/display_path.h"
#include "app/gl/gl_raster.h"
#include "app/scene_loading.h"
#include "app/scene_motion.h"
#include "app/viewer/camera_control.h"
#include "app/viewer/framing.h"
#include "app/viewer/frame_times.h"
#include "app/viewer/model_loading.h"
#include "app/viewer/sample_refinement.h"
#include "app/viewer/vertex_edit.h"
#include "app/viewer/viewer.h"
#include "render/renderer.h"

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace slabcast::viewer {

// The direction towards a sun at `azimuth` (from +Z towards +X) and `elevation` (above the XZ plane), degrees.
glm::vec3 sun_direction(float azimuth_degrees, float elevation_degrees);

class Session {
 public:
  // `gl_on_cuda_device`: the GL context runs on the CUDA device (interop is possible). Loads the scene of
  // `options` (load_scene: a mesh file, a glTF file with its animation, a mesh sequence, a procedural mesh): headless
  // synchronously, throwing std::runtime_error (naming the file) if that fails; in a window in
  // the background (mesh() is null until poll_loading installs it, and rethrows if that first load failed).
  Session(const ViewOptions& options, bool gl_on_cuda_device, std::string gl_description, bool windowed);
  ~Session();

  // --- scene ---
  // Runs in the background; the old model (and its motion) stays on screen until the new one is installed. A path
  // that is a directory or a glob pattern loads as a mesh sequence (is_sequence_spec).
  void start_loading(const ModelChoice& model);
  // The overlay's model list: loads models[index], and the path field shows its file (empty for a procedural one),
  // so the field never names a model other than the one chosen.
  void choose_model(int index);
  void poll_loading();                           // installs a finished load (or records its error)
  bool loading() const { return pending_.valid(); }
  void wait_for_loading();                       // headless: block until the pending load is installed

  // --- what moves the scene by itself (a glTF animation, a mesh sequence): the timeline ---
  const SceneMotion& motion() const { return motion_; }
  // Shows the glTF file's animation `index` (the timeline's combo); out of range: nothing changes.
  void choose_animation(int index);

  // --- per frame ---
  // The scene's clock, settings.deform.time (when animating), scaled by time_scale: the deformers and the scene's
  // own motion both follow it, and the motion loops over its period.
  void advance_time(double seconds);
  // Renders a frame for a framebuffer of fb_width x fb_height (the render size follows resolution_scale) and
  // draws it into the bound framebuffer. Does nothing (pauses) for an empty framebuffer. With refine_samples, a
  // frame renders one sample frame (SampleRefinement) and, once the resting image has all its samples, none: it
  // draws the image on screen again. The scene's motion is
  // applied at settings.deform.time first; if that fails (a sequence frame that does not load), the error goes to
  // last_error, the motion stops and the model shows at rest.
  void render_and_present(int fb_width, int fb_height);
  void set_backend(Backend backend);  // makes a new renderer and uploads the mesh; errors go to last_error
  // Draw with the OpenGL hardware-raster reference (gl_raster.h) instead of the ray caster, or back. The ray
  // caster keeps its mesh meanwhile, so switching back is immediate. Errors go to last_error (and leave the mode).
  void set_gl_raster(bool on);

  // --- state the overlay shows and edits ---
  ViewOptions options;
  FrameSettings settings;                 // width/height are set per frame from the framebuffer and the scale
  Backend backend = Backend::cpu;         // the ray caster's backend (kept while gl_raster draws)
  bool gl_raster = false;                 // frames come from the gl-raster reference (the overlay's third choice)
  float gl_raster_ms = 0.0f;              // its GPU time of the last frame (GL timer query); NaN: not timed
  bool cuda_available = false;
  std::string cuda_absent_reason;
  bool animate = true;
  float time_scale = 1.0f;
  float resolution_scale = 1.0f;
  bool vsync = true;
  bool show_overlay = true;
  bool windowed = false;
  // Progressive anti-aliasing (docs/viewer.md, "Samples"): while the image rests each frame adds one of
  // settings.samples sample frames to the image; anything that changes it starts again at one. On in a window; off
  // headless, where every frame renders all its samples, as `slabcast render` does (frame dumps stay comparable).
  bool refine_samples = false;
  // The samples averaged in the image on screen, of settings.samples (the overlay's "samples k/N").
  int samples_in_image() const { return refine_samples ? refinement_.shown() : settings.samples; }
  CameraControl camera;
  std::vector<ModelChoice> models;
  int model_index = -1;                   // into `models`, or -1 for a path typed or dropped
  std::string path_field;                 // the overlay's text field
  bool focus_path_field = false;          // the next overlay puts the keyboard in the path field (as a click does)
  std::string mesh_name;
  uint64_t mesh_triangles = 0;
  std::atomic<double> load_progress{0.0};
  std::string loading_name;
  std::chrono::steady_clock::time_point loading_since;
  std::string last_error;                 // shown in red until the next successful action
  std::string last_message;               // e.g. "saved slabcast-20261123-101500.png"
  bool screenshot_requested = false;
  bool quit_requested = false;
  float sun_azimuth = 35.0f, sun_elevation = 55.0f;  // degrees, the overlay's sun (sun_direction)

  // --- picking: a click on the image shows what its pixel's ray hit (the next frame reads the ID buffer) ---
  struct Pick {
    bool done = false;                 // a pick was made (else the overlay shows how to make one)
    int px = 0, py = 0;                // the rendered image's pixel, row 0 = top
    uint32_t triangle = 0xFFFFFFFFu;   // 0xFFFFFFFF: the ray hit nothing
    float distance = 0.0f;             // along the ray, world units
    glm::vec3 point{0.0f};             // the hit point, world
    glm::vec3 normal{0.0f};            // the triangle's unit normal (its winding's side), world, deformed
    uint32_t vertices[3] = {0, 0, 0};  // vertex indices
    glm::vec3 positions[3] = {};       // deformed, world
    int tile_x = 0, tile_y = 0;        // the 8x8 tile of the pixel
    int slab = -1, slabs = 0;          // the depth slab the frame put the triangle in, of how many (-1: no hit)
  };
  Pick picked;
  // Picks the pixel under framebuffer position (x, y) (top-left origin) at the next frame.
  void request_pick(double fb_x, double fb_y);

  // --- statistics ---
  FrameStats stats;
  FrameTimes frame_times;
  float display_ms = 0.0f;
  size_t renderer_bytes = 0;
  size_t device_used_bytes = 0, device_total_bytes = 0;  // whole-device, from cudaMemGetInfo
  std::string gl_description;
  std::vector<PixelRect> overlay_rects;  // where the overlay's panels were drawn this frame (ImGui's pixels)

  // --- framing: in a window, the viewer's own camera puts the model where the overlay's panels leave it free ---
  // The window is width x height (ImGui's pixels, as overlay_rects) and `free` the part no panel covers (free_rect);
  // the window calls this after each frame's overlay. While the camera is where the viewer framed it (the first
  // model without a command-line camera, F, or reset back to either), a change of the free area (a resize, a panel
  // collapsed or the overlay hidden) frames the model again.
  void set_free_area(int width, int height, const PixelRect& free);

  // --- vertex editing (vertex_edit.h; session_vertex_edit.cpp): Shift + left drag on the image selects the vertices
  // in a rectangle, or, starting inside it, moves them. Positions are the framebuffer's, top-left origin. ---
  VertexEdit vertex_edit;
  void begin_vertex_drag(double fb_x, double fb_y);
  void continue_vertex_drag(double fb_x, double fb_y, double fb_dx, double fb_dy);
  // `dragged`: the mouse moved before the release; a Shift + click that did not clears the selection.
  void end_vertex_drag(bool dragged);
  bool vertex_dragging() const { return vertex_drag_ != VertexDrag::none; }

  const Mesh* mesh() const { return mesh_.get(); }
  // The vertex positions of the last frame, as the ray caster deformed them (for picking, and tests).
  std::vector<glm::vec3> deformed_positions() const { return renderer_->last_deformed_positions(); }
  gl::Feed feed() const { return display_.feed(); }
  int render_width() const { return raster_ ? raster_->width() : display_.width(); }
  int render_height() const { return raster_ ? raster_->height() : display_.height(); }
  void frame_model();  // F: the camera frames the model (keeps the field of view), in the free area in a window
  // A point light's first place: above the model's framed centre by its framing distance.
  glm::vec3 default_point_light() const;
  float point_light_step() const;  // the position field's drag speed: a hundredth of the framing distance
  // Ctrl + left drag: the sun's azimuth and elevation follow the mouse (the light becomes a sun).
  void drag_sun(float dx, float dy);

 private:
  RendererOptions renderer_options() const {
    RendererOptions r;
    r.threads = options.threads;
    return r;
  }
  // Width / height of the frames (the window's), for framing the model in both fields of view.
  float aspect() const {
    return settings.width > 0 && settings.height > 0 ? static_cast<float>(settings.width) / settings.height : 1.0f;
  }
  // A camera framing the model as settings.deform moves it: in a window whose free area is known, in that area
  // (frame_points_in_rect); otherwise for the whole image, as `slabcast render` frames it (frame_mesh).
  Camera framed_camera(float fovy_degrees);
  void load_in_background(SceneSpec scene, std::string name);
  // keep_camera: the command line's camera applies (the first mesh); later meshes are framed.
  void install_scene(LoadedScene scene, bool keep_camera);
  void install_mesh(std::shared_ptr<const Mesh> mesh, bool keep_camera);
  void apply_motion();
  // Whether the clock moves the image: a deformer with an amount, or a scene that moves by itself.
  bool time_moves_image() const;
  gl::Feed choose_feed() const;
  void update_device_memory();

  bool initial_load_ = false;  // the window's first model is loading in the background
  bool gl_on_cuda_device_ = false;
  bool interop_failed_ = false;
  std::unique_ptr<Renderer> renderer_;
  std::unique_ptr<gl::GlRaster> raster_;  // only while gl_raster
  std::shared_ptr<const Mesh> mesh_;
  // In a window (where the free area moves the framing often): the mesh's framing_points for the deformer and
  // amount of framing_deform_, kept until the mesh or those change. framing_mesh_: the mesh they are of, or null.
  std::vector<FramingPoint> framing_points_;
  const Mesh* framing_mesh_ = nullptr;
  DeformParams framing_deform_;
  bool camera_framed_ = false;    // the camera's home is the viewer's framing (not the command line's camera)
  int area_width_ = 0, area_height_ = 0;  // set_free_area's window; 0 until the first overlay
  PixelRect free_area_;
  // settings.pose and settings.keyframes point into it from apply_motion to the end of the frame's render.
  SceneMotion motion_;
  std::future<LoadedScene> pending_;
  gl::DisplayPath display_;
  SampleRefinement refinement_;  // with refine_samples: the samples in the image display_ holds
  std::chrono::steady_clock::time_point memory_checked_{};
  enum class VertexDrag { none, rectangle, move };
  VertexDrag vertex_drag_ = VertexDrag::none;
  bool pick_pending_ = false;
  double pick_fb_x_ = 0, pick_fb_y_ = 0;
  uint64_t frames_rendered_ = 0;  // the renderer's frames: one in kStageTimingInterval has its stages timed
  void finish_pick(const FrameExtras& extras);
};

}  // namespace slabcast::viewer
