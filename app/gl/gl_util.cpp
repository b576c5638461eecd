#include "app/gl/gl_util.h"

#include "app/gl/shaders.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <cstring>
#include <stdexcept>

namespace slabcast::gl {

namespace {
constexpr int kMaxDrainedErrors = 16;

const char* gl_error_name(GLenum error) {
  switch (error) {
    case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
    case GL_STACK_UNDERFLOW: return "GL_STACK_UNDERFLOW";
    case GL_STACK_OVERFLOW: return "GL_STACK_OVERFLOW";
    default: return "unknown GL error";
  }
}

GLuint compile_shader(GLenum stage, const std::string& file_name) {
  const std::string text = shader_text(file_name);
  const GLuint shader = glCreateShader(stage);
  const char* source = text.c_str();
  glShaderSource(shader, 1, &source, nullptr);
  glCompileShader(shader);
  GLint ok = GL_FALSE;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (ok != GL_TRUE) {
    GLint length = 0;
    glGetShaderiv(shader, GL_INFO_LOG_LENGTH, &length);
    std::string log(static_cast<size_t>(length > 0 ? length : 1), '\0');
    glGetShaderInfoLog(shader, length, nullptr, log.data());
    glDeleteShader(shader);
    throw std::runtime_error("compiling shaders/" + file_name + " failed:\n" + log);
  }
  return shader;
}
}  // namespace

void check_gl(const char* call, const char* file, int line) {
  const GLenum error = glGetError();
  if (error == GL_NO_ERROR) return;
  // Drain the other recorded flags (they belong to the same failure); bounded, since a lost context may keep
  // reporting an error.
  for (int i = 0; i < kMaxDrainedErrors && glGetError() != GL_NO_ERROR; ++i) {
  }
  throw std::runtime_error(std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                           gl_error_name(error));
}

std::string load_gl(GLADloadfunc get_proc) {
  const int version = gladLoadGL(get_proc);
  if (version == 0) throw std::runtime_error("loading the OpenGL entry points (glad) failed");
  const int major = GLAD_VERSION_MAJOR(version), minor = GLAD_VERSION_MINOR(version);
  const char* gl_version = reinterpret_cast<const char*>(glGetString(GL_VERSION));
  const char* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  std::string description = std::string(gl_version ? gl_version : "?") + " | " + (renderer ? renderer : "?");
  if (major < 4 || (major == 4 && minor < 5)) {
    throw std::runtime_error("OpenGL 4.5 core is needed; the context offers " + description);
  }
  return description;
}

void delete_buffer(GLuint id) { glDeleteBuffers(1, &id); }
void delete_texture(GLuint id) { glDeleteTextures(1, &id); }
void delete_vertex_array(GLuint id) { glDeleteVertexArrays(1, &id); }
void delete_framebuffer(GLuint id) { glDeleteFramebuffers(1, &id); }
void delete_program(GLuint id) { glDeleteProgram(id); }
void delete_query(GLuint id) { glDeleteQueries(1, &id); }
void delete_sampler(GLuint id) { glDeleteSamplers(1, &id); }

GlProgram make_program(const std::string& vertex_file, const std::string& fragment_file) {
  const GLuint vs = compile_shader(GL_VERTEX_SHADER, vertex_file);
  GLuint fs = 0;
  try {
    fs = compile_shader(GL_FRAGMENT_SHADER, fragment_file);
  } catch (...) {
    glDeleteShader(vs);
    throw;
  }
  GlProgram program(glCreateProgram());
  glAttachShader(program.get(), vs);
  glAttachShader(program.get(), fs);
  glLinkProgram(program.get());
  glDeleteShader(vs);  // flagged for deletion; freed with the program
  glDeleteShader(fs);
  GLint ok = GL_FALSE;
  glGetProgramiv(program.get(), GL_LINK_STATUS, &ok);
  if (ok != GL_TRUE) {
    GLint length = 0;
    glGetProgramiv(program.get(), GL_INFO_LOG_LENGTH, &length);
    std::string log(static_cast<size_t>(length > 0 ? length : 1), '\0');
    glGetProgramInfoLog(program.get(), length, nullptr, log.data());
    throw std::runtime_error("linking shaders/" + vertex_file + " + " + fragment_file + " failed:\n" + log);
  }
  check_gl("make_program", __FILE__, __LINE__);
  return program;
}

double believable_gpu_ms(uint64_t gpu_nanoseconds, double host_ms) {
  static const bool has_timer = [] {
    GLint counter_bits = 0;
    glGetQueryiv(GL_TIME_ELAPSED, GL_QUERY_COUNTER_BITS, &counter_bits);
    return counter_bits > 0;
  }();
  const double gpu_ms = static_cast<double>(gpu_nanoseconds) * 1e-6;
  return has_timer && gpu_ms <= host_ms + 0.05 ? gpu_ms : std::numeric_limits<double>::quiet_NaN();
}

GlTimer::GlTimer() {
  for (GlQuery& query : queries_) {
    GLuint id = 0;
    glCreateQueries(GL_TIME_ELAPSED, 1, &id);
    query.reset(id);
  }
}

void GlTimer::begin() {
  // Collect every finished result first; a slot still pending after kRing frames is waited for, which
  // happens only when the GPU runs more than kRing frames behind.
  for (int i = 0; i < kRing; ++i) {
    if (!pending_[i]) continue;
    GLint available = GL_FALSE;
    glGetQueryObjectiv(queries_[i].get(), GL_QUERY_RESULT_AVAILABLE, &available);
    if (available == GL_TRUE || i == next_) {
      GLuint64 ns = 0;
      glGetQueryObjectui64v(queries_[i].get(), GL_QUERY_RESULT, &ns);
      const double host_ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began_[i]).count();
      const double ms = believable_gpu_ms(ns, host_ms);
      if (std::isfinite(ms)) last_ms_ = static_cast<float>(ms);
      pending_[i] = false;
    }
  }
  began_[next_] = std::chrono::steady_clock::now();
  glBeginQuery(GL_TIME_ELAPSED, queries_[next_].get());
}

void GlTimer::end() {
  glEndQuery(GL_TIME_ELAPSED);
  pending_[next_] = true;
  next_ = (next_ + 1) % kRing;
}

float GlTimer::last_ms() { return last_ms_; }

OffscreenTarget::OffscreenTarget(int width, int height) : width_(width), height_(height) {
  if (width <= 0 || height <= 0) {
    throw std::runtime_error("offscreen framebuffer of " + std::to_string(width) + "x" + std::to_string(height));
  }
  GLuint id = 0;
  glCreateTextures(GL_TEXTURE_2D, 1, &id);
  color_.reset(id);
  SLABCAST_GL_CHECK(glTextureStorage2D(color_.get(), 1, GL_RGBA8, width, height));
  glCreateFramebuffers(1, &id);
  fbo_.reset(id);
  SLABCAST_GL_CHECK(glNamedFramebufferTexture(fbo_.get(), GL_COLOR_ATTACHMENT0, color_.get(), 0));
  const GLenum status = glCheckNamedFramebufferStatus(fbo_.get(), GL_FRAMEBUFFER);
  if (status != GL_FRAMEBUFFER_COMPLETE) {
    char text[16];
    std::snprintf(text, sizeof text, "0x%04X", static_cast<unsigned>(status));
    throw std::runtime_error(std::string("offscreen framebuffer incomplete (status ") + text + ")");
  }
}

void OffscreenTarget::bind() const { SLABCAST_GL_CHECK(glBindFramebuffer(GL_FRAMEBUFFER, fbo_.get())); }

std::vector<uint8_t> read_pixels_top_down(int width, int height) {
  const size_t row = static_cast<size_t>(width) * 4;
  std::vector<uint8_t> bottom_up(row * static_cast<size_t>(height));
  SLABCAST_GL_CHECK(glPixelStorei(GL_PACK_ALIGNMENT, 1));
  SLABCAST_GL_CHECK(glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, bottom_up.data()));
  std::vector<uint8_t> top_down(bottom_up.size());
  for (int y = 0; y < height; ++y) {
    std::memcpy(&top_down[row * static_cast<size_t>(y)], &bottom_up[row * static_cast<size_t>(height - 1 - y)], row);
  }
  return top_down;
}

}  // namespace slabcast::gl
