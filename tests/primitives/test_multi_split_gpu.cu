// prim::multi_split on the GPU against the C++ reference, by named property. The same emitter type runs on the
// device (device tables) and in the reference (host tables); outputs are poisoned before every call.
#include <gtest/gtest.h>
#include <prim/multi_split.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "common/quick_mode.h"
#include "primitives/test_split_util.h"
#include "primitives/reference/multi_split_reference.h"

namespace {

using split_test::DeviceBuffer;
using split_test::poisoned;

// Element i emits the pairs (bucket[j], payload[j]) for j in [first[i], first[i+1]).
struct TableEmitter {
  const uint64_t* first;
  const uint32_t* bucket;
  const uint32_t* payload;
  template <typename Emit>
  __host__ __device__ void operator()(int64_t i, Emit& emit) const {
    for (uint64_t j = first[i]; j < first[i + 1]; ++j) emit(bucket[j], payload[j]);
  }
};

struct Table {
  std::vector<uint64_t> first{0};
  std::vector<uint32_t> bucket, payload;
  int64_t size() const { return static_cast<int64_t>(first.size()) - 1; }
  void add(uint32_t b) {
    payload.push_back(static_cast<uint32_t>(size()) << 12 | static_cast<uint32_t>(bucket.size() - first.back()));
    bucket.push_back(b);
  }
  void end_element() { first.push_back(bucket.size()); }
  TableEmitter host() const { return TableEmitter{first.data(), bucket.data(), payload.data()}; }
};

// counts[i] pairs for element i, buckets from the distribution over [0, bucket_range).
Table make_table(const std::vector<uint32_t>& counts, uint32_t bucket_range, split_test::Distribution dist,
                 uint32_t seed) {
  uint64_t total = 0;
  for (uint32_t c : counts) total += c;
  const auto buckets = split_test::make_bucket_keys(total, bucket_range, dist, seed);
  Table t;
  size_t next = 0;
  for (uint32_t c : counts) {
    for (uint32_t k = 0; k < c; ++k) t.add(buckets[next++]);
    t.end_element();
  }
  return t;
}

std::vector<uint32_t> random_counts(size_t n, uint32_t max_count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<uint32_t> u(0, max_count);
  std::vector<uint32_t> counts(n);
  for (auto& c : counts) c = u(rng);
  return counts;
}

struct Options {
  int64_t capacity_slack = 0;  // out_capacity = total + slack (negative: overflow)
  bool device_count = false;   // num_inputs as a device-resident count (bound = n + 100)
  bool graph = false;
  bool workspace = false;
};

void check_multi_split(const Table& t, uint32_t num_buckets, Options opt = {}) {
  const int64_t n = t.size();
  // The reference first, for the total.
  uint64_t want_total = 0;
  std::vector<uint64_t> want_offsets(num_buckets + 1);
  {
    std::vector<uint32_t> scratch(t.bucket.size() + 1);
    prim::reference::multi_split(n, t.host(), num_buckets, scratch.data(), static_cast<int64_t>(scratch.size()),
                                 want_offsets.data(), &want_total);
  }
  const int64_t capacity = std::max<int64_t>(static_cast<int64_t>(want_total) + opt.capacity_slack, 0);
  const uint32_t poison = poisoned<uint32_t>();
  std::vector<uint32_t> want(static_cast<size_t>(std::max<int64_t>(capacity, 1)), poison);
  const uint64_t want_invalid = prim::reference::multi_split(n, t.host(), num_buckets, want.data(), capacity,
                                                             want_offsets.data(), &want_total);

  DeviceBuffer<uint64_t> d_first;
  d_first.upload(t.first);
  DeviceBuffer<uint32_t> d_bucket(std::max<size_t>(t.bucket.size(), 1)), d_payload(std::max<size_t>(t.bucket.size(), 1));
  if (!t.bucket.empty()) {
    d_bucket.upload(t.bucket);
    d_payload.upload(t.payload);
  }
  const TableEmitter emitter{d_first.get(), d_bucket.get(), d_payload.get()};
  DeviceBuffer<uint32_t> d_out(want.size());
  d_out.poison();
  DeviceBuffer<uint64_t> d_offsets(num_buckets + 1);
  d_offsets.poison();
  DeviceBuffer<uint64_t> d_scalars(3);  // total, invalid, device count
  d_scalars.poison();
  const std::vector<uint64_t> init{0xABABABABABABABABull, 0, static_cast<uint64_t>(n)};
  ASSERT_CUDA(cudaMemcpy(d_scalars.get(), init.data(), 3 * sizeof(uint64_t), cudaMemcpyHostToDevice));
  const prim::ItemCount count = opt.device_count ? prim::ItemCount(n + 100, d_scalars.get() + 2) : prim::ItemCount(n);

  if (opt.workspace) {
    prim::Workspace ws;
    const cudaError_t status = prim::multi_split<uint32_t>(ws, count, emitter, num_buckets, d_out.get(), capacity,
                                                           d_offsets.get(), d_scalars.get());
    EXPECT_EQ(want_invalid == 0 ? cudaSuccess : cudaErrorInvalidValue, status);
  } else {
    size_t bytes = 0;
    ASSERT_CUDA(prim::multi_split<uint32_t>(nullptr, bytes, count, emitter, num_buckets, d_out.get(), capacity,
                                            d_offsets.get(), d_scalars.get()));
    DeviceBuffer<unsigned char> d_temp(bytes);
    cudaStream_t stream;
    ASSERT_CUDA(cudaStreamCreate(&stream));
    auto call = [&] {
      return prim::multi_split<uint32_t>(d_temp.get(), bytes, count, emitter, num_buckets, d_out.get(), capacity,
                                         d_offsets.get(), d_scalars.get(), stream, d_scalars.get() + 1);
    };
    if (opt.graph) {
      cudaGraph_t graph;
      cudaGraphExec_t exec;
      ASSERT_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
      ASSERT_CUDA(call());
      ASSERT_CUDA(cudaStreamEndCapture(stream, &graph));
      ASSERT_CUDA(cudaGraphInstantiate(&exec, graph, 0));
      ASSERT_CUDA(cudaGraphLaunch(exec, stream));
      ASSERT_CUDA(cudaStreamSynchronize(stream));
      ASSERT_CUDA(cudaGraphExecDestroy(exec));
      ASSERT_CUDA(cudaGraphDestroy(graph));
    } else {
      ASSERT_CUDA(call());
    }
    ASSERT_CUDA(cudaStreamSynchronize(stream));
    ASSERT_CUDA(cudaStreamDestroy(stream));
    EXPECT_EQ(want_invalid, d_scalars.download()[1]);
  }
  ASSERT_CUDA(cudaDeviceSynchronize());
  EXPECT_EQ(want_total, d_scalars.download()[0]);
  EXPECT_EQ(want_offsets, d_offsets.download());
  const std::vector<uint32_t> got = d_out.download();
  for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(want[i], got[i]) << "output position " << i;
}

using split_test::Distribution;

TEST(MultiSplitGpu, EmptyInput) {
  check_multi_split(Table{}, 16);
  check_multi_split(Table{}, 16, Options{10});
}

TEST(MultiSplitGpu, OneElement) {
  check_multi_split(make_table({1}, 16, Distribution::uniform, 1), 16);
  check_multi_split(make_table({5}, 3, Distribution::uniform, 2), 3);
}

TEST(MultiSplitGpu, ElementsEmittingNothing) {
  check_multi_split(make_table(std::vector<uint32_t>(1000, 0), 16, Distribution::uniform, 3), 16);
  auto counts = std::vector<uint32_t>(5000, 0);
  counts[4321] = 2;
  check_multi_split(make_table(counts, 16, Distribution::uniform, 4), 16);
}

TEST(MultiSplitGpu, OneElementEmittingManyBuckets) {
  Table t;
  for (uint32_t k = 0; k < 30000; ++k) t.add(k % 2048);  // every bucket, several times, in a sweep
  t.end_element();
  check_multi_split(t, 2048);
  check_multi_split(make_table({1, 30000, 2}, 2048, Distribution::uniform, 5), 2048);
  // Among many small elements, like one huge triangle among small ones.
  auto counts = random_counts(100000, 4, 6);
  counts[77777] = 35000;
  check_multi_split(make_table(counts, 480, Distribution::uniform, 7), 480);
}

TEST(MultiSplitGpu, AllInOneBucket) {
  check_multi_split(make_table(random_counts(20000, 4, 8), 480, Distribution::one_bucket, 9), 480);
}

TEST(MultiSplitGpu, EveryBucketUsed) {
  for (uint32_t b : {1u, 16u, 256u, 480u, 2048u}) {
    SCOPED_TRACE(b);
    check_multi_split(make_table(random_counts(20000, 6, b), b, Distribution::uniform, b + 1), b);
  }
}

TEST(MultiSplitGpu, OneBucketIsTheExpansionInInputOrder) {
  // One bucket takes its own path (no split after the emit pass): every element's pairs in input order, pairs for
  // other buckets dropped and counted, the overflow and the device-resident count as with several buckets.
  const Table t = make_table(random_counts(70000, 5, 31), 1, Distribution::uniform, 32);
  check_multi_split(t, 1);
  check_multi_split(t, 1, Options{-1});
  check_multi_split(t, 1, Options{0});
  Options on_device;
  on_device.device_count = true;
  check_multi_split(t, 1, on_device);
  Options captured;
  captured.graph = true;
  check_multi_split(t, 1, captured);
  check_multi_split(make_table(random_counts(30000, 4, 33), 3, Distribution::uniform, 34), 1);  // 2/3 invalid
  check_multi_split(make_table({0, 0, 40000, 0, 3}, 1, Distribution::uniform, 35), 1);
  check_multi_split(Table{}, 1);
}

TEST(MultiSplitGpu, Skewed) {
  check_multi_split(make_table(random_counts(50000, 4, 10), 2048, Distribution::zipf, 11), 2048);
}

TEST(MultiSplitGpu, IsStable) {
  // Two buckets, many pairs each: payloads (element << 12 | emission) must come out in order inside each bucket.
  check_multi_split(make_table(random_counts(100000, 5, 12), 2, Distribution::uniform, 13), 2);
}

TEST(MultiSplitGpu, TileRangesLikeTheRenderer) {
  // Element i covers a random column range [lo, hi] of 480 columns: one pair per column, payload = i.
  std::mt19937 rng(14);
  std::uniform_int_distribution<uint32_t> col(0, 479), len(0, 3);
  Table t;
  for (int i = 0; i < 200000; ++i) {
    const uint32_t lo = col(rng);
    const uint32_t hi = i % 5000 == 0 ? 479 : std::min(479u, lo + len(rng));
    for (uint32_t c = lo; c <= hi; ++c) t.add(c);
    t.end_element();
  }
  check_multi_split(t, 480);
}

TEST(MultiSplitGpu, CapacityOverflowWritesNothingAndReportsTotal) {
  const Table t = make_table(random_counts(10000, 4, 15), 256, Distribution::uniform, 16);
  check_multi_split(t, 256, Options{-1});
  check_multi_split(t, 256, Options{-10000});
  check_multi_split(t, 256, Options{0});  // exactly full
}

TEST(MultiSplitGpu, DeviceResidentCount) {
  Options opt;
  opt.device_count = true;
  check_multi_split(make_table(random_counts(10000, 4, 17), 256, Distribution::uniform, 18), 256, opt);
  check_multi_split(Table{}, 256, opt);
}

TEST(MultiSplitGpu, DeviceCountAboveBoundWritesNothing) {
  const Table t = make_table(random_counts(1000, 4, 19), 64, Distribution::uniform, 20);
  DeviceBuffer<uint64_t> d_first, d_scalars(3);
  d_first.upload(t.first);
  DeviceBuffer<uint32_t> d_bucket, d_payload, d_out(5000);
  d_bucket.upload(t.bucket);
  d_payload.upload(t.payload);
  d_out.poison();
  const std::vector<uint64_t> init{77, 0, 1000};
  ASSERT_CUDA(cudaMemcpy(d_scalars.get(), init.data(), 3 * sizeof(uint64_t), cudaMemcpyHostToDevice));
  DeviceBuffer<uint64_t> d_offsets(65);
  d_offsets.poison();
  size_t bytes = 0;
  const TableEmitter emitter{d_first.get(), d_bucket.get(), d_payload.get()};
  const prim::ItemCount count(999, d_scalars.get() + 2);  // the device count (1000) exceeds its bound
  ASSERT_CUDA(prim::multi_split<uint32_t>(nullptr, bytes, count, emitter, 64, d_out.get(), 5000, d_offsets.get(),
                                          d_scalars.get()));
  DeviceBuffer<unsigned char> d_temp(bytes);
  ASSERT_CUDA(prim::multi_split<uint32_t>(d_temp.get(), bytes, count, emitter, 64, d_out.get(), 5000,
                                          d_offsets.get(), d_scalars.get(), 0, d_scalars.get() + 1));
  const auto scalars = d_scalars.download();
  EXPECT_EQ(0u, scalars[0]);
  EXPECT_EQ(1000u, scalars[1]);
  EXPECT_EQ(std::vector<uint64_t>(65, 0), d_offsets.download());
  EXPECT_EQ(std::vector<uint32_t>(5000, poisoned<uint32_t>()), d_out.download());
}

TEST(MultiSplitGpu, OutOfRangeBucket) {
  check_multi_split(make_table(random_counts(20000, 4, 21), 300, Distribution::uniform, 22), 256);
}

TEST(MultiSplitGpu, WorkspaceOverload) {
  Options opt;
  opt.workspace = true;
  check_multi_split(make_table(random_counts(20000, 4, 23), 256, Distribution::uniform, 24), 256, opt);
  check_multi_split(make_table(random_counts(2000, 4, 25), 300, Distribution::uniform, 26), 256, opt);  // invalid
}

TEST(MultiSplitGpu, UnderCudaGraphCapture) {
  Options opt;
  opt.graph = true;
  check_multi_split(make_table(random_counts(50000, 4, 27), 480, Distribution::uniform, 28), 480, opt);
}

TEST(MultiSplitGpu, Large) {
  if (slabtest::quick_mode()) GTEST_SKIP() << "SLABCAST_TEST_QUICK";
  // ~2^24 elements emitting 1-4 pairs into 480 buckets (a 4K frame's L1), and one huge element.
  auto counts = random_counts(uint64_t{1} << 24, 3, 29);
  for (auto& c : counts) c += 1;
  counts[123456] = 40000;
  check_multi_split(make_table(counts, 480, Distribution::uniform, 30), 480);
}

}  // namespace
