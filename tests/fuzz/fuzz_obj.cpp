// libFuzzer target over the mesh loading and validation path (app/mesh_io: parse_obj).
// Any input must end in a Mesh that passes the loader's promises, or in one std::runtime_error naming the input;
// anything else (a crash, a sanitizer report, another exception type, a wrong mesh) is a bug.
// Built and run by scripts/fuzz.sh (clang, -fsanitize=fuzzer,address,undefined).
#include "app/mesh_io.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  slabcast::Mesh mesh;
  try {
    mesh = slabcast::parse_obj(text, "fuzz.obj");
  } catch (const std::runtime_error& error) {
    // A rejection must name the input.
    if (std::string_view(error.what()).find("fuzz.obj") == std::string_view::npos) std::abort();
    return 0;
  }
  // An accepted mesh keeps the promises the renderer relies on.
  if (mesh.indices.empty() || mesh.indices.size() % 3 != 0) std::abort();
  for (const uint32_t index : mesh.indices) {
    if (index >= mesh.positions.size()) std::abort();
  }
  for (const auto& p : mesh.positions) {
    if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z)) std::abort();
  }
  return 0;
}
