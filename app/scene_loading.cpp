// Loading a scene (app/scene_loading.h): a mesh file of any format, a glTF file with its animation, a mesh
// sequence, or a procedural mesh, with the generated extras the benchmarks use.
#include "app/scene_loading.h"

#include "app/cli.h"
#include "app/formats/gltf_mesh.h"
#include "app/formats/mesh_format.h"
#include "app/formats/ply_frame.h"
#include "app/mesh_io.h"
#include "render/procedural_appearance.h"
#include "render/procedural_rig.h"

#include <unistd.h>

#include <filesystem>
#include <iomanip>
#include <memory>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace slabcast {
namespace {

std::string megabytes(uint64_t bytes) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(1) << double(bytes) / (1024.0 * 1024.0) << " MiB";
  return s.str();
}

// Files at least this large get a progress line while they load.
constexpr uint64_t kProgressFileBytes = uint64_t(16) << 20;

// "loading FILE (SIZE): NN%": rewritten in place on a terminal, every 25% elsewhere (logs stay short).
class ProgressLine {
 public:
  ProgressLine(std::ostream& log, std::string what) : log_(log), what_(std::move(what)), tty_(isatty(STDERR_FILENO) != 0) {}
  void update(double fraction) {
    const int percent = int(fraction * 100.0);
    const int step = tty_ ? 1 : 25;
    if (percent / step == shown_ / step && shown_ >= 0) return;
    shown_ = percent;
    log_ << (tty_ ? "\r" : "") << "[slabcast] loading " << what_ << ": " << std::setw(3) << percent << "%"
         << (tty_ ? "" : "\n") << std::flush;
  }
  void finish() {
    if (tty_ && shown_ >= 0) log_ << "\n";
  }

 private:
  std::ostream& log_;
  std::string what_;
  bool tty_;
  int shown_ = -1;
};

// The scene's mesh as the file or the procedural generator gives it.
Mesh load_scene_mesh(const SceneSpec& scene, std::ostream& log) {
  if (scene.mesh_path.empty()) {
    try {
      return make_procedural_mesh(scene.procedural_name, scene.procedural_triangles);
    } catch (const std::invalid_argument& e) {
      throw UsageError("--procedural: " + scene.label() + ": " + e.what());
    } catch (const std::bad_alloc&) {
      throw std::runtime_error(scene.label() + ": out of host memory building the procedural mesh");
    }
  }
  std::error_code ec;
  const uint64_t bytes = std::filesystem::is_regular_file(scene.mesh_path, ec) ? std::filesystem::file_size(scene.mesh_path, ec) : 0;
  Mesh mesh;
  std::vector<std::string> warnings;  // printed after the progress line, which they would break
  const LoadWarning warn = [&](const std::string& message) { warnings.push_back(message); };
  if (bytes >= kProgressFileBytes) {
    ProgressLine line(log, scene.mesh_path + " (" + megabytes(bytes) + ")");
    mesh = load_mesh(scene.mesh_path, [&](double f) { line.update(f); }, warn);
    line.finish();
  } else {
    mesh = load_mesh(scene.mesh_path, {}, warn);
  }
  for (const std::string& message : warnings) log << "[slabcast] warning: " << message << "\n";
  try {
    validate_mesh(mesh);  // the renderer's own preconditions, on top of the loader's checks
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(scene.mesh_path + ": " + e.what());
  }
  return mesh;
}

}  // namespace

bool is_sequence_spec(const std::string& path) {
  std::error_code ec;
  return path.find_first_of("*?") != std::string::npos || std::filesystem::is_directory(path, ec);
}

LoadedScene load_scene(const SceneSpec& scene, std::ostream& log) {
  LoadedScene out;
  const auto warn = [&log](const std::string& message) { log << "[slabcast] warning: " << message << "\n"; };
  if (!scene.mesh_path.empty() && is_sequence_spec(scene.mesh_path)) {
    if (scene.floor) throw UsageError("--floor: not available with a mesh sequence (its frames give every vertex)");
    std::vector<std::string> frames = list_sequence_frames(scene.mesh_path);
    // Binary PLY frames (simulation output) take the fast path: positions copied from the body, faces compared.
    std::shared_ptr<const formats::PlyFrameReader> fast(formats::PlyFrameReader::for_first_frame(frames.front()));
    SequencePositionsReader read_positions;
    if (fast) {
      read_positions = [fast](const std::string& path, std::vector<glm::vec3>& positions) {
        return fast->read_positions(path, positions);
      };
    }
    auto player = std::make_shared<SequencePlayer>(
        std::move(frames), [warn](const std::string& path) { return load_mesh(path, {}, warn); },
        scene.sequence_fps, SequencePlayer::kDefaultMemoryBudget, read_positions);
    out.mesh = player->topology();
    out.motion = SceneMotion::sequence(player, true);
  } else if (!scene.mesh_path.empty() && (detect_mesh_format(scene.mesh_path) == MeshFormat::gltf ||
                                          detect_mesh_format(scene.mesh_path) == MeshFormat::glb)) {
    GltfModel model = load_gltf_model(scene.mesh_path, {}, warn);
    out.mesh = std::move(model.mesh);
    if (model.animations) {
      const int index = scene.animation.empty() ? 0 : model.animations->find_animation(scene.animation);
      out.motion = SceneMotion::animation(model.animations, index);
    }
    try {
      validate_mesh(out.mesh);
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(scene.mesh_path + ": " + e.what());
    }
  } else {
    out.mesh = load_scene_mesh(scene, log);
  }
  if (!scene.animation.empty() && !out.motion.animations()) {
    throw UsageError("--animation: " + scene.label() + " has no animation (glTF files carry them)");
  }
  if (scene.procedural_rig_joints > 0) {
    add_procedural_rig(out.mesh, scene.procedural_rig_joints);
    out.motion = SceneMotion::procedural_rig(out.mesh);
  }
  if (scene.checker_texture > 0) add_checker_texture(out.mesh, scene.checker_texture, 32);
  if (scene.floor) add_floor(out.mesh);
  return out;
}

}  // namespace slabcast
