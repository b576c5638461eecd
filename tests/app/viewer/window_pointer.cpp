// The mouse in a real window: `viewer_window_pointer [--require-window] OUT.png`. Under xvfb-run it opens the viewer
// (cpu backend, a still sphere) and sends pointer events through the X server, as a person's mouse would:
//   0. without a usable CUDA device: the pointer finds the cuda backend choice by its tooltip (a disabled item that
//      says why), and a click on it changes nothing (no backend switch, no error);
//   1. a click on the "controls" panel's collapse arrow: the panel folds to its title bar, and the model is framed
//      again in the larger area the panels leave free;
//   2. a click in the middle of that free area: the Pick panel's pixel is the one clicked and shows a hit triangle
//      whose vertices' positions are the ones the renderer deformed;
//   3. Shift + a drag across the model: the vertices whose projections fall in the rectangle are selected, exactly
//      those of a brute-force projection.
// Exits 77 (ctest: SKIPPED) when no window can be opened, unless --require-window; 1 on failure; 0 otherwise.
#include "app/viewer/framing.h"
#include "app/viewer/session.h"
#include "app/viewer/window.h"
#include "tests/app/viewer/window_script.h"

#include <GLFW/glfw3.h>
#include <X11/Xlib.h>
#include <X11/keysym.h>
#include <imgui.h>
#include <imgui_internal.h>

extern "C" {
Display* glfwGetX11Display(void);
Window glfwGetX11Window(GLFWwindow* window);
}

#include <glm/glm.hpp>

#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace {

constexpr int kWidth = 900, kHeight = 640;
constexpr int kSettle = 8;  // passes for sent events to come back through the X server and show in a frame
constexpr int kGiveUpPass = 8000;

struct Pointer {
  Display* display = nullptr;
  Window window = 0;
  unsigned long time = 1;

  // The pointer itself moves (GLFW reads its position from the server: XQueryPointer), and a motion event says so.
  void motion(int x, int y, unsigned int state) {
    XWarpPointer(display, None, window, 0, 0, 0, 0, x, y);
    XEvent e{};
    e.xmotion.type = MotionNotify;
    e.xmotion.display = display;
    e.xmotion.window = window;
    e.xmotion.root = DefaultRootWindow(display);
    e.xmotion.time = time += 20;
    e.xmotion.x = e.xmotion.x_root = x;
    e.xmotion.y = e.xmotion.y_root = y;
    e.xmotion.state = state;
    e.xmotion.same_screen = True;
    XSendEvent(display, window, True, PointerMotionMask, &e);
  }
  void button(bool press, int x, int y, unsigned int state) {
    XEvent e{};
    e.xbutton.type = press ? ButtonPress : ButtonRelease;
    e.xbutton.display = display;
    e.xbutton.window = window;
    e.xbutton.root = DefaultRootWindow(display);
    e.xbutton.time = time += 20;
    e.xbutton.x = e.xbutton.x_root = x;
    e.xbutton.y = e.xbutton.y_root = y;
    e.xbutton.state = state;
    e.xbutton.button = Button1;
    e.xbutton.same_screen = True;
    XSendEvent(display, window, True, press ? ButtonPressMask : ButtonReleaseMask, &e);
  }
  void key(bool press, KeySym sym, unsigned int state) {
    XEvent e{};
    e.xkey.type = press ? KeyPress : KeyRelease;
    e.xkey.display = display;
    e.xkey.window = window;
    e.xkey.root = DefaultRootWindow(display);
    e.xkey.time = time += 20;
    e.xkey.x = e.xkey.y = e.xkey.x_root = e.xkey.y_root = 1;
    e.xkey.state = state;
    e.xkey.keycode = XKeysymToKeycode(display, sym);
    e.xkey.same_screen = True;
    XSendEvent(display, window, True, press ? KeyPressMask : KeyReleaseMask, &e);
  }
  void flush() { XFlush(display); }
};

int64_t area(const std::vector<slabcast::viewer::PixelRect>& rects) {
  int64_t a = 0;
  for (const auto& r : rects) a += static_cast<int64_t>(r.width) * r.height;
  return a;
}

struct Run {
  Pointer pointer;
  std::vector<std::string> failures;
  std::vector<std::string> passed;
  int phase = 0;
  int phase_pass = 0;  // the pass that started the phase's wait
  std::vector<slabcast::viewer::PixelRect> panels_before;
  glm::vec3 eye_before{0.0f};
  int click_x = 0, click_y = 0;
  int drag_step = 0;
  std::vector<std::pair<int, int>> probes;  // where the pointer looks for the cuda choice
  size_t probe = 0;
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;

  void fail(const std::string& what) { failures.push_back(what); }

  bool step(GLFWwindow* window, slabcast::viewer::Session& s, int pass) {
    if (pass > kGiveUpPass) {
      fail("gave up in phase " + std::to_string(phase));
      return false;
    }
    switch (phase) {
      case 0: {  // the model and both panels first
        if (s.mesh() == nullptr || pass < 10 || s.overlay_rects.size() < 2) return true;
        pointer.display = glfwGetX11Display();
        pointer.window = glfwGetX11Window(window);
        glfwFocusWindow(window);
        if (s.cuda_available) {
          passed.push_back("(cuda usable: its choice is enabled, not checked)");
          phase = 10;
          return true;
        }
        const slabcast::viewer::PixelRect& controls = s.overlay_rects[1];
        for (int y = controls.y + 20; y < controls.y + controls.height - 4; y += 6) {
          for (int x = controls.x + 40; x < controls.x + 150; x += 10) probes.emplace_back(x, y);
        }
        phase = 20;
        phase_pass = pass;
        return true;
      }
      case 20: {  // move the pointer from probe to probe until a disabled item's tooltip says cuda is unavailable
        if (pass < phase_pass + 2) return true;
        const ImGuiWindow* tooltip = ImGui::FindWindowByName("##Tooltip_00");
        if (probe > 0 && tooltip != nullptr && tooltip->Active && GImGui->HoveredIdDisabled) {
          click_x = probes[probe - 1].first;
          click_y = probes[probe - 1].second;
          pointer.button(true, click_x, click_y, 0);
          pointer.button(false, click_x, click_y, 0);
          pointer.flush();
          phase = 21;
          phase_pass = pass;
          return true;
        }
        if (probe == probes.size()) {
          fail("no disabled cuda choice with a tooltip in the controls panel (is it enabled without a device?)");
          return false;
        }
        pointer.motion(probes[probe].first, probes[probe].second, 0);
        pointer.flush();
        ++probe;
        phase_pass = pass;
        return true;
      }
      case 21:  // the click on the disabled choice did nothing
        if (pass < phase_pass + kSettle) return true;
        if (s.backend != slabcast::Backend::cpu || s.gl_raster) fail("a click on the disabled cuda choice switched");
        if (!s.last_error.empty()) fail("a click on the disabled cuda choice tried it: " + s.last_error);
        passed.push_back("cuda choice disabled");
        phase = 10;
        return true;
      case 10:  // 1. fold the controls panel
        panels_before = s.overlay_rects;
        eye_before = s.camera.camera().eye;
        {
          // The collapse arrow sits at the left of a panel's title bar (ImGui's default style: a 13-pixel font
          // inside 4 x 3 pixels of padding).
          const slabcast::viewer::PixelRect& controls = panels_before[1];
          click_x = controls.x + 11;
          click_y = controls.y + 9;
        }
        pointer.motion(click_x, click_y, 0);
        pointer.button(true, click_x, click_y, 0);
        pointer.button(false, click_x, click_y, 0);
        pointer.flush();
        phase = 1;
        phase_pass = pass;
        return true;
      case 1: {  // the panel folded and the model framed again
        if (pass < phase_pass + kSettle) return true;
        if (s.overlay_rects.size() < 2 || s.overlay_rects[1].height >= panels_before[1].height / 2) {
          fail("a click on the controls panel's arrow did not fold it (height " +
               std::to_string(s.overlay_rects.size() > 1 ? s.overlay_rects[1].height : -1) + ", was " +
               std::to_string(panels_before[1].height) + ")");
          return false;
        }
        if (!(area(s.overlay_rects) < area(panels_before))) fail("the panels cover as much as before");
        if (s.camera.camera().eye == eye_before) fail("the model was not framed again in the larger free area");
        passed.push_back("panel folded");
        // 2. a click in the middle of the free area
        const slabcast::viewer::PixelRect free = slabcast::viewer::free_rect(kWidth, kHeight, s.overlay_rects);
        click_x = free.x + free.width / 2;
        click_y = free.y + free.height / 2;
        pointer.motion(click_x, click_y, 0);
        pointer.button(true, click_x, click_y, 0);
        pointer.button(false, click_x, click_y, 0);
        pointer.flush();
        phase = 2;
        phase_pass = pass;
        return true;
      }
      case 2: {  // the pick
        if (pass < phase_pass + kSettle) return true;
        const auto& p = s.picked;
        if (!p.done) {
          fail("a click on the model picked nothing");
          return false;
        }
        if (std::abs(p.px - click_x) > 1 || std::abs(p.py - click_y) > 1) {
          fail("picked pixel " + std::to_string(p.px) + "," + std::to_string(p.py) + ", clicked " +
               std::to_string(click_x) + "," + std::to_string(click_y));
        }
        if (p.triangle == 0xFFFFFFFFu) {
          fail("the click in the middle of the framed sphere hit nothing");
        } else {
          const std::vector<glm::vec3> deformed = s.deformed_positions();
          for (int k = 0; k < 3; ++k) {
            if (p.positions[k] != deformed.at(p.vertices[k])) fail("the picked vertex positions are not the frame's");
          }
        }
        passed.push_back("pick");
        // 3. Shift + drag across the model: press here, move in steps over several frames, release
        x0 = click_x - 60;
        y0 = click_y - 40;
        x1 = click_x + 50;
        y1 = click_y + 45;
        pointer.key(true, XK_Shift_L, 0);
        pointer.motion(x0, y0, ShiftMask);
        pointer.button(true, x0, y0, ShiftMask);
        pointer.flush();
        phase = 3;
        phase_pass = pass;
        drag_step = 0;
        return true;
      }
      case 3: {  // the drag, a step a few frames
        if (pass < phase_pass + 3) return true;
        constexpr int kSteps = 4;
        ++drag_step;
        const int x = x0 + (x1 - x0) * drag_step / kSteps, y = y0 + (y1 - y0) * drag_step / kSteps;
        pointer.motion(x, y, ShiftMask | Button1Mask);
        if (drag_step == kSteps) {
          pointer.button(false, x, y, ShiftMask | Button1Mask);
          pointer.key(false, XK_Shift_L, ShiftMask);
          phase = 4;
        }
        pointer.flush();
        phase_pass = pass;
        return true;
      }
      case 4: {  // the selection: the vertices whose projections fall in the rectangle
        if (pass < phase_pass + kSettle) return true;
        const auto& selected = s.vertex_edit.selection();
        if (selected.empty()) {
          fail("Shift + drag across the model selected nothing");
          return false;
        }
        // Brute force: the frame's vertices through its camera, in double precision (window pixels = image pixels
        // at scale 1), counted inside the rectangle shrunk by a pixel and inside it grown by a pixel: the selection
        // lies between the two (the rounding at its edges is the renderer's own).
        const slabcast::Camera cam = s.camera.camera();
        const std::vector<glm::vec3> deformed = s.deformed_positions();
        const glm::dvec3 eye(cam.eye), back = glm::normalize(eye - glm::dvec3(cam.target));
        const glm::dvec3 right = glm::normalize(glm::cross(glm::dvec3(cam.up), back)), up = glm::cross(back, right);
        const double tan_y = std::tan(glm::radians(static_cast<double>(cam.fovy_degrees)) * 0.5);
        const double tan_x = tan_y * kWidth / kHeight;
        size_t surely_in = 0, maybe_in = 0;
        for (const glm::vec3& v : deformed) {
          const glm::dvec3 d = glm::dvec3(v) - eye;
          const double depth = -glm::dot(back, d);
          if (!(depth > 0.0)) continue;
          const double px = (glm::dot(right, d) / depth / tan_x * 0.5 + 0.5) * kWidth;
          const double py = (0.5 - glm::dot(up, d) / depth / tan_y * 0.5) * kHeight;
          surely_in += px > x0 + 1 && px < x1 - 1 && py > y0 + 1 && py < y1 - 1;
          maybe_in += px > x0 - 1 && px < x1 + 1 && py > y0 - 1 && py < y1 + 1;
        }
        if (selected.size() < surely_in || selected.size() > maybe_in) {
          fail("selected " + std::to_string(selected.size()) + " vertices; the rectangle holds " +
               std::to_string(surely_in) + " to " + std::to_string(maybe_in));
        }
        passed.push_back("selection of " + std::to_string(selected.size()) + " vertices");
        return false;
      }
    }
    return false;
  }
};

}  // namespace

int main(int argc, char** argv) {
  slabcast::viewer_test::WindowTestArgs args;
  if (const auto code = slabcast::viewer_test::start_window_test(argc, argv, "viewer_window_pointer", &args)) {
    return *code;
  }
  slabcast::ViewOptions options = slabcast::viewer_test::scripted_window_options(args, kWidth, kHeight);
  options.size_given = true;
  options.animate = false;  // a still model: the pick and the selection are of one frame
  options.frame.deform = slabcast::DeformParams{};

  Run run;
  int code = 0;
  if (const auto exit_code = slabcast::viewer_test::run_window_script(
          "viewer_window_pointer", args, options,
          [&](GLFWwindow* w, slabcast::viewer::Session& s, int pass) { return run.step(w, s, pass); }, &code)) {
    return *exit_code;
  }
  if (code != 0) run.failures.push_back("run_window returned " + std::to_string(code));
  for (const std::string& f : run.failures) std::fprintf(stderr, "viewer_window_pointer: %s\n", f.c_str());
  std::string done;
  for (const std::string& p : run.passed) done += (done.empty() ? "" : ", ") + p;
  std::printf("viewer_window_pointer: %s: %s\n", done.c_str(), run.failures.empty() ? "PASS" : "FAIL");
  return run.failures.empty() ? 0 : 1;
}
