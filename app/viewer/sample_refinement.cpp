#include "app/viewer/sample_refinement.h"

namespace slabcast::viewer {

namespace {

bool same_colour(const Color8& a, const Color8& b) { return a.r == b.r && a.g == b.g && a.b == b.b && a.a == b.a; }

// Whether two frames' settings draw the same image: every field that reaches the pixels. The pose and keyframes
// pointers point into the scene's motion, which follows the time.
bool same_image(const FrameSettings& a, const FrameSettings& b, bool time_moves_image) {
  const Camera &ca = a.camera, &cb = b.camera;
  return a.width == b.width && a.height == b.height && ca.eye == cb.eye && ca.target == cb.target && ca.up == cb.up &&
         ca.fovy_degrees == cb.fovy_degrees && a.deform.kind == b.deform.kind && a.deform.amount == b.deform.amount &&
         (!time_moves_image || a.deform.time == b.deform.time) && a.slabs == b.slabs && a.shading == b.shading &&
         a.light.type == b.light.type && a.light.vector == b.light.vector && a.shadows == b.shadows &&
         a.wireframe == b.wireframe && a.samples == b.samples && same_colour(a.background, b.background);
}

}  // namespace

int SampleRefinement::next(const FrameSettings& settings, bool time_moves_image) const {
  // Whether the time moves the image changes only with the deformer (its kind or amount, compared) or the scene
  // (a new one restarts), so the last frame's answer is this one's.
  if (shown_ == 0 || !same_image(settings, last_, time_moves_image)) return 0;
  if ((settings.displacement != nullptr) != last_displaced_) return 0;
  if (settings.displacement != nullptr && (settings.displacement->key != last_displacement_.key ||
                                           settings.displacement->offset != last_displacement_.offset)) {
    return 0;
  }
  return shown_ < settings.samples ? shown_ : -1;
}

void SampleRefinement::rendered(const FrameSettings& settings, int sample) {
  last_ = settings;
  last_displaced_ = settings.displacement != nullptr;
  if (last_displaced_) last_displacement_ = *settings.displacement;
  shown_ = sample + 1;
}

}  // namespace slabcast::viewer
