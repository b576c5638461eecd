// prim/detail/dispatch/device_count_scan.cuh: the in-place exclusive sum over a count read on the device, against
// std::exclusive_scan (32- and 64-bit values). Entries at and past the count must keep their values; counts of 0, 1,
// around the tile and the part sizes, and up to the bound.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "prim/detail/dispatch/device_count_scan.cuh"
#include "primitives/test_split_util.h"

namespace {

using split_test::DeviceBuffer;
constexpr int64_t kTile = prim::detail::DeviceCountScanPolicy::kTile;

template <class T>
void check_scan(int64_t max_count, int64_t count, uint32_t seed) {
  SCOPED_TRACE(testing::Message() << "max " << max_count << " count " << count);
  std::mt19937 rng(seed);
  std::vector<T> data(static_cast<size_t>(std::max<int64_t>(max_count, 1)));
  for (auto& v : data) v = static_cast<T>(rng() % 1000);
  DeviceBuffer<T> d_data;
  d_data.upload(data);
  DeviceBuffer<uint64_t> d_count;
  d_count.upload({static_cast<uint64_t>(count)});
  DeviceBuffer<T> d_partials(prim::detail::device_count_scan_partials<T>(max_count));
  d_partials.poison();
  ASSERT_CUDA(prim::detail::device_count_exclusive_sum(d_data.get(), d_count.get(), max_count, d_partials.get(), 0));
  ASSERT_CUDA(cudaDeviceSynchronize());
  std::vector<T> want = data;
  std::exclusive_scan(data.begin(), data.begin() + count, want.begin(), T{0});
  const std::vector<T> got = d_data.download();
  for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(want[i], got[i]) << "entry " << i;
}

TEST(DeviceCountScan, MatchesStdExclusiveScan) {
  const int64_t blocks_of_max = int64_t{prim::detail::DeviceCountScanPolicy::kMaxBlocks} * kTile;
  for (int64_t max_count : {int64_t{1}, kTile - 1, kTile, 3 * kTile + 5, int64_t{1} << 20, blocks_of_max + 7,
                            int64_t{9600000}}) {
    for (int64_t count : {int64_t{0}, int64_t{1}, kTile - 1, kTile, kTile + 1, max_count / 3, max_count - 1,
                          max_count}) {
      if (count < 0 || count > max_count) continue;
      check_scan<uint32_t>(max_count, count, static_cast<uint32_t>(count + 1));
      check_scan<uint64_t>(max_count, count, static_cast<uint32_t>(count + 2));
    }
  }
}

TEST(DeviceCountScan, LargeTotalsInSixtyFourBits) {
  // Sums past 2^32: every value near 2^31.
  const int64_t n = 3 * kTile + 17;
  std::vector<uint64_t> data(static_cast<size_t>(n), uint64_t{1} << 31);
  DeviceBuffer<uint64_t> d_data;
  d_data.upload(data);
  DeviceBuffer<uint64_t> d_count;
  d_count.upload({static_cast<uint64_t>(n)});
  DeviceBuffer<uint64_t> d_partials(prim::detail::device_count_scan_partials<uint64_t>(n));
  ASSERT_CUDA(prim::detail::device_count_exclusive_sum(d_data.get(), d_count.get(), n, d_partials.get(), 0));
  const std::vector<uint64_t> got = d_data.download();
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(static_cast<uint64_t>(i) << 31, got[static_cast<size_t>(i)]) << i;
}

}  // namespace
