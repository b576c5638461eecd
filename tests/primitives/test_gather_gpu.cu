// gather / scatter on the GPU against the C++ reference (primitives/reference/gather_scatter_reference.h),
// by named property. Every output starts poisoned, so an element the device failed to write (or wrote
// where it must not) differs from the reference applied to the same poisoned contents.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "prim/gather_scatter.h"
#include "primitives/test_scan_util.h"
#include "primitives/reference/gather_scatter_reference.h"

namespace {

using slabtest::DeviceBuffer;

enum class Perm { identity, reverse, random };

template <typename Index>
std::vector<Index> make_permutation(int64_t n, Perm kind, uint64_t seed) {
  std::vector<Index> map(n);
  std::iota(map.begin(), map.end(), Index{0});
  if (kind == Perm::reverse) std::reverse(map.begin(), map.end());
  if (kind == Perm::random) {
    std::mt19937_64 rng(seed);
    std::shuffle(map.begin(), map.end(), rng);
  }
  return map;
}

std::vector<unsigned char> random_bytes(size_t count, uint64_t seed) {
  std::vector<unsigned char> bytes(count);
  std::mt19937_64 rng(seed);
  for (auto& b : bytes) b = static_cast<unsigned char>(rng());
  return bytes;
}

// Runs gather (or scatter) of n records of record_bytes through `map` on the device and on the host; both start
// from the same poisoned output. `in_offset` / `out_offset` shift the base pointers by that many bytes, to test
// the narrower-vector paths for misaligned data.
template <typename Index>
void check_move(bool scatter, int64_t n, size_t record_bytes, const std::vector<Index>& map, int64_t other_size,
                uint64_t expected_invalid, size_t in_offset = 0, size_t out_offset = 0, uint32_t passes = 0) {
  SCOPED_TRACE(testing::Message() << (scatter ? "scatter" : "gather") << " n=" << n << " record_bytes=" << record_bytes
                                  << " in_offset=" << in_offset << " out_offset=" << out_offset << " passes=" << passes);
  const int64_t in_records = scatter ? n : other_size;
  const int64_t out_records = scatter ? other_size : n;
  const std::vector<unsigned char> in = random_bytes(in_records * record_bytes + in_offset, 1234 + n);
  DeviceBuffer<unsigned char> d_in(in);
  DeviceBuffer<unsigned char> d_out(out_records * record_bytes + out_offset);
  DeviceBuffer<Index> d_map(map);
  DeviceBuffer<uint64_t> d_invalid(std::vector<uint64_t>{1000});  // the call adds to it
  ASSERT_EQ(cudaSuccess, d_in.status());
  ASSERT_EQ(cudaSuccess, d_out.status());
  ASSERT_EQ(cudaSuccess, d_map.status());
  std::vector<unsigned char> expected = d_out.download();

  size_t temp_bytes = 0;
  const void* src = d_in.get() + in_offset;
  void* dst = d_out.get() + out_offset;
  if (scatter) {
    ASSERT_EQ(cudaSuccess, prim::scatter_bytes(nullptr, temp_bytes, src, dst, d_map.get(), n, other_size, record_bytes));
  } else {
    ASSERT_EQ(cudaSuccess, prim::gather_bytes(nullptr, temp_bytes, src, dst, d_map.get(), n, other_size, record_bytes));
  }
  ASSERT_GE(temp_bytes, 1u);
  DeviceBuffer<unsigned char> d_temp(temp_bytes);
  if (scatter) {
    ASSERT_EQ(cudaSuccess, prim::scatter_bytes(d_temp.get(), temp_bytes, src, dst, d_map.get(), n, other_size,
                                               record_bytes, 0, d_invalid.get(), prim::ScatterOptions{passes}));
  } else {
    ASSERT_EQ(cudaSuccess, prim::gather_bytes(d_temp.get(), temp_bytes, src, dst, d_map.get(), n, other_size,
                                              record_bytes, 0, d_invalid.get()));
  }
  ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());

  uint64_t ref_invalid = 0;
  if (scatter) {
    ref_invalid = prim::reference::scatter_bytes(in.data() + in_offset, expected.data() + out_offset, map.data(), n,
                                                 other_size, record_bytes);
  } else {
    ref_invalid = prim::reference::gather_bytes(in.data() + in_offset, expected.data() + out_offset, map.data(), n,
                                                other_size, record_bytes);
  }
  EXPECT_EQ(ref_invalid, expected_invalid);
  EXPECT_EQ(d_invalid.download_one(), 1000 + expected_invalid);
  EXPECT_EQ(d_in.download(), in) << "input changed";
  const std::vector<unsigned char> got = d_out.download();
  ASSERT_EQ(got.size(), expected.size());
  const auto mismatch = std::mismatch(got.begin(), got.end(), expected.begin());
  EXPECT_TRUE(mismatch.first == got.end()) << "first differing byte " << (mismatch.first - got.begin())
                                           << " (record " << (mismatch.first - got.begin() - int64_t(out_offset)) / int64_t(record_bytes) << ")";
}

constexpr size_t kRecordSizes[] = {4, 8, 12, 16, 64, 256, 260};

TEST(Gather, EmptyInputWritesNothingAndCountsZero) {
  check_move<uint32_t>(false, 0, 64, {}, 10, 0);
  check_move<uint32_t>(true, 0, 64, {}, 10, 0);
}

TEST(Gather, OneElement) {
  for (size_t rb : kRecordSizes) {
    check_move<uint32_t>(false, 1, rb, {0}, 1, 0);
    check_move<uint32_t>(true, 1, rb, {0}, 1, 0);
  }
}

TEST(Gather, EdgeSizesRandomPermutation64ByteRecords) {
  for (int64_t n : slabtest::edge_sizes()) {
    const auto map = make_permutation<uint32_t>(n, Perm::random, 7 + n);
    check_move(false, n, 64, map, n, 0);
    check_move(true, n, 64, map, n, 0);
  }
}

TEST(Gather, EdgeSizes4ByteRecords) {
  for (int64_t n : slabtest::edge_sizes()) {
    const auto map = make_permutation<int32_t>(n, Perm::random, 11 + n);
    check_move(false, n, 4, map, n, 0);
    check_move(true, n, 4, map, n, 0);
  }
}

TEST(Gather, EveryRecordSizeAndPermutationKind) {
  for (size_t rb : kRecordSizes) {
    for (Perm kind : {Perm::identity, Perm::reverse, Perm::random}) {
      for (int64_t n : {int64_t(33), int64_t(1025), int64_t(4097)}) {
        const auto map = make_permutation<uint32_t>(n, kind, 3 + n);
        check_move(false, n, rb, map, n, 0);
        check_move(true, n, rb, map, n, 0);
      }
    }
  }
}

TEST(Gather, MisalignedBasePointersUseNarrowerVectors) {
  const int64_t n = 1000;
  const auto map = make_permutation<uint32_t>(n, Perm::random, 99);
  for (size_t rb : {size_t(16), size_t(64), size_t(256)}) {
    for (size_t offset : {size_t(1), size_t(2), size_t(4), size_t(8)}) {
      check_move(false, n, rb, map, n, 0, offset, 0);
      check_move(false, n, rb, map, n, 0, 0, offset);
      check_move(true, n, rb, map, n, 0, offset, 0);
      check_move(true, n, rb, map, n, 0, 0, offset);
    }
  }
  EXPECT_EQ(prim::plan_record(64, reinterpret_cast<void*>(256), reinterpret_cast<void*>(512)).vector_bytes, 16u);
  EXPECT_EQ(prim::plan_record(64, reinterpret_cast<void*>(260), reinterpret_cast<void*>(512)).vector_bytes, 4u);
  EXPECT_EQ(prim::plan_record(260, reinterpret_cast<void*>(256), reinterpret_cast<void*>(512)).group_lanes, 32u);
  EXPECT_EQ(prim::plan_record(64, reinterpret_cast<void*>(256), reinterpret_cast<void*>(512)).group_lanes, 4u);
}

TEST(Gather, GatherNotPermutationRepeatsSources) {
  // Gather may read one source many times (a map that is not a permutation), and from a larger input.
  const int64_t n = 5000, in_size = 77;
  std::vector<int64_t> map(n);
  std::mt19937_64 rng(5);
  for (auto& m : map) m = static_cast<int64_t>(rng() % in_size);
  check_move(false, n, 64, map, in_size, 0);
  check_move(false, n, 12, map, in_size, 0);
}

TEST(Gather, ScatterIntoLargerOutputLeavesTheRestUntouched) {
  const int64_t n = 3000, out_size = 10000;
  auto map = make_permutation<uint64_t>(out_size, Perm::random, 21);
  map.resize(n);
  check_move(true, n, 64, map, out_size, 0);
  check_move(true, n, 8, map, out_size, 0);
}

TEST(Gather, InvalidIndicesAreNotAccessedAndCounted) {
  const int64_t n = 4097;
  auto map32 = make_permutation<int32_t>(n, Perm::random, 8);
  map32[0] = -1;
  map32[17] = static_cast<int32_t>(n);
  map32[4096] = std::numeric_limits<int32_t>::min();
  for (size_t rb : {size_t(4), size_t(64), size_t(260)}) {
    check_move(false, n, rb, map32, n, 3);
    check_move(true, n, rb, map32, n, 3);
  }
  auto map64 = make_permutation<uint64_t>(n, Perm::random, 9);
  map64[5] = ~uint64_t{0};  // above INT64_MAX: must not wrap to a negative (or valid) index
  map64[6] = uint64_t(n) + 1;
  check_move(false, n, 64, map64, n, 2);
  check_move(true, n, 64, map64, n, 2);
  // All invalid: nothing moves.
  std::vector<uint32_t> all_bad(n, static_cast<uint32_t>(n));
  check_move(false, n, 16, all_bad, n, n);
  check_move(true, n, 16, all_bad, n, n);
}

TEST(Gather, EveryIndexType) {
  const int64_t n = 2049;
  check_move(false, n, 64, make_permutation<int32_t>(n, Perm::random, 1), n, 0);
  check_move(false, n, 64, make_permutation<uint32_t>(n, Perm::random, 2), n, 0);
  check_move(false, n, 64, make_permutation<int64_t>(n, Perm::random, 3), n, 0);
  check_move(false, n, 64, make_permutation<uint64_t>(n, Perm::random, 4), n, 0);
  check_move(true, n, 64, make_permutation<int32_t>(n, Perm::random, 1), n, 0);
  check_move(true, n, 64, make_permutation<uint64_t>(n, Perm::random, 4), n, 0);
}

TEST(Gather, MultiPassScatterEqualsOnePass) {
  for (int64_t n : {int64_t(1), int64_t(1000), int64_t(65537)}) {
    const auto map = make_permutation<uint32_t>(n, Perm::random, 31 + n);
    for (uint32_t passes : {1u, 2u, 3u, 7u, 64u}) {
      check_move(true, n, 4, map, n, 0, 0, 0, passes);
      check_move(true, n, 64, map, n, 0, 0, 0, passes);
    }
  }
  auto bad = make_permutation<int32_t>(1000, Perm::random, 77);
  bad[10] = -5;
  check_move(true, 1000, 4, bad, 1000, 1, 0, 0, 5);  // counted once, not once per pass
}

TEST(Gather, ScatterAutoPassesOnlyForNarrowRecordsFarBeyondL2) {
  const uint64_t l2 = 50ull << 20;
  EXPECT_EQ(prim::scatter_auto_passes(64, 4ull << 30, l2), 1u);   // whole-sector records: always one pass
  EXPECT_EQ(prim::scatter_auto_passes(4, 16ull << 20, l2), 1u);   // fits in L2
  EXPECT_EQ(prim::scatter_auto_passes(4, 64ull << 20, l2), 3u);   // windows of half the L2
  EXPECT_EQ(prim::scatter_auto_passes(4, 256ull << 20, l2), 11u);
  EXPECT_EQ(prim::scatter_auto_passes(8, 128ull << 20, l2), 6u);
  EXPECT_EQ(prim::scatter_auto_passes(8, 512ull << 20, l2), 1u);  // too many passes: re-reading costs more
  EXPECT_EQ(prim::scatter_auto_passes(16, 256ull << 20, l2), 1u);
}

struct Particle {  // a typed 64-byte record
  float position[3];
  float velocity[3];
  uint32_t id;
  float rest[9];
};
static_assert(sizeof(Particle) == 64);

TEST(Gather, TypedRecordsAndWorkspaceOverloads) {
  const int64_t n = 3001;
  std::vector<Particle> in(n);
  for (int64_t i = 0; i < n; ++i) in[i] = Particle{{float(i), 0, 0}, {0, float(-i), 0}, uint32_t(i), {}};
  const auto map = make_permutation<uint32_t>(n, Perm::random, 12);
  DeviceBuffer<Particle> d_in(in), d_gathered(n), d_back(n);
  DeviceBuffer<uint32_t> d_map(map);
  prim::Workspace ws;
  ASSERT_EQ(cudaSuccess, prim::gather(ws, d_in.get(), d_gathered.get(), d_map.get(), n, n));
  ASSERT_EQ(cudaSuccess, prim::scatter(ws, d_gathered.get(), d_back.get(), d_map.get(), n, n));  // inverse
  const auto gathered = d_gathered.download();
  const auto back = d_back.download();
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(gathered[i].id, map[i]);
    ASSERT_EQ(back[i].id, uint32_t(i));
  }
  // The Workspace overloads turn an invalid map entry into an error (after synchronising).
  DeviceBuffer<uint32_t> d_bad(std::vector<uint32_t>{0, uint32_t(n)});
  EXPECT_EQ(cudaErrorInvalidValue, prim::gather(ws, d_in.get(), d_gathered.get(), d_bad.get(), 2, n));
  EXPECT_EQ(cudaErrorInvalidValue, prim::scatter(ws, d_in.get(), d_back.get(), d_bad.get(), 2, n));
}

TEST(Gather, DeviceResidentCount) {
  const int64_t max_n = 5000;
  const auto map = make_permutation<uint32_t>(max_n, Perm::random, 44);
  const std::vector<uint32_t> in = [&] {
    std::vector<uint32_t> v(max_n);
    std::iota(v.begin(), v.end(), 100u);
    return v;
  }();
  DeviceBuffer<uint32_t> d_in(in), d_out(max_n), d_map(map);
  DeviceBuffer<uint64_t> d_count(std::vector<uint64_t>{1234}), d_invalid(std::vector<uint64_t>{0});
  size_t temp_bytes = 1;
  DeviceBuffer<unsigned char> d_temp(1);
  ASSERT_EQ(cudaSuccess, prim::gather(d_temp.get(), temp_bytes, d_in.get(), d_out.get(), d_map.get(),
                                      prim::ItemCount(max_n, d_count.get()), max_n, 0, d_invalid.get()));
  auto got = d_out.download();
  for (int64_t i = 0; i < max_n; ++i) {
    if (i < 1234) {
      ASSERT_EQ(got[i], in[map[i]]) << i;
    } else {
      uint32_t poison;
      std::memset(&poison, slabtest::kPoisonByte, sizeof(poison));
      ASSERT_EQ(got[i], poison) << "written beyond the device count at " << i;
    }
  }
  EXPECT_EQ(d_invalid.download_one(), 0u);
  // A device count above the host bound: nothing is written, everything counts as invalid.
  DeviceBuffer<uint32_t> d_out2(max_n);
  DeviceBuffer<uint64_t> d_too_many(std::vector<uint64_t>{uint64_t(max_n) + 10});
  ASSERT_EQ(cudaSuccess, prim::scatter(d_temp.get(), temp_bytes, d_in.get(), d_out2.get(), d_map.get(),
                                       prim::ItemCount(max_n, d_too_many.get()), max_n, 0, d_invalid.get()));
  EXPECT_EQ(d_invalid.download_one(), uint64_t(max_n) + 10);  // added to the 0 of the first call
  for (uint32_t v : d_out2.download()) {
    uint32_t poison;
    std::memset(&poison, slabtest::kPoisonByte, sizeof(poison));
    ASSERT_EQ(v, poison);
  }
}

// The size query reports 1 byte; a call with fewer (0) returns cudaErrorInvalidValue and writes nothing, as every
// call of the library does with less scratch than its query reported, although gather and scatter use none.
TEST(Gather, ScratchBelowTheReportedSizeIsRejected) {
  const int64_t n = 1000;
  const auto map = make_permutation<uint32_t>(n, Perm::random, 66);
  std::vector<uint32_t> in(n);
  std::iota(in.begin(), in.end(), 7u);
  DeviceBuffer<uint32_t> d_in(in), d_out(n), d_map(map);
  size_t reported = 0;
  ASSERT_EQ(cudaSuccess, prim::gather(nullptr, reported, d_in.get(), d_out.get(), d_map.get(), n, n));
  ASSERT_EQ(cudaSuccess, prim::scatter(nullptr, reported, d_in.get(), d_out.get(), d_map.get(), n, n));
  EXPECT_EQ(reported, 1u);
  DeviceBuffer<unsigned char> d_temp(1);
  size_t too_few = 0;
  EXPECT_EQ(cudaErrorInvalidValue, prim::gather(d_temp.get(), too_few, d_in.get(), d_out.get(), d_map.get(), n, n));
  EXPECT_EQ(cudaErrorInvalidValue, prim::scatter(d_temp.get(), too_few, d_in.get(), d_out.get(), d_map.get(), n, n));
  EXPECT_EQ(cudaErrorInvalidValue, prim::gather(d_temp.get(), too_few, d_in.get(), d_out.get(), d_map.get(), 0, n));
  ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
  uint32_t poison;
  std::memset(&poison, slabtest::kPoisonByte, sizeof(poison));
  for (uint32_t v : d_out.download()) ASSERT_EQ(v, poison) << "a rejected call wrote its output";
  ASSERT_EQ(cudaSuccess, prim::gather(d_temp.get(), reported, d_in.get(), d_out.get(), d_map.get(), n, n));
  EXPECT_EQ(d_out.download_one(0), in[map[0]]);
}

TEST(Gather, InsideCudaGraphCapture) {
  const int64_t n = 100000;
  const auto map = make_permutation<uint32_t>(n, Perm::random, 55);
  std::vector<uint64_t> in(n * 8);
  std::iota(in.begin(), in.end(), uint64_t{1});
  struct R64 { uint64_t w[8]; };
  DeviceBuffer<R64> d_in(n), d_mid(n), d_out(n);
  ASSERT_EQ(cudaSuccess, cudaMemcpy(d_in.get(), in.data(), n * 64, cudaMemcpyHostToDevice));
  DeviceBuffer<uint32_t> d_map(map);
  DeviceBuffer<uint64_t> d_invalid(std::vector<uint64_t>{0});
  size_t temp_bytes = 0;
  ASSERT_EQ(cudaSuccess, prim::gather(nullptr, temp_bytes, d_in.get(), d_mid.get(), d_map.get(), n, n));
  DeviceBuffer<unsigned char> d_temp(temp_bytes);

  cudaStream_t stream;
  ASSERT_EQ(cudaSuccess, cudaStreamCreate(&stream));
  cudaGraph_t graph;
  ASSERT_EQ(cudaSuccess, cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  ASSERT_EQ(cudaSuccess, prim::gather(d_temp.get(), temp_bytes, d_in.get(), d_mid.get(), d_map.get(), n, n, stream,
                                      d_invalid.get()));
  ASSERT_EQ(cudaSuccess, prim::scatter(d_temp.get(), temp_bytes, d_mid.get(), d_out.get(), d_map.get(), n, n, stream,
                                       d_invalid.get(), prim::ScatterOptions{3}));
  ASSERT_EQ(cudaSuccess, cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec;
  ASSERT_EQ(cudaSuccess, cudaGraphInstantiate(&exec, graph, 0));
  ASSERT_EQ(cudaSuccess, cudaGraphLaunch(exec, stream));
  ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(stream));
  std::vector<uint64_t> out(n * 8);
  ASSERT_EQ(cudaSuccess, cudaMemcpy(out.data(), d_out.get(), n * 64, cudaMemcpyDeviceToHost));
  EXPECT_EQ(out, in) << "scatter through the same map must undo the gather";
  std::vector<uint64_t> mid(n * 8);
  ASSERT_EQ(cudaSuccess, cudaMemcpy(mid.data(), d_mid.get(), n * 64, cudaMemcpyDeviceToHost));
  for (int64_t i = 0; i < n; i += 997) ASSERT_EQ(mid[i * 8], in[map[i] * 8]);
  EXPECT_EQ(d_invalid.download_one(), 0u);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
}

TEST(Gather, Large64ByteRandom) {
  if (slabtest::quick_mode()) GTEST_SKIP() << "SLABCAST_TEST_QUICK";
  const int64_t n = (int64_t(1) << 24) + 3;
  const auto map = make_permutation<uint32_t>(n, Perm::random, 2024);
  check_move(false, n, 64, map, n, 0);
  check_move(true, n, 64, map, n, 0);
}

}  // namespace
