// Runs the compaction calls (prim/select.h) on the GPU and compares with the C++ reference (the select tests'
// harness).
#pragma once
#include <prim/select.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "primitives/reference/select_reference.h"
#include "primitives/test_split_util.h"

namespace select_test {

using split_test::DeviceBuffer;
using split_test::poisoned;
using split_test::same_bytes;

enum class Call { select_if, select_flagged, select_unique, partition_if };
inline const char* call_name(Call c) {
  return c == Call::select_if ? "select_if" : c == Call::select_flagged ? "select_flagged"
                                            : c == Call::select_unique ? "select_unique" : "partition_if";
}

// The predicate of the select_if / partition_if tests: key below a threshold (the selected fraction).
struct KeyBelow {
  uint32_t threshold;
  __host__ __device__ bool operator()(uint32_t x) const { return x < threshold; }
  template <class R>
  __host__ __device__ bool operator()(const R& r) const {
    return r.key < threshold;
  }
};
// select_unique's equality on records: keys only (records with equal keys and different ids form one run).
struct SameKey {
  template <class R>
  __host__ __device__ bool operator()(const R& a, const R& b) const {
    return a.key == b.key;
  }
};

struct SelectOptions {
  bool device_count = false;  // n on the device, bound n + slack
  int64_t slack = 0;
  int64_t in_offset = 0;  // the input and the flags start this many elements into their buffers (misaligned)
};

// Calls `call` on `in` (flags: select_flagged's; pred: select_if's and partition_if's; equal: select_unique's) and
// checks the outputs, the count, the untouched tails, the invalid counter and the untouched input.
template <class T, class Pred = KeyBelow, class Equal = prim::EqualTo>
void check_select(Call call, const std::vector<T>& in, const std::vector<uint8_t>& flags, Pred pred,
                  Equal equal = {}, SelectOptions opt = {}) {
  const int64_t n = static_cast<int64_t>(in.size());
  const int64_t cap = n + opt.slack;
  SCOPED_TRACE(testing::Message() << call_name(call) << " n=" << n);
  DeviceBuffer<T> d_in_buffer(std::max<int64_t>(cap + opt.in_offset, 1)), d_sel(std::max<int64_t>(cap, 1)),
      d_rej(std::max<int64_t>(cap, 1));
  DeviceBuffer<uint8_t> d_flags_buffer(std::max<int64_t>(cap + opt.in_offset, 1));
  T* const d_in = d_in_buffer.get() + opt.in_offset;
  uint8_t* const d_flags = d_flags_buffer.get() + opt.in_offset;
  ASSERT_CUDA(cudaMemcpy(d_in, in.data(), sizeof(T) * in.size(), cudaMemcpyHostToDevice));
  ASSERT_CUDA(cudaMemcpy(d_flags, flags.data(), flags.size(), cudaMemcpyHostToDevice));
  // [0] invalid counter, [1] the device count, [2] the selected count (poisoned: the call must write it).
  DeviceBuffer<uint64_t> d_scalars(std::vector<uint64_t>{0, static_cast<uint64_t>(n), poisoned<uint64_t>()});
  const prim::ItemCount count = opt.device_count ? prim::ItemCount(cap, d_scalars.get() + 1) : prim::ItemCount(n);
  uint64_t* num_selected = d_scalars.get() + 2;
  auto run = [&](void* d_temp, size_t& bytes) {
    switch (call) {
      case Call::select_if:
        return prim::select_if(d_temp, bytes, d_in, d_sel.get(), num_selected, count, pred, 0, d_scalars.get());
      case Call::select_flagged:
        return prim::select_flagged(d_temp, bytes, d_in, d_flags, d_sel.get(), num_selected, count, 0,
                                    d_scalars.get());
      case Call::select_unique:
        return prim::select_unique(d_temp, bytes, d_in, d_sel.get(), num_selected, count, equal, 0, d_scalars.get());
      default:
        return prim::partition_if(d_temp, bytes, d_in, d_sel.get(), d_rej.get(), num_selected, count, pred, 0,
                                  d_scalars.get());
    }
  };
  size_t bytes = 0;
  ASSERT_CUDA(run(nullptr, bytes));
  ASSERT_GE(bytes, 1u);
  DeviceBuffer<unsigned char> d_temp(bytes);
  ASSERT_CUDA(run(d_temp.get(), bytes));
  ASSERT_CUDA(cudaGetLastError());
  ASSERT_CUDA(cudaDeviceSynchronize());

  std::vector<T> want(in.size()), want_rejected(in.size());
  uint64_t selected = 0;
  switch (call) {
    case Call::select_if: selected = prim::reference::select_if(in.data(), n, want.data(), pred); break;
    case Call::select_flagged:
      selected = prim::reference::select_flagged(in.data(), flags.data(), n, want.data());
      break;
    case Call::select_unique: selected = prim::reference::select_unique(in.data(), n, want.data(), equal); break;
    default:
      selected = prim::reference::partition_if(in.data(), n, want.data(), want_rejected.data(), pred);
      break;
  }
  const std::vector<uint64_t> scalars = d_scalars.download();
  EXPECT_EQ(scalars[0], 0u) << "invalid count";
  ASSERT_EQ(scalars[2], selected) << "selected count";
  const std::vector<T> got = d_sel.download(), got_rejected = d_rej.download();
  for (size_t i = 0; i < selected; ++i) ASSERT_TRUE(same_bytes(got[i], want[i])) << "selected item " << i;
  for (size_t i = selected; i < got.size(); ++i) {
    ASSERT_TRUE(same_bytes(got[i], poisoned<T>())) << "written past the selected items at " << i;
  }
  const size_t rejected = call == Call::partition_if ? in.size() - selected : 0;
  for (size_t i = 0; i < rejected; ++i) ASSERT_TRUE(same_bytes(got_rejected[i], want_rejected[i])) << "rejected " << i;
  for (size_t i = rejected; i < got_rejected.size(); ++i) {
    ASSERT_TRUE(same_bytes(got_rejected[i], poisoned<T>())) << "written past the rejected items at " << i;
  }
  std::vector<T> in_after(in.size());
  ASSERT_CUDA(cudaMemcpy(in_after.data(), d_in, sizeof(T) * in.size(), cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < in.size(); ++i) ASSERT_TRUE(same_bytes(in_after[i], in[i])) << "input changed at " << i;
}

// Keys below `range` and flags set with probability 1 / flag_every (fixed seed).
inline std::vector<uint32_t> random_keys(size_t n, uint32_t range, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint32_t> keys(n);
  for (auto& k : keys) k = static_cast<uint32_t>(rng() % range);
  return keys;
}
inline std::vector<uint8_t> random_flags(size_t n, uint32_t flag_every, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint8_t> flags(n);
  for (auto& f : flags) f = static_cast<uint8_t>(rng() % flag_every == 0 ? 1 + rng() % 255 : 0);
  return flags;
}

// Every call on one input: select_if / partition_if keep keys below `threshold`, select_flagged the flags,
// select_unique the run heads.
template <class T>
void check_all_calls(const std::vector<T>& in, const std::vector<uint8_t>& flags, uint32_t threshold,
                     SelectOptions opt = {}) {
  for (Call call : {Call::select_if, Call::select_flagged, Call::select_unique, Call::partition_if}) {
    check_select(call, in, flags, KeyBelow{threshold}, prim::EqualTo{}, opt);
  }
}

}  // namespace select_test
