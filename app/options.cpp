#include "app/options.h"

namespace slabcast {

std::string SceneSpec::label() const {
  if (!mesh_path.empty()) {
    const size_t slash = mesh_path.find_last_of('/');
    return slash == std::string::npos ? mesh_path : mesh_path.substr(slash + 1);
  }
  return procedural_name + ":" + std::to_string(procedural_triangles);
}

}  // namespace slabcast
