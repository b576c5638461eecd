#include "app/viewer/overlay.h"

#include "app/viewer/timeline.h"

#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>

namespace slabcast::viewer {

namespace {

constexpr float kPanelMargin = 8.0f;  // pixels between a panel and the framebuffer's corner
constexpr float kStatsWidth = 300.0f;  // the statistics panel, top left
constexpr float kControlsWidth = 330.0f;  // the controls panel, top right
constexpr float kSlowLoadSeconds = 0.3f;  // a load that takes longer shows a progress bar
constexpr float kMinResolutionScale = 0.25f, kMaxResolutionScale = 2.0f;
constexpr float kMaxDeformAmount = 4.0f;
const ImVec4 kErrorColour(1.0f, 0.4f, 0.35f, 1.0f);

const char* const kDeformers[] = {"none", "twist", "bend", "wave", "pulse"};
const char* const kShadings[] = {"phong (smooth)", "flat",       "depth",          "normals",
                                 "triangle ID",    "slab index", "ray tests (heat)", "triangles per tile (heat)",
                                 "shadow mask",    "albedo (unlit)"};
const char* const kLights[] = {"headlight", "sun", "point light"};

std::string grouped(uint64_t n) {  // 1234567 -> "1,234,567"
  const std::string digits = std::to_string(n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

double mib(size_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

void stats_section(Session& s) {
  const FrameTimes& times = s.frame_times;
  ImGui::Text("%.1f fps   1%% low %.1f fps   %.2f ms", times.average_fps(), times.low_1percent_fps(), times.last_ms());
  const std::vector<float> graph = times.graph();
  const float graph_max = graph.empty() ? 1.0f : std::max(1.0f, *std::max_element(graph.begin(), graph.end()) * 1.2f);
  char label[48];
  std::snprintf(label, sizeof label, "frame ms\n(max %.1f)", graph_max);
  ImGui::PlotLines("##frame_times", graph.data(), static_cast<int>(graph.size()), 0, label, 0.0f, graph_max,
                   ImVec2(ImGui::GetContentRegionAvail().x, 60.0f));

  if (s.gl_raster) {  // the reference has one stage: the whole frame is one draw
    if (ImGui::CollapsingHeader("Stage times", ImGuiTreeNodeFlags_DefaultOpen)) {
      if (std::isfinite(s.gl_raster_ms)) {
        ImGui::Text("gl-raster frame %8.3f ms GL", static_cast<double>(s.gl_raster_ms));
      } else {
        ImGui::Text("gl-raster frame: not timed (no usable GL timer)");
      }
      ImGui::TextDisabled("clear + deform + raster + shade");
    }
    if (ImGui::CollapsingHeader("Counts", ImGuiTreeNodeFlags_DefaultOpen)) {
      ImGui::Text("triangles            %s", grouped(s.stats.triangles_in).c_str());
      ImGui::Text("GPU memory, reference %.1f MiB", mib(s.renderer_bytes));
    }
    return;
  }
  if (ImGui::CollapsingHeader("Stage times", ImGuiTreeNodeFlags_DefaultOpen)) {
    const StageTimes& ms = s.stats.ms;
    // The cuda backend times its stages with CUDA events, the cpu backend with the wall clock; the display
    // (texture copy + full-screen pass) is timed with a GL timer query either way.
    const char* render_unit = s.backend == Backend::cuda ? "ms GPU" : "ms CPU";
    struct Row {
      const char* name;
      float ms;
      const char* unit;
    };
    const Row rows[] = {{"deform", ms.deform, render_unit},
                        {"bin", ms.bin, render_unit},
                        {"L1 split", ms.l1, render_unit},
                        {"L2 split", ms.l2, render_unit},
                        {"L3 split", ms.l3, render_unit},
                        {"cast", ms.cast, render_unit},
                        {"shadow samples", ms.shadow_samples, render_unit},
                        {"shadow light bin", ms.shadow_bin, render_unit},
                        {"shadow test", ms.shadow_test, render_unit},
                        {"shade", ms.shade, render_unit},
                        {"render total", ms.total, render_unit},
                        {"display", s.display_ms, "ms GL"}};
    const bool shadows = frame_has_shadows(s.settings);
    if (ImGui::BeginTable("stages", 2, ImGuiTableFlags_SizingStretchProp)) {
      for (const Row& row : rows) {
        if (!shadows && std::strncmp(row.name, "shadow", 6) == 0) continue;
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(row.name);
        ImGui::TableNextColumn();
        ImGui::Text("%8.3f %s", static_cast<double>(row.ms), row.unit);
      }
      ImGui::EndTable();
    }
  }
  if (ImGui::CollapsingHeader("Counts", ImGuiTreeNodeFlags_DefaultOpen)) {
    const FrameStats& st = s.stats;
    ImGui::Text("triangles            %s", grouped(st.triangles_in).c_str());
    ImGui::Text("  binned (visible)   %s", grouped(st.triangles_binned).c_str());
    ImGui::Text("references (L1)      %s", grouped(st.references).c_str());
    ImGui::Text("non-empty cells      %s", grouped(st.nonempty_cells).c_str());
    ImGui::Text("max refs per tile    %s", grouped(st.max_refs_per_tile).c_str());
    ImGui::Text("ray-triangle tests   %s", grouped(st.ray_triangle_tests).c_str());
    if (frame_has_shadows(s.settings)) {
      ImGui::Text("shadow samples       %s", grouped(st.shadow_samples).c_str());
      ImGui::Text("light references     %s", grouped(st.light_references).c_str());
      ImGui::Text("shadow pairs         %s", grouped(st.shadow_tests).c_str());
    }
    if (st.frame_redone > 0) ImGui::Text("frame redone         %d (buffers grew)", st.frame_redone);
    if (s.cuda_available) {
      ImGui::Text("GPU memory, renderer  %.1f MiB", mib(s.renderer_bytes));
      ImGui::Text("GPU memory, device    %.0f / %.0f MiB", mib(s.device_used_bytes), mib(s.device_total_bytes));
    } else {
      ImGui::Text("GPU memory: no CUDA device");
    }
  }
}

void scene_section(Session& s) {
  if (!ImGui::CollapsingHeader("Scene", ImGuiTreeNodeFlags_DefaultOpen)) return;
  const char* preview = s.model_index >= 0 ? s.models[static_cast<size_t>(s.model_index)].label.c_str()
                                           : s.mesh_name.c_str();
  if (ImGui::BeginCombo("model", preview)) {
    for (size_t i = 0; i < s.models.size(); ++i) {
      const bool selected = static_cast<int>(i) == s.model_index;
      if (ImGui::Selectable(s.models[i].label.c_str(), selected) && !selected && !s.loading()) {
        s.choose_model(static_cast<int>(i));
      }
    }
    ImGui::EndCombo();
  }
  char path[1024];
  std::snprintf(path, sizeof path, "%s", s.path_field.c_str());
  if (std::exchange(s.focus_path_field, false)) ImGui::SetKeyboardFocusHere();
  const bool entered = ImGui::InputText("##path", path, sizeof path, ImGuiInputTextFlags_EnterReturnsTrue);
  s.path_field = path;
  ImGui::SameLine();
  if ((ImGui::Button("load mesh") || entered) && !s.path_field.empty()) {
    s.model_index = -1;
    s.start_loading({s.path_field, s.path_field, "", 0});
  }
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::TextWrapped("%s%s", s.windowed ? "(or drop a mesh file - OBJ, PLY, STL, OFF, glTF - or a folder onto the window) " : "",
                     "a folder of frames or a glob (dir/f_*.obj) plays as a sequence");
  ImGui::PopStyleColor();
  if (s.loading()) {
    const float seconds = std::chrono::duration<float>(std::chrono::steady_clock::now() - s.loading_since).count();
    if (seconds > kSlowLoadSeconds) {
      char text[160];
      std::snprintf(text, sizeof text, "loading %s  %.0f%%", s.loading_name.c_str(), 100.0 * s.load_progress.load());
      ImGui::ProgressBar(static_cast<float>(s.load_progress.load()), ImVec2(-1.0f, 0.0f), text);
    }
  }
  if (s.mesh() != nullptr) {
    ImGui::Text("%s: %s %s", s.mesh_name.c_str(), grouped(s.mesh_triangles).c_str(),
                s.mesh_triangles == 1 ? "triangle" : "triangles");
  }

  // The misses' colour (FrameSettings::background), as the command line's --background sets it.
  Color8& bg = s.settings.background;
  float background[3] = {bg.r / 255.0f, bg.g / 255.0f, bg.b / 255.0f};
  if (ImGui::ColorEdit3("background", background)) {
    const auto to_byte = [](float v) { return static_cast<uint8_t>(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f)); };
    bg = Color8{to_byte(background[0]), to_byte(background[1]), to_byte(background[2]), 255};
  }

  int deformer = static_cast<int>(s.settings.deform.kind);
  if (ImGui::Combo("deformer", &deformer, kDeformers, IM_ARRAYSIZE(kDeformers))) {
    s.settings.deform.kind = static_cast<Deformer>(deformer);
  }
  ImGui::SliderFloat("amount", &s.settings.deform.amount, 0.0f, kMaxDeformAmount, "%.2f");
  if (s.motion().moves()) return;  // the Timeline holds the clock's controls
  ImGui::Checkbox("animate (Space)", &s.animate);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(90.0f);
  ImGui::SliderFloat("speed", &s.time_scale, 0.0f, 4.0f, "%.2fx");
  ImGui::DragFloat("time (s)", &s.settings.deform.time, 0.01f, 0.0f, 0.0f, "%.2f");
}

// A heat view's colour scale (FrameStats::heat_max), as a bar drawn with the window's draw list and its end values.
// The scale is four linear pieces (blue, cyan, green, yellow, red), so one gradient rectangle a piece shows it as the
// image has it.
void heat_legend(const Session& s) {
  ImGui::TextDisabled("%s, log scale", s.settings.shading == Shading::ray_tests ? "ray tests per pixel"
                                                                                : "triangle references per tile");
  constexpr int kPieces = 4;
  const float start_x = ImGui::GetCursorPosX();
  const float width = ImGui::GetContentRegionAvail().x, height = ImGui::GetTextLineHeight();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const auto colour = [](float position) {
    const Color8 c = heat_scale_color(position);
    return IM_COL32(c.r, c.g, c.b, 255);
  };
  for (int i = 0; i < kPieces; ++i) {
    const float a = static_cast<float>(i) / kPieces, b = static_cast<float>(i + 1) / kPieces;
    const ImU32 left = colour(a), right = colour(b);
    draw->AddRectFilledMultiColor(ImVec2(origin.x + width * a, origin.y), ImVec2(origin.x + width * b, origin.y + height),
                                  left, right, right, left);
  }
  ImGui::Dummy(ImVec2(width, height));
  ImGui::TextUnformatted("0");
  const std::string top = grouped(s.stats.heat_max);
  ImGui::SameLine(start_x + width - ImGui::CalcTextSize(top.c_str()).x);
  ImGui::TextUnformatted(top.c_str());
}

void rendering_section(Session& s) {
  if (!ImGui::CollapsingHeader("Rendering", ImGuiTreeNodeFlags_DefaultOpen)) return;
  ImGui::SliderInt("slabs", &s.settings.slabs, 1, 64);
  int shading = static_cast<int>(s.settings.shading);
  if (ImGui::Combo("shading", &shading, kShadings, IM_ARRAYSIZE(kShadings))) {
    s.settings.shading = static_cast<Shading>(shading);
  }
  if (!s.gl_raster && is_heat_view(s.settings.shading)) heat_legend(s);
  if (s.gl_raster) ImGui::BeginDisabled();
  ImGui::Checkbox("wireframe", &s.settings.wireframe);
  // Anti-aliasing (FrameSettings::samples): in a window the image refines while it rests, one sample frame a
  // displayed frame (Session::refine_samples), so a frame costs one sample and a moving scene shows one; "samples k/N"
  // says how many the image on screen has.
  constexpr int kSampleCounts[] = {1, 4, 16};
  const char* const kSampleNames[] = {"1 (pixel centre)", "4 (2x2)", "16 (4x4)"};
  int sample_choice = s.settings.samples == 16 ? 2 : (s.settings.samples == 4 ? 1 : 0);
  if (ImGui::Combo("samples", &sample_choice, kSampleNames, IM_ARRAYSIZE(kSampleNames))) {
    s.settings.samples = kSampleCounts[sample_choice];
  }
  if (!s.gl_raster) ImGui::Text("samples %d/%d", s.samples_in_image(), s.settings.samples);
  if (s.gl_raster) ImGui::EndDisabled();
  ImGui::SliderFloat("resolution", &s.resolution_scale, kMinResolutionScale, kMaxResolutionScale, "%.2fx");
  ImGui::Text("render size %d x %d", s.render_width(), s.render_height());

  // Three choices: the ray caster's two backends and the OpenGL hardware-raster reference (gl_raster.h).
  constexpr int kGlRasterChoice = 2;
  static_assert(static_cast<int>(Backend::cuda) != kGlRasterChoice && static_cast<int>(Backend::cpu) != kGlRasterChoice,
                "the reference's radio value must differ from the backends'");
  int choice = s.gl_raster ? kGlRasterChoice : static_cast<int>(s.backend);
  ImGui::TextUnformatted("backend");
  ImGui::SameLine();
  if (!s.cuda_available) ImGui::BeginDisabled();
  const bool cuda_clicked = ImGui::RadioButton("cuda", &choice, static_cast<int>(Backend::cuda));
  if (!s.cuda_available) ImGui::EndDisabled();
  // A disabled item reports no hover unless asked: the tooltip says why it cannot be chosen.
  if (!s.cuda_available && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) {
    ImGui::SetTooltip("cuda unavailable: %s", s.cuda_absent_reason.c_str());
  }
  ImGui::SameLine();
  const bool cpu_clicked = ImGui::RadioButton("cpu", &choice, static_cast<int>(Backend::cpu));
  // On a line of its own: the panel is too narrow for three choices side by side.
  ImGui::Indent(ImGui::CalcTextSize("backend").x + ImGui::GetStyle().ItemSpacing.x);
  const bool raster_clicked = ImGui::RadioButton("gl-raster (reference)", &choice, kGlRasterChoice);
  if (cuda_clicked || cpu_clicked) {
    s.set_gl_raster(false);
    s.set_backend(static_cast<Backend>(choice));
  }
  ImGui::Unindent(ImGui::CalcTextSize("backend").x + ImGui::GetStyle().ItemSpacing.x);
  if (raster_clicked) s.set_gl_raster(true);
  if (s.gl_raster) {
    ImGui::TextDisabled("OpenGL draw + blit, face normals");
    if (s.settings.shading != Shading::flat && s.settings.shading != Shading::depth &&
        s.settings.shading != Shading::normals && s.settings.shading != Shading::triangle_id) {
      ImGui::TextDisabled("(shown as flat by the reference)");
    }
  } else {
    ImGui::TextDisabled("%s via %s", s.backend == Backend::cuda ? "cuda" : "cpu", gl::feed_name(s.feed()));
  }
  if (!s.cuda_available) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("cuda unavailable: %s", s.cuda_absent_reason.c_str());
    ImGui::PopStyleColor();
  }
  if (s.windowed) ImGui::Checkbox("vsync", &s.vsync);
}

// The light: kind, the sun's direction (azimuth and elevation, or Ctrl + left drag in the view) or the point light's
// position, and the shadows.
void light_section(Session& s) {
  if (!ImGui::CollapsingHeader("Light", ImGuiTreeNodeFlags_DefaultOpen)) return;
  Light& light = s.settings.light;
  int kind = static_cast<int>(light.type);
  if (ImGui::Combo("light", &kind, kLights, IM_ARRAYSIZE(kLights))) {
    light.type = static_cast<LightType>(kind);
    if (light.type == LightType::sun) light.vector = sun_direction(s.sun_azimuth, s.sun_elevation);
    if (light.type == LightType::point) light.vector = s.default_point_light();
  }
  if (light.type == LightType::sun) {
    bool moved = ImGui::SliderFloat("azimuth", &s.sun_azimuth, -180.0f, 180.0f, "%.0f deg");
    moved = ImGui::SliderFloat("elevation", &s.sun_elevation, 1.0f, 90.0f, "%.0f deg") || moved;
    if (moved) light.vector = sun_direction(s.sun_azimuth, s.sun_elevation);
    ImGui::TextDisabled("Ctrl + left drag: move the sun");
  } else if (light.type == LightType::point) {
    ImGui::DragFloat3("position", &light.vector.x, s.point_light_step(), 0.0f, 0.0f, "%.3g");
  }
  if (s.gl_raster) ImGui::BeginDisabled();
  ImGui::Checkbox("shadows (exact)", &s.settings.shadows);
  if (s.gl_raster) ImGui::EndDisabled();
}

// What the last click's pixel shows: its triangle, its slab, vertices, hit point, normal and tile.
void pick_section(Session& s) {
  if (!ImGui::CollapsingHeader("Pick", ImGuiTreeNodeFlags_DefaultOpen)) return;
  const Session::Pick& p = s.picked;
  if (!p.done) {
    ImGui::TextDisabled("click the image to pick a pixel");
    return;
  }
  ImGui::Text("pixel %d, %d   tile %d, %d", p.px, p.py, p.tile_x, p.tile_y);
  if (p.triangle == 0xFFFFFFFFu) {
    ImGui::TextUnformatted("no hit");
    return;
  }
  ImGui::Text("triangle %u   distance %.4g", p.triangle, static_cast<double>(p.distance));
  if (p.slab >= 0) ImGui::Text("slab %d of %d", p.slab, p.slabs);
  ImGui::Text("hit  %.4g, %.4g, %.4g", static_cast<double>(p.point.x), static_cast<double>(p.point.y),
              static_cast<double>(p.point.z));
  ImGui::Text("normal %.3f, %.3f, %.3f", static_cast<double>(p.normal.x), static_cast<double>(p.normal.y),
              static_cast<double>(p.normal.z));
  for (int k = 0; k < 3; ++k) {
    ImGui::Text("v%u  %.4g, %.4g, %.4g", p.vertices[k], static_cast<double>(p.positions[k].x),
                static_cast<double>(p.positions[k].y), static_cast<double>(p.positions[k].z));
  }
}

// The selected vertices' count, and the displacement's reset (docs/viewer.md, "Selecting and moving vertices").
void selection_section(Session& s) {
  if (!ImGui::CollapsingHeader("Vertices", ImGuiTreeNodeFlags_DefaultOpen)) return;
  const VertexEdit& e = s.vertex_edit;
  if (e.has_rectangle()) {
    ImGui::Text("%s vertices selected", grouped(e.selection().size()).c_str());
  } else {
    ImGui::TextDisabled("Shift + left drag: select vertices");
  }
  if (!e.displaced()) ImGui::BeginDisabled();
  if (ImGui::Button("reset displacement")) s.vertex_edit.reset_displacement();
  if (!e.displaced()) ImGui::EndDisabled();
  if (e.has_rectangle()) ImGui::TextDisabled("Shift + drag inside: move them   Esc: deselect");
}

// The selection over the image: its rectangle, and a dot on each selected vertex (at most kMaxHighlightDots, evenly
// spread over the selection, so that a selection of millions costs a bounded draw; the count above stays exact).
void draw_selection(const Session& s) {
  constexpr size_t kMaxHighlightDots = 20000;
  const VertexEdit& e = s.vertex_edit;
  if (!e.has_rectangle() || s.gl_raster) return;
  const ImVec2 fb = ImGui::GetIO().DisplayFramebufferScale;
  // Image pixels -> framebuffer pixels (the resolution scale) -> ImGui's pixels.
  const float to_x = 1.0f / (s.resolution_scale * fb.x), to_y = 1.0f / (s.resolution_scale * fb.y);
  ImDrawList* draw = ImGui::GetBackgroundDrawList();
  const std::vector<SelectedVertex>& selected = e.selection();
  const size_t stride = std::max<size_t>(1, (selected.size() + kMaxHighlightDots - 1) / kMaxHighlightDots);
  for (size_t i = 0; i < selected.size(); i += stride) {
    const ImVec2 p(selected[i].x * to_x, selected[i].y * to_y);
    draw->AddRectFilled(ImVec2(p.x - 1.5f, p.y - 1.5f), ImVec2(p.x + 1.5f, p.y + 1.5f), IM_COL32(255, 200, 40, 255));
  }
  const ImageRect r = e.rectangle();
  draw->AddRect(ImVec2(r.x_min * to_x, r.y_min * to_y), ImVec2(r.x_max * to_x, r.y_max * to_y),
                IM_COL32(255, 200, 40, 220), 0.0f, 0, 1.5f);
}

void camera_section(Session& s) {
  if (!ImGui::CollapsingHeader("Camera", ImGuiTreeNodeFlags_DefaultOpen)) return;
  if (ImGui::Button("reset")) s.camera.reset();
  ImGui::SameLine();
  if (ImGui::Button("frame model (F)")) s.frame_model();
  ImGui::SameLine();
  if (ImGui::Button("screenshot (P)")) s.screenshot_requested = true;
  const Camera& c = s.camera.camera();
  ImGui::TextDisabled("eye %.2f, %.2f, %.2f  fovy %.0f", c.eye.x, c.eye.y, c.eye.z, c.fovy_degrees);
}

}  // namespace

const char* controls_help() {
  return "left drag: orbit   Ctrl + left drag: sun   Shift + left drag: select vertices (inside the selection: move "
         "them)   right/middle drag: pan   wheel: zoom   F: frame model   Space: pause   H: hide overlay   "
         "P/F12: screenshot   Esc: deselect, or quit";
}

PixelRect window_rect() {  // the current ImGui window, widened to whole pixels
  const ImVec2 pos = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
  const int x0 = static_cast<int>(std::floor(pos.x)), y0 = static_cast<int>(std::floor(pos.y));
  return {x0, y0, static_cast<int>(std::ceil(pos.x + size.x)) - x0, static_cast<int>(std::ceil(pos.y + size.y)) - y0};
}

void build_overlay(Session& s) {
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  const float max_height = std::max(display.y - 2.0f * kPanelMargin, 1.0f);
  const ImGuiWindowFlags flags = ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoMove |
                                 ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing;
  s.overlay_rects.clear();
  draw_selection(s);

  ImGui::SetNextWindowPos(ImVec2(kPanelMargin, kPanelMargin), ImGuiCond_Always);
  ImGui::SetNextWindowSizeConstraints(ImVec2(kStatsWidth, 0.0f), ImVec2(kStatsWidth, max_height));
  ImGui::SetNextWindowBgAlpha(0.8f);
  if (ImGui::Begin("slabcast", nullptr, flags)) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("%s", s.gl_description.c_str());
    ImGui::PopStyleColor();
    stats_section(s);
  }
  s.overlay_rects.push_back(window_rect());
  ImGui::End();

  ImGui::SetNextWindowPos(ImVec2(display.x - kPanelMargin, kPanelMargin), ImGuiCond_Always, ImVec2(1.0f, 0.0f));
  ImGui::SetNextWindowSizeConstraints(ImVec2(kControlsWidth, 0.0f), ImVec2(kControlsWidth, max_height));
  ImGui::SetNextWindowBgAlpha(0.8f);
  if (ImGui::Begin("controls", nullptr, flags)) {
    scene_section(s);
    timeline_section(s);
    rendering_section(s);
    light_section(s);
    if (!s.gl_raster) pick_section(s);
    if (!s.gl_raster) selection_section(s);
    camera_section(s);
    if (!s.last_error.empty()) {
      ImGui::PushStyleColor(ImGuiCol_Text, kErrorColour);
      ImGui::TextWrapped("%s", s.last_error.c_str());
      ImGui::PopStyleColor();
    }
    if (!s.last_message.empty()) ImGui::TextDisabled("%s", s.last_message.c_str());
    if (s.windowed) {
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
      ImGui::TextWrapped("%s", controls_help());
      ImGui::PopStyleColor();
    }
  }
  s.overlay_rects.push_back(window_rect());
  ImGui::End();
}

}  // namespace slabcast::viewer
