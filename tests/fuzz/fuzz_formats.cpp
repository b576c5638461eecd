// libFuzzer target over the mesh readers this project writes itself besides OBJ: the PLY check that runs before
// Assimp (app/formats/ply_layout.h: check_ply) and the OFF reader (app/formats/off_mesh.h: parse_off). Every input
// goes to both. Any input must end in a result that keeps the reader's promises, or in one std::runtime_error
// naming the input; anything else (a crash, a sanitizer report, another exception type) is a bug.
// Built and run by scripts/fuzz.sh (clang, -fsanitize=fuzzer,address,undefined).
#include "app/formats/off_mesh.h"
#include "app/formats/ply_layout.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

namespace {

void expect_named(const std::runtime_error& error, std::string_view name) {
  if (std::string_view(error.what()).find(name) == std::string_view::npos) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    const slabcast::formats::PlyLayout layout = slabcast::formats::check_ply(bytes, "fuzz.ply");
    // An accepted file has a body inside the input and the elements it promises.
    if (layout.body_offset > size || layout.faces == 0) std::abort();
  } catch (const std::runtime_error& error) {
    expect_named(error, "fuzz.ply");
  }
  try {
    const slabcast::Mesh mesh = slabcast::formats::parse_off(bytes, "fuzz.off");
    if (mesh.indices.empty() || mesh.indices.size() % 3 != 0) std::abort();
    for (const uint32_t index : mesh.indices) {
      if (index >= mesh.positions.size()) std::abort();
    }
    for (const auto& p : mesh.positions) {
      if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z)) std::abort();
    }
    if (!mesh.vertex_colors.empty() && mesh.vertex_colors.size() != mesh.positions.size()) std::abort();
  } catch (const std::runtime_error& error) {
    expect_named(error, "fuzz.off");
  }
  return 0;
}
