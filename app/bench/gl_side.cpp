#include "app/bench/gl_side.h"

#include <cmath>

#include "app/bench/progress.h"
#include "render/cuda_check.h"

#include <cuda_runtime.h>

#include <exception>
#include <stdexcept>

#if SLABCAST_HAVE_GL
#include "app/gl/gl_raster.h"
#endif

namespace slabcast::bench {

#if SLABCAST_HAVE_GL
DisplayMeter::DisplayMeter(int width, int height, gl::Feed feed)
    : width_(width), height_(height), feed_(feed), target_(width, height) {
  const size_t bytes = size_t(width) * size_t(height) * 4;
  GLuint id = 0;
  glCreateBuffers(1, &id);
  pbo_.reset(id);
  SLABCAST_GL_CHECK(glNamedBufferData(pbo_.get(), GLsizeiptr(bytes), nullptr, GL_STREAM_DRAW));
  glCreateTextures(GL_TEXTURE_2D, 1, &id);
  texture_.reset(id);
  SLABCAST_GL_CHECK(glTextureStorage2D(texture_.get(), 1, GL_RGBA8, width, height));
  glCreateQueries(GL_TIME_ELAPSED, 1, &id);
  query_.reset(id);
  if (feed == gl::Feed::cuda_interop) {
    interop_ = gl::CudaGlBuffer(pbo_.get());
  } else {
    staging_.resize(bytes);
  }
  gl::check_gl("DisplayMeter", __FILE__, __LINE__);
}

Surface DisplayMeter::acquire() {
  const Surface plain{staging_.data(), width_, height_, size_t(width_) * 4};
  if (feed_ != gl::Feed::cuda_interop) return plain;
  const auto t0 = Clock::now();
  size_t bytes = 0;
  uint8_t* pixels = interop_.map(&bytes);
  feed_ms_ = ms_between(t0, Clock::now());
  if (bytes < size_t(width_) * size_t(height_) * 4) {
    interop_.unmap();
    throw std::runtime_error("the mapped pixel buffer holds " + std::to_string(bytes) + " bytes, too few");
  }
  return Surface{pixels, width_, height_, size_t(width_) * 4};
}

void DisplayMeter::present() {
  const auto t0 = Clock::now();
  if (feed_ == gl::Feed::cuda_interop) {
    interop_.unmap();
    feed_ms_ += ms_between(t0, Clock::now());
  } else {
    SLABCAST_GL_CHECK(glNamedBufferSubData(pbo_.get(), 0, GLsizeiptr(staging_.size()), staging_.data()));
    feed_ms_ = ms_between(t0, Clock::now());
  }
  target_.bind();
  // Waited for, so GL is idle afterwards; NaN where the timer measured nothing believable.
  blit_ms_ = gl::timed_gl_span(query_.get(), [&] {
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pbo_.get());
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    glTextureSubImage2D(texture_.get(), 0, 0, 0, width_, height_, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    pass_.draw(texture_.get(), width_, height_, width_, height_);
  });
  gl::check_gl("DisplayMeter::present", __FILE__, __LINE__);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
}
#endif

namespace {

#if SLABCAST_HAVE_GL
class GlRasterReference final : public Reference {
 public:
  GlRasterReference(const Mesh& mesh, int shadow_map_size) : raster_(mesh) {
    raster_.set_shadow_map_size(shadow_map_size);
  }
  double render(const FrameSettings& settings) override { return double(raster_.render(settings)); }
  void render_untimed(const FrameSettings& settings) override { raster_.render_untimed(settings); }
  std::vector<uint32_t> triangle_ids() const override { return raster_.read_triangle_ids(); }
  std::vector<uint8_t> shadow_mask() const override { return raster_.read_shadow_mask(); }
  IdAgreementCounts compare(const std::vector<uint32_t>& ours, const std::vector<uint32_t>& theirs, int width,
                            int height) const override {
    const gl::IdAgreement a = gl::compare_triangle_ids(ours, theirs, width, height);
    IdAgreementCounts c;
    c.measured = true;
    c.pixels = a.pixels;
    c.equal = a.equal;
    c.differing = a.differing;
    c.differing_off_edges = a.differing_off_edges;
    return c;
  }

 private:
  gl::GlRaster raster_;
};
#endif

}  // namespace

GlSide open_gl(const BenchOptions& options, Backend backend) {
  GlSide side;
  // With shadows the reference draws a classic shadow map, which it has for a sun only: for another light it would
  // time a different image.
  const bool sun = options.light.type == LightType::sun;
  const bool want_reference = options.reference == BenchReference::gl_raster && (!options.shadows || sun);
  side.shadow_map_size = options.shadow_map_size;
  if (!options.display) side.display_absent = "--display off";
  if (options.reference == BenchReference::none) side.reference_absent = "--reference none";
  if (options.shadows && !sun && options.reference != BenchReference::none) {
    side.reference_absent = "the gl-raster reference's shadow map is for a sun only";
  }
  if (!options.display && !want_reference) return side;
#if SLABCAST_HAVE_GL
  int cuda_device = -1;
  if (backend == Backend::cuda) {
    require_cuda_device();  // the renderer's own message where there is none
    SLABCAST_CUDA_CHECK(cudaGetDevice(&cuda_device));
  }
  try {
    side.egl = std::make_unique<gl::EglContext>(cuda_device);
    side.description = side.egl->description();
  } catch (const std::exception& e) {
    const std::string why = std::string("no OpenGL 4.5 context through EGL: ") + e.what();
    if (options.display) side.display_absent = why;
    if (want_reference) side.reference_absent = why;
    return side;
  }
  // On the cuda backend the reference must run on the same GPU, or the ratio compares two different machines.
  if (want_reference && backend == Backend::cuda && !side.egl->on_cuda_device()) {
    side.reference_absent = "OpenGL runs on " + side.description + ", not on the CUDA device: the reference would "
                            "not run on the same GPU (is NVIDIA's EGL library installed?)";
  }
  if (options.display) {
    if (backend == Backend::cpu) {
      side.feed = gl::Feed::host_upload;
    } else if (side.egl->on_cuda_device()) {
      side.feed = gl::Feed::cuda_interop;
    } else {
      side.display_absent = "OpenGL runs on " + side.description + ", not on the CUDA device: no CUDA-GL interop";
    }
  }
#else
  (void)backend;
  const std::string why = "this slabcast was built without app/gl/, which has the OpenGL side";
  if (options.display) side.display_absent = why;
  if (want_reference) side.reference_absent = why;
#endif
  return side;
}

std::unique_ptr<Reference> make_reference(const GlSide& side, const Mesh& mesh) {
  if (!side.reference_absent.empty()) return nullptr;
#if SLABCAST_HAVE_GL
  return std::make_unique<GlRasterReference>(mesh, side.shadow_map_size);
#else
  (void)mesh;
  return nullptr;
#endif
}

}  // namespace slabcast::bench
