// Standard output arrives line by line where it is a pipe (a log, a CI job, `| tee`), not in 4 KiB blocks or at
// exit: the first line `render` prints (what it is about to do) is read while the animation it announces has written
// at most a few of its 40 frames (10 allow for a slow reader). Fully buffered, that line waits for about 4 KiB of
// output: 26 frames here.
#include <gtest/gtest.h>

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "exe_runner.h"

namespace slabcast::test {
namespace {

int frames_written(const std::string& dir) {
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    n += entry.path().extension() == ".png" ? 1 : 0;
  }
  return n;
}

TEST(StdoutLines, TheFirstLineArrivesBeforeTheWorkItAnnounces) {
  const std::string dir = output_dir("stdout_lines");
  const std::string out = dir + "/frame_%03d.png";
  std::vector<std::string> args = {SLABCAST_EXE, "render", "--procedural", "sphere:60000", "--size", "96x96",
                                   "--backend", "cpu", "--threads", "1", "--frames", "40", "--out", out};
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0) << std::strerror(errno);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0) << std::strerror(errno);
  if (child == 0) {
    ::dup2(fds[1], STDOUT_FILENO);
    ::close(fds[0]);
    ::close(fds[1]);
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(fds[1]);
  FILE* pipe = ::fdopen(fds[0], "r");
  ASSERT_NE(pipe, nullptr);
  char line[4096];
  const bool got_line = std::fgets(line, sizeof line, pipe) != nullptr;
  const int written_at_first_line = frames_written(dir);
  while (std::fgets(line, sizeof line, pipe) != nullptr) {
  }
  std::fclose(pipe);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(got_line) << "no output at all";
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "render failed";
  EXPECT_EQ(frames_written(dir), 40);
  EXPECT_LE(written_at_first_line, 10) << "the first line of output arrived only after " << written_at_first_line
                                      << " of 40 frames were written: standard output is not line-buffered";
}

}  // namespace
}  // namespace slabcast::test
