#include "app/options.h"

#include "render/scale.h"

#include <cmath>
#include <string>

namespace slabcast {

std::string SceneSpec::label() const {
  const std::string suffix = (floor ? "+floor" : "") +
                             (procedural_rig_joints > 0 ? "+rig" + std::to_string(procedural_rig_joints) : "") +
                             (checker_texture > 0 ? "+checker" + std::to_string(checker_texture) : "");
  if (!mesh_path.empty()) {
    const size_t slash = mesh_path.find_last_of('/');
    return (slash == std::string::npos ? mesh_path : mesh_path.substr(slash + 1)) + suffix;
  }
  return procedural_name + ":" + std::to_string(procedural_triangles) + suffix;
}

namespace {

// Walks `pattern`, calling literal(c) for its text and number(width) for each %d / %0Nd; returns "" or the problem.
template <class Literal, class Number>
std::string walk_pattern(const std::string& pattern, Literal&& literal, Number&& number) {
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%') {
      literal(pattern[i]);
      continue;
    }
    if (i + 1 < pattern.size() && pattern[i + 1] == '%') {
      literal('%');
      ++i;
      continue;
    }
    size_t j = i + 1;
    int width = 0;
    if (j < pattern.size() && pattern[j] == '0') {
      ++j;
      if (j < pattern.size() && pattern[j] >= '1' && pattern[j] <= '9') width = pattern[j++] - '0';
    }
    if (j >= pattern.size() || pattern[j] != 'd') return "'%' must start %d, %0Nd (N = 1..9) or %%";
    number(width);
    i = j;
  }
  return {};
}

}  // namespace

std::string frame_number_problem(const std::string& pattern, int* placeholders) {
  *placeholders = 0;
  return walk_pattern(pattern, [](char) {}, [&](int) { ++*placeholders; });
}

std::string frame_file(const std::string& pattern, int k) {
  std::string out;
  walk_pattern(pattern, [&](char c) { out += c; }, [&](int width) {
    std::string digits = std::to_string(k);
    if (digits.size() < size_t(width)) digits.insert(0, size_t(width) - digits.size(), '0');
    out += digits;
  });
  return out;
}

Camera orbit_camera(const SceneOptions& options, const Camera& framed) {
  Camera camera = framed;
  if (options.target_given) camera.target = options.frame.camera.target;
  if (options.up_given) camera.up = options.frame.camera.up;
  const glm::vec3 orbit = *options.orbit;
  const double distance = orbit.z > 0.0f ? double(orbit.z) : double(length_without_overflow(framed.eye - framed.target));
  const double azimuth = glm::radians(double(orbit.x)), elevation = glm::radians(double(orbit.y));
  const glm::dvec3 direction(std::cos(elevation) * std::sin(azimuth), std::sin(elevation),
                             std::cos(elevation) * std::cos(azimuth));
  camera.eye = camera.target + glm::vec3(direction * distance);
  return camera;
}

}  // namespace slabcast
