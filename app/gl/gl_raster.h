// The hardware-raster reference (docs/architecture.md): the same mesh and the same deformation as the ray caster,
// drawn by OpenGL with a depth buffer, writing the same colour and a triangle-ID buffer. `slabcast bench` times it
// in the same process on the same GPU (ours / reference per scene), and its ID buffer is an independent
// cross-check of the ray caster's visibility: the two must agree except along the edges between triangles,
// where two different exact coverage rules may pick different neighbours for a pixel whose centre lies on or
// very near the shared edge.
//
// One frame: clear -> glDrawElements(GL_TRIANGLES) over the mesh's index buffer, with the deformation in the
// vertex shader (shaders/raster.vert: the GLSL twin of render/stages/deform.h) and shading + ID in the fragment shader
// (shaders/raster.frag). Conventions as docs/architecture.md: pixel centres, camera, triangle ID = index in the
// mesh, miss = 0xFFFFFFFF, lower ID wins on equal depth. The colour uses face normals (see raster.frag): the
// default "phong" view looks like "flat"; the ray caster's debug views (slab, heat maps) show as phong.
#pragma once
#include "app/gl/gl_util.h"
#include "render/renderer.h"

#include <glm/glm.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace slabcast::gl {

class GlRaster {
 public:
  // Needs a current OpenGL 4.5 core context (EglContext or the window's) for its whole life. Uploads the rest
  // positions and indices once. A mesh with no triangles is allowed (every frame is all background / misses).
  // Throws std::invalid_argument naming the mesh if an index is out of range, std::runtime_error naming the mesh
  // and the bytes needed if GL runs out of memory.
  explicit GlRaster(const Mesh& mesh);
  ~GlRaster();
  GlRaster(const GlRaster&) = delete;
  GlRaster& operator=(const GlRaster&) = delete;

  // Draws one frame of `settings` (size, camera, deformer + time, shading; slabs are ignored) into its own
  // framebuffer: RGBA8 colour, R32UI triangle ID and a float depth buffer, (re)allocated when the size changes.
  // The deformation runs in the vertex shader every frame. Returns the GPU time of the frame (clear + draw:
  // deform + raster + shade, the peer of the ray caster's full frame) in milliseconds from a GL_TIME_ELAPSED
  // query, waiting for it; NaN when that was not measured: the context has no timer (0 counter bits), or it gave
  // more time than passed on the host's clock while the frame ran (Mesa's software drivers report such values), so
  // no figure that was not measured is ever shown. Throws std::invalid_argument for bad settings (as the renderer
  // does).
  // GL state it changes (framebuffer, viewport, program, vertex array, depth test, clip control, ...) is put back.
  //
  // With settings.shadows and a sun, the frame first draws a classic shadow map of the sun (an orthographic depth
  // pass over the scene's deformed bounds into a set_shadow_map_size() square, no filtering), in the timed frame, and
  // writes the shadow mask read_shadow_mask() returns. Point lights and the headlight get no shadow map.
  float render(const FrameSettings& settings);
  // The same frame without the timer query and without waiting (warm-up, the viewer).
  void render_untimed(const FrameSettings& settings);

  int width() const { return width_; }   // of the last frame (0 before the first)
  int height() const { return height_; }
  // The colour attachment: RGBA8, as GL stores it, so row 0 is the BOTTOM row of the picture (unlike every
  // slabcast image, whose row 0 is the top). 0 before the first frame.
  GLuint color_texture() const { return color_.get(); }
  GLuint triangle_id_texture() const { return ids_.get(); }  // R32UI, row 0 = bottom
  GLuint framebuffer() const { return fbo_.get(); }
  std::vector<uint8_t> read_color() const;          // RGBA8, row 0 = TOP, width * height * 4
  std::vector<uint32_t> read_triangle_ids() const;  // row 0 = TOP, width * height; miss = 0xFFFFFFFF
  // The last frame's shadow mask (a frame with a shadow map): row 0 = TOP, 0 in shadow, 255 lit, 128 no hit; empty
  // when the last frame had none.
  std::vector<uint8_t> read_shadow_mask() const;
  // The shadow map's side in texels (default 2048).
  void set_shadow_map_size(int texels);
  int shadow_map_size() const { return shadow_map_size_; }
  // Whether a frame of `settings` draws a shadow map.
  static bool has_shadow_map(const FrameSettings& settings) {
    return settings.shadows && settings.light.type == LightType::sun;
  }
  // Copies the colour of the last frame into the bound draw framebuffer's viewport (0, 0, w, h) with
  // glBlitFramebuffer: GL_NEAREST at equal size (an exact copy), GL_LINEAR otherwise. The scissor test is off for
  // the copy. The destination must not be multisampled.
  void blit_to_bound_framebuffer(int viewport_width, int viewport_height) const;

  // The deformed world-space positions of every vertex, computed by the vertex shader (transform feedback, no
  // rasterization): for the tests that compare it with render/stages/deform.h. Slow (allocates and synchronizes); before
  // the first frame it allocates a 1x1 framebuffer (a draw needs one), so width() and height() read 1 after it.
  std::vector<glm::vec3> deformed_positions(const DeformParams& deform);

  const std::string& mesh_name() const { return mesh_name_; }
  uint64_t triangle_count() const { return triangles_; }
  size_t gpu_bytes() const;  // mesh buffers + framebuffer attachments

 private:
  void resize(int width, int height, bool with_mask);
  void set_uniforms(const FrameSettings& settings);
  void set_camera_uniforms(const glm::vec3& eye, const glm::vec3& right, const glm::vec3& up, const glm::vec3& back,
                           const glm::vec2& ndc_scale);
  void ensure_shadow_map();
  void draw_frame();  // [shadow map +] clear + draw into fbo_; state already set

  std::string mesh_name_;
  uint64_t vertices_ = 0, triangles_ = 0;
  glm::vec3 bounds_center_{0.0f};
  float bounds_radius_ = 1.0f;
  GlProgram program_;
  GlBuffer positions_, indices_;
  GlVertexArray vao_;
  GlQuery timer_;
  int width_ = 0, height_ = 0;
  GlTexture color_, ids_, depth_, mask_;
  GlFramebuffer fbo_;
  // The sun's shadow map, and the camera of its pass and of the frame (set_uniforms), to switch between them.
  int shadow_map_size_ = 2048, shadow_map_allocated_ = 0;
  GlTexture shadow_map_;
  GlFramebuffer shadow_fbo_;
  bool shadow_pass_ = false;
  Color8 background_ = kDefaultBackground;  // the frame's FrameSettings::background
  struct PassCamera {
    glm::vec3 eye{0.0f}, right{1, 0, 0}, up{0, 1, 0}, back{0, 0, 1};
    glm::vec2 ndc_scale{1.0f};
  } frame_camera_, light_camera_;
  glm::vec2 light_depth_{0.0f};  // (far, 1 / (far - near)) of the light's pass
};

// Agreement of two triangle-ID images (row-major, width * height, any row order as long as both share it).
// A pixel is next to an ID edge in an image when one of its 8 neighbours (inside the image) has another ID there.
struct IdAgreement {
  uint64_t pixels = 0, equal = 0, differing = 0;
  uint64_t differing_off_edges = 0;  // differing pixels next to no ID edge in either image (should be ~0)
  double fraction() const;           // equal / pixels; 1 for an empty image (nothing disagrees)
};
// Throws std::invalid_argument if a size is not width * height.
IdAgreement compare_triangle_ids(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b, int width,
                                 int height);

// For a command-line caller (`slabcast render --backend gl-raster`): one frame in a fresh EglContext (the NVIDIA
// EGL device of CUDA device `want_cuda_device` when >= 0 and present, else Mesa's software device or any other;
// see egl_context.h), after `warmup` untimed frames. No other EglContext may exist meanwhile.
struct GlRasterFrame {
  int width = 0, height = 0;
  std::vector<uint8_t> color;           // RGBA8, row 0 = top
  std::vector<uint32_t> triangle_ids;   // row 0 = top; miss = 0xFFFFFFFF
  std::vector<uint8_t> shadow_mask;     // row 0 = top (a frame with a shadow map; else empty)
  float gpu_ms = 0.0f;                  // the timed (last) frame
  std::string gl_description;           // EglContext::description()
};
GlRasterFrame render_gl_raster_frame(const Mesh& mesh, const FrameSettings& settings, int want_cuda_device = -1,
                                     int warmup = 0, int shadow_map_size = 2048);

}  // namespace slabcast::gl
