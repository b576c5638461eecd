// Runs prim::split / prim::split_pairs on the GPU and compares with the C++ reference (split tests' harness).
#pragma once
#include <prim/split.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "primitives/test_split_util.h"
#include "primitives/reference/split_reference.h"

namespace split_test {

struct SplitOptions {
  prim::SplitOrder order = prim::SplitOrder::stable;
  bool device_count = false;  // pass n as a device-resident count (max = n + slack)
  int64_t slack = 0;          // extra capacity beyond n in the device-count case
  int input_offset = 0;       // the input starts this many records into its allocation (alignment below 16 B)
  // Call the split's own route (prim::detail::dispatch_split: an upsweep a chunk, a spine scan, a chunked downsweep;
  // two such passes above 256 buckets), which prim::split takes only from 2^30 records on, on an input of any size.
  bool own_route = false;
};

// The input on the device, `offset` records into its allocation (those records are filler).
template <typename R>
void upload_at_offset(DeviceBuffer<R>& d, const std::vector<R>& in, int offset) {
  std::vector<R> padded(in.size() + static_cast<size_t>(offset));
  if (offset > 0) std::memset(static_cast<void*>(padded.data()), 0x5A, sizeof(R) * static_cast<size_t>(offset));
  std::copy(in.begin(), in.end(), padded.begin() + offset);
  d.upload(padded);
  if (padded.empty()) d.resize(1);
}

// Output positions [valid, out.size()) must still hold the poison bytes.
template <typename R>
void expect_poison_after(const std::vector<R>& out, size_t valid) {
  const R poison = poisoned<R>();
  for (size_t i = valid; i < out.size(); ++i) {
    ASSERT_TRUE(same_bytes(out[i], poison)) << "position " << i << " written beyond the valid records";
  }
}

// Compare bucket contents as multisets (unstable order): sort each bucket's bytes.
template <typename R>
void expect_same_buckets_unordered(std::vector<R> got, std::vector<R> want, const std::vector<uint64_t>& offsets) {
  auto less = [](const R& a, const R& b) { return std::memcmp(&a, &b, sizeof(R)) < 0; };
  for (size_t b = 0; b + 1 < offsets.size(); ++b) {
    std::sort(got.begin() + offsets[b], got.begin() + offsets[b + 1], less);
    std::sort(want.begin() + offsets[b], want.begin() + offsets[b + 1], less);
  }
  for (size_t i = 0; i < want.size(); ++i) ASSERT_TRUE(same_bytes(got[i], want[i])) << "position " << i;
}

// Split `in` on the GPU, check records, offsets, invalid count, untouched input and untouched tail.
template <typename R, typename Op>
void check_split(const std::vector<R>& in, uint32_t num_buckets, Op op, SplitOptions opt = {}) {
  const int64_t n = static_cast<int64_t>(in.size());
  const int64_t capacity = n + opt.slack;
  DeviceBuffer<R> d_in_alloc;
  upload_at_offset(d_in_alloc, in, opt.input_offset);
  R* const d_in = d_in_alloc.get() + opt.input_offset;
  DeviceBuffer<R> d_out(std::max<int64_t>(capacity, 1));
  d_out.poison();
  DeviceBuffer<uint64_t> d_offsets(num_buckets + 1);
  d_offsets.poison();
  DeviceBuffer<uint64_t> d_scalars(2);  // [0] invalid counter, [1] device-resident count
  d_scalars.zero();
  const std::vector<uint64_t> h_count{0, static_cast<uint64_t>(n)};
  ASSERT_CUDA(cudaMemcpy(d_scalars.get(), h_count.data(), 2 * sizeof(uint64_t), cudaMemcpyHostToDevice));
  const prim::ItemCount count = opt.device_count ? prim::ItemCount(capacity, d_scalars.get() + 1) : prim::ItemCount(n);

  auto run = [&](void* d_temp, size_t& bytes) {
    if (opt.own_route) {
      using prim::detail::NoValue;
      return prim::detail::dispatch_split<prim::detail::SplitOutput::keys, R, NoValue>(
          d_temp, bytes, d_in, d_out.get(), static_cast<const NoValue*>(nullptr), static_cast<NoValue*>(nullptr), count,
          num_buckets, op, d_offsets.get(), 0, d_scalars.get());
    }
    return prim::split(d_temp, bytes, d_in, d_out.get(), count, num_buckets, op, d_offsets.get(), 0, opt.order,
                       d_scalars.get());
  };
  size_t bytes = 0;
  ASSERT_CUDA(run(nullptr, bytes));
  DeviceBuffer<unsigned char> d_temp(bytes);
  d_temp.poison();
  ASSERT_CUDA(run(d_temp.get(), bytes));
  ASSERT_CUDA(cudaDeviceSynchronize());

  std::vector<R> want(in.size());
  std::vector<uint64_t> want_offsets(num_buckets + 1);
  const uint64_t want_invalid = prim::reference::split(in.data(), want.data(), n, num_buckets, op, want_offsets.data());
  const uint64_t valid = want_offsets[num_buckets];
  want.resize(valid);

  EXPECT_EQ(d_scalars.download(1)[0], want_invalid) << "invalid count";
  ASSERT_EQ(d_offsets.download(), want_offsets) << "bucket offsets";
  std::vector<R> got = d_out.download(static_cast<size_t>(capacity));
  expect_poison_after(got, valid);
  got.resize(valid);
  if (opt.order == prim::SplitOrder::stable) {
    for (size_t i = 0; i < valid; ++i) ASSERT_TRUE(same_bytes(got[i], want[i])) << "position " << i;
  } else {
    expect_same_buckets_unordered(got, want, want_offsets);
  }
  const std::vector<R> in_after = d_in_alloc.download(in.size() + static_cast<size_t>(opt.input_offset));
  for (size_t i = 0; i < in.size(); ++i) {
    ASSERT_TRUE(same_bytes(in_after[i + static_cast<size_t>(opt.input_offset)], in[i])) << "input changed at " << i;
  }
}

// Same for split_pairs: keys are R, values the input position (uint32_t).
template <typename K, typename Op>
void check_split_pairs(const std::vector<K>& keys, uint32_t num_buckets, Op op, SplitOptions opt = {}) {
  const int64_t n = static_cast<int64_t>(keys.size());
  std::vector<uint32_t> values(keys.size());
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<uint32_t>(i * 2654435761u);
  DeviceBuffer<K> d_keys_alloc;
  upload_at_offset(d_keys_alloc, keys, opt.input_offset);
  DeviceBuffer<uint32_t> d_values_alloc;
  upload_at_offset(d_values_alloc, values, opt.input_offset);
  K* const d_keys = d_keys_alloc.get() + opt.input_offset;
  uint32_t* const d_values = d_values_alloc.get() + opt.input_offset;
  const int64_t capacity = n + opt.slack;
  DeviceBuffer<K> d_keys_out(std::max<int64_t>(capacity, 1));
  DeviceBuffer<uint32_t> d_values_out(std::max<int64_t>(capacity, 1));
  d_keys_out.poison();
  d_values_out.poison();
  DeviceBuffer<uint64_t> d_offsets(num_buckets + 1);
  d_offsets.poison();
  DeviceBuffer<uint64_t> d_invalid(1);
  d_invalid.zero();
  DeviceBuffer<uint64_t> d_count(1);  // the device-resident count (opt.device_count)
  d_count.upload(std::vector<uint64_t>{static_cast<uint64_t>(n)});
  const prim::ItemCount count = opt.device_count ? prim::ItemCount(capacity, d_count.get()) : prim::ItemCount(n);

  auto run = [&](void* d_temp, size_t& bytes) {
    if (opt.own_route) {
      return prim::detail::dispatch_split<prim::detail::SplitOutput::pairs, K, uint32_t>(
          d_temp, bytes, d_keys, d_keys_out.get(), d_values, d_values_out.get(), count, num_buckets, op,
          d_offsets.get(), 0, d_invalid.get());
    }
    return prim::split_pairs(d_temp, bytes, d_keys, d_keys_out.get(), d_values, d_values_out.get(), count,
                             num_buckets, op, d_offsets.get(), 0, opt.order, d_invalid.get());
  };
  size_t bytes = 0;
  ASSERT_CUDA(run(nullptr, bytes));
  DeviceBuffer<unsigned char> d_temp(bytes);
  d_temp.poison();
  ASSERT_CUDA(run(d_temp.get(), bytes));
  ASSERT_CUDA(cudaDeviceSynchronize());

  std::vector<K> want_keys(keys.size());
  std::vector<uint32_t> want_values(keys.size());
  std::vector<uint64_t> want_offsets(num_buckets + 1);
  const uint64_t want_invalid = prim::reference::split_pairs(keys.data(), want_keys.data(), values.data(),
                                                             want_values.data(), n, num_buckets, op,
                                                             want_offsets.data());
  const uint64_t valid = want_offsets[num_buckets];
  EXPECT_EQ(d_invalid.download()[0], want_invalid);
  ASSERT_EQ(d_offsets.download(), want_offsets);
  const std::vector<K> got_keys = d_keys_out.download(static_cast<size_t>(capacity));
  const std::vector<uint32_t> got_values = d_values_out.download(static_cast<size_t>(capacity));
  if (opt.order == prim::SplitOrder::stable) {
    for (size_t i = 0; i < valid; ++i) {
      ASSERT_TRUE(same_bytes(got_keys[i], want_keys[i])) << "key at " << i;
      ASSERT_EQ(got_values[i], want_values[i]) << "value at " << i;
    }
  } else {
    // Pair up (key, value) and compare bucket contents as multisets.
    struct Pair {
      K key;
      uint32_t value;
    };
    std::vector<Pair> got(valid), want(valid);
    for (size_t i = 0; i < valid; ++i) {
      std::memset(&got[i], 0, sizeof(Pair));
      std::memset(&want[i], 0, sizeof(Pair));
      got[i].key = got_keys[i];
      got[i].value = got_values[i];
      want[i].key = want_keys[i];
      want[i].value = want_values[i];
    }
    expect_same_buckets_unordered(got, want, want_offsets);
  }
  expect_poison_after(got_keys, valid);
  expect_poison_after(got_values, valid);
}

// prim::split of u32 keys by bucket_of, captured into a CUDA graph on a non-blocking stream (scratch allocated
// before the capture); the graph is replayed twice. *out and *offsets: what the replays left.
template <typename Op>
void split_in_cuda_graph(const std::vector<uint32_t>& keys, uint32_t num_buckets, Op bucket_of, prim::SplitOrder order,
                         std::vector<uint32_t>* out, std::vector<uint64_t>* offsets) {
  const int64_t n = static_cast<int64_t>(keys.size());
  DeviceBuffer<uint32_t> d_in, d_out(keys.size());
  d_in.upload(keys);
  d_out.poison();
  DeviceBuffer<uint64_t> d_offsets(num_buckets + 1);
  d_offsets.poison();
  size_t bytes = 0;
  ASSERT_CUDA(prim::split(nullptr, bytes, d_in.get(), d_out.get(), n, num_buckets, bucket_of, d_offsets.get(), 0,
                          order));
  DeviceBuffer<unsigned char> d_temp(bytes);

  cudaStream_t stream;
  ASSERT_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph;
  ASSERT_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  const cudaError_t call = prim::split(d_temp.get(), bytes, d_in.get(), d_out.get(), n, num_buckets, bucket_of,
                                       d_offsets.get(), stream, order);
  ASSERT_CUDA(cudaStreamEndCapture(stream, &graph));
  ASSERT_CUDA(call);
  cudaGraphExec_t exec;
  ASSERT_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 2; ++replay) ASSERT_CUDA(cudaGraphLaunch(exec, stream));
  ASSERT_CUDA(cudaStreamSynchronize(stream));
  *out = d_out.download();
  *offsets = d_offsets.download();
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
}

// split_in_cuda_graph compared with the reference: exactly in the stable order, bucket by bucket as multisets in the
// unstable one; the offsets exactly in both.
template <typename Op>
void check_split_in_cuda_graph(const std::vector<uint32_t>& keys, uint32_t num_buckets, Op bucket_of,
                               prim::SplitOrder order) {
  std::vector<uint32_t> got;
  std::vector<uint64_t> got_offsets;
  ASSERT_NO_FATAL_FAILURE(split_in_cuda_graph(keys, num_buckets, bucket_of, order, &got, &got_offsets));
  std::vector<uint32_t> want(keys.size());
  std::vector<uint64_t> want_offsets(num_buckets + 1);
  prim::reference::split(keys.data(), want.data(), static_cast<int64_t>(keys.size()), num_buckets, bucket_of,
                         want_offsets.data());
  ASSERT_EQ(got_offsets, want_offsets);
  if (order == prim::SplitOrder::stable) {
    EXPECT_EQ(got, want);
  } else {
    expect_same_buckets_unordered(got, want, want_offsets);
  }
}

// A device count above n.max: prim::split of u32 keys by bucket_of writes nothing, reports zero-sized buckets and
// counts every record of the device count as invalid.
template <typename Op>
void check_device_count_above_max_writes_nothing(uint32_t num_buckets, Op bucket_of) {
  const int64_t max = 10000;
  DeviceBuffer<uint32_t> d_in(20000), d_out(20000);
  d_in.zero();
  d_out.poison();
  DeviceBuffer<uint64_t> d_scalars(2);
  const std::vector<uint64_t> h{0, 15000};  // invalid counter, device count (> max)
  ASSERT_CUDA(cudaMemcpy(d_scalars.get(), h.data(), sizeof(uint64_t) * 2, cudaMemcpyHostToDevice));
  DeviceBuffer<uint64_t> d_offsets(num_buckets + 1);
  d_offsets.poison();
  size_t bytes = 0;
  const prim::ItemCount n(max, d_scalars.get() + 1);
  ASSERT_CUDA(prim::split(nullptr, bytes, d_in.get(), d_out.get(), n, num_buckets, bucket_of, d_offsets.get(), 0,
                          prim::SplitOrder::stable, d_scalars.get()));
  DeviceBuffer<unsigned char> d_temp(bytes);
  d_temp.poison();
  ASSERT_CUDA(prim::split(d_temp.get(), bytes, d_in.get(), d_out.get(), n, num_buckets, bucket_of, d_offsets.get(), 0,
                          prim::SplitOrder::stable, d_scalars.get()));
  ASSERT_CUDA(cudaDeviceSynchronize());
  EXPECT_EQ(d_scalars.download(1)[0], 15000u);
  EXPECT_EQ(d_offsets.download(), std::vector<uint64_t>(num_buckets + 1, 0));
  expect_poison_after(d_out.download(), 0);
}

}  // namespace split_test
