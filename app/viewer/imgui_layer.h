// Dear ImGui's lifetime around the overlay: context, style, and the OpenGL3 renderer backend (plus the GLFW
// platform backend in a window; the headless mode feeds display size and time itself).
#pragma once

struct GLFWwindow;

namespace slabcast::viewer {

class ImGuiLayer {
 public:
  // A GL 4.5 core context must be current. With a window, install GLFW callbacks of your own *before* this: the
  // backend chains to the ones it finds installed.
  explicit ImGuiLayer(GLFWwindow* window);
  ~ImGuiLayer();
  ImGuiLayer(const ImGuiLayer&) = delete;
  ImGuiLayer& operator=(const ImGuiLayer&) = delete;

  // Starts a frame. Headless (no window): the display is width x height pixels and `seconds` passed since the last.
  void new_frame(int width = 0, int height = 0, float seconds = 0.0f);
  void end_frame();  // ImGui::Render(): the draw lists are ready for draw()
  void draw();       // draws the last rendered overlay into the bound framebuffer

 private:
  bool windowed_;
};

}  // namespace slabcast::viewer
