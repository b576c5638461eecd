// The interactive viewer and its headless twin: the public entry point that app/main.cpp calls.
//
//   slabcast view [scene and camera flags as in `render`] [--headless --frames N --screenshot out.png]
//   slabcast                       (no arguments: the default scene, animated, in a window)
//
// Both paths share one display path: the renderer writes into an OpenGL pixel buffer (CUDA-GL interop for the
// cuda backend, an upload for the cpu backend), which is copied to a texture and drawn by a full-screen pass,
// with the Dear ImGui overlay on top. The window path uses GLFW; the headless path creates an OpenGL 4.5 core
// context through EGL's device platform (no X server) and draws into an offscreen framebuffer.
#pragma once
#include "render/renderer.h"

#include <cstdint>
#include <string>

namespace slabcast {

struct ViewerOptions {
  // --- scene: exactly one of mesh_path / procedural is used; mesh_path wins when non-empty ---
  std::string mesh_path;                      // an OBJ file (loaded with app/mesh_io.h)
  std::string procedural_name = "sphere";     // "sphere", "torus", "torus_knot", "stress"
  uint64_t procedural_triangles = 1000000;    // target triangle count of the procedural mesh

  // --- what one frame renders: size, camera, deformer (time is advanced when animating), slabs, shading ---
  FrameSettings frame;         // frame.width/height: the window's initial client size, or the headless image size
  // The camera: frame.camera where given, the rest from frame_mesh(mesh, frame.camera.fovy_degrees), resolved as
  // `slabcast render` does (eye, target and up each from the framing camera unless given; with both eye and
  // target given nothing is framed), so that the same flags show the same view in both commands.
  bool camera_given = false;   // the whole camera (eye and target) was given: same as eye_given && target_given
  bool eye_given = false;
  bool target_given = false;
  bool up_given = false;
  Backend backend = Backend::cuda;
  bool backend_given = false;  // false: cuda when a CUDA device exists, else cpu (the overlay says which runs)
  bool gl_raster = false;      // draw with the OpenGL hardware-raster reference (app/viewer/gl_raster.h) instead of
                               // the ray caster (`--backend gl-raster`); `backend` is still made, for switching back

  // --- animation ---
  bool animate = true;         // advance frame.deform.time by wall-clock seconds (headless: by 1/60 s per frame)
  float time_scale = 1.0f;     // animation speed factor

  // --- window ---
  bool vsync = true;
  bool show_overlay = true;    // the ImGui overlay (H toggles it in the window)

  // --- headless (EGL device platform, offscreen framebuffer) ---
  bool headless = false;
  int frames = 1;                  // frames to render before the screenshot (headless), or before quitting (window,
                                   // only when max_frames_given: the window smoke test); >= 1
  bool max_frames_given = false;   // window path: quit after `frames` frames (tests); headless ignores this
  std::string screenshot_path;     // PNG written after the last frame; headless default: "slabcast-view.png"
  bool screenshot_3d_only = false; // write the 3D part only (no overlay), e.g. to compare with `slabcast render`

  // --- fallbacks ---
  bool fallback_to_headless = true;  // window path: if no display can be opened, say so and render headless to
                                     // a PNG instead (printing where)
};

// Runs the viewer (window or headless, per options). Returns a process exit code: 0 on success, 1 on a runtime
// failure (the reason is printed to stderr, naming what failed). Never calls exit().
int run_viewer(const ViewerOptions& options);

}  // namespace slabcast
