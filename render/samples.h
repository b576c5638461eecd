// Anti-aliasing's driver, shared by both backends (stages/resolve.h has the per-pixel body and the sample points): the
// sample frames in order, their statistics into one FrameStats, the sums after each. A backend supplies how to render
// one frame at a pixel offset and how to add the frame just rendered to the sums.
#pragma once
#include <algorithm>

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

// settings.samples > 1: the centre frame first when `extras` are asked for (they are the centre rays', and its
// image is overwritten by sample 0), then sample k = 0 .. N-1 rendered into the target by
// render_frame(offset, extras) -> FrameStats and added to the sums by accumulate(k) -> milliseconds, which after the
// last sample leaves the average in the target. The accumulation's time counts as shading.
template <class RenderFrame, class Accumulate>
FrameStats render_samples(const FrameSettings& settings, FrameExtras* extras, RenderFrame&& render_frame,
                          Accumulate&& accumulate) {
  FrameStats total;
  if (extras != nullptr) {
    const FrameStats centre = render_frame(kPixelCentre, extras);
    add_stage_times(centre.ms, total.ms);
    total.frame_redone += centre.frame_redone;
  }
  for (int k = 0; k < settings.samples; ++k) {
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
