#include "exe_runner.h"

#include "common/test_output.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace slabcast::test {
std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string ExeResult::describe() const {
  std::ostringstream s;
  if (signal != 0) {
    s << "killed by signal " << signal << " (" << strsignal(signal) << ")";
  } else {
    s << "exit " << exit_code;
  }
  s << "\n--- stderr ---\n" << err << "--- stdout ---\n" << out;
  return s.str();
}

std::string output_dir(const std::string& test_name) {
  const std::string dir = slabtest::test_output_root(SLABCAST_TEST_OUTPUT) + "/" + test_name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

ExeResult run_slabcast(const std::vector<std::string>& args, int timeout_seconds) {
  // A folder of its own for each call, so that calls from several threads at once do not share one.
  static std::atomic<int> calls{0};
  const std::string capture = output_dir("capture_" + std::to_string(::getpid()) + "_" + std::to_string(calls++));
  const std::string out_path = capture + "/stdout", err_path = capture + "/stderr";
  std::vector<std::string> argv_text = {SLABCAST_EXE};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);

  const pid_t child = ::fork();
  if (child < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (child == 0) {
    const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0 || err < 0 || ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0 || ::chdir(SLABCAST_SOURCE_DIR) != 0) ::_exit(126);
    ::alarm(unsigned(timeout_seconds));  // SIGALRM ends a hung child: reported as a signal
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
  }
  ExeResult result;
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  result.out = read_file(out_path);
  result.err = read_file(err_path);
  std::filesystem::remove_all(capture);
  return result;
}

}  // namespace slabcast::test
