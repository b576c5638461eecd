// Runs the built `slabcast` binary (SLABCAST_EXE) as a child process, for tests of the real command line.
#pragma once
#include <string>
#include <vector>

namespace slabcast::test {

struct ExeResult {
  int exit_code = -1;   // when the process exited
  int signal = 0;       // when a signal ended it (a crash): non-zero
  std::string out, err;
  std::string describe() const;  // "exit 2" / "killed by signal 11", then stderr
};

// Runs SLABCAST_EXE with `args` in the source tree (so relative paths such as assets/pawn.obj work), with a
// time limit; stdout and stderr are captured.
ExeResult run_slabcast(const std::vector<std::string>& args, int timeout_seconds = 300);

// The whole content of a file ("" if it cannot be read).
std::string read_file(const std::string& path);

// A fresh, empty directory under the build tree for a test's output files.
std::string output_dir(const std::string& test_name);

}  // namespace slabcast::test
