// The benchmark's progress on stderr, and the wall clock it and the row measurement use.
#pragma once
#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <string>

namespace slabcast::bench {

using Clock = std::chrono::steady_clock;
inline double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// A bar rewritten in place on a terminal (at most every 100 ms); elsewhere a plain line per finished row, so that
// a log stays short and readable.
class Progress {
 public:
  Progress(std::ostream& log, uint64_t total_frames, int total_rows);

  void begin(std::string what);              // a row (or a reference run) starts
  void frame();                              // one frame of it is done
  void row_done(const std::string& result);  // a row is done: its one-line result
  void note(const std::string& line);        // a line of its own, between bar updates
  void finish();                             // "done: N rows in S s"

 private:
  int percent() const;
  void clear();
  void draw(bool force);

  std::ostream& log_;
  uint64_t total_, done_ = 0;
  int rows_, rows_done_ = 0;
  bool tty_, drawn_ = false;
  Clock::time_point start_, last_draw_{};
  std::string what_;
};

}  // namespace slabcast::bench
