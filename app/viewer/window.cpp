#include "app/viewer/window.h"

#include "app/gl/gl_util.h"
#include "app/image_io.h"
#include "app/viewer/headless.h"
#include "app/viewer/framing.h"
#include "app/viewer/imgui_layer.h"
#include "app/viewer/overlay.h"
#include "app/viewer/session.h"

#include <GLFW/glfw3.h>
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace slabcast::viewer {

namespace {

constexpr double kIconifiedPollSeconds = 0.1;  // how often a minimized window wakes up to look for events
constexpr const char* kTitle = "slabcast";
// UI-only frames a pass may run for input that piled up; what is left waits for the next pass (a bound, so that a
// flood of events cannot hold the scene back for long: a UI frame takes about a millisecond).
constexpr int kMaxUiFramesPerPass = 256;

// GLFW reports errors through a callback without a user pointer, so the last message lives in this file-local
// variable; GLFW calls it on the main thread only.
std::string g_glfw_error;
void on_glfw_error(int code, const char* description) {
  g_glfw_error = std::string(description) + " (GLFW error 0x" + [code] {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%X", static_cast<unsigned>(code));
    return std::string(buf);
  }() + ")";
}

struct GlfwLibrary {
  bool ok = glfwInit() == GLFW_TRUE;
  ~GlfwLibrary() { glfwTerminate(); }
};

struct Window {
  GLFWwindow* handle = nullptr;
  ~Window() {
    if (handle != nullptr) glfwDestroyWindow(handle);
  }
};

Session& session_of(GLFWwindow* window) { return *static_cast<Session*>(glfwGetWindowUserPointer(window)); }

// Keys: installed before ImGui's backend, which chains to this callback; ImGui gets keys it wants.
void on_key(GLFWwindow* window, int key, int /*scancode*/, int action, int /*mods*/) {
  if (action != GLFW_PRESS || ImGui::GetIO().WantCaptureKeyboard) return;
  Session& s = session_of(window);
  switch (key) {
    case GLFW_KEY_ESCAPE:  // a selection goes first; Escape with none quits
      if (s.vertex_edit.has_rectangle()) {
        s.vertex_edit.clear_selection();
      } else {
        glfwSetWindowShouldClose(window, GLFW_TRUE);
      }
      break;
    case GLFW_KEY_SPACE: s.animate = !s.animate; break;
    case GLFW_KEY_H: s.show_overlay = !s.show_overlay; break;
    case GLFW_KEY_F: s.frame_model(); break;
    case GLFW_KEY_P:
    case GLFW_KEY_F12: s.screenshot_requested = true; break;
    default: break;
  }
}

// Drag and drop: the first dropped file is loaded, in any format load_mesh reads, or a dropped directory as a mesh
// sequence (in the background, with a progress bar).
void on_drop(GLFWwindow* window, int count, const char** paths) {
  if (count < 1) return;
  Session& s = session_of(window);
  s.path_field = paths[0];
  s.model_index = -1;
  s.start_loading({paths[0], paths[0], "", 0});
}

// The default window size, shrunk (keeping its shape) to 90% of the primary monitor's work area, so that the whole
// window, title bar included, is on a small screen. A size given with --size is left alone.
void fit_to_work_area(int* width, int* height) {
  GLFWmonitor* monitor = glfwGetPrimaryMonitor();
  if (monitor == nullptr) return;
  int x = 0, y = 0, w = 0, h = 0;
  glfwGetMonitorWorkarea(monitor, &x, &y, &w, &h);
  if (w <= 0 || h <= 0) return;
  const double scale = std::min({1.0, 0.9 * w / *width, 0.9 * h / *height});
  *width = std::max(64, static_cast<int>(*width * scale));
  *height = std::max(64, static_cast<int>(*height * scale));
}

// Mouse: orbit / pan / zoom unless ImGui wants the mouse (it keeps wanting it while a drag that began on the
// overlay goes on).
void handle_mouse(Session& s) {
  const ImGuiIO& io = ImGui::GetIO();
  const ImVec2 fb = io.DisplayFramebufferScale;
  // A vertex drag (Shift + left) goes on until the button is up, wherever the mouse goes meanwhile.
  constexpr float kClickSlopSquared = 9.0f;  // a press released within 3 pixels of where it began is a click
  if (s.vertex_dragging()) {
    if (io.MouseDown[ImGuiMouseButton_Left]) {
      s.continue_vertex_drag(io.MousePos.x * fb.x, io.MousePos.y * fb.y, io.MouseDelta.x * fb.x, io.MouseDelta.y * fb.y);
    } else {
      s.end_vertex_drag(io.MouseDragMaxDistanceSqr[ImGuiMouseButton_Left] >= kClickSlopSquared);
    }
    return;
  }
  if (io.WantCaptureMouse) return;
  if (io.MouseClicked[ImGuiMouseButton_Left] && io.KeyShift) {
    s.begin_vertex_drag(io.MousePos.x * fb.x, io.MousePos.y * fb.y);
    return;
  }
  if (io.MouseDown[ImGuiMouseButton_Left] && io.KeyCtrl) {
    s.drag_sun(io.MouseDelta.x, io.MouseDelta.y);
  } else if (io.MouseDown[ImGuiMouseButton_Left] && !io.KeyShift) {
    s.camera.orbit(io.MouseDelta.x, io.MouseDelta.y);
  }
  if (io.MouseDown[ImGuiMouseButton_Right] || io.MouseDown[ImGuiMouseButton_Middle]) {
    s.camera.pan(io.MouseDelta.x, io.MouseDelta.y, static_cast<int>(io.DisplaySize.y));
  }
  if (io.MouseWheel != 0.0f) s.camera.zoom(io.MouseWheel);
  // A click (a left press released where it began, without Ctrl) picks the pixel under it, and ends a selection.
  if (io.MouseReleased[ImGuiMouseButton_Left] && !io.KeyCtrl &&
      io.MouseDragMaxDistanceSqr[ImGuiMouseButton_Left] < kClickSlopSquared) {
    s.request_pick(io.MousePos.x * fb.x, io.MousePos.y * fb.y);
    s.vertex_edit.clear_selection();
  }
}

void save_screenshot(const std::string& path, int width, int height, Session& s) {
  const std::vector<uint8_t> pixels = gl::read_pixels_top_down(width, height);
  write_png(path, pixels.data(), width, height, static_cast<size_t>(width) * 4);
  std::error_code error;
  const std::string shown = std::filesystem::absolute(path, error).string();
  s.last_message = "saved " + shown;
  std::printf("slabcast: screenshot %s (%dx%d)\n", shown.c_str(), width, height);
}

}  // namespace

int run_window(const ViewOptions& options, std::string* no_display) { return run_window(options, no_display, {}); }

int run_window(const ViewOptions& options, std::string* no_display, const WindowScript& script) {
  glfwSetErrorCallback(on_glfw_error);
  GlfwLibrary glfw;
  if (!glfw.ok) {
    *no_display = g_glfw_error.empty() ? "glfwInit failed" : g_glfw_error;
    return 1;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 5);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_RESIZABLE, GLFW_TRUE);
  glfwWindowHint(GLFW_DEPTH_BITS, 0);  // the ray caster resolves visibility itself
  Window window;
  int width = options.frame.width, height = options.frame.height;
  if (!options.size_given) fit_to_work_area(&width, &height);
  window.handle = glfwCreateWindow(width, height, kTitle, nullptr, nullptr);
  if (window.handle == nullptr) {
    *no_display = g_glfw_error.empty() ? "glfwCreateWindow failed" : g_glfw_error;
    return 1;
  }
  glfwMakeContextCurrent(window.handle);
  const std::string gl_version = gl::load_gl(reinterpret_cast<GLADloadfunc>(glfwGetProcAddress));

  // A window's context is on the CUDA device when its display is driven by it; the session tries interop and falls
  // back to a copy through the host if the registration fails.
  Session session(options, /*gl_on_cuda_device=*/true, "window | " + gl_version, /*windowed=*/true);
  glfwSetWindowUserPointer(window.handle, &session);
  glfwSetKeyCallback(window.handle, on_key);
  glfwSetDropCallback(window.handle, on_drop);
  ImGuiLayer imgui(window.handle);  // after our callbacks: it chains to them
  bool vsync = session.vsync;
  glfwSwapInterval(vsync ? 1 : 0);
  std::printf("slabcast: %s\n%s\n", gl_version.c_str(), controls_help());

  int frames = 0;
  bool script_done = false;
  auto last = std::chrono::steady_clock::now();
  for (int pass = 0; !glfwWindowShouldClose(window.handle); ++pass) {
    glfwPollEvents();
    if (script && !script_done) script_done = !script(window.handle, session, pass);
    int fb_width = 0, fb_height = 0;
    glfwGetFramebufferSize(window.handle, &fb_width, &fb_height);
    if (glfwGetWindowAttrib(window.handle, GLFW_ICONIFIED) == GLFW_TRUE || fb_width == 0 || fb_height == 0) {
      // Minimized: render nothing and let the animation clock stand still until the window is back.
      glfwWaitEventsTimeout(kIconifiedPollSeconds);
      last = std::chrono::steady_clock::now();
      continue;
    }
    const auto now = std::chrono::steady_clock::now();
    const double seconds = std::chrono::duration<double>(now - last).count();
    last = now;

    // Every key and character of the poll reaches the overlay, however many a slow frame let pile up: UI-only
    // frames (no scene) take them a frame's share at a time (ImGuiLayer::feed_input), the rendered frame the last.
    imgui.feed_input();
    for (int ui_frames = 0; imgui.more_input() && ui_frames < kMaxUiFramesPerPass; ++ui_frames) {
      imgui.new_frame();
      handle_mouse(session);
      if (session.show_overlay) build_overlay(session);
      imgui.end_frame();
      imgui.feed_input();
    }
    imgui.new_frame();
    handle_mouse(session);
    session.poll_loading();
    session.advance_time(seconds);
    if (session.show_overlay) build_overlay(session);
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    const int display_width = static_cast<int>(display.x), display_height = static_cast<int>(display.y);
    session.set_free_area(display_width, display_height,
                          free_rect(display_width, display_height,
                                    session.show_overlay ? session.overlay_rects : std::vector<PixelRect>{}));
    imgui.end_frame();

    SLABCAST_GL_CHECK(glBindFramebuffer(GL_FRAMEBUFFER, 0));
    session.render_and_present(fb_width, fb_height);
    if (session.show_overlay) imgui.draw();
    if (session.screenshot_requested) {
      session.screenshot_requested = false;
      save_screenshot(timestamped_screenshot_name(), fb_width, fb_height, session);
    }
    if (session.mesh() != nullptr) ++frames;  // --frames counts rendered frames, not those while the model loads
    const bool last_frame = (options.frames_given && frames >= options.frames) || script_done;
    if (last_frame && !options.screenshot_path.empty()) {
      save_screenshot(options.screenshot_path, fb_width, fb_height, session);
    }
    glfwSwapBuffers(window.handle);
    if (frames > 1) session.frame_times.add(static_cast<float>(seconds * 1000.0));
    if (session.vsync != vsync) {
      vsync = session.vsync;
      glfwSwapInterval(vsync ? 1 : 0);
    }
    if (last_frame) break;
  }
  return 0;
}

}  // namespace slabcast::viewer
