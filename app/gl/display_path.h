// The display path, shared by the viewer's window and headless mode (bench times its own copy: app/bench/gl_side.h):
//
//   renderer --(Surface)--> pixel buffer (PBO) --glTextureSubImage2D--> texture --full-screen pass--> framebuffer
//
// How a frame reaches the PBO depends on the backend (the Feed):
//   cuda_interop  the PBO is registered once with CUDA (write-discard) and mapped for each frame; the cuda
//                 renderer writes straight into it: no copy at all.
//   cuda_copy     the cuda renderer writes to device memory, which is copied to the host and uploaded (when GL
//                 runs on a device other than the CUDA one, so interop is impossible).
//   host_upload   the cpu renderer writes to host memory, uploaded with glNamedBufferSubData.
// The full-screen pass (shaders/fullscreen.*) is a class of its own, so another image source (the gl-raster
// reference) can be shown the same way.
#pragma once
#include "app/gl/cuda_interop.h"
#include "app/gl/gl_util.h"
#include "render/renderer.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace slabcast::gl {

enum class Feed : uint8_t { cuda_interop, cuda_copy, host_upload };
const char* feed_name(Feed feed);

// Draws a texture over the whole viewport: shaders/fullscreen.vert + fullscreen.frag, one triangle, no vertex data.
class FullscreenPass {
 public:
  FullscreenPass();  // a GL 4.5 core context must be current
  // Filtering is GL_NEAREST when the texture has the viewport's size (an exact copy), else GL_LINEAR.
  void draw(GLuint texture, int texture_width, int texture_height, int viewport_width, int viewport_height) const;

 private:
  GlProgram program_;
  GlVertexArray empty_vao_;  // core profile draws need a bound vertex array object, even with no attributes
  GlSampler nearest_, linear_;
};

class DisplayPath {
 public:
  DisplayPath() = default;  // a GL 4.5 core context must be current for every call
  DisplayPath(const DisplayPath&) = delete;
  DisplayPath& operator=(const DisplayPath&) = delete;

  // (Re)creates the PBO, its CUDA registration and the texture for width x height RGBA8 fed by `feed`; a no-op
  // when nothing changed. width, height >= 1.
  void resize(int width, int height, Feed feed);
  // Renders one frame with `renderer` into the PBO (map -> render -> unmap, or render -> upload).
  // settings.width/height must equal the size given to resize().
  FrameStats render(Renderer& renderer, const FrameSettings& settings, FrameExtras* extras = nullptr);
  // PBO -> texture, then the full-screen pass over the current viewport size; timed by a GL timer query.
  void present(int viewport_width, int viewport_height);

  float display_ms() { return timer_ ? timer_->last_ms() : 0.0f; }  // GPU time of present(), a few frames old
  int width() const { return width_; }
  int height() const { return height_; }
  Feed feed() const { return feed_; }
  GLuint texture() const { return texture_.get(); }

 private:
  int width_ = 0, height_ = 0;
  Feed feed_ = Feed::host_upload;
  GlBuffer pbo_;
  GlTexture texture_;
  CudaGlBuffer interop_;           // cuda_interop only
  DeviceImage device_image_;       // cuda_copy only
  std::vector<uint8_t> staging_;   // cuda_copy and host_upload: the frame in host memory
  std::unique_ptr<FullscreenPass> pass_;
  std::unique_ptr<GlTimer> timer_;
};

}  // namespace slabcast::gl
