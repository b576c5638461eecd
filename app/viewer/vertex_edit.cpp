#include "app/viewer/vertex_edit.h"

#include <algorithm>
#include <cmath>

namespace slabcast::viewer {

void VertexEdit::reset(size_t vertices) {
  vertices_ = vertices;
  clear_selection();
  reset_displacement();
}

void VertexEdit::begin_rectangle(float x, float y) {
  has_rectangle_ = true;
  x0_ = x1_ = x;
  y0_ = y1_ = y;
  selection_.clear();
}

void VertexEdit::extend_rectangle(float x, float y) {
  x1_ = x;
  y1_ = y;
}

void VertexEdit::clear_selection() {
  has_rectangle_ = false;
  selection_.clear();
}

ImageRect VertexEdit::rectangle() const {
  return ImageRect{std::min(x0_, x1_), std::min(y0_, y1_), std::max(x0_, x1_), std::max(y0_, y1_)};
}

bool VertexEdit::rectangle_holds(float x, float y) const {
  const ImageRect r = rectangle();
  return has_rectangle_ && x >= r.x_min && x <= r.x_max && y >= r.y_min && y <= r.y_max;
}

void VertexEdit::refresh(Renderer& renderer) {
  if (has_rectangle_) selection_ = renderer.select_vertices(rectangle());
}

void VertexEdit::begin_move(Renderer& renderer) {
  if (selection_.empty() || vertices_ == 0) return;
  const ImageRect r = rectangle();
  const float falloff = std::max(kMinFalloffPixels, kFalloffFraction * std::max(r.x_max - r.x_min, r.y_max - r.y_min));
  weights_.assign(vertices_, 0.0f);
  const ImageRect reach{r.x_min - falloff, r.y_min - falloff, r.x_max + falloff, r.y_max + falloff};
  for (const SelectedVertex& v : renderer.select_vertices(reach)) {
    if (v.vertex >= vertices_) continue;  // (a renderer of another mesh: never, but never write past the array)
    const float dx = std::max({r.x_min - v.x, 0.0f, v.x - r.x_max});
    const float dy = std::max({r.y_min - v.y, 0.0f, v.y - r.y_max});
    const float t = 1.0f - std::min(1.0f, std::sqrt(dx * dx + dy * dy) / falloff);
    weights_[v.vertex] = t * t * (3.0f - 2.0f * t);  // smoothstep: 1 inside, 0 at the falloff's edge, smooth at both
  }
  for (const SelectedVertex& v : selection_) {
    if (v.vertex < vertices_) weights_[v.vertex] = 1.0f;
  }
  // The median depth: the selection's bulk, which one far-away outlier does not drag along.
  std::vector<float> depths(selection_.size());
  std::transform(selection_.begin(), selection_.end(), depths.begin(), [](const SelectedVertex& v) { return v.depth; });
  std::nth_element(depths.begin(), depths.begin() + static_cast<std::ptrdiff_t>(depths.size() / 2), depths.end());
  move_depth_ = depths[depths.size() / 2];
  move_offset_ = glm::vec3(0.0f);
  moving_ = true;
  ++key_;
}

void VertexEdit::move(float dx, float dy, const Camera& camera, int image_height) {
  if (!moving_ || image_height <= 0) return;
  const glm::vec3 forward = glm::normalize(camera.target - camera.eye);
  const glm::vec3 right = glm::normalize(glm::cross(forward, camera.up));
  const glm::vec3 view_up = glm::cross(right, forward);
  // World units a pixel at the move's depth: the image spans 2 depth tan(fovy / 2) vertically there.
  const float per_pixel =
      2.0f * move_depth_ * std::tan(glm::radians(camera.fovy_degrees) * 0.5f) / static_cast<float>(image_height);
  const glm::vec3 step = (dx * right - dy * view_up) * per_pixel;
  if (!std::isfinite(step.x) || !std::isfinite(step.y) || !std::isfinite(step.z)) return;
  move_offset_ += step;
  x0_ += dx;
  x1_ += dx;
  y0_ += dy;
  y1_ += dy;
}

void VertexEdit::end_move() {
  if (!moving_) return;
  moving_ = false;
  if (move_offset_ != glm::vec3(0.0f)) {
    if (offsets_.empty()) offsets_.assign(vertices_, glm::vec3(0.0f));
    for (size_t v = 0; v < vertices_; ++v) {
      if (weights_[v] != 0.0f) offsets_[v] += weights_[v] * move_offset_;
    }
  }
  weights_.clear();
  move_offset_ = glm::vec3(0.0f);
  ++key_;
}

void VertexEdit::reset_displacement() {
  moving_ = false;
  weights_.clear();
  offsets_.clear();
  move_offset_ = glm::vec3(0.0f);
  ++key_;
}

const Displacement* VertexEdit::displacement() {
  if (!displaced()) return nullptr;
  displacement_.key = key_;
  displacement_.offsets = offsets_.empty() ? nullptr : offsets_.data();
  displacement_.weights = weights_.empty() ? nullptr : weights_.data();
  displacement_.offset = move_offset_;
  return &displacement_;
}

}  // namespace slabcast::viewer
