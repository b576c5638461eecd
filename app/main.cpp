// slabcast: `slabcast render ...` (one frame, headless, to files), `slabcast view ...` (the viewer), `slabcast
// bench ...` (the benchmark), `slabcast check ...` (frame-dump regression against golden images), and `slabcast`
// alone (the viewer on the default scene, animated). Exit codes: 0 success, 1 runtime failure (broken mesh, no
// device, out of memory, unwritable file; a scene that differs from its golden), 2 usage error (bad flag or value).
// Every failure is one "slabcast: error: ..." line on stderr; nothing is allowed to escape as a crash.
#include "app/bench/bench_command.h"
#include "app/check_command.h"
#include "app/cli.h"
#include "app/render_command.h"
#include "app/version_command.h"

#if SLABCAST_HAVE_VIEWER
#include "app/viewer/viewer.h"
#endif

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <new>
#include <string>

namespace slabcast {
namespace {

int run_view(const ViewOptions& options) {
#if SLABCAST_HAVE_VIEWER
  return run_viewer(options);
#else
  (void)options;
  std::cerr << "slabcast: error: this slabcast was built without the viewer (the renderer was not built); use "
               "'slabcast render' to render frames to files, e.g. 'slabcast render --out frame.png'\n";
  return kExitRuntime;
#endif
}

int run(int argc, char** argv) {
  const ParsedCommandLine cli = parse_command_line(argc, argv, std::cout, std::cerr);
  switch (cli.command) {
    case Command::exit:
      return cli.exit_code;
    case Command::render:
      return run_render(cli.render, std::cout, std::cerr);
    case Command::view:
      return run_view(cli.view);
    case Command::bench:
      return run_bench(cli.bench, std::cout, std::cerr);
    case Command::check:
      return run_check(cli.check, std::cout, std::cerr);
    case Command::version:
      return print_version(std::cout);
  }
  return kExitRuntime;
}

// A failure's text without the "slabcast: " that messages from render/ (its CUDA check) already carry, so that
// the line printed has the prefix once.
std::string without_prefix(std::string message) {
  const std::string prefix = "slabcast: ";
  if (message.compare(0, prefix.size(), prefix) == 0) message.erase(0, prefix.size());
  return message;
}

// Whatever was printed must have reached standard output: a closed or full stdout loses the statistics, so it is a
// failure, not a success.
int finish(int exit_code) {
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  if (!flushed || std::ferror(stdout)) {
    const int error = flushed ? 0 : errno;
    std::cerr << "slabcast: error: cannot write to standard output: "
              << (error != 0 ? std::strerror(error) : "a write failed") << "\n";
    return exit_code == 0 ? kExitRuntime : exit_code;
  }
  return exit_code;
}

}  // namespace
}  // namespace slabcast

int main(int argc, char** argv) {
  // Line by line also where standard output is a pipe or a file (a log, a CI job): each line of progress, every
  // frame's figures, every file written shows when it happens, not all at exit.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  try {
    return slabcast::finish(slabcast::run(argc, argv));
  } catch (const slabcast::UsageError& e) {
    std::cerr << "slabcast: error: " << e.what() << "\n";
    return slabcast::kExitUsage;
  } catch (const std::bad_alloc&) {
    std::cerr << "slabcast: error: out of host memory\n";
    return slabcast::kExitRuntime;
  } catch (const std::exception& e) {
    std::cerr << "slabcast: error: " << slabcast::without_prefix(e.what()) << "\n";
    return slabcast::kExitRuntime;
  } catch (...) {
    std::cerr << "slabcast: error: unknown failure\n";
    return slabcast::kExitRuntime;
  }
}
