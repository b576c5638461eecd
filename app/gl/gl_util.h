// Small OpenGL helpers for everything in app/ that draws with GL (the viewer's window and headless paths, the
// display path, the gl-raster reference, bench): error checks that name the call, owning handles, shader programs,
// GPU timer queries.
// Every GL entry point comes through glad (OpenGL 4.5 core), loaded once a context is current.
#pragma once
#include <glad/gl.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace slabcast::gl {

// Throws std::runtime_error("<call> failed at <file>:<line>: GL_INVALID_...") if the GL error flag is set.
void check_gl(const char* call, const char* file, int line);
#define SLABCAST_GL_CHECK(call)                            \
  do {                                                     \
    call;                                                  \
    ::slabcast::gl::check_gl(#call, __FILE__, __LINE__); \
  } while (0)

// Loads the GL 4.5 core entry points through `get_proc` (eglGetProcAddress or glfwGetProcAddress) for the current
// context; throws if the context is not 4.5 core. Returns "<GL_VERSION> | <GL_RENDERER>".
std::string load_gl(GLADloadfunc get_proc);

// An owning GL object name; `Delete` frees one name (a small function calling glDelete*, defined once the GL entry
// points exist). Movable, not copyable. Destroy it while its context is current.
template <void (*Delete)(GLuint)>
class GlHandle {
 public:
  GlHandle() = default;
  explicit GlHandle(GLuint id) : id_(id) {}
  GlHandle(GlHandle&& other) noexcept : id_(std::exchange(other.id_, 0)) {}
  GlHandle& operator=(GlHandle&& other) noexcept {
    if (this != &other) reset(std::exchange(other.id_, 0));
    return *this;
  }
  GlHandle(const GlHandle&) = delete;
  GlHandle& operator=(const GlHandle&) = delete;
  ~GlHandle() { reset(); }
  void reset(GLuint id = 0) {
    if (id_ != 0) Delete(id_);
    id_ = id;
  }
  GLuint get() const { return id_; }
  explicit operator bool() const { return id_ != 0; }

 private:
  GLuint id_ = 0;
};

void delete_buffer(GLuint id);
void delete_texture(GLuint id);
void delete_vertex_array(GLuint id);
void delete_framebuffer(GLuint id);
void delete_program(GLuint id);
void delete_query(GLuint id);
void delete_sampler(GLuint id);
using GlBuffer = GlHandle<delete_buffer>;
using GlTexture = GlHandle<delete_texture>;
using GlVertexArray = GlHandle<delete_vertex_array>;
using GlFramebuffer = GlHandle<delete_framebuffer>;
using GlProgram = GlHandle<delete_program>;
using GlQuery = GlHandle<delete_query>;
using GlSampler = GlHandle<delete_sampler>;

// Compiles and links a program from embedded shaders/ files (shaders.h); errors carry the info log and file name.
GlProgram make_program(const std::string& vertex_file, const std::string& fragment_file);

// The GPU time of a span of GL commands, measured with a GL_TIME_ELAPSED query while the host's clock ran around
// it: the milliseconds, or NaN where the timer measured nothing believable (no counter bits, or more time than the
// host spent around the span plus the clocks' granularity: Mesa's software driver answers a context's first query
// with hours). Every GL timing of slabcast goes through it, so none prints a figure that was not measured.
double believable_gpu_ms(uint64_t gpu_nanoseconds, double host_ms);

// A span of GL commands, `draw`, timed by `query` and waited for: believable_gpu_ms of it. GL is idle before the
// host's clock starts, so the clock spans this span only.
template <class Draw>
double timed_gl_span(GLuint query, Draw&& draw) {
  glFinish();
  const auto start = std::chrono::steady_clock::now();
  glBeginQuery(GL_TIME_ELAPSED, query);
  draw();
  glEndQuery(GL_TIME_ELAPSED);
  GLuint64 nanoseconds = 0;
  glGetQueryObjectui64v(query, GL_QUERY_RESULT, &nanoseconds);  // waits for the span
  const double host_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return believable_gpu_ms(nanoseconds, host_ms);
}

// GPU time of a span of GL commands, read back without stalling: a ring of GL_TIME_ELAPSED queries whose results
// are collected a few frames later, once available. last_ms() is the newest believable result (believable_gpu_ms,
// against the host's time from the span's begin to the result's collection; 0 before the first).
class GlTimer {
 public:
  GlTimer();
  void begin();  // at most one begin/end pair per frame, not nested with another GL_TIME_ELAPSED query
  void end();
  float last_ms();

 private:
  static constexpr int kRing = 4;  // frames in flight before a result must be available
  std::array<GlQuery, kRing> queries_;
  std::array<bool, kRing> pending_{};
  std::array<std::chrono::steady_clock::time_point, kRing> began_{};
  int next_ = 0;
  float last_ms_ = 0.0f;
};

// An offscreen RGBA8 framebuffer (headless frames, screenshots of a given size).
class OffscreenTarget {
 public:
  OffscreenTarget(int width, int height);
  void bind() const;  // as GL_FRAMEBUFFER
  int width() const { return width_; }
  int height() const { return height_; }
  GLuint framebuffer() const { return fbo_.get(); }

 private:
  int width_, height_;
  GlTexture color_;
  GlFramebuffer fbo_;
};

// Reads the bound read framebuffer's RGBA8 pixels, rows reordered top first (image order, as PNGs are written).
std::vector<uint8_t> read_pixels_top_down(int width, int height);

}  // namespace slabcast::gl
