#include "app/check_cli.h"

#include "app/cli.h"

#include <CLI/CLI.hpp>

#include <cctype>
#include <filesystem>

namespace slabcast {
namespace {

// A report file: a name, in a folder that exists (checked before minutes of rendering).
void check_report_path(const std::string& flag, const std::string& path) {
  if (path.empty()) throw UsageError(flag + ": empty file name");
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty() && !std::filesystem::is_directory(parent, ec)) {
    throw UsageError(flag + ": directory '" + parent.string() + "' does not exist");
  }
}

}  // namespace

CLI::App* add_check_subcommand(CLI::App* app, CheckOptions* options) {
  CLI::App* check = app->add_subcommand(
      "check", "Frame-dump regression: render every scene of SCENES.tsv (a line: NAME, a tab, `slabcast render` "
               "arguments) and compare it with DIR/NAME.png (and DIR/NAME.ids where it exists) within the tolerance of "
               "docs/golden-images.md; a table on stdout, JSON and JUnit XML on request, a difference image per "
               "failing scene; exit 1 when a scene differs or its golden is missing");
  check->add_option("SCENES", options->scenes_path, "the scenes: NAME<TAB>render arguments a line, '#' comments")
      ->type_name("SCENES.tsv")->required();
  check->add_option("--goldens", options->goldens_dir, "folder of the golden images NAME.png (and NAME.ids)")
      ->type_name("DIR")->required();
  check->add_flag("--update", options->update, "(re)write the goldens from this run instead of comparing (IDs only "
                  "where NAME.ids exists)");
  check->add_option("--backend", options->backend, "cuda, cpu or gl-raster: the backend every scene renders with "
                    "(default: cuda where a CUDA device exists, else cpu)")->type_name("NAME");
  check->add_option("--diff-dir", options->diff_dir, "where NAME-diff.png and NAME-actual.png of failing scenes go, "
                    "created when one fails (default check-diffs)")->type_name("DIR");
  check->add_option("--json", options->json_path, "write the report as JSON")->type_name("FILE.json");
  check->add_option("--junit", options->junit_path, "write the report as JUnit XML (one testcase a scene)")
      ->type_name("FILE.xml");
  return check;
}

void finish_check(CheckOptions* options) {
  if (options->scenes_path.empty()) throw UsageError("SCENES: empty file name");
  if (options->goldens_dir.empty()) throw UsageError("--goldens: empty value");
  if (options->diff_dir.empty()) throw UsageError("--diff-dir: empty value");
  // "goldens/" and "goldens" name the same files: DIR/NAME.png without a doubled slash.
  for (std::string* dir : {&options->goldens_dir, &options->diff_dir}) {
    while (dir->size() > 1 && dir->back() == '/') dir->pop_back();
  }
  if (!options->backend.empty()) {
    std::string key = options->backend;
    for (char& c : key) c = c == '-' ? '_' : char(std::tolower(static_cast<unsigned char>(c)));
    if (key != "gl_raster" && key != "cuda" && key != "cpu") {
      throw UsageError("--backend: unknown backend '" + options->backend + "' (one of: cuda, cpu, gl-raster)");
    }
  }
  if (!options->json_path.empty()) check_report_path("--json", options->json_path);
  if (!options->junit_path.empty()) check_report_path("--junit", options->junit_path);
}

}  // namespace slabcast
