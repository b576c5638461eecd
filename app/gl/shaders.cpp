#include "app/gl/shaders.h"

#include <stdexcept>

namespace slabcast::gl {

std::string shader_text(const std::string& file_name) {
  size_t count = 0;
  const EmbeddedShader* table = embedded_shaders(&count);
  for (size_t i = 0; i < count; ++i) {
    if (file_name == table[i].file_name) return table[i].text;
  }
  throw std::runtime_error("shaders/" + file_name + " was not embedded into this build (re-run CMake?)");
}

}  // namespace slabcast::gl
