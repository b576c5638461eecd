#include "app/check_command.h"

#include "app/check_report.h"
#include "app/cli.h"
#include "app/image_compare.h"
#include "app/image_io.h"
#include "app/output_file.h"
#include "app/render_command.h"

#include <stdlib.h>  // mkdtemp

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace slabcast {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Scene {
  std::string name;
  std::string args;       // as in the file, for the report
  RenderOptions render;   // parsed; out and ids_path point into the temporary folder
};

// A fresh folder for the rendered frames, removed with everything in it at the end.
class TemporaryFolder {
 public:
  TemporaryFolder() {
    std::string pattern = (fs::temp_directory_path() / "slabcast-check-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw std::runtime_error("cannot create a temporary folder " + pattern + ": " + std::strerror(errno));
    }
    path_ = pattern;
  }
  ~TemporaryFolder() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A scene's name becomes file names: letters, digits, '_', '-' and '.', not starting with '.'.
bool usable_name(const std::string& name) {
  if (name.empty() || name[0] == '.') return false;
  for (const char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') return false;
  }
  return true;
}

// What parse_command_line printed, without its "slabcast: error: " and the trailing newline.
std::string parse_error(const std::string& printed) {
  std::string message = printed.substr(0, printed.find('\n'));
  const std::string prefix = "slabcast: error: ";
  if (message.compare(0, prefix.size(), prefix) == 0) message.erase(0, prefix.size());
  return message.empty() ? "not a `slabcast render` command line" : message;
}

std::vector<Scene> read_scenes(const CheckOptions& options, const std::string& frames_dir) {
  const std::string& file = options.scenes_path;
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) throw UsageError(file + ": cannot read the scenes: no such file");
  std::ifstream in(file);
  if (!in) throw UsageError(file + ": cannot read the scenes: " + std::strerror(errno));
  std::vector<Scene> scenes;
  std::string row;
  for (int line = 1; std::getline(in, row); ++line) {
    if (!row.empty() && row.back() == '\r') row.pop_back();
    std::istringstream words(row);
    std::vector<std::string> args;
    for (std::string w; words >> w;) args.push_back(w);
    if (args.empty() || args[0][0] == '#') continue;
    const std::string where = file + ":" + std::to_string(line) + ": ";
    Scene scene;
    scene.name = args[0];
    if (!usable_name(scene.name)) {
      throw UsageError(where + "scene name '" + scene.name + "' (letters, digits, '_', '-' and '.', for file names)");
    }
    for (const Scene& s : scenes) {
      if (s.name == scene.name) throw UsageError(where + "scene '" + scene.name + "' is named twice");
    }
    args.erase(args.begin());
    for (const std::string& a : args) scene.args += (scene.args.empty() ? "" : " ") + a;
    // The scene's arguments, parsed as `slabcast render` parses them: every render flag works, and a bad one gets
    // render's message.
    std::vector<std::string> argv = {"slabcast", "render"};
    argv.insert(argv.end(), args.begin(), args.end());
    if (!options.backend.empty()) argv.insert(argv.end(), {"--backend", options.backend});
    const std::string frame = frames_dir + "/" + scene.name + ".png";
    argv.insert(argv.end(), {"--out", frame});
    std::vector<const char*> pointers;
    for (const std::string& a : argv) pointers.push_back(a.c_str());
    std::ostringstream help, errors;
    ParsedCommandLine parsed = parse_command_line(int(pointers.size()), pointers.data(), help, errors);
    if (parsed.command != Command::render) throw UsageError(where + "scene '" + scene.name + "': " + parse_error(errors.str()));
    if (parsed.render.frames > 1) throw UsageError(where + "scene '" + scene.name + "': --frames: one frame a scene");
    scene.render = parsed.render;
    scene.render.out = frame;
    if (fs::exists(options.goldens_dir + "/" + scene.name + ".ids", ec)) {
      scene.render.ids_path = frames_dir + "/" + scene.name + ".ids";
    }
    scenes.push_back(std::move(scene));
  }
  if (in.bad()) throw UsageError(file + ": cannot read the scenes: " + std::strerror(errno));
  if (scenes.empty()) throw UsageError(file + ": no scenes (a line: NAME, a tab, `slabcast render` arguments)");
  return scenes;
}

std::string percent(double fraction) {
  std::ostringstream s;
  s << std::setprecision(3) << fraction * 100.0 << " %";
  return s.str();
}

// Compares the rendered frame (and IDs) with the goldens; on a failure writes the difference image and the frame.
void compare_scene(const CheckOptions& options, const Scene& scene, SceneOutcome* outcome) {
  const std::string golden_path = options.goldens_dir + "/" + scene.name + ".png";
  const Rgba8Image frame = read_png(scene.render.out);
  const std::string actual_path = options.diff_dir + "/" + scene.name + "-actual.png";
  const auto keep_actual = [&] {
    fs::create_directories(options.diff_dir);
    write_png(actual_path, frame.pixels.data(), frame.width, frame.height, size_t(frame.width) * 4);
  };
  std::error_code ec;
  if (!fs::exists(golden_path, ec)) {
    outcome->result = CheckResult::missing;
    outcome->message = "missing golden " + golden_path + " (run with --update to create it)";
    keep_actual();
    return;
  }
  const Rgba8Image golden = read_png(golden_path);
  const ImageComparison colour = compare_images(frame, golden);
  std::vector<std::string> problems;
  if (!colour.same_size) {
    problems.push_back("the frame is " + size_text(frame.width, frame.height) + ", the golden " +
                       size_text(golden.width, golden.height));
  } else {
    outcome->differing_fraction = colour.differing_fraction();
    outcome->worst_channel = colour.worst_channel;
    if (!colour.matches()) {
      problems.push_back(std::to_string(colour.differing) + " of " + std::to_string(colour.pixels) + " pixels (" +
                         percent(colour.differing_fraction()) + ") differ by more than " +
                         std::to_string(kGoldenChannelTolerance) + " (largest channel difference " +
                         std::to_string(colour.worst_channel) + "; at most " + percent(kGoldenMaxDifferingFraction) +
                         " may)");
    }
  }
  if (!scene.render.ids_path.empty()) {
    const ImageComparison ids = compare_ids(read_ids(scene.render.ids_path),
                                            read_ids(options.goldens_dir + "/" + scene.name + ".ids"));
    if (!ids.same_size) {
      problems.push_back("the triangle IDs' size differs from the golden's");
    } else {
      outcome->ids_differing_fraction = ids.differing_fraction();
      if (!ids.matches()) {
        problems.push_back(std::to_string(ids.differing) + " of " + std::to_string(ids.pixels) +
                           " triangle IDs (" + percent(ids.differing_fraction()) + ") differ");
      }
    }
  }
  if (problems.empty()) {
    outcome->result = CheckResult::pass;
    return;
  }
  outcome->result = CheckResult::fail;
  for (const std::string& p : problems) outcome->message += (outcome->message.empty() ? "" : "; ") + p;
  keep_actual();
  if (colour.same_size) {
    outcome->diff_path = options.diff_dir + "/" + scene.name + "-diff.png";
    write_png(outcome->diff_path, colour.diff.pixels.data(), colour.diff.width, colour.diff.height,
              size_t(colour.diff.width) * 4);
  }
  outcome->message += " (" + (outcome->diff_path.empty() ? actual_path : outcome->diff_path) + ")";
}

// --update: the rendered frame (and IDs, where a golden of them exists) become the goldens, landing with the others.
void update_scene(const CheckOptions& options, const Scene& scene, OutputBatch* goldens, SceneOutcome* outcome) {
  const Rgba8Image frame = read_png(scene.render.out);
  write_png(options.goldens_dir + "/" + scene.name + ".png", frame.pixels.data(), frame.width, frame.height,
            size_t(frame.width) * 4, goldens);
  if (!scene.render.ids_path.empty()) {
    const IdImage ids = read_ids(scene.render.ids_path);
    write_ids(options.goldens_dir + "/" + scene.name + ".ids", ids.ids.data(), ids.width, ids.height, goldens);
  }
  outcome->result = CheckResult::updated;
}

std::string without_prefix(std::string message) {
  const std::string prefix = "slabcast: ";
  if (message.compare(0, prefix.size(), prefix) == 0) message.erase(0, prefix.size());
  return message;
}

}  // namespace

int run_check(const CheckOptions& options, std::ostream& out, std::ostream& log) {
  const TemporaryFolder frames;
  const std::vector<Scene> scenes = read_scenes(options, frames.path());
  if (options.update) fs::create_directories(options.goldens_dir);
  OutputBatch goldens;
  std::vector<SceneOutcome> outcomes;
  for (size_t i = 0; i < scenes.size(); ++i) {
    const Scene& scene = scenes[i];
    SceneOutcome outcome;
    outcome.name = scene.name;
    outcome.args = scene.args;
    const auto start = Clock::now();
    try {
      std::ostringstream render_log;  // render's statistics and notes: the report says what matters
      run_render(scene.render, render_log, render_log);
      if (options.update) {
        update_scene(options, scene, &goldens, &outcome);
      } else {
        compare_scene(options, scene, &outcome);
      }
    } catch (const std::exception& e) {
      outcome.result = CheckResult::error;
      outcome.message = without_prefix(e.what());
    }
    outcome.ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    log << "[" << i + 1 << "/" << scenes.size() << "] " << scene.name << ": " << to_string(outcome.result)
        << std::fixed << std::setprecision(1) << " (" << outcome.ms << " ms)" << std::defaultfloat
        << (outcome.message.empty() ? "" : ": " + outcome.message) << std::endl;
    outcomes.push_back(std::move(outcome));
  }
  if (options.update) {
    const std::string failed = goldens.commit();
    if (!failed.empty()) throw std::runtime_error(failed + " (cannot rename into place)");
  }

  print_check_table(outcomes, options.update, out);
  OutputBatch reports;
  const auto add_report = [&](const std::string& path, const std::string& text) {
    if (path.empty()) return;
    const std::string failed = reports.add(path, [&](std::FILE* f) {
      return std::fwrite(text.data(), 1, text.size(), f) == text.size();
    });
    if (!failed.empty()) throw std::runtime_error(path + ": " + failed);
  };
  add_report(options.json_path, check_json(options, outcomes));
  add_report(options.junit_path, check_junit(outcomes));
  const std::string failed = reports.commit();
  if (!failed.empty()) throw std::runtime_error(failed + " (cannot rename into place)");
  if (!options.json_path.empty()) out << "wrote " << options.json_path << "\n";
  if (!options.junit_path.empty()) out << "wrote " << options.junit_path << "\n";

  for (const SceneOutcome& o : outcomes) {
    if (!o.ok()) return kExitRuntime;
  }
  return kExitOk;
}

}  // namespace slabcast
