#include "app/bench/report.h"

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

OutputFile::OutputFile(std::string path) : path_(std::move(path)), temp_(path_ + ".tmp") {
  stream.open(temp_, std::ios::binary | std::ios::trunc);
  if (!stream) throw std::runtime_error(path_ + ": cannot write (" + std::strerror(errno) + ")");
}

void OutputFile::commit() {
  stream.close();
  if (!stream) throw std::runtime_error(path_ + ": cannot write (write failed)");
  std::error_code ec;
  std::filesystem::rename(temp_, path_, ec);
  if (ec) throw std::runtime_error(path_ + ": cannot write (" + ec.message() + ")");
}

}  // namespace slabcast::bench
