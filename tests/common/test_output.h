// Where tests write their files (rendered frames, captured output): SLABCAST_TEST_OUTPUT_DIR when set, else the
// build tree's folder compiled in. scripts/gpu-check.sh gives each sanitizer run a folder of its own, because it runs
// one program under several tools at once: copies sharing one folder removed and rewrote each other's files (H100,
// 2026-11-23: "cannot open" / "cannot write" failures, no sanitizer error).
#pragma once
#include <cstdlib>
#include <string>

namespace slabtest {

inline std::string test_output_root(const char* built_in) {
  const char* dir = std::getenv("SLABCAST_TEST_OUTPUT_DIR");
  return dir != nullptr && *dir != '\0' ? std::string(dir) : std::string(built_in);
}

}  // namespace slabtest
