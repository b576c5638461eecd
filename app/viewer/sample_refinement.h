// Progressive anti-aliasing in the viewer (docs/viewer.md, "Samples"): while the image rests, each frame renders one
// more sample frame (FrameSettings::progressive_sample) and shows the average so far; once all N are in, nothing is
// rendered until something changes. Pure bookkeeping on FrameSettings (no GL), so it is unit-tested on its own.
#pragma once
#include "render/renderer.h"

namespace slabcast::viewer {

class SampleRefinement {
 public:
  // The sample frame the next displayed frame renders: 0 when anything that changes the image differs from the last
  // frame rendered (the size, the camera, the deformer, the user displacement, the shading, the light, the sample count, ...; the time
  // only where `time_moves_image`: a deformer with an amount, or a scene that moves by itself), else the next sample
  // k; -1 when all settings.samples samples are in the image on screen already (nothing to render).
  int next(const FrameSettings& settings, bool time_moves_image) const;
  // After a frame that rendered `sample` (next()'s answer) of `settings`.
  void rendered(const FrameSettings& settings, int sample);
  // Something the settings do not show changed (the model, the backend, a failed frame): start again at 0.
  void restart() { shown_ = 0; }
  // The samples averaged in the image on screen (0 before the first frame).
  int shown() const { return shown_; }

 private:
  FrameSettings last_;  // of the last frame rendered
  // Its displacement's value: settings.displacement points at the caller's object, which changes in place.
  bool last_displaced_ = false;
  Displacement last_displacement_;
  int shown_ = 0;
};

}  // namespace slabcast::viewer
