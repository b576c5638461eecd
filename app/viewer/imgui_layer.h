// Dear ImGui's lifetime around the overlay: context, style, and the OpenGL3 renderer backend (plus the GLFW
// platform backend in a window; the headless mode feeds display size and time itself).
#pragma once
#include <deque>
#include <vector>

struct GLFWwindow;

namespace slabcast::viewer {

class ImGuiLayer {
 public:
  // A GL 4.5 core context must be current. With a window, install GLFW callbacks of your own *before* this: the
  // backend chains to the ones it finds installed (keys reach them as ImGui takes them: feed_input).
  explicit ImGuiLayer(GLFWwindow* window);
  ~ImGuiLayer();
  ImGuiLayer(const ImGuiLayer&) = delete;
  ImGuiLayer& operator=(const ImGuiLayer&) = delete;

  // Keys and characters wait here between glfwPollEvents and the frames that take them. Dear ImGui 1.86 holds one
  // state a key per frame (io.KeysDown), so a key pressed and released between two frames, as when a slow frame
  // (300 ms on the cpu backend) lets a whole word pile up, would never be seen; and it takes a frame's characters
  // before its keys, so a Backspace between two letters would come after both. feed_input hands ImGui (and the
  // callbacks behind it) the events one frame can take without losing any; the window runs UI-only frames
  // (new_frame, the overlay, end_frame, no scene) while more_input() says that more are waiting.
  void feed_input();
  bool more_input() const { return !queue_.empty(); }

  // Starts a frame. Headless (no window): the display is width x height pixels and `seconds` passed since the last.
  void new_frame(int width = 0, int height = 0, float seconds = 0.0f);
  void end_frame();  // ImGui::Render(): the draw lists are ready for draw()
  void draw();       // draws the last rendered overlay into the bound framebuffer

 private:
  struct InputEvent {
    bool is_char;
    int key, scancode, action, mods;  // a key event (is_char false)
    unsigned int codepoint;           // a character (is_char true)
  };
  static void queue_key(GLFWwindow* window, int key, int scancode, int action, int mods);
  static void queue_char(GLFWwindow* window, unsigned int codepoint);

  GLFWwindow* window_;
  // The backend's callbacks (GLFWkeyfun, GLFWcharfun), which the queued events go to.
  void (*imgui_key_)(GLFWwindow*, int, int, int, int) = nullptr;
  void (*imgui_char_)(GLFWwindow*, unsigned int) = nullptr;
  std::deque<InputEvent> queue_;
  std::vector<int> keys_this_frame_;  // feed_input's scratch
};

}  // namespace slabcast::viewer
