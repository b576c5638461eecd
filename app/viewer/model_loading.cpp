#include "app/viewer/model_loading.h"

#include "app/formats/mesh_format.h"
#include "app/formats/mesh_sequence.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <ostream>
#include <set>
#include <streambuf>
#include <utility>

namespace slabcast::viewer {

namespace {

namespace fs = std::filesystem;

constexpr const char* kProgressPrefix = "[slabcast] loading ";

// The log stream handed to load_scene: progress lines move the bar, every other line (warnings) goes to stderr
// whole, so that lines from a background load never interleave mid-line with the render loop's output. On a
// terminal load_scene rewrites its progress line after '\r' without ending it, so a flush also reads the line.
class LoadLogBuffer : public std::streambuf {
 public:
  explicit LoadLogBuffer(std::atomic<double>* progress) : progress_(progress) {}
  ~LoadLogBuffer() override {
    if (!line_.empty()) finish_line();
  }

 protected:
  int overflow(int c) override {
    if (c == traits_type::eof()) return 0;
    const char ch = traits_type::to_char_type(c);
    if (ch == '\n') {
      finish_line();
    } else if (ch == '\r') {
      line_.clear();
    } else {
      line_ += ch;
    }
    return c;
  }
  int sync() override {
    double fraction = 0.0;
    if (parse_progress_line(line_, &fraction)) progress_->store(fraction);
    return 0;
  }

 private:
  void finish_line() {
    double fraction = 0.0;
    if (parse_progress_line(line_, &fraction)) {
      progress_->store(fraction);
    } else {
      std::fprintf(stderr, "%s\n", line_.c_str());
    }
    line_.clear();
  }

  std::atomic<double>* progress_;
  std::string line_;
};

// A directory under assets/ that holds a mesh sequence: its frame count, or 0 (a single mesh with its textures,
// such as assets/textured-box/, is no sequence).
size_t sequence_frames_in(const fs::path& dir) {
  try {
    return list_sequence_frames(dir.string()).size();
  } catch (const std::exception&) {
    return 0;
  }
}

}  // namespace

bool parse_progress_line(const std::string& line, double* fraction) {
  const std::string prefix = kProgressPrefix;
  if (line.compare(0, prefix.size(), prefix) != 0 || line.empty() || line.back() != '%') return false;
  const size_t colon = line.rfind(':');
  if (colon == std::string::npos) return false;
  int percent = 0, digits = 0;
  for (size_t i = colon + 1; i + 1 < line.size(); ++i) {
    if (line[i] == ' ') continue;
    if (line[i] < '0' || line[i] > '9') return false;
    percent = percent * 10 + (line[i] - '0');
    if (++digits > 3) return false;
  }
  if (digits == 0) return false;
  *fraction = std::min(percent, 100) / 100.0;
  return true;
}

std::vector<ModelChoice> list_models() {
  std::vector<ModelChoice> models = {
      {"sphere, 1M triangles", "", "sphere", 1000000},
      {"sphere, 100K triangles", "", "sphere", 100000},
      {"sphere, 4M triangles", "", "sphere", 4000000},
      {"torus, 1M triangles", "", "torus", 1000000},
      {"torus knot, 1M triangles", "", "torus_knot", 1000000},
      {"stress scene, 100K triangles", "", "stress", 100000},
  };
  // Shipped meshes (assets/*) and fetched ones (assets/models/*, from assets/fetch-models.sh), in every format
  // load_mesh reads, then the shipped sequences (directories of frames under assets/).
  std::set<fs::path> seen;
  for (const fs::path& root : {fs::current_path(), fs::path(SLABCAST_SOURCE_DIR)}) {
    for (const char* sub : {"assets", "assets/models"}) {
      std::error_code error;
      const fs::path dir = root / sub;
      if (!fs::is_directory(dir, error)) continue;
      const bool shipped = std::string(sub) == "assets";
      std::vector<fs::path> files, sequences;
      for (const fs::directory_entry& entry : fs::directory_iterator(dir, error)) {
        if (entry.is_regular_file(error) && has_mesh_extension(entry.path().string())) files.push_back(entry.path());
        if (shipped && entry.is_directory(error) && entry.path().filename() != "models") {
          sequences.push_back(entry.path());
        }
      }
      std::sort(files.begin(), files.end());
      std::sort(sequences.begin(), sequences.end());
      for (const fs::path& file : files) {
        const fs::path canonical = fs::weakly_canonical(file, error);
        if (!seen.insert(canonical).second) continue;
        models.push_back({file.filename().string() + (shipped ? " (shipped)" : ""), canonical.string(), "", 0});
      }
      for (const fs::path& sequence : sequences) {
        const fs::path canonical = fs::weakly_canonical(sequence, error);
        if (seen.count(canonical) != 0) continue;
        const size_t frames = sequence_frames_in(sequence);
        if (frames < 2) continue;
        seen.insert(canonical);
        models.push_back({sequence.filename().string() + "/ (shipped sequence, " + std::to_string(frames) + " frames)",
                          canonical.string(), "", 0});
      }
    }
  }
  return models;
}

SceneSpec scene_of(const ModelChoice& model, const SceneSpec& command_line) {
  SceneSpec scene;
  scene.mesh_path = model.path;
  if (model.path.empty()) {
    scene.procedural_name = model.procedural;
    scene.procedural_triangles = model.triangles;
  }
  scene.sequence_fps = command_line.sequence_fps;
  return scene;
}

LoadedScene load_model(const SceneSpec& scene, std::atomic<double>* progress) {
  progress->store(0.0);
  LoadLogBuffer buffer(progress);
  std::ostream log(&buffer);
  LoadedScene loaded = load_scene(scene, log);
  log.flush();
  progress->store(1.0);
  return loaded;
}

}  // namespace slabcast::viewer
