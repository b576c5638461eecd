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
#include "app/options.h"

namespace slabcast {

// Runs the viewer (window or headless, per options). Returns a process exit code: 0 on success, 1 on a runtime
// failure (the reason is printed to stderr, naming what failed). Never calls exit().
int run_viewer(const ViewOptions& options);

}  // namespace slabcast
