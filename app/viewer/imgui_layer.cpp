#include "app/viewer/imgui_layer.h"

#include "app/gl/gl_util.h"

#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <stdexcept>

namespace slabcast::viewer {

namespace {
constexpr float kMinDeltaSeconds = 1e-4f;  // ImGui asserts a positive frame time
}  // namespace

ImGuiLayer::ImGuiLayer(GLFWwindow* window) : windowed_(window != nullptr) {
  IMGUI_CHECKVERSION();  // the headers and libimgui.a agree on the version and the struct layouts
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // no imgui.ini in the user's working directory: the panel's place is fixed anyway
  ImGui::StyleColorsDark();
  ImGui::GetStyle().WindowRounding = 4.0f;
  if (windowed_ && !ImGui_ImplGlfw_InitForOpenGL(window, true)) {
    ImGui::DestroyContext();
    throw std::runtime_error("Dear ImGui's GLFW backend failed to initialise");
  }
  if (!ImGui_ImplOpenGL3_Init("#version 450 core")) {
    if (windowed_) ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    throw std::runtime_error("Dear ImGui's OpenGL3 backend failed to initialise");
  }
}

ImGuiLayer::~ImGuiLayer() {
  ImGui_ImplOpenGL3_Shutdown();
  if (windowed_) ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
}

void ImGuiLayer::new_frame(int width, int height, float seconds) {
  ImGui_ImplOpenGL3_NewFrame();
  if (windowed_) {
    ImGui_ImplGlfw_NewFrame();
  } else {
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(static_cast<float>(width), static_cast<float>(height));
    io.DisplayFramebufferScale = ImVec2(1.0f, 1.0f);
    io.DeltaTime = seconds > kMinDeltaSeconds ? seconds : kMinDeltaSeconds;
  }
  ImGui::NewFrame();
}

void ImGuiLayer::end_frame() { ImGui::Render(); }

void ImGuiLayer::draw() {
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  gl::check_gl("ImGui_ImplOpenGL3_RenderDrawData", __FILE__, __LINE__);
}

}  // namespace slabcast::viewer
