// Anti-aliasing's driver, shared by both backends (stages/resolve.h has the per-pixel body and the sample points): the
// sample frames in order (all N in one call, or one a call when progressive, with the bookkeeping that checks the
// order), their statistics into one FrameStats, the sums after each. A backend supplies how to render one frame at a
// pixel offset and how to add the frame just rendered to the sums.
#pragma once
#include <algorithm>
#include <stdexcept>
#include <string>

#include "render/renderer.h"
#include "render/stages/resolve.h"

namespace slabcast {

// Sample k's statistics into the frame's (FrameStats, "Samples"): counts of work and times add up over the samples,
// maxima take the largest; the mesh's counts are the same in every sample.
inline void add_sample_stats(const FrameStats& one, FrameStats& total) {
  total.triangles_in = one.triangles_in;
  total.hidden_duplicates = one.hidden_duplicates;
  total.triangles_binned += one.triangles_binned;
  total.references += one.references;
  total.nonempty_cells += one.nonempty_cells;
  total.max_refs_per_tile = std::max(total.max_refs_per_tile, one.max_refs_per_tile);
  total.depth_sorted_cells += one.depth_sorted_cells;
  total.ray_triangle_tests += one.ray_triangle_tests;
  total.pixels_hit += one.pixels_hit;
  total.shadow_samples += one.shadow_samples;
  total.light_references += one.light_references;
  total.shadow_tests += one.shadow_tests;
  total.heat_max = std::max(total.heat_max, one.heat_max);
  total.frame_redone += one.frame_redone;
}
inline void add_stage_times(const StageTimes& one, StageTimes& total) {
  total.deform += one.deform;
  total.bin += one.bin;
  total.l1 += one.l1;
  total.l2 += one.l2;
  total.l3 += one.l3;
  total.cast += one.cast;
  total.shadow_samples += one.shadow_samples;
  total.shadow_bin += one.shadow_bin;
  total.shadow_test += one.shadow_test;
  total.shade += one.shade;
  total.total += one.total;
}

// The sample frames one render() call draws: all N, or sample k alone (FrameSettings::progressive_sample = k).
struct SampleRange {
  int first, end;
};
inline SampleRange samples_to_render(const FrameSettings& settings) {
  if (settings.progressive_sample < 0) return SampleRange{0, settings.samples};
  return SampleRange{settings.progressive_sample, settings.progressive_sample + 1};
}

// What a renderer remembers between progressive calls, so that it can refuse a sample k > 0 whose sums it does not
// hold: the next k at the size and count of the call before. Anything else that changed between the calls (the camera,
// the time) the renderer cannot see; the caller restarts at k = 0 then.
class SampleProgression {
 public:
  // Before a frame: throws std::logic_error unless the frame starts anew (not progressive, or k = 0) or continues the
  // progression; then forgets it, so that a frame that throws midway leaves no progression to continue.
  void begin(const FrameSettings& s) {
    const int k = s.progressive_sample;
    const bool follows = k == next_ && s.samples == samples_ && s.width == width_ && s.height == height_;
    const int next = next_;
    next_ = 0;
    if (k > 0 && !follows) {
      throw std::logic_error("slabcast: progressive sample " + std::to_string(k) + " of " +
                             std::to_string(s.samples) + " at " + std::to_string(s.width) + "x" +
                             std::to_string(s.height) + " does not follow the frame before (" +
                             (next > 0 ? "sample " + std::to_string(next - 1) + " of " + std::to_string(samples_) +
                                             " at " + std::to_string(width_) + "x" + std::to_string(height_)
                                       : std::string("no progression")) +
                             "); start at 0");
    }
  }
  // After a frame that drew its samples: a progressive one may be continued by the next k.
  void done(const FrameSettings& s) {
    if (s.progressive_sample < 0) return;
    next_ = s.progressive_sample + 1;
    samples_ = s.samples;
    width_ = s.width;
    height_ = s.height;
  }
  void forget() { next_ = 0; }  // a new mesh: its frames start anew

 private:
  int next_ = 0;  // 0: nothing to continue
  int samples_ = 0, width_ = 0, height_ = 0;
};

// settings.samples > 1: the centre frame first when `extras` are asked for (they are the centre rays', and its
// image is overwritten by the first sample), then samples_to_render's samples k rendered into the target by
// render_frame(offset, extras) -> FrameStats and added to the sums by accumulate(k) -> milliseconds, which after the
// last sample (after each, progressively) leaves the average so far in the target. The accumulation's time counts as
// shading.
template <class RenderFrame, class Accumulate>
FrameStats render_samples(const FrameSettings& settings, FrameExtras* extras, RenderFrame&& render_frame,
                          Accumulate&& accumulate) {
  FrameStats total;
  if (extras != nullptr) {
    const FrameStats centre = render_frame(kPixelCentre, extras);
    add_stage_times(centre.ms, total.ms);
    total.frame_redone += centre.frame_redone;
  }
  const SampleRange range = samples_to_render(settings);
  for (int k = range.first; k < range.end; ++k) {
    const FrameStats one = render_frame(sample_offset(settings.samples, k), nullptr);
    add_sample_stats(one, total);
    add_stage_times(one.ms, total.ms);
    const float ms = accumulate(k);
    total.ms.shade += ms;
    total.ms.total += ms;
  }
  return total;
}

}  // namespace slabcast
