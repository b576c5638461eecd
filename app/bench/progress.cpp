#include "app/bench/progress.h"

#include <unistd.h>

#include <algorithm>
#include <iomanip>
#include <ostream>
#include <utility>

namespace slabcast::bench {

Progress::Progress(std::ostream& log, uint64_t total_frames, int total_rows)
    : log_(log), total_(std::max<uint64_t>(total_frames, 1)), rows_(total_rows), tty_(isatty(STDERR_FILENO) != 0),
      start_(Clock::now()) {}

void Progress::begin(std::string what) {
  what_ = std::move(what);
  draw(true);
}

void Progress::frame() {
  ++done_;
  draw(false);
}

void Progress::row_done(const std::string& result) {
  ++rows_done_;
  if (tty_) {
    clear();
    log_ << "[bench] " << rows_done_ << "/" << rows_ << " " << what_ << ": " << result << "\n";
    draw(true);
  } else {
    log_ << "[bench] " << rows_done_ << "/" << rows_ << " (" << percent() << "%) " << what_ << ": " << result
         << "\n" << std::flush;
  }
}

void Progress::note(const std::string& line) {
  clear();
  log_ << "[bench] " << line << "\n" << std::flush;
  if (tty_) draw(true);
}

void Progress::finish() {
  clear();
  const double s = ms_between(start_, Clock::now()) / 1000.0;
  log_ << "[bench] done: " << rows_done_ << " rows in " << std::fixed << std::setprecision(1) << s << " s\n"
       << std::defaultfloat << std::flush;
}

int Progress::percent() const { return int(100.0 * double(std::min(done_, total_)) / double(total_)); }

void Progress::clear() {
  if (tty_ && drawn_) log_ << "\r\033[K";
  drawn_ = false;
}

void Progress::draw(bool force) {
  if (!tty_) return;
  const auto now = Clock::now();
  if (!force && ms_between(last_draw_, now) < 100.0) return;
  last_draw_ = now;
  constexpr int kWidth = 30;
  const double fraction = double(std::min(done_, total_)) / double(total_);
  const int filled = int(fraction * kWidth);
  const double elapsed = ms_between(start_, now) / 1000.0;
  std::string bar(size_t(filled), '#');
  bar.resize(kWidth, '.');
  log_ << "\r\033[K[bench] [" << bar << "] " << std::setw(3) << percent() << "% " << what_;
  if (fraction > 0.02) log_ << "  ~" << int(elapsed / fraction - elapsed + 0.5) << " s left";
  log_ << std::flush;
  drawn_ = true;
}

}  // namespace slabcast::bench
