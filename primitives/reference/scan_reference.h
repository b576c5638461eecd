// Plain C++ references of scan, reduce and histogram (the oracles of the tests; usable by a cpu backend).
// Sequential left-to-right evaluation; no CUDA.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace prim::reference {

// out[i] = in[0] op ... op in[i]; returns out (size n).
template <typename OutT, typename InT, typename Op>
std::vector<OutT> inclusive_scan(const std::vector<InT>& in, Op op) {
  std::vector<OutT> out(in.size());
  for (size_t i = 0; i < in.size(); ++i) out[i] = i == 0 ? static_cast<OutT>(in[0]) : op(out[i - 1], static_cast<OutT>(in[i]));
  return out;
}

// out[0] = init, out[i] = init op in[0] op ... op in[i-1].
template <typename OutT, typename InT, typename Op>
std::vector<OutT> exclusive_scan(const std::vector<InT>& in, Op op, OutT init) {
  std::vector<OutT> out(in.size());
  OutT running = init;
  for (size_t i = 0; i < in.size(); ++i) {
    out[i] = running;
    running = op(running, static_cast<OutT>(in[i]));
  }
  return out;
}

// init op in[0] op ... op in[n-1].
template <typename OutT, typename InT, typename Op>
OutT reduce(const std::vector<InT>& in, Op op, OutT init) {
  OutT acc = init;
  for (const InT& v : in) acc = op(acc, static_cast<OutT>(v));
  return acc;
}

// counts[b] = #{ i : bucket_of(in[i]) == b } for b < num_buckets; ids outside [0, num_buckets) go to *num_invalid.
template <typename T, typename BucketOp>
std::vector<uint64_t> histogram_buckets(const std::vector<T>& in, uint32_t num_buckets, BucketOp bucket_of,
                                        uint64_t* num_invalid = nullptr) {
  std::vector<uint64_t> counts(num_buckets, 0);
  uint64_t invalid = 0;
  for (const T& v : in) {
    const uint64_t b = static_cast<uint64_t>(bucket_of(v));
    if (b < num_buckets) {
      ++counts[b];
    } else {
      ++invalid;
    }
  }
  if (num_invalid) *num_invalid = invalid;
  return counts;
}

// num_levels - 1 equal-width bins over [lower, upper), binned as CUB does: bin = (v - lower) * bins / (upper - lower).
template <typename CounterT, typename SampleT, typename LevelT>
std::vector<CounterT> histogram_even(const std::vector<SampleT>& in, int num_levels, LevelT lower, LevelT upper) {
  const int bins = num_levels - 1;
  std::vector<CounterT> counts(bins > 0 ? bins : 0, CounterT{0});
  for (const SampleT& v : in) {
    if (!(v >= lower && v < upper)) continue;
    const int b = static_cast<int>((static_cast<double>(v) - static_cast<double>(lower)) * bins /
                                   (static_cast<double>(upper) - static_cast<double>(lower)));
    ++counts[b < bins ? b : bins - 1];
  }
  return counts;
}

}  // namespace prim::reference
