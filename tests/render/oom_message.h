// Reading the renderer's out-of-memory messages back, for the out-of-memory tests of both backends:
// "out of GPU memory: NAME needs 1.93 GiB more for WHAT (3.20 GiB free of 80.0 GiB)[; consequence]".
// The tests check the numbers against what they measure themselves, so a message that names the wrong
// amount fails, not only one that is missing.
#pragma once
#include <cstdint>
#include <regex>
#include <string>

namespace slabcast::test {

struct OutOfMemoryReport {
  bool parsed = false;
  std::string memory;  // "GPU" or "host"
  std::string owner;
  double needed = 0, free = 0, total = 0;  // bytes (as printed: three significant digits)
  std::string what, consequence;
};

inline double bytes_of(const std::string& number, const std::string& unit) {
  double scale = 1.0;
  for (const char* u : {"B", "KiB", "MiB", "GiB", "TiB", "PiB"}) {
    if (unit == u) return std::stod(number) * scale;
    scale *= 1024.0;
  }
  return -1.0;
}

inline OutOfMemoryReport parse_out_of_memory(const std::string& message) {
  static const std::regex pattern(
      R"(^out of (GPU|host) memory: (.+) needs ([0-9.]+) (B|KiB|MiB|GiB|TiB|PiB) more for (.+) \(([0-9.]+) )"
      R"((B|KiB|MiB|GiB|TiB|PiB) free of ([0-9.]+) (B|KiB|MiB|GiB|TiB|PiB)\)(.*)$)");
  std::smatch m;
  OutOfMemoryReport r;
  if (!std::regex_match(message, m, pattern)) return r;
  r.parsed = true;
  r.memory = m[1];
  r.owner = m[2];
  r.needed = bytes_of(m[3], m[4]);
  r.what = m[5];
  r.free = bytes_of(m[6], m[7]);
  r.total = bytes_of(m[8], m[9]);
  r.consequence = m[10];
  return r;
}

// Printed values carry three significant digits: equal within 1 %.
inline bool about(double printed, double exact) {
  const double tolerance = 0.01 * exact + 1.0;
  return printed >= exact - tolerance && printed <= exact + tolerance;
}

}  // namespace slabcast::test
