// The benchmark's reports: the tables on stdout, and every row as JSON and as CSV.
#pragma once
#include "app/bench/bench_row.h"
#include "app/bench/environment.h"
#include "app/bench/suites.h"
#include "app/cli.h"

#include <iosfwd>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace slabcast {

class OutputBatch;

// The writers throw std::runtime_error naming the path when it cannot be written. `complete` is false while a run
// is still going: bench rewrites both files after every row, so that a run cut short (a time limit) leaves every
// row measured so far. Each is added to `batch`, so that the JSON and the CSV of one moment land together when the
// caller commits it (app/output_file.h).
void write_bench_json(const std::string& path, const BenchEnvironment& env, const BenchOptions& options,
                      const BenchPlan& plan, const std::vector<BenchRow>& rows, bool complete, OutputBatch& batch);
void write_bench_csv(const std::string& path, const std::vector<BenchRow>& rows, OutputBatch& batch);
// The row table, the thesis tables (Table 7.2: build / cast / total vs slabs; Table 7.1: ray-triangle tests with
// 16 slabs vs 1) for the first scene, and the performance targets where the scenes match.
void print_bench_tables(std::ostream& out, const std::vector<BenchRow>& rows);

namespace bench {

// Milliseconds as a table shows them: 3 decimals below 10, 2 below 100, else 1.
std::string short_ms(double ms);
std::string size_text(int width, int height);  // "1920x1080"
std::string fixed(double v, int digits);

// A finite number as JSON / CSV text (milliseconds to the nanosecond; counts exact up to 2^53); "null" otherwise.
std::string number(double v);

// A report file, composed in `stream` and added whole to a batch by write_to() (app/output_file.h): the file is
// rewritten after every row, and a run killed mid-write must still leave the previous complete version under PATH.
class OutputFile {
 public:
  explicit OutputFile(std::string path) : path_(std::move(path)) {}
  void write_to(OutputBatch& batch);
  std::ostringstream stream;

 private:
  std::string path_;
};

}  // namespace bench
}  // namespace slabcast
