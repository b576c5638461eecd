// Frame-time history of the viewer: average fps, 1% low fps, and the series the overlay's graph plots.
#pragma once
#include <cstddef>
#include <vector>

namespace slabcast::viewer {

class FrameTimes {
 public:
  static constexpr size_t kHistory = 1000;  // frames kept for the 1% low
  static constexpr size_t kGraph = 240;     // frames plotted (about 4 s at 60 fps)

  void add(float milliseconds);  // one presented frame; non-positive or non-finite times are ignored
  void clear();
  size_t count() const { return size_; }

  // Frames per second over the history: frames / total time. 0 before the first frame.
  float average_fps() const;
  // The "1% low": frames per second over the slowest 1% of the history (at least one frame), i.e. 1000 / the mean
  // of the slowest ceil(n / 100) frame times. 0 before the first frame.
  float low_1percent_fps() const;
  // The last min(count, kGraph) frame times, oldest first, for ImGui::PlotLines.
  std::vector<float> graph() const;
  float last_ms() const;

 private:
  std::vector<float> ring_ = std::vector<float>(kHistory, 0.0f);
  size_t next_ = 0;
  size_t size_ = 0;
};

}  // namespace slabcast::viewer
