// The viewer's vertex editing (docs/viewer.md, "Selecting and moving vertices"): a rectangle on the image selects the
// vertices that project into it, queried again after every frame since they move (Renderer::select_vertices: a range
// tree over the frame's projected vertices); dragging the selection moves those vertices in the camera plane at their
// depth, and their neighbours on the image with a smooth falloff, as a user displacement (renderer.h's Displacement)
// that stacks on every deformer. No GL, no window: the session drives it and the tests call it directly.
//
// Positions are the rendered image's continuous pixel coordinates (renderer.h's ImageRect), row 0 at the top.
#pragma once
#include "render/renderer.h"

#include <cstdint>
#include <vector>

namespace slabcast::viewer {

class VertexEdit {
 public:
  // The falloff reaches this fraction of the rectangle's longer side beyond it, and at least kMinFalloffPixels.
  static constexpr float kFalloffFraction = 0.5f;
  static constexpr float kMinFalloffPixels = 8.0f;

  // A new mesh of `vertices` vertices: no rectangle, no displacement.
  void reset(size_t vertices);

  // ---- the rectangle ----
  void begin_rectangle(float x, float y);   // a corner; the rectangle is that point until extended
  void extend_rectangle(float x, float y);  // the opposite corner
  void clear_selection();                   // no rectangle, nothing selected (the displacement stays)
  bool has_rectangle() const { return has_rectangle_; }
  ImageRect rectangle() const;              // min <= max
  bool rectangle_holds(float x, float y) const;
  // After each frame while there is a rectangle: the frame's vertices inside it.
  void refresh(Renderer& renderer);
  const std::vector<SelectedVertex>& selection() const { return selection_; }

  // ---- moving the selection ----
  // Starts a move of the selected vertices: each gets weight 1, and each vertex whose projection lies within the
  // falloff distance d of the rectangle smoothstep(1 - d / falloff), computed once here from `renderer`'s last frame.
  // Nothing selected: no move.
  void begin_move(Renderer& renderer);
  // The mouse moved by (dx, dy) pixels of an image `image_height` high seen through `camera`: the selection moves by
  // as much in the camera plane at the selected vertices' median depth (the point under the cursor follows it there),
  // and the rectangle with it.
  void move(float dx, float dy, const Camera& camera, int image_height);
  // Ends the move: its offset becomes part of the fixed per-vertex offsets (one copy to the renderer).
  void end_move();
  bool moving() const { return moving_; }

  // ---- the displacement the frames use ----
  void reset_displacement();  // every vertex back where the deformers put it (a move in progress ends)
  bool displaced() const { return !offsets_.empty() || moving_; }
  // For FrameSettings::displacement: nullptr while nothing is displaced. Valid until the next call of this class.
  const Displacement* displacement();
  // The weights of the move in progress (empty when none), for tests and the overlay.
  const std::vector<float>& move_weights() const { return weights_; }

 private:
  size_t vertices_ = 0;
  bool has_rectangle_ = false;
  float x0_ = 0, y0_ = 0, x1_ = 0, y1_ = 0;  // the corners as given
  std::vector<SelectedVertex> selection_;
  bool moving_ = false;
  float move_depth_ = 0;               // world units: the selection's median depth when the move began
  glm::vec3 move_offset_{0.0f};        // world units, this move's so far
  std::vector<float> weights_;         // [vertices] during a move, else empty
  std::vector<glm::vec3> offsets_;     // [vertices] once a move has ended, else empty
  uint64_t key_ = 0;                   // names the arrays' contents (Displacement::key)
  Displacement displacement_;
};

}  // namespace slabcast::viewer
