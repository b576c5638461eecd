// The benchmark's OpenGL side: the display path timed apart from the frame, and the hardware-raster reference
// (app/gl/gl_raster.h) run in the same process. Both live in one EGL context per run; without app/gl (a build
// without the renderer) they are reported as not measured and the rest of bench runs as before.
#pragma once
#include "app/bench/bench_row.h"
#include "app/cli.h"
#include "render/renderer.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#if SLABCAST_HAVE_GL
#include "app/gl/cuda_interop.h"
#include "app/gl/display_path.h"
#include "app/gl/egl_context.h"
#include "app/gl/gl_util.h"
#endif

namespace slabcast::bench {

#if SLABCAST_HAVE_GL
// The viewer's display path, instrumented: the same pixel buffer (registered with CUDA once, mapped per frame, or
// filled by an upload for the cpu backend), texture copy and full-screen pass as app/gl/display_path.cpp, with
// each part timed. Every frame waits for its GL timer query, so that GL is idle when the next map starts: the map's
// wall time is then its own cost, not a wait for the previous frame's blit.
class DisplayMeter {
 public:
  DisplayMeter(int width, int height, gl::Feed feed);

  // Where the renderer writes this frame: the mapped pixel buffer (interop) or host memory (upload).
  Surface acquire();
  // Hands the frame to GL (unmap, or upload), then PBO -> texture -> full-screen pass into an offscreen target.
  void present();

  double feed_ms() const { return feed_ms_; }
  double blit_ms() const { return blit_ms_; }

 private:
  int width_, height_;
  gl::Feed feed_;
  gl::OffscreenTarget target_;
  gl::GlBuffer pbo_;
  gl::GlTexture texture_;
  gl::GlQuery query_;
  gl::CudaGlBuffer interop_;
  std::vector<uint8_t> staging_;
  gl::FullscreenPass pass_;
  double feed_ms_ = 0, blit_ms_ = 0;
};
#endif

// The OpenGL hardware-raster reference behind a small seam, so that the rest of bench builds and runs without it.
class Reference {
 public:
  virtual ~Reference() = default;
  virtual double render(const FrameSettings& settings) = 0;  // GPU ms of the frame (waits for it)
  virtual void render_untimed(const FrameSettings& settings) = 0;  // warm-up
  virtual std::vector<uint32_t> triangle_ids() const = 0;    // the last frame's, row 0 = top, miss = 0xFFFFFFFF
  virtual std::vector<uint8_t> shadow_mask() const = 0;      // the last frame's shadow map mask; empty without one
  // Pixels where two ID buffers agree; differences next to a silhouette or triangle edge are expected.
  virtual IdAgreementCounts compare(const std::vector<uint32_t>& ours, const std::vector<uint32_t>& theirs,
                                    int width, int height) const = 0;
};

// Everything GL: the EGL context (one per process), and what it can do here.
struct GlSide {
#if SLABCAST_HAVE_GL
  std::unique_ptr<gl::EglContext> egl;
#endif
  std::string description;       // the context, for the JSON; empty without one
  std::string display_absent;    // why the display cost is not measured; empty when it is
  std::string reference_absent;  // why the reference is not run; empty when it is
  int shadow_map_size = 2048;    // the reference's shadow map, with shadows (BenchOptions::shadow_map_size)
#if SLABCAST_HAVE_GL
  std::optional<gl::Feed> feed;
#endif
};

// Opens the context that the options ask for (display and / or reference) on the CUDA device's EGL device where
// the backend is cuda, and says why each part cannot be measured where it cannot.
GlSide open_gl(const BenchOptions& options, Backend backend);

// The reference for `mesh`, or null where it is not run (side.reference_absent says why).
std::unique_ptr<Reference> make_reference(const GlSide& side, const Mesh& mesh);

}  // namespace slabcast::bench
