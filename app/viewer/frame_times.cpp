#include "app/viewer/frame_times.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace slabcast::viewer {

void FrameTimes::add(float milliseconds) {
  if (!(milliseconds > 0.0f) || !std::isfinite(milliseconds)) return;
  ring_[next_] = milliseconds;
  next_ = (next_ + 1) % kHistory;
  size_ = std::min(size_ + 1, kHistory);
}

void FrameTimes::clear() {
  next_ = 0;
  size_ = 0;
}

float FrameTimes::average_fps() const {
  if (size_ == 0) return 0.0f;
  double total = 0.0;
  for (size_t i = 0; i < size_; ++i) total += ring_[i];
  return static_cast<float>(1000.0 * static_cast<double>(size_) / total);
}

float FrameTimes::low_1percent_fps() const {
  if (size_ == 0) return 0.0f;
  std::vector<float> times(ring_.begin(), ring_.begin() + static_cast<std::ptrdiff_t>(size_));
  const size_t slowest = (size_ + 99) / 100;
  std::partial_sort(times.begin(), times.begin() + static_cast<std::ptrdiff_t>(slowest), times.end(),
                    std::greater<float>());
  double total = 0.0;
  for (size_t i = 0; i < slowest; ++i) total += times[i];
  return static_cast<float>(1000.0 * static_cast<double>(slowest) / total);
}

std::vector<float> FrameTimes::graph() const {
  const size_t n = std::min(size_, kGraph);
  std::vector<float> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = ring_[(next_ + kHistory - n + i) % kHistory];
  return out;
}

float FrameTimes::last_ms() const { return size_ == 0 ? 0.0f : ring_[(next_ + kHistory - 1) % kHistory]; }

}  // namespace slabcast::viewer
