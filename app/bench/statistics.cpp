#include "app/bench/statistics.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace slabcast {

double median_of(std::vector<double> values) {
  if (values.empty()) return 0.0;
  const size_t n = values.size();
  std::nth_element(values.begin(), values.begin() + long(n / 2), values.end());
  const double upper = values[n / 2];
  if (n % 2 == 1) return upper;
  const double lower = *std::max_element(values.begin(), values.begin() + long(n / 2));
  return 0.5 * (lower + upper);
}

double percentile_of(std::vector<double> values, double p) {
  if (values.empty()) return 0.0;
  if (!(p > 0.0 && p <= 100.0)) throw std::invalid_argument("percentile " + std::to_string(p) + " not in (0, 100]");
  std::sort(values.begin(), values.end());
  const double rank = std::ceil(p / 100.0 * double(values.size()));
  const size_t index = size_t(std::max(1.0, rank)) - 1;
  return values[std::min(index, values.size() - 1)];
}

Summary summarize(const std::vector<double>& values) { return Summary{median_of(values), percentile_of(values, 99.0)}; }

}  // namespace slabcast
