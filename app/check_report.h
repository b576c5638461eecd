// The report of `slabcast check`: each scene's outcome, as a table (stdout), JSON and JUnit XML.
#pragma once
#include "app/options.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace slabcast {

enum class CheckResult { pass, fail, missing, updated, error };
const char* to_string(CheckResult result);  // pass, FAIL, missing, updated, error

struct SceneOutcome {
  std::string name;
  std::string args;                  // the scene's `render` arguments, as in the file
  CheckResult result = CheckResult::error;
  double differing_fraction = 0.0;   // of the colour image's pixels, beyond the channel tolerance
  int worst_channel = 0;             // the largest channel difference, 0..255
  double ids_differing_fraction = -1.0;  // of the triangle IDs; < 0: no IDs compared
  double ms = 0.0;                   // render and compare
  std::string diff_path;             // the difference image, when written
  std::string message;               // why it failed (empty when it passed)
  bool ok() const { return result == CheckResult::pass || result == CheckResult::updated; }
};

// The table, the failing scenes' messages and the final "N of M scenes match" line.
void print_check_table(const std::vector<SceneOutcome>& scenes, bool update, std::ostream& out);
// The JSON and JUnit texts (written by run_check through an OutputBatch).
std::string check_json(const CheckOptions& options, const std::vector<SceneOutcome>& scenes);
std::string check_junit(const std::vector<SceneOutcome>& scenes);

}  // namespace slabcast
