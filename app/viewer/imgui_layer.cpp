#include "app/viewer/imgui_layer.h"

#include "app/gl/gl_util.h"

#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <algorithm>
#include <stdexcept>

namespace slabcast::viewer {

namespace {
constexpr float kMinDeltaSeconds = 1e-4f;  // ImGui asserts a positive frame time

// The layer whose window's keys are queued. GLFW's callbacks carry only the window, whose user pointer belongs to
// the session; the viewer has one window, so one layer at a time takes its keys.
ImGuiLayer* g_input_layer = nullptr;
}  // namespace

ImGuiLayer::ImGuiLayer(GLFWwindow* window) : window_(window) {
  IMGUI_CHECKVERSION();  // the headers and libimgui.a agree on the version and the struct layouts
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // no imgui.ini in the user's working directory: the panel's place is fixed anyway
  ImGui::StyleColorsDark();
  ImGui::GetStyle().WindowRounding = 4.0f;
  if (window_ != nullptr && !ImGui_ImplGlfw_InitForOpenGL(window_, true)) {
    ImGui::DestroyContext();
    throw std::runtime_error("Dear ImGui's GLFW backend failed to initialise");
  }
  if (!ImGui_ImplOpenGL3_Init("#version 450 core")) {
    if (window_ != nullptr) ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    throw std::runtime_error("Dear ImGui's OpenGL3 backend failed to initialise");
  }
  if (window_ != nullptr) {  // in front of the backend's key and character callbacks: they get the events from the queue
    g_input_layer = this;
    imgui_key_ = glfwSetKeyCallback(window_, queue_key);
    imgui_char_ = glfwSetCharCallback(window_, queue_char);
  }
}

ImGuiLayer::~ImGuiLayer() {
  ImGui_ImplOpenGL3_Shutdown();
  if (window_ != nullptr) {
    // The backend's shutdown puts back the callbacks it found; ours go first so that it finds its own in place.
    glfwSetKeyCallback(window_, imgui_key_);
    glfwSetCharCallback(window_, imgui_char_);
    g_input_layer = nullptr;
    ImGui_ImplGlfw_Shutdown();
  }
  ImGui::DestroyContext();
}

void ImGuiLayer::queue_key(GLFWwindow* window, int key, int scancode, int action, int mods) {
  if (g_input_layer == nullptr || window != g_input_layer->window_) return;
  g_input_layer->queue_.push_back(InputEvent{false, key, scancode, action, mods, 0u});
}

void ImGuiLayer::queue_char(GLFWwindow* window, unsigned int codepoint) {
  if (g_input_layer == nullptr || window != g_input_layer->window_) return;
  g_input_layer->queue_.push_back(InputEvent{true, 0, 0, 0, 0, codepoint});
}

void ImGuiLayer::feed_input() {
  // One frame takes the events up to the first that it could not tell apart from an earlier one or would take out of
  // order: a second change of the same key (a press and its release), or a character after a key change (InputText
  // takes a frame's characters before its keys). Repeats change no key state and pass. The first event always goes.
  keys_this_frame_.clear();
  bool key_changed = false;
  bool first = true;
  while (!queue_.empty()) {
    const InputEvent& e = queue_.front();
    if (!first) {
      if (e.is_char && key_changed) break;
      if (!e.is_char && e.action != GLFW_REPEAT &&
          std::find(keys_this_frame_.begin(), keys_this_frame_.end(), e.key) != keys_this_frame_.end()) {
        break;
      }
    }
    first = false;
    if (e.is_char) {
      if (imgui_char_ != nullptr) imgui_char_(window_, e.codepoint);
    } else {
      if (e.action != GLFW_REPEAT) {
        keys_this_frame_.push_back(e.key);
        key_changed = true;
      }
      if (imgui_key_ != nullptr) imgui_key_(window_, e.key, e.scancode, e.action, e.mods);
    }
    queue_.pop_front();
  }
}

void ImGuiLayer::new_frame(int width, int height, float seconds) {
  ImGui_ImplOpenGL3_NewFrame();
  ImGuiIO& io = ImGui::GetIO();
  if (window_ != nullptr) {
    ImGui_ImplGlfw_NewFrame();
    // UI-only frames follow one another within microseconds; the backend's clock could give them no time at all.
    io.DeltaTime = std::max(io.DeltaTime, kMinDeltaSeconds);
  } else {
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
