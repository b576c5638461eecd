// prim/hash_map.h on the GPU against its C++ reference (primitives/reference/hash_map_reference.h), by named
// property: edge sizes at loads 0.5 to 1, every key and value type, duplicates, racing inserts of one key, colliding
// homes, full tables, the reserved key, device-resident counts, CUDA graph capture, invalid views. The 2^26-key
// cases are in test_hash_map_large_gpu.cu.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "primitives/test_hash_map_check.h"

namespace {

using prim::HashMapProbing;
using slabtest::check_map;
using slabtest::DeviceBuffer;
using slabtest::InsertBatch;

constexpr HashMapProbing kBothProbings[] = {HashMapProbing::linear, HashMapProbing::ordered};

template <typename K, typename V>
uint64_t capacity_at(uint64_t keys, double load) {
  return prim::HashMapView<K, V>::capacity_for(keys, load);
}

TEST(HashMap, EmptyInputDoesNothing) {
  for (HashMapProbing probing : kBothProbings) {
    check_map<uint32_t, uint32_t>({}, {}, 64, probing);
    prim::HashMap<uint32_t, uint32_t> map;
    ASSERT_EQ(cudaSuccess, map.allocate(64, probing));
    // n == 0 launches nothing and touches no pointer.
    EXPECT_EQ(cudaSuccess, map.insert(nullptr, nullptr, 0));
    EXPECT_EQ(cudaSuccess, map.find(nullptr, nullptr, 0));
    EXPECT_EQ(cudaSuccess, map.contains(nullptr, nullptr, 0));
  }
}

TEST(HashMap, OneKey) {
  for (HashMapProbing probing : kBothProbings) {
    check_map<uint32_t, uint32_t>({42}, {7}, 1, probing);
    check_map<uint32_t, uint32_t>({0}, {0xFFFFFFFFu}, 4, probing);  // the largest value is an ordinary value
  }
  check_map<uint64_t, uint64_t>({uint64_t(1) << 40}, {3}, 1, HashMapProbing::linear);
}

TEST(HashMap, EdgeSizesAtLoadsHalfToOne) {
  for (HashMapProbing probing : kBothProbings) {
    for (int64_t n : slabtest::edge_sizes()) {
      const auto keys = slabtest::distinct_keys<uint32_t>(n, 5);
      const auto values = slabtest::random_values<uint32_t>(n, 6 + n);
      for (double load : {0.5, 0.8, 0.9, 1.0}) {
        // A full linear table costs about n^1.5 probes to fill (and as much to check): load 1 on the smaller sizes.
        if (load == 1.0 && n > 65537) continue;
        check_map(keys, values, capacity_at<uint32_t, uint32_t>(n, load), probing);
      }
    }
  }
}

TEST(HashMap, EveryKeyAndValueType) {
  for (int64_t n : {int64_t(1), int64_t(33), int64_t(1025), int64_t(65537)}) {
    for (double load : {0.8, 0.9}) {
      const uint64_t distinct = n / 2 + 1;
      check_map(slabtest::zipf_keys<uint32_t>(n, distinct, 1), slabtest::random_values<uint64_t>(n, 2),
                capacity_at<uint32_t, uint64_t>(distinct, load), HashMapProbing::linear);
      check_map(slabtest::zipf_keys<uint64_t>(n, distinct, 3), slabtest::random_values<uint32_t>(n, 4),
                capacity_at<uint64_t, uint32_t>(distinct, load), HashMapProbing::linear);
      check_map(slabtest::zipf_keys<uint64_t>(n, distinct, 5), slabtest::random_values<uint64_t>(n, 6),
                capacity_at<uint64_t, uint64_t>(distinct, load), HashMapProbing::linear);
    }
  }
}

TEST(HashMap, SkewedDuplicatesKeepTheSmallestValue) {
  const int64_t n = 300001;
  for (HashMapProbing probing : kBothProbings) {
    for (uint64_t distinct : {uint64_t(10), uint64_t(1000), uint64_t(100000)}) {
      const auto keys = slabtest::zipf_keys<uint32_t>(n, distinct, distinct);
      check_map(keys, slabtest::random_values<uint32_t>(n, 9), capacity_at<uint32_t, uint32_t>(distinct, 0.9),
                probing);
    }
  }
  const auto wide = slabtest::zipf_keys<uint64_t>(n, 1000, 77);
  check_map(wide, slabtest::random_values<uint64_t>(n, 78), capacity_at<uint64_t, uint64_t>(1000, 0.9),
            HashMapProbing::linear);
}

TEST(HashMap, RacingInsertsOfOneKeyKeepOneSlotAndTheSmallestValue) {
  const int64_t n = 1 << 18;
  for (HashMapProbing probing : kBothProbings) {
    check_map(std::vector<uint32_t>(n, 12345u), slabtest::random_values<uint32_t>(n, 1), 64, probing);
  }
  check_map(std::vector<uint64_t>(n, 12345u), slabtest::random_values<uint32_t>(n, 2), 64, HashMapProbing::linear);
  check_map(std::vector<uint32_t>(n, 12345u), slabtest::random_values<uint64_t>(n, 3), 64, HashMapProbing::linear);
}

TEST(HashMap, CollidingHomesFillOneRun) {
  // Keys of consecutive hashes share one home: every insert races for the same run of slots.
  for (HashMapProbing probing : kBothProbings) {
    for (uint64_t count : {uint64_t(33), uint64_t(2000)}) {
      const auto keys = slabtest::colliding_keys<uint32_t>(count, 0x40000000u);
      check_map(keys, slabtest::random_values<uint32_t>(count, count), uint64_t(1) << 16, probing);
      // At the end of the table: linear probing wraps around, ordered probing spills into its tail (2048 slots).
      const auto last = slabtest::colliding_keys<uint32_t>(count, 0xFFFFFFFFu - uint32_t(count) - 1);
      check_map(last, slabtest::random_values<uint32_t>(count, count + 1), uint64_t(1) << 16, probing);
    }
  }
  const auto wide = slabtest::colliding_keys<uint64_t>(2000, uint64_t(1) << 62);
  check_map(wide, slabtest::random_values<uint64_t>(2000, 5), uint64_t(1) << 16, HashMapProbing::linear);
}

TEST(HashMap, FullTableCountsFailuresAndEnds) {
  // Distinct keys, three times the capacity: every slot ends occupied, the rest is counted, nothing loops.
  for (HashMapProbing probing : kBothProbings) {
    for (uint64_t capacity : {uint64_t(4), uint64_t(1024), uint64_t(16384)}) {
      const auto keys = slabtest::distinct_keys<uint32_t>(3 * capacity + 1, 11);
      check_map(keys, slabtest::random_values<uint32_t>(keys.size(), 12), capacity, probing, true);
    }
  }
  const auto wide = slabtest::distinct_keys<uint64_t>(3000, 13);
  check_map(wide, slabtest::random_values<uint64_t>(3000, 14), 1000, HashMapProbing::linear, true);
}

TEST(HashMap, ReservedKeyIsCountedNeverStored) {
  const uint32_t kEmpty = prim::hash_map_empty_key<uint32_t>();
  auto keys = slabtest::distinct_keys<uint32_t>(1000, 21);
  for (size_t i = 0; i < keys.size(); i += 7) keys[i] = kEmpty;
  for (HashMapProbing probing : kBothProbings) {
    check_map(keys, slabtest::random_values<uint32_t>(1000, 22), 1024, probing);
  }
  auto wide = slabtest::distinct_keys<uint64_t>(1000, 23);
  wide[0] = prim::hash_map_empty_key<uint64_t>();
  check_map(wide, slabtest::random_values<uint64_t>(1000, 24), 1024, HashMapProbing::linear);
}

TEST(HashMap, SeveralCallsEqualOneAndNullValuesInsertZeros) {
  const auto keys = slabtest::zipf_keys<uint32_t>(40000, 20000, 31);
  const auto values = slabtest::random_values<uint32_t>(40000, 32);
  for (HashMapProbing probing : kBothProbings) {
    std::vector<InsertBatch<uint32_t, uint32_t>> batches(3);
    for (size_t i = 0; i < keys.size(); ++i) {
      batches[i % 3].keys.push_back(keys[i]);
      batches[i % 3].values.push_back(values[i]);
    }
    batches[2].with_values = false;
    check_map(batches, capacity_at<uint32_t, uint32_t>(20000, 0.9), probing);
  }
  std::vector<InsertBatch<uint64_t, uint64_t>> wide(2);
  wide[0].keys = slabtest::distinct_keys<uint64_t>(5000, 0);
  wide[0].with_values = false;
  wide[1].keys = slabtest::distinct_keys<uint64_t>(5000, 2500);
  wide[1].values = slabtest::random_values<uint64_t>(5000, 33);
  check_map(wide, capacity_at<uint64_t, uint64_t>(7500, 0.8), HashMapProbing::linear);
}

TEST(HashMap, DeviceResidentCount) {
  const int64_t max_n = 5000;
  const auto keys = slabtest::distinct_keys<uint32_t>(max_n, 41);
  const auto values = slabtest::random_values<uint32_t>(max_n, 42);
  for (HashMapProbing probing : kBothProbings) {
    prim::HashMap<uint32_t, uint32_t> map;
    ASSERT_EQ(cudaSuccess, map.allocate(8192, probing));
    prim::reference::HashMap<uint32_t, uint32_t> ref(8192, probing);
    DeviceBuffer<uint32_t> d_keys(keys), d_values(values), d_found(max_n);
    DeviceBuffer<uint64_t> d_count(std::vector<uint64_t>{1234}), d_invalid(std::vector<uint64_t>{0});
    ASSERT_EQ(cudaSuccess, map.insert(d_keys.get(), d_values.get(), prim::ItemCount(max_n, d_count.get()), 0,
                                      d_invalid.get()));
    ref.insert(keys.data(), values.data(), 1234);
    ASSERT_EQ(cudaSuccess, map.find(d_keys.get(), d_found.get(), prim::ItemCount(max_n, d_count.get())));
    const auto found = d_found.download();
    std::vector<uint32_t> want(max_n);
    ref.find(keys.data(), want.data(), max_n, prim::hash_map_not_found<uint32_t>());
    uint32_t poison;
    std::memset(&poison, slabtest::kPoisonByte, sizeof(poison));
    for (int64_t i = 0; i < max_n; ++i) {
      ASSERT_EQ(found[i], i < 1234 ? want[i] : poison) << i;
      if (i < 1234) ASSERT_EQ(want[i], values[i]);
    }
    if (probing == HashMapProbing::ordered) {
      EXPECT_TRUE(slabtest::same_bytes(slabtest::download_slots(map.view()), ref.slots()));
    }
    EXPECT_EQ(d_invalid.download_one(), 0u);
    // A device count above the host bound: nothing is inserted or written, the count is added.
    DeviceBuffer<uint64_t> d_too_many(std::vector<uint64_t>{uint64_t(max_n) + 10});
    prim::HashMap<uint32_t, uint32_t> untouched;
    ASSERT_EQ(cudaSuccess, untouched.allocate(8192, probing));
    ASSERT_EQ(cudaSuccess, untouched.insert(d_keys.get(), d_values.get(), prim::ItemCount(max_n, d_too_many.get()), 0,
                                            d_invalid.get()));
    DeviceBuffer<uint32_t> d_found2(max_n);
    ASSERT_EQ(cudaSuccess, map.find(d_keys.get(), d_found2.get(), prim::ItemCount(max_n, d_too_many.get()),
                                    prim::hash_map_not_found<uint32_t>(), 0, d_invalid.get()));
    EXPECT_EQ(d_invalid.download_one(), 2 * (uint64_t(max_n) + 10));
    for (uint64_t s : slabtest::download_slots(untouched.view())) ASSERT_EQ(s, ~uint64_t{0});
    for (uint32_t v : d_found2.download()) ASSERT_EQ(v, poison);
  }
}

TEST(HashMap, InsideCudaGraphCapture) {
  const int64_t n = 100000;
  const auto keys = slabtest::zipf_keys<uint32_t>(n, 60000, 51);
  const auto values = slabtest::random_values<uint32_t>(n, 52);
  for (HashMapProbing probing : kBothProbings) {
    prim::HashMap<uint32_t, uint32_t> map;
    ASSERT_EQ(cudaSuccess, map.allocate(capacity_at<uint32_t, uint32_t>(60000, 0.9), probing));
    prim::reference::HashMap<uint32_t, uint32_t> ref(map.capacity(), probing);
    ref.insert(keys.data(), values.data(), n);
    std::vector<uint32_t> want(n);
    ref.find(keys.data(), want.data(), n, 0u);
    DeviceBuffer<uint32_t> d_keys(keys), d_values(values), d_found(n);
    DeviceBuffer<uint8_t> d_present(n);
    DeviceBuffer<uint64_t> d_invalid(std::vector<uint64_t>{0});
    cudaStream_t stream;
    ASSERT_EQ(cudaSuccess, cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cudaGraph_t graph;
    ASSERT_EQ(cudaSuccess, cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    ASSERT_EQ(cudaSuccess, map.clear(stream));
    ASSERT_EQ(cudaSuccess, map.insert(d_keys.get(), d_values.get(), n, stream, d_invalid.get()));
    ASSERT_EQ(cudaSuccess, map.find(d_keys.get(), d_found.get(), n, 0u, stream, d_invalid.get()));
    ASSERT_EQ(cudaSuccess, map.contains(d_keys.get(), reinterpret_cast<bool*>(d_present.get()), n, stream,
                                        d_invalid.get()));
    ASSERT_EQ(cudaSuccess, cudaStreamEndCapture(stream, &graph));
    cudaGraphExec_t exec;
    ASSERT_EQ(cudaSuccess, cudaGraphInstantiate(&exec, graph, 0));
    for (int launch = 0; launch < 2; ++launch) {  // the clear makes a second launch build the same table
      ASSERT_EQ(cudaSuccess, cudaGraphLaunch(exec, stream));
      ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(stream));
      EXPECT_EQ(d_found.download(), want);
      for (uint8_t p : d_present.download()) ASSERT_EQ(p, 1);
      if (probing == HashMapProbing::ordered) {
        EXPECT_TRUE(slabtest::same_bytes(slabtest::download_slots(map.view()), ref.slots()));
      }
    }
    EXPECT_EQ(d_invalid.download_one(), 0u);
    EXPECT_EQ(cudaSuccess, cudaGraphExecDestroy(exec));
    EXPECT_EQ(cudaSuccess, cudaGraphDestroy(graph));
    EXPECT_EQ(cudaSuccess, cudaStreamDestroy(stream));
  }
}

TEST(HashMap, OnANonBlockingStream) {
  cudaStream_t stream;
  ASSERT_EQ(cudaSuccess, cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const auto keys = slabtest::distinct_keys<uint32_t>(50000, 61);
  for (HashMapProbing probing : kBothProbings) {
    slabtest::check_map<uint32_t, uint32_t>({{keys, slabtest::random_values<uint32_t>(50000, 62), true}}, 65536,
                                            probing, false, stream);
  }
  EXPECT_EQ(cudaSuccess, cudaStreamDestroy(stream));
}

TEST(HashMap, InvalidViewsAreRejected) {
  DeviceBuffer<uint64_t> d_slots(64);
  DeviceBuffer<uint32_t> d_keys(std::vector<uint32_t>{1, 2, 3});
  DeviceBuffer<uint32_t> d_out(3);
  using View = prim::HashMapView<uint32_t, uint32_t>;
  const View good{d_slots.get(), 32, HashMapProbing::linear};
  EXPECT_EQ(cudaSuccess, prim::hash_map_clear(good));
  EXPECT_EQ(cudaSuccess, prim::hash_map_insert(good, d_keys.get(), d_keys.get(), 3));
  for (const View& bad : {View{nullptr, 32, HashMapProbing::linear}, View{d_slots.get(), 0, HashMapProbing::linear},
                          View{d_slots.get(), 30, HashMapProbing::linear},
                          View{d_slots.get() + 1, 32, HashMapProbing::linear},
                          View{d_slots.get(), 32, static_cast<HashMapProbing>(7)}}) {
    EXPECT_EQ(cudaErrorInvalidValue, prim::hash_map_clear(bad));
    EXPECT_EQ(cudaErrorInvalidValue, prim::hash_map_insert(bad, d_keys.get(), d_keys.get(), 3));
    EXPECT_EQ(cudaErrorInvalidValue, prim::hash_map_find(bad, d_keys.get(), d_out.get(), 3));
    EXPECT_EQ(cudaErrorInvalidValue, prim::hash_map_contains(bad, d_keys.get(), reinterpret_cast<bool*>(d_out.get()), 3));
  }
  EXPECT_EQ(cudaErrorInvalidValue, prim::hash_map_insert(good, d_keys.get(), d_keys.get(), -1));
  EXPECT_EQ(cudaErrorInvalidValue, prim::hash_map_insert(good, nullptr, d_keys.get(), 3));
  EXPECT_EQ(cudaErrorInvalidValue, prim::hash_map_find(good, d_keys.get(), nullptr, 3));
  // Ordered probing needs the packed u32 -> u32 slot.
  DeviceBuffer<uint64_t> d_wide(2 * 2048);
  using WideView = prim::HashMapView<uint64_t, uint64_t>;
  const WideView ordered_wide{reinterpret_cast<WideView::Slot*>(d_wide.get()), 32, HashMapProbing::ordered};
  DeviceBuffer<uint64_t> d_wide_keys(std::vector<uint64_t>{1, 2, 3});
  EXPECT_EQ(cudaErrorInvalidValue, prim::hash_map_insert(ordered_wide, d_wide_keys.get(), nullptr, 3));
  prim::HashMap<uint64_t, uint64_t> wide;
  EXPECT_EQ(cudaErrorInvalidValue, wide.allocate(100, HashMapProbing::ordered));
  EXPECT_EQ(wide.capacity(), 0u);
  EXPECT_EQ(cudaSuccess, cudaGetLastError()) << "a rejected call must not leave an error behind";
}

}  // namespace
