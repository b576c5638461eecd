#include "app/gl/display_path.h"

#include <cstring>
#include <stdexcept>
#include <string>

namespace slabcast::gl {

namespace {
constexpr size_t kBytesPerPixel = 4;  // RGBA8, the renderer's Surface format

GlSampler make_sampler(GLint filter) {
  GLuint id = 0;
  glCreateSamplers(1, &id);
  GlSampler sampler(id);
  glSamplerParameteri(id, GL_TEXTURE_MIN_FILTER, filter);
  glSamplerParameteri(id, GL_TEXTURE_MAG_FILTER, filter);
  glSamplerParameteri(id, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glSamplerParameteri(id, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  check_gl("make_sampler", __FILE__, __LINE__);
  return sampler;
}
}  // namespace

const char* feed_name(Feed feed) {
  switch (feed) {
    case Feed::cuda_interop: return "CUDA-GL interop";
    case Feed::cuda_copy: return "device copy + upload";
    case Feed::host_upload: return "host upload";
  }
  return "?";
}

FullscreenPass::FullscreenPass()
    : program_(make_program("fullscreen.vert", "fullscreen.frag")),
      nearest_(make_sampler(GL_NEAREST)),
      linear_(make_sampler(GL_LINEAR)) {
  GLuint vao = 0;
  glCreateVertexArrays(1, &vao);
  empty_vao_.reset(vao);
  check_gl("FullscreenPass", __FILE__, __LINE__);
}

void FullscreenPass::draw(GLuint texture, int texture_width, int texture_height, int viewport_width,
                          int viewport_height) const {
  const bool exact = texture_width == viewport_width && texture_height == viewport_height;
  glViewport(0, 0, viewport_width, viewport_height);
  glDisable(GL_BLEND);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_SCISSOR_TEST);
  glDisable(GL_CULL_FACE);
  glDisable(GL_FRAMEBUFFER_SRGB);  // the image is already display-encoded: copy it, do not convert it
  glUseProgram(program_.get());
  glBindTextureUnit(0, texture);
  glBindSampler(0, exact ? nearest_.get() : linear_.get());
  glBindVertexArray(empty_vao_.get());
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glBindVertexArray(0);
  glBindSampler(0, 0);
  glUseProgram(0);
  check_gl("FullscreenPass::draw", __FILE__, __LINE__);
}

void DisplayPath::resize(int width, int height, Feed feed) {
  if (width < 1 || height < 1) {
    throw std::invalid_argument("display size " + std::to_string(width) + "x" + std::to_string(height));
  }
  if (!pass_) {
    pass_ = std::make_unique<FullscreenPass>();
    timer_ = std::make_unique<GlTimer>();
  }
  if (width == width_ && height == height_ && feed == feed_ && pbo_) return;

  // The registration goes first: CUDA must let go of the old buffer before GL deletes it.
  interop_ = CudaGlBuffer();
  const size_t bytes = static_cast<size_t>(width) * static_cast<size_t>(height) * kBytesPerPixel;
  GLuint id = 0;
  glCreateBuffers(1, &id);
  pbo_.reset(id);
  // STREAM_DRAW: written once per frame (by CUDA or an upload), read once by the texture copy.
  SLABCAST_GL_CHECK(glNamedBufferData(pbo_.get(), static_cast<GLsizeiptr>(bytes), nullptr, GL_STREAM_DRAW));
  glCreateTextures(GL_TEXTURE_2D, 1, &id);
  texture_.reset(id);
  SLABCAST_GL_CHECK(glTextureStorage2D(texture_.get(), 1, GL_RGBA8, width, height));

  width_ = width;
  height_ = height;
  feed_ = feed;
  switch (feed) {
    case Feed::cuda_interop:
      interop_ = CudaGlBuffer(pbo_.get());
      staging_ = {};
      break;
    case Feed::cuda_copy:
      device_image_.resize(bytes);
      staging_.resize(bytes);
      break;
    case Feed::host_upload:
      staging_.resize(bytes);
      break;
  }
}

FrameStats DisplayPath::render(Renderer& renderer, const FrameSettings& settings, FrameExtras* extras) {
  if (settings.width != width_ || settings.height != height_) {
    throw std::logic_error("DisplayPath::render: frame " + std::to_string(settings.width) + "x" +
                           std::to_string(settings.height) + " but the display path was sized " +
                           std::to_string(width_) + "x" + std::to_string(height_));
  }
  const size_t pitch = static_cast<size_t>(width_) * kBytesPerPixel;
  const size_t bytes = pitch * static_cast<size_t>(height_);
  FrameStats stats;
  switch (feed_) {
    case Feed::cuda_interop: {
      size_t mapped_bytes = 0;
      uint8_t* pixels = interop_.map(&mapped_bytes);
      try {
        if (mapped_bytes < bytes) {
          throw std::runtime_error("mapped pixel buffer holds " + std::to_string(mapped_bytes) + " bytes, " +
                                   std::to_string(bytes) + " needed");
        }
        stats = renderer.render(settings, Surface{pixels, width_, height_, pitch}, extras);
      } catch (...) {
        interop_.unmap();
        throw;
      }
      interop_.unmap();
      return stats;
    }
    case Feed::cuda_copy:
      stats = renderer.render(settings, Surface{device_image_.data(), width_, height_, pitch}, extras);
      device_image_.copy_to_host(staging_.data(), bytes);
      break;
    case Feed::host_upload:
      stats = renderer.render(settings, Surface{staging_.data(), width_, height_, pitch}, extras);
      break;
  }
  SLABCAST_GL_CHECK(glNamedBufferSubData(pbo_.get(), 0, static_cast<GLsizeiptr>(bytes), staging_.data()));
  return stats;
}

void DisplayPath::present(int viewport_width, int viewport_height) {
  timer_->begin();
  // PBO -> texture: with a buffer bound to GL_PIXEL_UNPACK_BUFFER the "pixels" argument is an offset into it.
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pbo_.get());
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
  glTextureSubImage2D(texture_.get(), 0, 0, 0, width_, height_, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);  // ImGui's font upload and glReadPixels expect client memory
  check_gl("DisplayPath::present (texture upload)", __FILE__, __LINE__);
  pass_->draw(texture_.get(), width_, height_, viewport_width, viewport_height);
  timer_->end();
}

}  // namespace slabcast::gl
