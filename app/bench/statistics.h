// The statistics of a row's timed frames.
#pragma once
#include <vector>

namespace slabcast {

// The median of `values`: the middle one, or the mean of the two middle ones for an even count. 0 when empty.
double median_of(std::vector<double> values);
// The p-th percentile by the nearest-rank method: the smallest value with at least p% of the values at or below
// it, i.e. sorted[ceil(p / 100 * n) - 1]. p in (0, 100]. 0 when empty. p99 of 200 frames is the 198th smallest.
double percentile_of(std::vector<double> values, double p);

struct Summary {
  double median = 0, p99 = 0;
};
Summary summarize(const std::vector<double>& values);

}  // namespace slabcast
