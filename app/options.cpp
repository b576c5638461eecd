#include "app/options.h"

#include "render/scale.h"

#include <cmath>

namespace slabcast {

std::string SceneSpec::label() const {
  if (!mesh_path.empty()) {
    const size_t slash = mesh_path.find_last_of('/');
    return slash == std::string::npos ? mesh_path : mesh_path.substr(slash + 1);
  }
  return procedural_name + ":" + std::to_string(procedural_triangles);
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
