#include "app/bench/report.h"

#include "app/output_file.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iomanip>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <utility>

namespace slabcast::bench {

std::string short_ms(double ms) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(ms < 10 ? 3 : ms < 100 ? 2 : 1) << ms;
  return s.str();
}

std::string size_text(int width, int height) { return std::to_string(width) + "x" + std::to_string(height); }

std::string fixed(double v, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

std::string number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  if (std::fabs(v) >= 1e6 && std::fabs(v) < 9e15 && v == std::floor(v)) std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

void OutputFile::write_to(OutputBatch& batch) {
  const std::string text = stream.str();
  const std::string error = batch.add(path_, [&](std::FILE* file) {
    return std::fwrite(text.data(), 1, text.size(), file) == text.size();
  });
  if (!error.empty()) throw std::runtime_error(path_ + ": cannot write (" + error + ")");
}

}  // namespace slabcast::bench
