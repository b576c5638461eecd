// The Dear ImGui overlay: statistics (fps, frame-time graph, per-stage GPU times, counts, memory) and the controls
// (model, deformer, animation and the timeline of a scene that moves by itself, slabs, shading, resolution scale, backend, camera, screenshot). It only reads and
// edits the Session; the window and the headless mode call it between ImGui::NewFrame() and ImGui::Render().
#pragma once
#include "app/viewer/session.h"

namespace slabcast::viewer {

// Builds the overlay's ImGui windows for this frame (statistics top left, controls top right); records their
// rectangles in session.overlay_rects.
void build_overlay(Session& session);

// The help line of keys and mouse, also printed when the window opens.
const char* controls_help();

}  // namespace slabcast::viewer
