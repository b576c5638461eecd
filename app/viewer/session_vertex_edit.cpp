// The session's vertex-editing gestures (session.h): framebuffer positions into the rendered image's pixels, then
// VertexEdit. A file of its own so that session.cpp keeps to the scene, the frame and the camera.
#include "app/viewer/session.h"

namespace slabcast::viewer {

void Session::begin_vertex_drag(double fb_x, double fb_y) {
  // The gl-raster reference draws the rest pose: no displacement, no selection to show.
  if (!mesh_ || raster_) return;
  const float x = static_cast<float>(fb_x * resolution_scale), y = static_cast<float>(fb_y * resolution_scale);
  if (vertex_edit.rectangle_holds(x, y) && !vertex_edit.selection().empty()) {
    vertex_edit.begin_move(*renderer_);
    vertex_drag_ = VertexDrag::move;
  } else {
    vertex_edit.begin_rectangle(x, y);
    vertex_drag_ = VertexDrag::rectangle;
  }
}

void Session::continue_vertex_drag(double fb_x, double fb_y, double fb_dx, double fb_dy) {
  if (vertex_drag_ == VertexDrag::rectangle) {
    vertex_edit.extend_rectangle(static_cast<float>(fb_x * resolution_scale), static_cast<float>(fb_y * resolution_scale));
  } else if (vertex_drag_ == VertexDrag::move) {
    vertex_edit.move(static_cast<float>(fb_dx * resolution_scale), static_cast<float>(fb_dy * resolution_scale),
                     camera.camera(), render_height());
  }
}

void Session::end_vertex_drag(bool dragged) {
  if (vertex_drag_ == VertexDrag::rectangle && !dragged) vertex_edit.clear_selection();
  if (vertex_drag_ == VertexDrag::move) vertex_edit.end_move();
  vertex_drag_ = VertexDrag::none;
}

}  // namespace slabcast::viewer
