// GLSL sources of shaders/, embedded into the binary at build time (app/gl/embed_shaders.cmake).
#pragma once
#include <cstddef>
#include <string>

namespace slabcast::gl {

struct EmbeddedShader {
  const char* file_name;  // e.g. "fullscreen.frag"
  const char* text;       // the file's contents
};

// The table of every embedded shader (defined in the generated shaders_embedded.cpp).
const EmbeddedShader* embedded_shaders(size_t* count);

// The text of shaders/<file_name>; throws std::runtime_error naming the file if it was not embedded.
std::string shader_text(const std::string& file_name);

}  // namespace slabcast::gl
