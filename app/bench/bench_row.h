// One row of `slabcast bench`: a scene at one image size and slab count, measured over its timed frames.
#pragma once
#include "app/bench/statistics.h"

#include <cstdint>
#include <string>

namespace slabcast {

struct IdAgreementCounts {  // the reference's triangle-ID buffer against ours (see app/gl/gl_raster.h)
  bool measured = false;
  uint64_t pixels = 0, equal = 0, differing = 0, differing_off_edges = 0;
  double fraction() const { return pixels > 0 ? double(equal) / double(pixels) : 0.0; }
};

struct BenchRow {
  std::string scene;        // SceneSpec::label()
  uint64_t triangles = 0;
  int width = 0, height = 0, slabs = 0;
  int frames = 0;           // timed frames

  // Per-stage times, ms (median and p99 over the timed frames). build = l1 + l2 + l3 of each frame.
  Summary deform, bin, l1, l2, l3, build, cast, shade, total;
  // With shadows: the shadow stages (samples, light bin, tests) and their sum.
  bool shadows = false;
  Summary shadow_samples, shadow_bin, shadow_test, shadow;
  // The host's wall time of one Renderer::render call, ms: building and launching the frame (on the cuda backend:
  // setting the frame's arguments on its CUDA graph, captured again only when the frame's shape changes), the wait
  // for it and the statistics' read-back. 1000 / host is the frame rate a loop of render() calls reaches;
  // host - total is what the host adds to the GPU's frame.
  Summary host;

  // Display cost, ms, measured apart from the frame (see docs/bench/README.md): `feed` is the wall time of getting
  // the frame into the pixel buffer (interop map + unmap, or the host upload), `blit` the GL timer query of the
  // PBO -> texture copy and the full-screen pass; display = feed + blit per frame.
  bool display_measured = false;
  std::string display_feed;  // "CUDA-GL interop", "host upload"; why not measured otherwise
  Summary feed, blit, display;

  // Per frame, medians over the timed frames.
  double references = 0, ray_triangle_tests = 0, triangles_binned = 0, pixels_hit = 0;
  double light_references = 0, shadow_tests = 0;  // with shadows
  int frames_redone = 0;    // during the timed frames (buffers grew); should be 0 after the warm-up

  uint64_t renderer_peak_bytes = 0;  // max of Renderer::device_bytes_in_use() over the row's frames
  int64_t device_delta_bytes = -1;   // max cudaMemGetInfo "used" during the row minus before the renderer; -1: n/a

  // The hardware-raster reference at the same scene, size and deformation times (slabs do not apply to it).
  bool reference_measured = false;  // the reference drew the row (its IDs are compared)
  bool reference_timed = false;     // and its frames were timed (the GL timer query worked: gl_raster.h)
  Summary reference_ms;
  double speedup = 0;       // reference median / our total median (> 1: ours is faster)
  IdAgreementCounts ids;    // our IDs vs the reference's, one frame at the last timed frame's time
  // With shadows: the reference's shadow map against our exact mask at that frame, over the pixels where both hit
  // the same triangle: how many were compared and how many the shadow map gets wrong (its aliasing and bias).
  bool shadow_map_measured = false;
  uint64_t shadow_map_compared = 0, shadow_map_wrong = 0;
};

}  // namespace slabcast
