// Typing while frames are slow: `viewer_window_typing [--require-window] OUT.png`. Under xvfb-run it opens the real
// window (cpu backend), puts the keyboard in the overlay's path field and types a path through the X server, a few
// keys at a time, each batch sent while a frame takes 300 ms, so that every batch reaches GLFW in one poll: presses
// and releases of letters, Shift for capitals and '_', and a Backspace between letters. The field must read exactly
// what was typed, the Backspace applied where it was pressed. (Dear ImGui 1.86 sees one state a key per frame: a key
// pressed and released within one frame is lost unless the viewer spreads the events over frames of their own.)
// Exits 77 (ctest: SKIPPED) when no window can be opened, unless --require-window; 1 on failure; 0 otherwise.
#include "app/viewer/session.h"
#include "app/viewer/window.h"
#include "tests/app/viewer/window_script.h"

#include <GLFW/glfw3.h>
#include <X11/Xlib.h>
#include <X11/keysym.h>
#include <imgui.h>

// GLFW's X11 handles (glfw3native.h's, declared here: that header also wants Xrandr's development headers, which the
// build does not otherwise need).
extern "C" {
Display* glfwGetX11Display(void);
Window glfwGetX11Window(GLFWwindow* window);
}

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr int kWidth = 800, kHeight = 600;
constexpr auto kSlowFrame = std::chrono::milliseconds(300);
constexpr int kKeysPerBatch = 5;        // typed keys sent while one slow frame runs
constexpr int kSettlePasses = 6;        // passes after the last batch before the field is read
constexpr int kGiveUpPass = 2000;

// What is typed: kBackspace stands for the Backspace key.
constexpr char kBackspace = '\b';
const std::string kTyped = std::string("assets/Slab_x") + kBackspace + "cast2.obj";
const std::string kExpected = "assets/Slab_cast2.obj";

struct Typist {
  Display* display = nullptr;
  Window window = 0;
  unsigned long time = 1;  // X timestamps (ms), increasing by more than GLFW's 20 ms key-repeat guess per event

  void send(bool press, KeyCode keycode, unsigned int state) {
    XEvent e{};
    e.xkey.type = press ? KeyPress : KeyRelease;
    e.xkey.display = display;
    e.xkey.window = window;
    e.xkey.root = DefaultRootWindow(display);
    e.xkey.subwindow = None;
    e.xkey.time = time += 50;
    e.xkey.x = e.xkey.y = e.xkey.x_root = e.xkey.y_root = 1;
    e.xkey.state = state;
    e.xkey.keycode = keycode;
    e.xkey.same_screen = True;
    XSendEvent(display, window, True, press ? KeyPressMask : KeyReleaseMask, &e);
  }

  // One key as a person types it: Shift around a capital or '_'.
  void type(char c) {
    KeySym sym = 0;
    bool shift = false;
    if (c == kBackspace) {
      sym = XK_BackSpace;
    } else if (c == '_') {
      sym = XK_underscore;
      shift = true;
    } else if (c >= 'A' && c <= 'Z') {
      sym = static_cast<KeySym>(c - 'A' + 'a');
      shift = true;
    } else {
      sym = static_cast<KeySym>(static_cast<unsigned char>(c));  // Latin-1 keysyms are their codes
    }
    const KeyCode key = XKeysymToKeycode(display, sym);
    const KeyCode shift_key = XKeysymToKeycode(display, XK_Shift_L);
    if (shift) send(true, shift_key, 0);
    send(true, key, shift ? ShiftMask : 0);
    send(false, key, shift ? ShiftMask : 0);
    if (shift) send(false, shift_key, ShiftMask);
  }
};

struct Run {
  Typist typist;
  std::vector<std::string> failures;
  int focus_pass = -1;     // the pass that asked for the path field
  int typing_pass = -1;    // the first batch's pass
  size_t typed = 0;        // characters of kTyped sent
  int last_batch_pass = -1;
  std::string field;

  bool step(GLFWwindow* window, slabcast::viewer::Session& s, int pass) {
    if (pass > kGiveUpPass) {
      failures.push_back("gave up waiting (model loaded: " + std::string(s.mesh() ? "yes" : "no") + ")");
      return false;
    }
    if (s.mesh() == nullptr || pass < 5) return true;  // the model and the overlay's panels first
    if (focus_pass < 0) {
      typist.display = glfwGetX11Display();
      typist.window = glfwGetX11Window(window);
      s.path_field.clear();
      s.focus_path_field = true;
      focus_pass = pass;
      return true;
    }
    if (typing_pass < 0) {
      if (pass < focus_pass + 3) return true;
      if (!ImGui::GetIO().WantTextInput) {
        failures.push_back("the path field did not take the keyboard");
        return false;
      }
      typing_pass = pass;
    }
    if (typed < kTyped.size()) {
      for (int k = 0; k < kKeysPerBatch && typed < kTyped.size(); ++k) typist.type(kTyped[typed++]);
      XFlush(typist.display);
      std::this_thread::sleep_for(kSlowFrame);  // the frame is slow: the batch waits for the next poll as a whole
      last_batch_pass = pass;
      return true;
    }
    if (pass < last_batch_pass + kSettlePasses) return true;
    field = s.path_field;
    if (field != kExpected) failures.push_back("the path field reads \"" + field + "\", typed \"" + kExpected + "\"");
    if (!s.last_error.empty()) failures.push_back("an error showed: " + s.last_error);
    return false;
  }
};

}  // namespace

int main(int argc, char** argv) {
  slabcast::viewer_test::WindowTestArgs args;
  if (const auto code = slabcast::viewer_test::start_window_test(argc, argv, "viewer_window_typing", &args)) {
    return *code;
  }
  slabcast::ViewOptions options = slabcast::viewer_test::scripted_window_options(args, kWidth, kHeight);
  options.size_given = true;
  options.animate = true;

  Run run;
  int code = 0;
  if (const auto exit_code = slabcast::viewer_test::run_window_script(
          "viewer_window_typing", args, options,
          [&](GLFWwindow* w, slabcast::viewer::Session& s, int pass) { return run.step(w, s, pass); }, &code)) {
    return *exit_code;
  }
  if (code != 0) run.failures.push_back("run_window returned " + std::to_string(code));
  for (const std::string& f : run.failures) std::fprintf(stderr, "viewer_window_typing: %s\n", f.c_str());
  std::printf("viewer_window_typing: typed %zu keys in batches of %d during %d ms frames, the field reads \"%s\": %s\n",
              run.typed, kKeysPerBatch, static_cast<int>(kSlowFrame.count()), run.field.c_str(),
              run.failures.empty() ? "PASS" : "FAIL");
  return run.failures.empty() ? 0 : 1;
}
