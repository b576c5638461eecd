// The compaction calls on 2^26 u32 items (the bench's size) against the C++ reference; labelled `large`, left out
// under SLABCAST_TEST_QUICK.
#include <prim/select.h>

#include "common/quick_mode.h"
#include "primitives/test_select_check.h"

namespace {
using namespace select_test;

TEST(SelectLarge, TwoPow26Items) {
  if (slabtest::quick_mode()) GTEST_SKIP() << "SLABCAST_TEST_QUICK";
  const size_t n = size_t{1} << 26;
  check_all_calls(random_keys(n, 4, 91), random_flags(n, 2, 92), 2);
}

// A device count of 2^26 + 1 under a bound of 2^26 + 2^20, few items selected.
TEST(SelectLarge, DeviceCountAndFewSelected) {
  if (slabtest::quick_mode()) GTEST_SKIP() << "SLABCAST_TEST_QUICK";
  const size_t n = (size_t{1} << 26) + 1;
  SelectOptions opt;
  opt.device_count = true;
  opt.slack = int64_t{1} << 20;
  check_all_calls(random_keys(n, 100000, 93), random_flags(n, 5000, 94), 20, opt);
}

}  // namespace
