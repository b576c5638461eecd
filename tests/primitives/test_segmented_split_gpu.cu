// prim::segmented_split / segmented_split_pairs on the GPU against the C++ reference, by named property.
// Outputs are poisoned before every call; the whole output (including slots that must stay untouched), the bucket
// offsets, the invalid count and the unchanged input are compared.
#include <gtest/gtest.h>
#include <prim/segmented_split.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <random>
#include <vector>

#include "common/quick_mode.h"
#include "primitives/test_split_util.h"
#include "primitives/reference/segmented_split_reference.h"

namespace {

using split_test::BucketByKeyMod;
using split_test::BucketIsKey;
using split_test::DeviceBuffer;
using split_test::poisoned;
using split_test::Distribution;
using split_test::Rec16;
using split_test::Rec4;
using split_test::Rec64;
using split_test::Rec8;

using Policy4 = prim::detail::SegmentedSplitPolicy<4>;
constexpr int64_t kTile = Policy4::kTileCapacity;
constexpr int64_t kStride = Policy4::kTileStride;
constexpr int64_t kSmall = Policy4::kSmallSegment;

std::vector<uint64_t> offsets_from_sizes(const std::vector<uint64_t>& sizes) {
  std::vector<uint64_t> off(sizes.size() + 1, 0);
  for (size_t s = 0; s < sizes.size(); ++s) off[s + 1] = off[s] + sizes[s];
  return off;
}

std::vector<uint64_t> random_sizes(size_t count, uint64_t max_size, uint32_t seed, double empty_fraction = 0.1) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<uint64_t> u(0, max_size);
  std::uniform_real_distribution<double> e(0, 1);
  std::vector<uint64_t> sizes(count);
  for (auto& s : sizes) s = e(rng) < empty_fraction ? 0 : u(rng);
  return sizes;
}

struct Options {
  int64_t slack = 0;             // max_items = total + slack (negative: the count exceeds max_items)
  bool bucket_offsets = true;    // ask for the per-(segment, bucket) offsets
  bool graph = false;            // run the call inside CUDA graph capture
  bool workspace = false;        // use the Workspace overload
  bool large_segment_path = true;  // SegmentedSplitOptions: false is the renderer's engine (a block a tile)
};

template <typename R>
R poison_value() {
  return poisoned<R>();
}

template <typename R, typename Op>
void check_segmented(const std::vector<R>& in, const std::vector<uint64_t>& off, uint32_t num_buckets, Op op,
                     Options opt = {}) {
  const int64_t num_segments = static_cast<int64_t>(off.size()) - 1;
  const int64_t total = static_cast<int64_t>(off.back());
  ASSERT_EQ(static_cast<size_t>(total), in.size());
  const int64_t max_items = std::max<int64_t>(total + opt.slack, 0);
  const size_t out_size = static_cast<size_t>(std::max<int64_t>(std::max(max_items, total), 1));
  const size_t offsets_size = static_cast<size_t>(num_segments) * num_buckets + 1;

  DeviceBuffer<R> d_in(std::max<size_t>(in.size(), 1));
  if (!in.empty()) ASSERT_CUDA(cudaMemcpy(d_in.get(), in.data(), in.size() * sizeof(R), cudaMemcpyHostToDevice));
  DeviceBuffer<uint64_t> d_seg;
  d_seg.upload(off);
  DeviceBuffer<R> d_out(out_size);
  d_out.poison();
  DeviceBuffer<uint64_t> d_offsets(opt.bucket_offsets ? offsets_size : 1);
  d_offsets.poison();
  uint64_t* offsets_ptr = opt.bucket_offsets ? d_offsets.get() : nullptr;
  DeviceBuffer<uint64_t> d_invalid(1);
  d_invalid.zero();

  // Reference on the same poisoned output.
  std::vector<R> want(out_size, poison_value<R>());
  std::vector<uint64_t> want_offsets(offsets_size, poisoned<uint64_t>());
  const uint64_t want_invalid = prim::reference::segmented_split(
      in.data(), want.data(), max_items, off.data(), num_segments, num_buckets, op, want_offsets.data());

  if (opt.workspace) {
    prim::Workspace ws;
    const cudaError_t status = prim::segmented_split(ws, d_in.get(), d_out.get(), max_items, d_seg.get(),
                                                     num_segments, num_buckets, op, offsets_ptr);
    EXPECT_EQ(want_invalid == 0 ? cudaSuccess : cudaErrorInvalidValue, status);
  } else {
    const prim::SegmentedSplitOptions options{opt.large_segment_path};
    size_t bytes = 0;
    ASSERT_CUDA(prim::segmented_split(nullptr, bytes, d_in.get(), d_out.get(), max_items, d_seg.get(), num_segments,
                                      num_buckets, op, offsets_ptr, 0, nullptr, options));
    DeviceBuffer<unsigned char> d_temp(bytes);
    d_temp.poison();  // the call may rely on no scratch contents
    cudaStream_t stream;
    ASSERT_CUDA(cudaStreamCreate(&stream));
    if (opt.graph) {
      cudaGraph_t graph;
      cudaGraphExec_t exec;
      ASSERT_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
      ASSERT_CUDA(prim::segmented_split(d_temp.get(), bytes, d_in.get(), d_out.get(), max_items, d_seg.get(),
                                        num_segments, num_buckets, op, offsets_ptr, stream, d_invalid.get(), options));
      ASSERT_CUDA(cudaStreamEndCapture(stream, &graph));
      ASSERT_CUDA(cudaGraphInstantiate(&exec, graph, 0));
      ASSERT_CUDA(cudaGraphLaunch(exec, stream));
      ASSERT_CUDA(cudaStreamSynchronize(stream));
      ASSERT_CUDA(cudaGraphExecDestroy(exec));
      ASSERT_CUDA(cudaGraphDestroy(graph));
    } else {
      ASSERT_CUDA(prim::segmented_split(d_temp.get(), bytes, d_in.get(), d_out.get(), max_items, d_seg.get(),
                                        num_segments, num_buckets, op, offsets_ptr, stream, d_invalid.get(), options));
    }
    ASSERT_CUDA(cudaStreamSynchronize(stream));
    ASSERT_CUDA(cudaStreamDestroy(stream));
    EXPECT_EQ(want_invalid, d_invalid.download()[0]);
  }
  ASSERT_CUDA(cudaDeviceSynchronize());

  const std::vector<R> got = d_out.download();
  for (size_t i = 0; i < out_size; ++i) {
    ASSERT_TRUE(split_test::same_bytes(want[i], got[i])) << "output position " << i << " of " << out_size;
  }
  if (opt.bucket_offsets) {
    const std::vector<uint64_t> got_offsets = d_offsets.download();
    for (size_t i = 0; i < offsets_size; ++i) {
      ASSERT_EQ(want_offsets[i], got_offsets[i]) << "bucket offset " << i << " (segment " << i / num_buckets
                                                 << ", bucket " << i % num_buckets << ")";
    }
  }
  if (!in.empty()) {
    std::vector<R> in_after(in.size());
    ASSERT_CUDA(cudaMemcpy(in_after.data(), d_in.get(), in.size() * sizeof(R), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < in.size(); ++i) ASSERT_TRUE(split_test::same_bytes(in[i], in_after[i])) << "input changed";
  }
}

// Records with keys of the given distribution over [0, key_range), ids = input position.
template <typename R = Rec8>
std::vector<R> records(size_t n, uint32_t key_range, Distribution dist, uint32_t seed) {
  return split_test::make_records<R>(split_test::make_bucket_keys(n, key_range, dist, seed));
}

template <typename R = Rec8>
void check_sizes(const std::vector<uint64_t>& sizes, uint32_t num_buckets, Distribution dist = Distribution::uniform,
                 uint32_t seed = 1, Options opt = {}) {
  const auto off = offsets_from_sizes(sizes);
  check_segmented(records<R>(off.back(), num_buckets, dist, seed), off, num_buckets, BucketByKeyMod{num_buckets},
                  opt);
}

TEST(SegmentedSplitGpu, EmptyInput) {
  check_sizes({}, 16);
  check_sizes({0}, 16);
  check_sizes({0, 0, 0, 0, 0}, 16);
  check_sizes({0, 0}, 1, Distribution::uniform, 1, Options{100});
}

TEST(SegmentedSplitGpu, OneElement) {
  check_sizes({1}, 16);
  check_sizes({0, 1, 0}, 256);
}

TEST(SegmentedSplitGpu, EmptySegmentsEverywhere) {
  check_sizes({0, 0, 5, 0, 0, 0, 3000, 0, 9000, 0, 0}, 16);
  std::vector<uint64_t> sizes(20000, 0);
  sizes[7] = 3;
  sizes[15000] = 20000;
  check_sizes(sizes, 16);
}

TEST(SegmentedSplitGpu, RunsOfEmptySegmentsAtTheStartTheEndAndOnTileBoundaries) {
  // The renderer's L3 at 3840x2160: the empty tiles of the columns beside the model are long runs of empty
  // segments at position 0 and at the end; in between, runs of empty segments that start exactly where a tile
  // starts (after segments of kStride items, which are never moved), and one segment of many buckets' items.
  std::vector<uint64_t> sizes(40000, 0);
  for (int i = 0; i < 5; ++i) {
    sizes.push_back(kStride);
    sizes.insert(sizes.end(), 3000, 0);
  }
  sizes.push_back(5 * kStride + 7);
  sizes.insert(sizes.end(), 2000, 0);
  sizes.push_back(3);
  sizes.insert(sizes.end(), 50000, 0);
  check_sizes(sizes, 16);
  check_sizes(sizes, 1, Distribution::uniform, 2);
  check_sizes(sizes, 2048, Distribution::zipf, 3);
}

TEST(SegmentedSplitGpu, OneHugeSegment) {
  for (uint32_t b : {1u, 16u, 256u, 2048u}) check_sizes({uint64_t{1} << 22}, b);
}

TEST(SegmentedSplitGpu, ManyTinySegments) {
  check_sizes(random_sizes(100000, 10, 3), 16);
  check_sizes(random_sizes(20000, 500, 4, 0.3), 16);  // the renderer's L3 shape
  check_sizes(std::vector<uint64_t>(50000, 1), 256);
}

TEST(SegmentedSplitGpu, MixedSizes) {
  std::vector<uint64_t> sizes;
  for (uint64_t s : {0, 1, 31, 32, 33, 200, 0, 100000, 3, 511, 512, 513, 514, 70000, 0, 9})
    sizes.push_back(s);
  const auto more = random_sizes(300, 30000, 8, 0.2);
  sizes.insert(sizes.end(), more.begin(), more.end());
  for (uint32_t b : {1u, 16u, 128u, 256u, 480u, 2048u}) check_sizes(sizes, b, Distribution::uniform, b);
}

TEST(SegmentedSplitGpu, EdgeSizes) {
  const std::vector<uint64_t> edges{0,         1,          31,         32,          33,          kSmall - 1,
                                    kSmall,    kSmall + 1, kStride - 1, kStride,    kStride + 1, kTile - 1,
                                    kTile,     kTile + 1,  2 * kStride - 1, 2 * kStride + 1, (1u << 16) - 1,
                                    (1u << 16) + 1, (1u << 20) + 1};
  for (uint64_t size : edges) {
    SCOPED_TRACE(size);
    check_sizes({size}, 16, Distribution::uniform, static_cast<uint32_t>(size));
    check_sizes({size, size, size}, 128, Distribution::uniform, static_cast<uint32_t>(size) + 1);
    check_sizes(std::vector<uint64_t>(7, size), 480, Distribution::zipf, static_cast<uint32_t>(size) + 2);
  }
}

TEST(SegmentedSplitGpu, SegmentsAlignedWithTheTileStride) {
  // Segment boundaries exactly on (and one off) the nominal boundaries.
  check_sizes(std::vector<uint64_t>(9, kStride), 16);
  check_sizes({kStride - 1, 2, kStride - 2, 4 * kStride + 1, 1}, 256);
  check_sizes({kSmall, kSmall + 1, kStride - kSmall, kSmall, kSmall + 1, kSmall}, 16);
}

TEST(SegmentedSplitGpu, NumBuckets) {
  const auto sizes = random_sizes(200, 6000, 12, 0.1);
  for (uint32_t b : {1u, 2u, 16u, 128u, 256u, 257u, 480u, 1024u, 2048u}) {
    SCOPED_TRACE(b);
    check_sizes(sizes, b, Distribution::uniform, b);
  }
}

TEST(SegmentedSplitGpu, AllInOneBucket) {
  check_sizes(random_sizes(100, 20000, 13), 256, Distribution::one_bucket);
  check_sizes(random_sizes(3000, 30, 14), 16, Distribution::one_bucket);
}

TEST(SegmentedSplitGpu, EveryBucketUsed) {
  // Each segment's keys are a permutation-like sweep over all buckets.
  for (uint32_t b : {16u, 270u, 2048u}) {
    const auto off = offsets_from_sizes({b, 3 * b, 40u * b, 1});
    std::vector<Rec8> in(off.back());
    for (size_t i = 0; i < in.size(); ++i) in[i] = split_test::make_record<Rec8>(static_cast<uint32_t>(i * 7919 % b), static_cast<uint32_t>(i));
    check_segmented(in, off, b, BucketByKeyMod{b});
  }
}

TEST(SegmentedSplitGpu, Skewed) {
  check_sizes(random_sizes(300, 20000, 15), 256, Distribution::zipf);
  check_sizes(random_sizes(5000, 400, 16), 16, Distribution::zipf);
}

TEST(SegmentedSplitGpu, IsStable) {
  // Two buckets, long runs of equal buckets: ids must stay increasing (the reference is stable; ids differ).
  check_sizes(random_sizes(50, 50000, 17), 2, Distribution::uniform);
  check_sizes(random_sizes(5000, 300, 18), 2, Distribution::uniform);
}

TEST(SegmentedSplitGpu, OutOfRangeBucket) {
  // Keys in [0, 24) with 16 buckets: a third of the records are invalid; valid ones pack from each segment's start.
  for (const auto& sizes : {random_sizes(400, 10000, 19), random_sizes(5000, 300, 20), std::vector<uint64_t>{100000}}) {
    const auto off = offsets_from_sizes(sizes);
    check_segmented(records(off.back(), 24, Distribution::uniform, 21), off, 16, BucketIsKey{});
  }
  // Only a few invalid records, in small and in big segments.
  const auto off = offsets_from_sizes({300, 20000, 7, 0, 4000});
  auto in = records(off.back(), 16, Distribution::uniform, 22);
  for (size_t i : {5u, 301u, 9000u, 20305u, 24000u}) in[i].key = 1000;
  check_segmented(in, off, 16, BucketIsKey{});
}

TEST(SegmentedSplitGpu, DeviceResidentCount) {
  // max_items is only a bound: the count is the last offset on the device.
  check_sizes(random_sizes(300, 3000, 23), 16, Distribution::uniform, 1, Options{12345});
  check_sizes({}, 16, Distribution::uniform, 1, Options{5000});
}

TEST(SegmentedSplitGpu, CountAboveMaxItemsWritesNothing) {
  check_sizes(random_sizes(300, 3000, 24), 16, Distribution::uniform, 1, Options{-1});
  check_sizes({kTile * 3}, 16, Distribution::uniform, 1, Options{-kTile});
}

TEST(SegmentedSplitGpu, WithoutBucketOffsets) {
  Options opt;
  opt.bucket_offsets = false;
  check_sizes(random_sizes(1000, 2000, 25), 128, Distribution::uniform, 1, opt);
}

TEST(SegmentedSplitGpu, WideRecords) {
  const auto off = offsets_from_sizes(random_sizes(100, 3000, 26));
  check_segmented(records<Rec4>(off.back(), 64, Distribution::uniform, 27), off, 64, BucketByKeyMod{64});
  check_segmented(records<Rec16>(off.back(), 64, Distribution::uniform, 28), off, 64, BucketByKeyMod{64});
  check_segmented(records<Rec64>(off.back(), 64, Distribution::uniform, 29), off, 64, BucketByKeyMod{64});
}

// sorted_keys: key i is i (its low byte repeats with period 256), else random keys of seed.
template <typename V = uint64_t>
void check_pairs(const std::vector<uint64_t>& sizes, uint32_t num_buckets, uint32_t seed, bool sorted_keys = false) {
  const auto off = offsets_from_sizes(sizes);
  const int64_t num_segments = static_cast<int64_t>(sizes.size());
  const size_t n = off.back();
  auto keys = split_test::make_bucket_keys(n, 1000, Distribution::uniform, seed);
  if (sorted_keys) {
    for (size_t i = 0; i < n; ++i) keys[i] = static_cast<uint32_t>(i);
  }
  std::vector<V> values(n);
  for (size_t i = 0; i < n; ++i) values[i] = static_cast<V>(i * 0x9E3779B97F4A7C15ull);
  const auto op = BucketByKeyMod{num_buckets};
  std::vector<uint32_t> want_keys(n);
  std::vector<V> want_values(n);
  std::vector<uint64_t> want_offsets(static_cast<size_t>(num_segments) * num_buckets + 1);
  prim::reference::segmented_split_pairs(keys.data(), want_keys.data(), values.data(), want_values.data(),
                                         static_cast<int64_t>(n), off.data(), num_segments, num_buckets, op,
                                         want_offsets.data());
  DeviceBuffer<uint32_t> d_keys, d_keys_out(n);
  DeviceBuffer<V> d_values, d_values_out(n);
  DeviceBuffer<uint64_t> d_seg, d_offsets(want_offsets.size());
  d_keys.upload(keys);
  d_values.upload(values);
  d_seg.upload(off);
  d_keys_out.poison();
  d_values_out.poison();
  d_offsets.poison();
  prim::Workspace ws;
  ASSERT_CUDA(prim::segmented_split_pairs(ws, d_keys.get(), d_keys_out.get(), d_values.get(), d_values_out.get(),
                                          static_cast<int64_t>(n), d_seg.get(), num_segments, num_buckets, op,
                                          d_offsets.get()));
  EXPECT_EQ(want_keys, d_keys_out.download());
  EXPECT_EQ(want_values, d_values_out.download());
  EXPECT_EQ(want_offsets, d_offsets.download());
}

TEST(SegmentedSplitGpu, Pairs) {
  check_pairs(random_sizes(500, 3000, 30), 100, 31);
  // Large segments (the split engine's path) between small ones, with 8- and 11-bit rankers.
  for (uint32_t b : {100u, 256u, 2048u}) check_pairs({70000, 3, 0, 200000, 50, 0}, b, 32 + b);
}

// Segments of more than a window of records leave the tile engine: the cluster path takes those of up to its
// kMaxRecords (below), the large-segment path (segmented_large_segments.cuh) the longer ones.
template <typename R>
int64_t large_window(uint32_t num_buckets) {
  return prim::detail::large_segment_window<R, prim::detail::NoValue>(num_buckets);
}

TEST(SegmentedSplitGpu, SegmentsAroundTheSplitEngineWindow) {
  for (uint32_t b : {16u, 256u, 2048u}) {
    SCOPED_TRACE(b);
    const uint64_t w = static_cast<uint64_t>(large_window<Rec8>(b));
    // Just below, at and above the window; one starting exactly on a window boundary (after a segment of w);
    // adjacent large segments; empty segments right before a large one (they start where it starts) and after.
    check_sizes({w - 1, w, w + 1, 1, 2 * w, 2 * w + 1, 3 * w + 5}, b, Distribution::uniform, b);
    check_sizes({w, w + 1, w + 1, w + 1, 0, 0, 7}, b, Distribution::uniform, b + 1);
    check_sizes({5000, 0, 0, w + 7, 0, 3, 0, w + 1, 0}, b, Distribution::zipf, b + 2);
    check_sizes({0, 0, 4 * w + 3}, b, Distribution::uniform, b + 3);
    // Many small segments, then large ones: the tile engine's tiles end where a large segment starts.
    auto sizes = random_sizes(3000, 40, b + 4);
    for (uint64_t s : std::initializer_list<uint64_t>{w + 1, 100, w + 1000, 0, 2 * w}) sizes.push_back(s);
    check_sizes(sizes, b, Distribution::uniform, b + 5);
  }
}

// The cluster path (segmented_cluster_segments.cuh) takes the segments of more than a window and of at most a tile
// for each block of a cluster (<= 256 buckets, on devices with clusters); longer ones stay the large-segment path's.
// Its tiles hold more than a window's eighth only for records of up to 4 bytes (keys, or u32 keys with u32 values):
// wider ones never take it.
template <typename R, typename V = prim::detail::NoValue>
int64_t cluster_max_records() {
  return prim::detail::ClusterSegmentPath<prim::detail::SplitOutput::keys, R, V, BucketByKeyMod>::kMaxRecords;
}
template <typename R, typename V = prim::detail::NoValue>
int64_t cluster_tile() {
  return prim::detail::ClusterSegmentPolicy<R, V>::TILE_ITEMS;
}

TEST(SegmentedSplitGpu, SegmentsAroundTheClusterPathBounds) {
  const uint64_t w = static_cast<uint64_t>(large_window<Rec4>(256));
  const uint64_t u = static_cast<uint64_t>(cluster_max_records<Rec4>());
  const uint64_t tile = static_cast<uint64_t>(cluster_tile<Rec4>());
  ASSERT_GT(u, w);
  ASSERT_EQ(u, uint64_t{1} << 16);  // the benchmark's segments are the path's
  EXPECT_LE(cluster_max_records<Rec8>(), large_window<Rec8>(256));
  for (uint32_t b : {7u, 256u}) {
    SCOPED_TRACE(b);
    // The shortest and the longest segments of the path and their neighbours on both sides; segments of fewer tiles
    // than the cluster has blocks (the last blocks idle), one whose last tile holds one record, one a tile short of a
    // block's half; the path's segments right after a large one and between small ones.
    check_sizes<Rec4>({w, w + 1, 3, u - 1, u, u + 1, 0, 7 * tile, 6 * tile + 1, u - tile / 2, 2 * u, u, 5}, b,
                      Distribution::uniform, 50 + b);
    check_sizes<Rec4>({u, u, 0, 0, w + 1, 17, u, 4 * u + 3}, b, Distribution::zipf, 60 + b);
    check_sizes<Rec4>({u, 1, u - 1, 2, w + 2}, b, Distribution::one_bucket, 70 + b);
  }
  // Stability (the values are the input positions): u32 keys with u32 values take the path too.
  ASSERT_EQ(cluster_max_records<uint32_t>(), (cluster_max_records<uint32_t, uint32_t>()));
  check_pairs<uint32_t>({w + 1, 5, u, 0, u - 3, 2 * u}, 256, 80);
  check_pairs<uint32_t>({u, u, u}, 16, 81);
}

TEST(SegmentedSplitGpu, ClusterSegmentsWithInvalidRecords) {
  const uint64_t w = static_cast<uint64_t>(large_window<Rec4>(16));
  const uint64_t u = static_cast<uint64_t>(cluster_max_records<Rec4>());
  const auto off = offsets_from_sizes({300, w + 5, 7, u});
  // Keys in [0, 24) with 16 buckets: a third of every tile invalid.
  check_segmented(records<Rec4>(off.back(), 24, Distribution::uniform, 82), off, 16, BucketIsKey{});
  // One invalid record in one tile of each segment: that block takes the general tile, the cluster's other blocks
  // the clean one, and every block's bases leave the record out.
  auto in = records<Rec4>(off.back(), 16, Distribution::uniform, 83);
  for (uint64_t i : {uint64_t{300} + w / 2, uint64_t{312} + w + u - 1}) in[static_cast<size_t>(i)].key = 1000;
  check_segmented(in, off, 16, BucketIsKey{});
  Options graph;
  graph.graph = true;
  check_segmented(in, off, 16, BucketIsKey{}, graph);
  // A count below max_items (the windows past it list nothing) and above it (nothing is written).
  check_sizes<Rec4>({u, 9, w + 1}, 16, Distribution::uniform, 84, Options{static_cast<int64_t>(3 * u)});
  check_sizes<Rec4>({u, 9, w + 1}, 16, Distribution::uniform, 85, Options{-1});
}

// prim::KeyBits declares its buckets in range (prim/key_bits.h). Where its bound is num_buckets, the all-ones key is
// in the last bucket and the cluster path pads every tile (a kernel of its own: no bucket test, no out-of-line
// tile); where the bound is below num_buckets, or above it, the full tiles keep their test, and the records out of
// range are reported. Raw u32 keys over the whole 32-bit range, as the benchmark's, with all-ones keys (the padding's
// key) in the segments' last tiles; partial tiles of every length class.
TEST(SegmentedSplitGpu, KeyBitsAroundTheClusterPath) {
  const uint64_t u = static_cast<uint64_t>(cluster_max_records<uint32_t>());
  const uint64_t tile = static_cast<uint64_t>(cluster_tile<uint32_t>());
  const auto keys_for = [](const std::vector<uint64_t>& off, uint32_t seed) {
    std::vector<uint32_t> keys(static_cast<size_t>(off.back()));
    std::mt19937 rng(seed);
    for (auto& k : keys) k = static_cast<uint32_t>(rng());
    for (size_t s = 0; s + 1 < off.size(); ++s) {  // three all-ones keys near the end of every segment of 6 or more
      for (uint64_t back = 1; back <= 3 && off[s + 1] - off[s] >= 6; ++back) keys[off[s + 1] - back * 2] = ~0u;
    }
    return keys;
  };
  for (uint32_t b : {16u, 200u, 256u}) {
    SCOPED_TRACE(b);
    const uint64_t w = static_cast<uint64_t>(large_window<uint32_t>(b));
    ASSERT_GT(u, w);
    const auto off = offsets_from_sizes({w + 1, 3, u, u - 1, 0, 6 * tile + 1, 2 * u, u, u - 2, w + 4, 7 * tile - 5});
    const auto keys = keys_for(off, 90 + b);
    if (b == 16) {
      check_segmented(keys, off, b, prim::KeyBits<uint32_t>{28, 4});  // bound 16: every tile padded
      check_segmented(keys, off, b, prim::KeyBits<uint32_t>{5, 5});   // bound 32: half the records out of range
    } else {
      check_segmented(keys, off, b, prim::KeyBits<uint32_t>{0, 8});  // 256: every tile padded; 200: tested, ~22% out
      check_segmented(keys, off, b, prim::KeyBits<uint32_t>{3, 9});  // bound 512: tested
      check_segmented(keys, off, b, prim::KeyBits<uint32_t>{4, 4});  // in range, all-ones in bucket 15: tested
    }
  }
  Options graph;
  graph.graph = true;
  const auto off = offsets_from_sizes({u, u, 7, u - 100});
  check_segmented(keys_for(off, 95), off, 256, prim::KeyBits<uint32_t>{8, 8}, graph);
}

// Sorted keys (and any whose low byte repeats with period 256) give every bucket of a cluster tile the same share:
// the staging's padding (split_downsweep_agent.cuh, staged_slot) takes those slots. Pairs stage the values and the
// buckets too.
TEST(SegmentedSplitGpu, SortedKeysInClusterSegments) {
  const uint64_t u = static_cast<uint64_t>(cluster_max_records<uint32_t>());
  const auto off = offsets_from_sizes({u, u, u - 5, 3 * u + 7, u});
  std::vector<uint32_t> keys(static_cast<size_t>(off.back()));
  for (size_t i = 0; i < keys.size(); ++i) keys[i] = static_cast<uint32_t>(i);
  check_segmented(keys, off, 256, prim::KeyBits<uint32_t>{0, 8});
  check_segmented(keys, off, 256, BucketByKeyMod{256});
  check_pairs<uint32_t>({u, u - 5, 3 * u + 7, u}, 256, 0, true);
}

TEST(SegmentedSplitGpu, SplitEngineSegmentsWithInvalidRecordsAndDeviceCounts) {
  const uint64_t w = static_cast<uint64_t>(large_window<Rec8>(16));
  const auto off = offsets_from_sizes({300, w + 5, 7, 0, 3 * w});
  // Keys in [0, 24) with 16 buckets: a third invalid, in the large segments too.
  check_segmented(records(off.back(), 24, Distribution::uniform, 40), off, 16, BucketIsKey{});
  // A handful of invalid records: the part that holds one takes the general path, the others stay clean.
  auto in = records(off.back(), 16, Distribution::uniform, 41);
  for (size_t i : {size_t{5}, size_t{301}, size_t(w), size_t(w + 312), size_t(2 * w + 400)}) in[i].key = 1000;
  check_segmented(in, off, 16, BucketIsKey{});
  // max_items is only a bound (the windows past the count are idle), or is exceeded (nothing is written).
  check_sizes({w + 5, 17, 2 * w}, 16, Distribution::uniform, 42, Options{static_cast<int64_t>(5 * w)});
  check_sizes({w + 5, 17, 2 * w}, 256, Distribution::uniform, 43, Options{-1});
  Options graph;
  graph.graph = true;
  check_sizes({w + 5, 17, 2 * w, 3}, 256, Distribution::uniform, 44, graph);
  Options workspace;
  workspace.workspace = true;
  check_segmented(records(off.back(), 20, Distribution::uniform, 45), off, 16, BucketIsKey{}, workspace);
}

// Two tile engines: with the large-segment path on and max_items above a window, the resident one (a resident grid
// whose blocks skip the tiles inside large segments; only the used part of the count matrix zeroed and scanned);
// otherwise, and always with the path off (the renderer's setting), a block a tile. The same inputs through both.
TEST(SegmentedSplitGpu, BothTileEnginesOnSegmentsThatCrossTiles) {
  const uint64_t w = static_cast<uint64_t>(large_window<Rec8>(256));
  // Crossing segments of the tile engine only (no large one): the whole matrix in use up to the last of them.
  const auto crossing = random_sizes(400, 20000, 61, 0.1);
  // Crossing ones at the start, then only small ones (the matrix used only at its start), then a large one.
  auto front = random_sizes(30, 9000, 62, 0.0);
  const auto tiny = random_sizes(20000, 40, 63);
  front.insert(front.end(), tiny.begin(), tiny.end());
  front.push_back(3 * w + 11);
  // Small ones, then crossing ones just before the end (the used part ends at the matrix's last slots).
  auto back = random_sizes(9000, 30, 64);
  for (uint64_t s : std::initializer_list<uint64_t>{600, 5000, 0, kStride + 1, 2 * kStride + 3}) back.push_back(s);
  for (bool path : {true, false}) {
    SCOPED_TRACE(path);
    Options opt;
    opt.large_segment_path = path;
    for (uint32_t b : {16u, 256u, 2048u}) {
      SCOPED_TRACE(b);
      check_sizes(crossing, b, Distribution::uniform, b, opt);
      check_sizes(front, b, Distribution::zipf, b + 1, opt);
      check_sizes(back, b, Distribution::uniform, b + 2, opt);
    }
    // A device count far below max_items: the tiles past it hold nothing.
    Options slack = opt;
    slack.slack = static_cast<int64_t>(4 * w);
    check_sizes(crossing, 128, Distribution::uniform, 65, slack);
    Options graph = opt;
    graph.graph = true;
    check_sizes(front, 256, Distribution::uniform, 66, graph);
    // Invalid records in crossing segments and in small ones.
    const auto off = offsets_from_sizes(crossing);
    check_segmented(records(off.back(), 20, Distribution::uniform, 67), off, 16, BucketIsKey{}, opt);
  }
}

// The resident tile engine has two downsweeps: a block a tile, or, when the mean segment (max_items over the
// segment count) is longer than a window, a resident grid that tests its tiles 256 at a time and splits the busy
// ones out of line. The tests above keep the mean short; here long segments of the other paths lengthen it, around
// the same tile-engine work: segments that cross tiles, small ones, invalid records, a device count below max_items.
// (Under the sanitizers, SLABCAST_TEST_QUICK: 256 buckets only.)
TEST(SegmentedSplitGpu, ResidentDownsweepWhenTheMeanSegmentIsLong) {
  const std::vector<uint32_t> bucket_counts =
      slabtest::quick_mode() ? std::vector<uint32_t>{256u} : std::vector<uint32_t>{16u, 256u, 2048u};
  for (uint32_t b : bucket_counts) {
    SCOPED_TRACE(b);
    const uint64_t w = static_cast<uint64_t>(large_window<Rec8>(b));
    std::vector<uint64_t> sizes;
    const auto crossing = random_sizes(30, 20000, 71 + b, 0.1);
    const auto tiny = random_sizes(100, 40, 72 + b);
    uint64_t total = 0;
    for (size_t i = 0; i < crossing.size(); ++i) {
      sizes.push_back(crossing[i]);
      sizes.push_back(tiny[i]);
      if (i % 6 == 0) sizes.push_back(w + 1 + i);  // cluster-path or split-engine segments between them
    }
    sizes.insert(sizes.end(), tiny.begin() + 30, tiny.end());  // small ones at the end
    for (uint64_t s : sizes) total += s;
    while (total <= w * sizes.size()) {  // long ones in the middle until the mean passes the window
      sizes.insert(sizes.begin() + static_cast<std::ptrdiff_t>(sizes.size() / 2), 3 * w + 17);
      total += 3 * w + 17;
    }
    ASSERT_GT(total / sizes.size(), w) << "the mean segment must exceed the window";
    check_sizes(sizes, b, Distribution::uniform, b + 3);
    check_sizes(sizes, b, Distribution::zipf, b + 4);
    Options slack;
    slack.slack = static_cast<int64_t>(2 * w);
    check_sizes(sizes, b, Distribution::uniform, b + 5, slack);
    if (b == bucket_counts.front()) {
      const auto off = offsets_from_sizes(sizes);
      check_segmented(records(off.back(), 20, Distribution::uniform, 73), off, 16, BucketIsKey{});  // invalid
      Options graph;
      graph.graph = true;
      check_sizes(sizes, b, Distribution::uniform, 74, graph);
    }
  }
}

TEST(SegmentedSplitGpu, WorkspaceOverload) {
  Options opt;
  opt.workspace = true;
  check_sizes(random_sizes(300, 3000, 32), 16, Distribution::uniform, 1, opt);
  const auto off = offsets_from_sizes({100, 5000});
  check_segmented(records(off.back(), 20, Distribution::uniform, 33), off, 16, BucketIsKey{}, opt);  // invalid
}

TEST(SegmentedSplitGpu, UnderCudaGraphCapture) {
  Options opt;
  opt.graph = true;
  check_sizes(random_sizes(2000, 3000, 34), 16, Distribution::uniform, 1, opt);
}

TEST(SegmentedSplitGpu, Large) {
  if (slabtest::quick_mode()) GTEST_SKIP() << "SLABCAST_TEST_QUICK";
  // 2^26 records: one segment, 2^8-sized and 2^16-sized segments (the benchmark's shapes).
  const uint64_t n = uint64_t{1} << 26;
  check_sizes({n}, 256, Distribution::uniform, 35);
  check_sizes(std::vector<uint64_t>(n >> 8, 256), 256, Distribution::uniform, 36);
  check_sizes(std::vector<uint64_t>(n >> 16, uint64_t{1} << 16), 256, Distribution::uniform, 37);
}

TEST(SegmentedSplitGpu, LargeU32KeysBenchmarkShapeRepeated) {
  if (slabtest::quick_mode()) GTEST_SKIP() << "SLABCAST_TEST_QUICK";
  // The benchmark's exact shape: 2^26 4-byte keys over the full 32-bit range, segments of 2^8, bucket = low byte.
  // prim_bench once saw this differ from CUB while Rec8 records passed; run it three times, since an error that
  // comes and goes on the same input is a race.
  const uint64_t n = uint64_t{1} << 26;
  const auto off = offsets_from_sizes(std::vector<uint64_t>(n >> 8, 256));
  const auto keys = split_test::make_records<Rec4>(
      split_test::make_bucket_keys(n, 0xFFFFFFFFu, Distribution::uniform, 42));
  for (int repeat = 0; repeat < 3; ++repeat) {
    SCOPED_TRACE(repeat);
    check_segmented(keys, off, 256, BucketByKeyMod{256}, Options{0, false, false, false});
  }
}


// The benchmark's bucket functor: the low byte of a raw u32 key (keys over the full 32-bit range).
struct LowByteKey {
  __host__ __device__ uint32_t operator()(uint32_t key) const { return key & 0xFFu; }
};

TEST(SegmentedSplitGpu, BenchmarkCallPatternReusedGarbageScratchNonBlockingStream) {
  // prim_bench's exact calling pattern: raw u32 keys, LowByte functor, no bucket offsets, a cudaStreamNonBlocking
  // stream, one scratch blob LARGER than the size query (pre-filled with 0xAB garbage) that is passed with the
  // size query's byte count and reused, unreset, by consecutive calls (the warm-up and timed runs). Every call
  // must re-initialise all the scratch it reads. The offsets are uploaded on the same stream: a plain cudaMemcpy
  // runs on the legacy stream, which a non-blocking stream does not wait for (that race was prim_bench's bug).
  // Under the sanitizers (SLABCAST_TEST_QUICK) 2^18 keys and two rounds: at 2^24 racecheck took 286 s for this test
  // alone, and at 2^22 with eight rounds it still ran past gpu-check's deadline. Segments of 256
  // take the same kernels at any count of them.
  const bool quick = slabtest::quick_mode();
  const int64_t n = int64_t{1} << (quick ? 18 : 24);
  const int64_t num_segments = n >> 8;
  const auto off = offsets_from_sizes(std::vector<uint64_t>(static_cast<size_t>(num_segments), 256));
  std::vector<uint32_t> keys(static_cast<size_t>(n));
  std::mt19937 rng(42);
  for (auto& k : keys) k = static_cast<uint32_t>(rng());
  std::vector<uint32_t> want(keys.size());
  prim::reference::segmented_split(keys.data(), want.data(), n, off.data(), num_segments, 256, LowByteKey{},
                                   static_cast<uint64_t*>(nullptr));

  cudaStream_t stream;
  ASSERT_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  DeviceBuffer<uint32_t> d_in(keys.size()), d_out(keys.size());
  DeviceBuffer<uint64_t> d_seg(off.size());
  ASSERT_CUDA(cudaMemcpyAsync(d_in.get(), keys.data(), keys.size() * sizeof(uint32_t), cudaMemcpyHostToDevice, stream));
  ASSERT_CUDA(cudaMemcpyAsync(d_seg.get(), off.data(), off.size() * sizeof(uint64_t), cudaMemcpyHostToDevice, stream));
  size_t bytes = 0;
  ASSERT_CUDA(prim::segmented_split(nullptr, bytes, d_in.get(), d_out.get(), n, d_seg.get(), num_segments, 256,
                                    LowByteKey{}, nullptr, stream));
  const size_t blob_bytes = 2 * bytes + 4096;  // larger than asked for, like max(ours, CUB's)
  DeviceBuffer<unsigned char> d_temp(blob_bytes);
  ASSERT_CUDA(cudaMemsetAsync(d_temp.get(), 0xAB, blob_bytes, stream));

  const int calls = quick ? 2 : 8;
  for (int call = 0; call < calls; ++call) {
    SCOPED_TRACE(call);
    // Poison the output so a call that writes nothing (or only part) shows; re-garble the scratch every other call.
    ASSERT_CUDA(cudaMemsetAsync(d_out.get(), 0xAB, keys.size() * sizeof(uint32_t), stream));
    if (call % 2 == 1) ASSERT_CUDA(cudaMemsetAsync(d_temp.get(), 0xAB, blob_bytes, stream));
    size_t b = bytes;
    ASSERT_CUDA(prim::segmented_split(d_temp.get(), b, d_in.get(), d_out.get(), n, d_seg.get(), num_segments, 256,
                                      LowByteKey{}, nullptr, stream));
    // Back-to-back calls with no host sync in between, as in the benchmark's warm-up loop.
    b = bytes;
    ASSERT_CUDA(prim::segmented_split(d_temp.get(), b, d_in.get(), d_out.get(), n, d_seg.get(), num_segments, 256,
                                      LowByteKey{}, nullptr, stream));
    ASSERT_CUDA(cudaStreamSynchronize(stream));
    std::vector<uint32_t> got(keys.size());
    ASSERT_CUDA(cudaMemcpy(got.data(), d_out.get(), got.size() * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(want[i], got[i]) << "output position " << i;
  }
  ASSERT_CUDA(cudaStreamDestroy(stream));
}

}  // namespace
