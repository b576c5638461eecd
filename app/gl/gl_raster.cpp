#include "app/gl/gl_raster.h"

#include "app/gl/egl_context.h"
#include "render/constants.h"
#include "render/frame_setup.h"
#include "render/stages/shade.h"

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <limits>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace slabcast::gl {

namespace {

// Uniform locations (layout(location = N) in shaders/raster.vert and raster.frag).
enum Uniform : GLint {
  kUniformKind = 0,
  kUniformAmount = 1,
  kUniformTime = 2,
  kUniformCenter = 3,
  kUniformInvRadius = 4,
  kUniformRadius = 5,
  kUniformEye = 6,
  kUniformRight = 7,
  kUniformUp = 8,
  kUniformBack = 9,
  kUniformNdcScale = 10,
  kUniformNear = 11,
  kUniformShading = 12,
  kUniformDepthRange = 13,
  kUniformOrthoDepth = 14,
  kUniformLightKind = 15,
  kUniformSunView = 16,
  kUniformShadowMapOn = 17,
  kUniformLightEye = 18,
  kUniformLightRight = 19,
  kUniformLightUp = 20,
  kUniformLightBack = 21,
  kUniformLightScale = 22,
  kUniformLightDepth = 23,
  kUniformShadowBias = 24,
};
constexpr GLuint kPositionAttribute = 0;  // a_rest
constexpr GLuint kColorAttachment = 0, kIdAttachment = 1, kMaskAttachment = 2;
constexpr GLuint kShadowMapUnit = 0;  // raster.frag's u_shadow_map binding
// The shadow map's depth bias, in its normalized depth (the scene's deformed bounding sphere spans [0, 1] along the
// sun): a classic constant bias against self-shadowing, 1/1024 of the scene's diameter.
constexpr float kShadowBias = 1.0f / 1024.0f;

// The near plane as a fraction of the scene's extent (eye-to-centre distance + radius). With reversed, infinite
// float depth the near plane costs no precision, so it can sit this close: the ray caster shows any hit with
// t > 0, and a triangle that close to the eye covers the screen anyway.
constexpr float kNearFraction = 1e-6f;

// How far the deformers can move a vertex, in bounding radii per unit of `amount` (render/stages/deform.h): wave lifts
// by 0.08 r, pulse scales the distance from the centre by up to 1 + 0.1; twist and bend rotate about the centre.
// Only the depth view's near / far use it.
constexpr float kDeformReachPerAmount = 0.1f + 0.08f;

std::string mib_text(uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return text;
}

// glNamedBufferStorage / glTextureStorage2D report GL_OUT_OF_MEMORY through the error flag: turn it into an
// error that names the mesh, what was being allocated and its size.
void check_allocation(const std::string& mesh_name, const char* what, uint64_t bytes) {
  const GLenum error = glGetError();
  if (error == GL_NO_ERROR) return;
  while (glGetError() != GL_NO_ERROR) {
  }
  if (error == GL_OUT_OF_MEMORY) {
    throw std::runtime_error("out of GPU memory: the gl-raster reference of " + mesh_name + " needs " +
                             mib_text(bytes) + " (" + std::to_string(bytes) + " bytes) for " + what);
  }
  throw std::runtime_error("allocating " + std::string(what) + " (" + std::to_string(bytes) +
                           " bytes) for the gl-raster reference of " + mesh_name + " failed: GL error 0x" +
                           [&] {
                             char hex[16];
                             std::snprintf(hex, sizeof hex, "%04X", static_cast<unsigned>(error));
                             return std::string(hex);
                           }());
}

GLuint create_buffer() {
  GLuint id = 0;
  glCreateBuffers(1, &id);
  return id;
}

GLuint create_texture() {
  GLuint id = 0;
  glCreateTextures(GL_TEXTURE_2D, 1, &id);
  return id;
}

bool is_enabled(GLenum cap) { return glIsEnabled(cap) == GL_TRUE; }
void set_enabled(GLenum cap, bool on) {
  if (on) {
    glEnable(cap);
  } else {
    glDisable(cap);
  }
}

// The GL state a frame changes, saved on construction and put back on destruction, so that the viewer's display
// path and Dear ImGui find what they left (both set most of their state themselves, but not clip control).
class SavedState {
 public:
  SavedState() {
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &draw_framebuffer_);
    glGetIntegerv(GL_VIEWPORT, viewport_);
    glGetIntegerv(GL_CURRENT_PROGRAM, &program_);
    glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &vertex_array_);
    glGetIntegerv(GL_DEPTH_FUNC, &depth_func_);
    glGetBooleanv(GL_DEPTH_WRITEMASK, &depth_mask_);
    glGetIntegerv(GL_CLIP_ORIGIN, &clip_origin_);
    glGetIntegerv(GL_CLIP_DEPTH_MODE, &clip_depth_mode_);
    depth_test_ = is_enabled(GL_DEPTH_TEST);
    scissor_test_ = is_enabled(GL_SCISSOR_TEST);
    blend_ = is_enabled(GL_BLEND);
    cull_face_ = is_enabled(GL_CULL_FACE);
    rasterizer_discard_ = is_enabled(GL_RASTERIZER_DISCARD);
  }
  ~SavedState() {
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, static_cast<GLuint>(draw_framebuffer_));
    glViewport(viewport_[0], viewport_[1], viewport_[2], viewport_[3]);
    glUseProgram(static_cast<GLuint>(program_));
    glBindVertexArray(static_cast<GLuint>(vertex_array_));
    glDepthFunc(static_cast<GLenum>(depth_func_));
    glDepthMask(depth_mask_);
    glClipControl(static_cast<GLenum>(clip_origin_), static_cast<GLenum>(clip_depth_mode_));
    set_enabled(GL_DEPTH_TEST, depth_test_);
    set_enabled(GL_SCISSOR_TEST, scissor_test_);
    set_enabled(GL_BLEND, blend_);
    set_enabled(GL_CULL_FACE, cull_face_);
    set_enabled(GL_RASTERIZER_DISCARD, rasterizer_discard_);
  }
  SavedState(const SavedState&) = delete;
  SavedState& operator=(const SavedState&) = delete;

 private:
  GLint draw_framebuffer_ = 0, viewport_[4] = {0, 0, 0, 0}, program_ = 0, vertex_array_ = 0;
  GLint depth_func_ = GL_LESS, clip_origin_ = GL_LOWER_LEFT, clip_depth_mode_ = GL_NEGATIVE_ONE_TO_ONE;
  GLboolean depth_mask_ = GL_TRUE;
  bool depth_test_ = false, scissor_test_ = false, blend_ = false, cull_face_ = false, rasterizer_discard_ = false;
};

// Rows of a bottom-up GL image (row 0 = bottom) into image order (row 0 = top).
template <typename T>
std::vector<T> flip_rows(const std::vector<T>& bottom_up, int width, int height, int per_pixel) {
  const size_t row = static_cast<size_t>(width) * static_cast<size_t>(per_pixel);
  std::vector<T> top_down(bottom_up.size());
  for (int y = 0; y < height; ++y) {
    std::memcpy(&top_down[row * static_cast<size_t>(y)], &bottom_up[row * static_cast<size_t>(height - 1 - y)],
                row * sizeof(T));
  }
  return top_down;
}

}  // namespace

GlRaster::GlRaster(const Mesh& mesh)
    : mesh_name_(mesh.name.empty() ? std::string("(unnamed mesh)") : mesh.name),
      vertices_(mesh.positions.size()),
      triangles_(mesh.triangle_count()) {
  const uint64_t index_count = triangles_ * 3;
  for (uint64_t i = 0; i < index_count; ++i) {
    if (mesh.indices[i] >= vertices_) {
      throw std::invalid_argument("gl-raster reference: mesh " + mesh_name_ + ", triangle " + std::to_string(i / 3) +
                                  " has vertex index " + std::to_string(mesh.indices[i]) + " (the mesh has " +
                                  std::to_string(vertices_) + " vertices)");
    }
  }
  if (triangles_ > static_cast<uint64_t>(INT32_MAX) / 3) {  // glDrawElements takes a GLsizei count
    throw std::invalid_argument("gl-raster reference: mesh " + mesh_name_ + " has too many triangles (" +
                                std::to_string(triangles_) + ") for one glDrawElements");
  }
  const MeshBounds bounds = rest_bounds(mesh);
  bounds_center_ = glm::vec3(bounds.center.x, bounds.center.y, bounds.center.z);
  bounds_radius_ = bounds.radius;

  program_ = make_program("raster.vert", "raster.frag");
  GLuint id = 0;
  glCreateVertexArrays(1, &id);
  vao_.reset(id);
  glCreateQueries(GL_TIME_ELAPSED, 1, &id);
  timer_.reset(id);
  check_gl("creating the gl-raster reference's objects", __FILE__, __LINE__);

  // Empty buffers cannot be created (size 0 is GL_INVALID_VALUE); a mesh without triangles draws nothing.
  if (vertices_ > 0) {
    const uint64_t bytes = vertices_ * sizeof(glm::vec3);
    positions_.reset(create_buffer());
    glNamedBufferStorage(positions_.get(), static_cast<GLsizeiptr>(bytes), mesh.positions.data(), 0);
    check_allocation(mesh_name_, "the rest positions", bytes);
    SLABCAST_GL_CHECK(glVertexArrayVertexBuffer(vao_.get(), 0, positions_.get(), 0, sizeof(glm::vec3)));
    SLABCAST_GL_CHECK(glVertexArrayAttribFormat(vao_.get(), kPositionAttribute, 3, GL_FLOAT, GL_FALSE, 0));
    SLABCAST_GL_CHECK(glVertexArrayAttribBinding(vao_.get(), kPositionAttribute, 0));
    SLABCAST_GL_CHECK(glEnableVertexArrayAttrib(vao_.get(), kPositionAttribute));
  }
  if (triangles_ > 0) {
    const uint64_t bytes = index_count * sizeof(uint32_t);
    indices_.reset(create_buffer());
    glNamedBufferStorage(indices_.get(), static_cast<GLsizeiptr>(bytes), mesh.indices.data(), 0);
    check_allocation(mesh_name_, "the triangle indices", bytes);
    SLABCAST_GL_CHECK(glVertexArrayElementBuffer(vao_.get(), indices_.get()));
  }
}

GlRaster::~GlRaster() = default;

void GlRaster::resize(int width, int height, bool with_mask) {
  if (width == width_ && height == height_ && fbo_ && with_mask == static_cast<bool>(mask_)) return;
  fbo_.reset();
  color_.reset();
  ids_.reset();
  depth_.reset();
  mask_.reset();
  width_ = height_ = 0;
  const uint64_t pixels = static_cast<uint64_t>(width) * static_cast<uint64_t>(height);
  const std::string size = std::to_string(width) + "x" + std::to_string(height);
  color_.reset(create_texture());
  glTextureStorage2D(color_.get(), 1, GL_RGBA8, width, height);
  check_allocation(mesh_name_, ("the " + size + " colour buffer").c_str(), pixels * 4);
  ids_.reset(create_texture());
  glTextureStorage2D(ids_.get(), 1, GL_R32UI, width, height);
  check_allocation(mesh_name_, ("the " + size + " triangle-ID buffer").c_str(), pixels * 4);
  depth_.reset(create_texture());
  glTextureStorage2D(depth_.get(), 1, GL_DEPTH_COMPONENT32F, width, height);
  check_allocation(mesh_name_, ("the " + size + " depth buffer").c_str(), pixels * 4);

  if (with_mask) {
    mask_.reset(create_texture());
    glTextureStorage2D(mask_.get(), 1, GL_R8UI, width, height);
    check_allocation(mesh_name_, ("the " + size + " shadow mask").c_str(), pixels);
  }

  GLuint id = 0;
  glCreateFramebuffers(1, &id);
  fbo_.reset(id);
  SLABCAST_GL_CHECK(glNamedFramebufferTexture(fbo_.get(), GL_COLOR_ATTACHMENT0 + kColorAttachment, color_.get(), 0));
  SLABCAST_GL_CHECK(glNamedFramebufferTexture(fbo_.get(), GL_COLOR_ATTACHMENT0 + kIdAttachment, ids_.get(), 0));
  if (with_mask) {
    SLABCAST_GL_CHECK(glNamedFramebufferTexture(fbo_.get(), GL_COLOR_ATTACHMENT0 + kMaskAttachment, mask_.get(), 0));
  }
  SLABCAST_GL_CHECK(glNamedFramebufferTexture(fbo_.get(), GL_DEPTH_ATTACHMENT, depth_.get(), 0));
  const GLenum draw_buffers[3] = {GL_COLOR_ATTACHMENT0 + kColorAttachment, GL_COLOR_ATTACHMENT0 + kIdAttachment,
                                  GL_COLOR_ATTACHMENT0 + kMaskAttachment};
  SLABCAST_GL_CHECK(glNamedFramebufferDrawBuffers(fbo_.get(), with_mask ? 3 : 2, draw_buffers));
  SLABCAST_GL_CHECK(glNamedFramebufferReadBuffer(fbo_.get(), GL_COLOR_ATTACHMENT0 + kColorAttachment));
  const GLenum status = glCheckNamedFramebufferStatus(fbo_.get(), GL_FRAMEBUFFER);
  if (status != GL_FRAMEBUFFER_COMPLETE) {
    char text[16];
    std::snprintf(text, sizeof text, "0x%04X", static_cast<unsigned>(status));
    throw std::runtime_error("gl-raster reference: the " + size + " framebuffer is incomplete (status " + text + ")");
  }
  width_ = width;
  height_ = height;
}

void GlRaster::set_uniforms(const FrameSettings& settings) {
  const GLuint p = program_.get();
  const ViewParams view = make_view_params(settings.camera, settings.width, settings.height);
  const DeformParams& deform = settings.deform;
  glProgramUniform1i(p, kUniformKind, static_cast<GLint>(deform.kind));
  glProgramUniform1f(p, kUniformAmount, deform.amount);
  glProgramUniform1f(p, kUniformTime, deform.time);
  glProgramUniform3f(p, kUniformCenter, bounds_center_.x, bounds_center_.y, bounds_center_.z);
  glProgramUniform1f(p, kUniformInvRadius, 1.0f / bounds_radius_);  // as deform_vertex's sc_div(1, radius)
  glProgramUniform1f(p, kUniformRadius, bounds_radius_);
  frame_camera_ = PassCamera{glm::vec3(view.eye.x, view.eye.y, view.eye.z),
                             glm::vec3(view.right.x, view.right.y, view.right.z),
                             glm::vec3(view.up.x, view.up.y, view.up.z), glm::vec3(view.back.x, view.back.y, view.back.z),
                             glm::vec2(1.0f / (view.tan_half_fovy * view.aspect), 1.0f / view.tan_half_fovy)};
  set_camera_uniforms(frame_camera_.eye, frame_camera_.right, frame_camera_.up, frame_camera_.back,
                      frame_camera_.ndc_scale);

  // The scene's extent around the rest bounds, grown by how far the deformer can move a vertex.
  const glm::vec3 eye = settings.camera.eye;
  const float reach = bounds_radius_ * (1.0f + kDeformReachPerAmount * std::fabs(deform.amount));
  const float centre_distance = glm::length(bounds_center_ - eye);
  glProgramUniform1f(p, kUniformNear, std::max(kNearFraction * (centre_distance + reach), FLT_MIN));
  // The depth view's near / far: the ray caster fits them to the visible triangles each frame; here they come
  // from the deformed bounds (same look, not the same numbers).
  const glm::vec3 forward = glm::vec3(-view.back.x, -view.back.y, -view.back.z);
  const float centre_depth = glm::dot(bounds_center_ - eye, forward);
  glProgramUniform2f(p, kUniformDepthRange, std::max(centre_depth - reach, 0.0f), centre_depth + reach);
  glProgramUniform1i(p, kUniformShading, static_cast<GLint>(settings.shading));
  background_ = settings.background;

  // The light. A sun shades as the ray caster's does; with shadows, its map's camera looks along the sun onto the
  // scene's deformed bounding sphere from outside it, the sphere's diameter its depth range.
  const bool sun = settings.light.type == LightType::sun;
  glm::vec3 to_sun(0.0f, 0.0f, 1.0f);
  if (sun) to_sun = glm::normalize(settings.light.vector);
  glProgramUniform1i(p, kUniformLightKind, sun ? 1 : 0);
  const glm::vec3 sun_view(glm::dot(frame_camera_.right, to_sun), glm::dot(frame_camera_.up, to_sun),
                           glm::dot(frame_camera_.back, to_sun));
  glProgramUniform3f(p, kUniformSunView, sun_view.x, sun_view.y, sun_view.z);
  shadow_pass_ = has_shadow_map(settings);
  glProgramUniform1i(p, kUniformShadowMapOn, shadow_pass_ ? 1 : 0);
  glProgramUniform2f(p, kUniformOrthoDepth, 0.0f, 0.0f);
  if (shadow_pass_) {
    const glm::vec3 helper = std::fabs(to_sun.y) < 0.9f ? glm::vec3(0, 1, 0) : glm::vec3(1, 0, 0);
    const glm::vec3 right = glm::normalize(glm::cross(helper, to_sun));
    const glm::vec3 up = glm::cross(to_sun, right);
    light_camera_ = PassCamera{bounds_center_ + to_sun * (2.0f * reach), right, up, to_sun, glm::vec2(1.0f / reach)};
    light_depth_ = glm::vec2(3.0f * reach, 1.0f / (2.0f * reach));  // depths [reach, 3 reach] from its eye
    glProgramUniform3f(p, kUniformLightEye, light_camera_.eye.x, light_camera_.eye.y, light_camera_.eye.z);
    glProgramUniform3f(p, kUniformLightRight, right.x, right.y, right.z);
    glProgramUniform3f(p, kUniformLightUp, up.x, up.y, up.z);
    glProgramUniform3f(p, kUniformLightBack, to_sun.x, to_sun.y, to_sun.z);
    glProgramUniform2f(p, kUniformLightScale, light_camera_.ndc_scale.x, light_camera_.ndc_scale.y);
    glProgramUniform2f(p, kUniformLightDepth, light_depth_.x, light_depth_.y);
    glProgramUniform1f(p, kUniformShadowBias, kShadowBias);
  }
  check_gl("setting the gl-raster reference's uniforms", __FILE__, __LINE__);
}

void GlRaster::set_camera_uniforms(const glm::vec3& eye, const glm::vec3& right, const glm::vec3& up,
                                   const glm::vec3& back, const glm::vec2& ndc_scale) {
  const GLuint p = program_.get();
  glProgramUniform3f(p, kUniformEye, eye.x, eye.y, eye.z);
  glProgramUniform3f(p, kUniformRight, right.x, right.y, right.z);
  glProgramUniform3f(p, kUniformUp, up.x, up.y, up.z);
  glProgramUniform3f(p, kUniformBack, back.x, back.y, back.z);
  glProgramUniform2f(p, kUniformNdcScale, ndc_scale.x, ndc_scale.y);
}

void GlRaster::set_shadow_map_size(int texels) {
  if (texels < 1 || texels > 16384) {
    throw std::invalid_argument("gl-raster reference: shadow map size " + std::to_string(texels) +
                                " is out of range 1..16384");
  }
  shadow_map_size_ = texels;
}

void GlRaster::ensure_shadow_map() {
  if (shadow_map_ && shadow_map_allocated_ == shadow_map_size_) return;
  shadow_fbo_.reset();
  shadow_map_.reset();
  shadow_map_allocated_ = 0;
  const int n = shadow_map_size_;
  shadow_map_.reset(create_texture());
  glTextureStorage2D(shadow_map_.get(), 1, GL_DEPTH_COMPONENT32F, n, n);
  check_allocation(mesh_name_, "the shadow map", static_cast<uint64_t>(n) * static_cast<uint64_t>(n) * 4);
  glTextureParameteri(shadow_map_.get(), GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTextureParameteri(shadow_map_.get(), GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTextureParameteri(shadow_map_.get(), GL_TEXTURE_COMPARE_MODE, GL_NONE);
  GLuint id = 0;
  glCreateFramebuffers(1, &id);
  shadow_fbo_.reset(id);
  SLABCAST_GL_CHECK(glNamedFramebufferTexture(shadow_fbo_.get(), GL_DEPTH_ATTACHMENT, shadow_map_.get(), 0));
  SLABCAST_GL_CHECK(glNamedFramebufferDrawBuffer(shadow_fbo_.get(), GL_NONE));
  const GLenum status = glCheckNamedFramebufferStatus(shadow_fbo_.get(), GL_FRAMEBUFFER);
  if (status != GL_FRAMEBUFFER_COMPLETE) throw std::runtime_error("gl-raster reference: the shadow map is incomplete");
  shadow_map_allocated_ = n;
}

void GlRaster::draw_frame() {
  // The frame's background as the ray caster's shade stage writes it (opaque), in the unsigned-normalized form GL
  // converts back exactly.
  const GLfloat background[4] = {background_.r / 255.0f, background_.g / 255.0f, background_.b / 255.0f, 1.0f};
  const GLuint miss[4] = {kNoHit, 0, 0, 0};
  const GLfloat farthest = 0.0f;  // reversed depth: 0 is infinitely far
  if (shadow_pass_) {  // the sun's depth from its camera first, orthographic (raster.vert's u_ortho_depth)
    const GLuint p = program_.get();
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, shadow_fbo_.get());
    glViewport(0, 0, shadow_map_size_, shadow_map_size_);
    glClearNamedFramebufferfv(shadow_fbo_.get(), GL_DEPTH, 0, &farthest);
    set_camera_uniforms(light_camera_.eye, light_camera_.right, light_camera_.up, light_camera_.back,
                        light_camera_.ndc_scale);
    glProgramUniform2f(p, kUniformOrthoDepth, light_depth_.x, light_depth_.y);
    if (triangles_ > 0) glDrawElements(GL_TRIANGLES, static_cast<GLsizei>(triangles_ * 3), GL_UNSIGNED_INT, nullptr);
    set_camera_uniforms(frame_camera_.eye, frame_camera_.right, frame_camera_.up, frame_camera_.back,
                        frame_camera_.ndc_scale);
    glProgramUniform2f(p, kUniformOrthoDepth, 0.0f, 0.0f);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, fbo_.get());
    glViewport(0, 0, width_, height_);
    glBindTextureUnit(kShadowMapUnit, shadow_map_.get());
  }
  glClearNamedFramebufferfv(fbo_.get(), GL_COLOR, static_cast<GLint>(kColorAttachment), background);
  glClearNamedFramebufferuiv(fbo_.get(), GL_COLOR, static_cast<GLint>(kIdAttachment), miss);
  if (mask_) {
    const GLuint no_hit[4] = {128, 0, 0, 0};
    glClearNamedFramebufferuiv(fbo_.get(), GL_COLOR, static_cast<GLint>(kMaskAttachment), no_hit);
  }
  glClearNamedFramebufferfv(fbo_.get(), GL_DEPTH, 0, &farthest);
  if (triangles_ > 0) {
    glDrawElements(GL_TRIANGLES, static_cast<GLsizei>(triangles_ * 3), GL_UNSIGNED_INT, nullptr);
  }
  if (shadow_pass_) glBindTextureUnit(kShadowMapUnit, 0);
}

std::vector<uint8_t> GlRaster::read_shadow_mask() const {
  if (!mask_) return {};
  std::vector<uint8_t> bottom_up(static_cast<size_t>(width_) * static_cast<size_t>(height_));
  GLint pack_buffer = 0;
  glGetIntegerv(GL_PIXEL_PACK_BUFFER_BINDING, &pack_buffer);
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glGetTextureImage(mask_.get(), 0, GL_RED_INTEGER, GL_UNSIGNED_BYTE, static_cast<GLsizei>(bottom_up.size()),
                    bottom_up.data());
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  glBindBuffer(GL_PIXEL_PACK_BUFFER, static_cast<GLuint>(pack_buffer));
  check_gl("reading the gl-raster reference's shadow mask", __FILE__, __LINE__);
  return flip_rows(bottom_up, width_, height_, 1);
}

namespace {
// Binds the frame's framebuffer, program and state (a SavedState puts the previous ones back).
void bind_frame_state(GLuint framebuffer, GLuint program, GLuint vertex_array, int width, int height) {
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, framebuffer);
  glViewport(0, 0, width, height);
  glUseProgram(program);
  glBindVertexArray(vertex_array);
  glClipControl(GL_LOWER_LEFT, GL_ZERO_TO_ONE);  // depth = z / w with z = near: reversed, infinite (raster.vert)
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_GREATER);  // nearer = larger; on equal depth the earlier (lower) triangle ID stays
  glDepthMask(GL_TRUE);
  glDisable(GL_SCISSOR_TEST);  // clears obey the scissor box
  glDisable(GL_BLEND);
  glDisable(GL_CULL_FACE);  // two-sided, as the ray caster
  glDisable(GL_RASTERIZER_DISCARD);
}
}  // namespace

void GlRaster::render_untimed(const FrameSettings& settings) {
  check_settings(settings);
  resize(settings.width, settings.height, has_shadow_map(settings));
  if (has_shadow_map(settings)) ensure_shadow_map();
  set_uniforms(settings);
  const SavedState saved;
  bind_frame_state(fbo_.get(), program_.get(), vao_.get(), width_, height_);
  draw_frame();
  check_gl("gl-raster reference frame", __FILE__, __LINE__);
}

float GlRaster::render(const FrameSettings& settings) {
  check_settings(settings);
  resize(settings.width, settings.height, has_shadow_map(settings));
  if (has_shadow_map(settings)) ensure_shadow_map();
  set_uniforms(settings);
  double gpu_ms = 0.0;
  {
    const SavedState saved;
    bind_frame_state(fbo_.get(), program_.get(), vao_.get(), width_, height_);
    gpu_ms = timed_gl_span(timer_.get(), [&] { draw_frame(); });
  }
  check_gl("gl-raster reference frame", __FILE__, __LINE__);
  return static_cast<float>(gpu_ms);  // NaN where the timer measured nothing believable
}

std::vector<uint8_t> GlRaster::read_color() const {
  if (!color_) return {};
  std::vector<uint8_t> bottom_up(static_cast<size_t>(width_) * static_cast<size_t>(height_) * 4);
  GLint pack_buffer = 0;
  glGetIntegerv(GL_PIXEL_PACK_BUFFER_BINDING, &pack_buffer);
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glGetTextureImage(color_.get(), 0, GL_RGBA, GL_UNSIGNED_BYTE, static_cast<GLsizei>(bottom_up.size()),
                    bottom_up.data());
  glBindBuffer(GL_PIXEL_PACK_BUFFER, static_cast<GLuint>(pack_buffer));
  check_gl("reading the gl-raster reference's colour", __FILE__, __LINE__);
  return flip_rows(bottom_up, width_, height_, 4);
}

std::vector<uint32_t> GlRaster::read_triangle_ids() const {
  if (!ids_) return {};
  std::vector<uint32_t> bottom_up(static_cast<size_t>(width_) * static_cast<size_t>(height_));
  GLint pack_buffer = 0;
  glGetIntegerv(GL_PIXEL_PACK_BUFFER_BINDING, &pack_buffer);
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  glGetTextureImage(ids_.get(), 0, GL_RED_INTEGER, GL_UNSIGNED_INT,
                    static_cast<GLsizei>(bottom_up.size() * sizeof(uint32_t)), bottom_up.data());
  glBindBuffer(GL_PIXEL_PACK_BUFFER, static_cast<GLuint>(pack_buffer));
  check_gl("reading the gl-raster reference's triangle IDs", __FILE__, __LINE__);
  return flip_rows(bottom_up, width_, height_, 1);
}

void GlRaster::blit_to_bound_framebuffer(int viewport_width, int viewport_height) const {
  if (!fbo_ || viewport_width <= 0 || viewport_height <= 0) return;
  GLint target = 0;
  glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &target);
  const bool scissor = is_enabled(GL_SCISSOR_TEST);
  glDisable(GL_SCISSOR_TEST);
  const bool same_size = viewport_width == width_ && viewport_height == height_;
  glBlitNamedFramebuffer(fbo_.get(), static_cast<GLuint>(target), 0, 0, width_, height_, 0, 0, viewport_width,
                         viewport_height, GL_COLOR_BUFFER_BIT, same_size ? GL_NEAREST : GL_LINEAR);
  set_enabled(GL_SCISSOR_TEST, scissor);
  check_gl("blitting the gl-raster reference's colour", __FILE__, __LINE__);
}

std::vector<glm::vec3> GlRaster::deformed_positions(const DeformParams& deform) {
  if (vertices_ == 0) return {};
  FrameSettings settings;  // only the deformer matters: the captured output is the world-space position
  settings.width = settings.height = 1;
  settings.deform = deform;
  set_uniforms(settings);
  const uint64_t bytes = vertices_ * sizeof(glm::vec3);
  GlBuffer captured(create_buffer());
  glNamedBufferStorage(captured.get(), static_cast<GLsizeiptr>(bytes), nullptr, GL_MAP_READ_BIT);
  check_allocation(mesh_name_, "the captured deformed positions", bytes);
  // A draw needs a complete framebuffer even when nothing is rasterized (an EGL context without a surface has
  // none of its own): ours, made 1x1 if no frame has been drawn yet.
  if (!fbo_) resize(1, 1, false);
  {
    const SavedState saved;
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, fbo_.get());
    glUseProgram(program_.get());
    glBindVertexArray(vao_.get());
    glEnable(GL_RASTERIZER_DISCARD);
    glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, captured.get());
    glBeginTransformFeedback(GL_POINTS);
    glDrawArrays(GL_POINTS, 0, static_cast<GLsizei>(vertices_));
    glEndTransformFeedback();
    glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, 0);
  }
  check_gl("capturing the gl-raster reference's deformed positions", __FILE__, __LINE__);
  std::vector<glm::vec3> positions(vertices_);
  SLABCAST_GL_CHECK(glGetNamedBufferSubData(captured.get(), 0, static_cast<GLsizeiptr>(bytes), positions.data()));
  return positions;
}

size_t GlRaster::gpu_bytes() const {
  const size_t mesh = static_cast<size_t>(vertices_) * sizeof(glm::vec3) + static_cast<size_t>(triangles_) * 12;
  const size_t pixels = static_cast<size_t>(width_) * static_cast<size_t>(height_);
  const size_t frame = pixels * (mask_ ? 13 : 12);  // colour + ID + depth (+ the shadow mask)
  const size_t shadow_map = static_cast<size_t>(shadow_map_allocated_) * static_cast<size_t>(shadow_map_allocated_) * 4;
  return mesh + frame + shadow_map;
}

double IdAgreement::fraction() const {
  return pixels > 0 ? static_cast<double>(equal) / static_cast<double>(pixels) : 1.0;
}

IdAgreement compare_triangle_ids(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b, int width,
                                 int height) {
  if (width < 0 || height < 0) {
    throw std::invalid_argument("compare_triangle_ids: size " + std::to_string(width) + "x" +
                                std::to_string(height));
  }
  const size_t n = static_cast<size_t>(width) * static_cast<size_t>(height);
  if (a.size() != n || b.size() != n) {
    throw std::invalid_argument("compare_triangle_ids: " + std::to_string(width) + "x" + std::to_string(height) +
                                " needs " + std::to_string(n) + " IDs per image, got " + std::to_string(a.size()) +
                                " and " + std::to_string(b.size()));
  }
  // Whether pixel (x, y) of `ids` has a neighbour (8-connected, inside the image) with another ID.
  auto next_to_edge = [width, height](const std::vector<uint32_t>& ids, int x, int y) {
    const uint32_t own = ids[static_cast<size_t>(y) * static_cast<size_t>(width) + static_cast<size_t>(x)];
    for (int ny = std::max(0, y - 1); ny <= std::min(height - 1, y + 1); ++ny) {
      for (int nx = std::max(0, x - 1); nx <= std::min(width - 1, x + 1); ++nx) {
        if (ids[static_cast<size_t>(ny) * static_cast<size_t>(width) + static_cast<size_t>(nx)] != own) return true;
      }
    }
    return false;
  };
  IdAgreement out;
  out.pixels = n;
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const size_t i = static_cast<size_t>(y) * static_cast<size_t>(width) + static_cast<size_t>(x);
      if (a[i] == b[i]) {
        ++out.equal;
        continue;
      }
      ++out.differing;
      if (!next_to_edge(a, x, y) && !next_to_edge(b, x, y)) ++out.differing_off_edges;
    }
  }
  return out;
}

GlRasterFrame render_gl_raster_frame(const Mesh& mesh, const FrameSettings& settings, int want_cuda_device,
                                     int warmup, int shadow_map_size) {
  EglContext egl(want_cuda_device);
  GlRasterFrame out;
  out.gl_description = egl.description();
  {  // every GL object dies before the context
    GlRaster raster(mesh);
    raster.set_shadow_map_size(shadow_map_size);
    for (int i = 0; i < warmup; ++i) raster.render_untimed(settings);
    out.gpu_ms = raster.render(settings);
    out.width = raster.width();
    out.height = raster.height();
    out.color = raster.read_color();
    out.triangle_ids = raster.read_triangle_ids();
    out.shadow_mask = raster.read_shadow_mask();
  }
  return out;
}

}  // namespace slabcast::gl
