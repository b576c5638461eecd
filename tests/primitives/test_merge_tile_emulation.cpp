// The merge-path tile's per-thread steps (prim/detail/block/merge_tile.h), the very functions the merge and the
// sorted-needle sweep run on the device, run here on the host for every thread of a simulated block: the phases
// between the device's barriers run one after another over all threads (load striped -> barrier -> merge each
// thread's run -> barrier -> stage blocked -> barrier -> store striped; a full tile of keys alone also through
// merge_full_thread_keys and its warp's own stretch), so any index arithmetic that disagrees between the steps shows
// as a wrong item of a named thread. Runs everywhere (no GPU).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "prim/detail/block/merge_tile.h"
#include "prim/detail/core/compare.h"
#include "primitives/reference/merge_reference.h"
#include "primitives/reference/search_reference.h"

namespace {

using prim::detail::MergeTileShares;
using prim::detail::SecondIfLess;

struct Greater {
  bool operator()(uint32_t a, uint32_t b) const { return b < a; }
};

// One simulated launch of merge tiles of THREADS x ITEMS items over a[0, na) and b[0, nb).
template <int THREADS, int ITEMS, class K, class Compare>
struct TileEmulation {
  static constexpr int kTile = THREADS * ITEMS;
  const std::vector<K>& a;
  const std::vector<K>& b;
  Compare comp;
  std::vector<int64_t> partitions;  // as merge_partition_kernel computes them

  TileEmulation(const std::vector<K>& a_, const std::vector<K>& b_, Compare c) : a(a_), b(b_), comp(c) {
    const int64_t total = static_cast<int64_t>(a.size() + b.size());
    const int64_t tiles = (total + kTile - 1) / kTile;
    for (int64_t t = 0; t <= tiles; ++t) {
      partitions.push_back(prim::detail::merge_path(a.data(), static_cast<int64_t>(a.size()), b.data(),
                                                    static_cast<int64_t>(b.size()), std::min(t * kTile, total),
                                                    SecondIfLess<Compare>{comp}));
    }
  }
  int64_t tiles() const { return static_cast<int64_t>(partitions.size()) - 1; }

  // Both shares staged as the device's load_shares stages them (striped positions).
  std::vector<K> stage(const MergeTileShares& s) const {
    const int count = s.count1 + s.count2;
    std::vector<K> staged(kTile);
    for (int t = 0; t < THREADS; ++t) {
      for (int i = 0; i < ITEMS; ++i) {
        const int p = prim::detail::striped_position(t, i, THREADS);
        if (p >= count) continue;
        int64_t index = 0;
        staged[p] = prim::detail::share_source(s, p, index) == 0 ? a[index] : b[index];
      }
    }
    return staged;
  }

  // Every thread's serial merge: keys[t][i], source[t][i], first[t].
  template <bool FULL>
  void merge_threads(const std::vector<K>& staged, const MergeTileShares& s, std::vector<std::vector<K>>& keys,
                     std::vector<std::vector<int32_t>>& source, std::vector<int>& first) const {
    keys.assign(THREADS, std::vector<K>(ITEMS));
    source.assign(THREADS, std::vector<int32_t>(ITEMS));
    first.assign(THREADS, 0);
    for (int t = 0; t < THREADS; ++t) {
      K k[ITEMS];
      int32_t src[ITEMS];
      first[t] = prim::detail::merge_thread_items<ITEMS, FULL>(staged.data(), s, t, SecondIfLess<Compare>{comp}, k,
                                                               src);
      for (int i = 0; i < ITEMS; ++i) {
        keys[t][i] = k[i];
        source[t][i] = src[i];
      }
    }
  }
};

// Runs the merge tile by tile; checks each thread's run against the reference's slice (the property the device
// showed broken: thread t's item i is merged item out_begin + t * ITEMS + i), then the striped store's output.
template <int THREADS, int ITEMS, class K, class Compare = prim::Less>
void check_merge_tiles(const std::vector<K>& a, const std::vector<K>& b, Compare comp = {}) {
  SCOPED_TRACE(testing::Message() << "threads=" << THREADS << " items=" << ITEMS << " na=" << a.size()
                                  << " nb=" << b.size());
  TileEmulation<THREADS, ITEMS, K, Compare> emu(a, b, comp);
  const int64_t na = static_cast<int64_t>(a.size()), nb = static_cast<int64_t>(b.size());
  std::vector<K> want(a.size() + b.size());
  prim::reference::merge(a.data(), na, b.data(), nb, want.data(), comp);
  std::vector<K> out(want.size());
  for (int64_t tile = 0; tile < emu.tiles(); ++tile) {
    MergeTileShares s;
    ASSERT_TRUE(prim::detail::merge_tile_shares(emu.partitions.data(), tile, emu.kTile, na, nb, s)) << tile;
    const int count = s.count1 + s.count2;
    const std::vector<K> staged = emu.stage(s);  // ---- barrier ----
    std::vector<std::vector<K>> keys;
    std::vector<std::vector<int32_t>> source;
    std::vector<int> first;
    if (count == emu.kTile) {
      emu.template merge_threads<true>(staged, s, keys, source, first);
    } else {
      emu.template merge_threads<false>(staged, s, keys, source, first);
    }
    if (count == emu.kTile) {  // a full tile of keys alone: one shared read a step, and a slot past the staged keys
      std::vector<K> padded = staged;
      padded.push_back(K{});  // read when a share is used up, never taken
      for (int t = 0; t < THREADS; ++t) {
        K k[ITEMS];
        const int f = prim::detail::merge_full_thread_keys<ITEMS>(padded.data(), s, t, SecondIfLess<Compare>{comp}, k);
        ASSERT_EQ(f, first[t]) << "tile " << tile << " thread " << t;
        for (int i = 0; i < ITEMS; ++i) {
          ASSERT_EQ(k[i], keys[t][i]) << "tile " << tile << " thread " << t << " item " << i;
        }
      }
    }
    std::vector<K> blocked(emu.kTile);  // ---- barrier: the merged runs staged in thread order ----
    for (int t = 0; t < THREADS; ++t) {
      for (int i = 0; i < ITEMS; ++i) {
        const int p = prim::detail::blocked_position(t, i, ITEMS);
        if (first[t] + i >= count) continue;
        ASSERT_EQ(p, first[t] + i) << "tile " << tile << " thread " << t;
        const size_t o = static_cast<size_t>(s.out_begin + p);
        ASSERT_EQ(keys[t][i], want[o]) << "tile " << tile << " thread " << t << " item " << i;
        // The source names the staged item the key came from.
        ASSERT_EQ(keys[t][i], staged[static_cast<size_t>(source[t][i])]) << "tile " << tile << " thread " << t;
        blocked[static_cast<size_t>(p)] = keys[t][i];
      }
    }
    for (int t = 0; t < THREADS; ++t) {  // ---- barrier: the striped store ----
      for (int i = 0; i < ITEMS; ++i) {
        const int p = prim::detail::striped_position(t, i, THREADS);
        if (p < count) out[static_cast<size_t>(s.out_begin + p)] = blocked[static_cast<size_t>(p)];
      }
    }
    // Keys alone pass through their warp's own stretch after a warp barrier only: a warp's lanes read each position
    // of the stretch their blocked runs wrote, once, and nothing else.
    std::vector<int> reads(emu.kTile, 0);
    for (int t = 0; t < THREADS; ++t) {
      const int stretch = (t / 32) * 32 * ITEMS;
      for (int i = 0; i < ITEMS; ++i) {
        const int p = prim::detail::warp_striped_position(t, i, ITEMS);
        ASSERT_GE(p, stretch) << "thread " << t << " item " << i;
        ASSERT_LT(p, stretch + 32 * ITEMS) << "thread " << t << " item " << i;
        ++reads[static_cast<size_t>(p)];
      }
    }
    for (int p = 0; p < emu.kTile; ++p) ASSERT_EQ(reads[static_cast<size_t>(p)], 1) << "position " << p;
  }
  EXPECT_EQ(out, want);
}

// The sweep's tiles: each needle's result from its merged position (lower bound: needles first).
template <int THREADS, int ITEMS, bool LOWER>
void check_sweep_tiles(const std::vector<uint32_t>& haystack, const std::vector<uint32_t>& needles) {
  SCOPED_TRACE(testing::Message() << (LOWER ? "lower" : "upper") << " threads=" << THREADS << " items=" << ITEMS
                                  << " h=" << haystack.size() << " n=" << needles.size());
  const std::vector<uint32_t>& first_input = LOWER ? needles : haystack;
  const std::vector<uint32_t>& second_input = LOWER ? haystack : needles;
  TileEmulation<THREADS, ITEMS, uint32_t, prim::Less> emu(first_input, second_input, prim::Less{});
  const int64_t n1 = static_cast<int64_t>(first_input.size()), n2 = static_cast<int64_t>(second_input.size());
  std::vector<uint32_t> want(needles.size()), got(needles.size(), ~0u);
  const int64_t h = static_cast<int64_t>(haystack.size()), n = static_cast<int64_t>(needles.size());
  if (LOWER) {
    prim::reference::lower_bound(haystack.data(), h, needles.data(), n, want.data());
  } else {
    prim::reference::upper_bound(haystack.data(), h, needles.data(), n, want.data());
  }
  for (int64_t tile = 0; tile < emu.tiles(); ++tile) {
    MergeTileShares s;
    ASSERT_TRUE(prim::detail::merge_tile_shares(emu.partitions.data(), tile, emu.kTile, n1, n2, s));
    const int count = s.count1 + s.count2;
    const std::vector<uint32_t> staged = emu.stage(s);
    std::vector<std::vector<uint32_t>> keys;
    std::vector<std::vector<int32_t>> source;
    std::vector<int> first;
    if (count == emu.kTile) {
      emu.template merge_threads<true>(staged, s, keys, source, first);
    } else {
      emu.template merge_threads<false>(staged, s, keys, source, first);
    }
    const int64_t needle_begin = LOWER ? s.begin1 : s.begin2;
    const int64_t haystack_begin = LOWER ? s.begin2 : s.begin1;
    for (int t = 0; t < THREADS; ++t) {
      for (int i = 0; i < ITEMS; ++i) {
        const int position = first[t] + i;
        if (position >= count) break;
        const int src = source[t][i];
        const bool needle = LOWER ? src < s.count1 : src >= s.count1;
        if (!needle) continue;
        const int j = LOWER ? src : src - s.count1;
        got[static_cast<size_t>(needle_begin + j)] =
            static_cast<uint32_t>(prim::detail::sweep_haystack_before(haystack_begin, position, j));
      }
    }
  }
  for (size_t i = 0; i < needles.size(); ++i) ASSERT_EQ(got[i], want[i]) << "needle " << i;
}

std::vector<uint32_t> sorted_keys(size_t n, uint32_t range, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint32_t> v(n);
  for (auto& k : v) k = static_cast<uint32_t>(range == 0 ? rng() : rng() % range);
  std::sort(v.begin(), v.end());
  return v;
}

// The device's shapes: 256 threads of 15 (4-byte keys), 7 (8-byte) and 3 (16-byte records) items.
TEST(MergeTileEmulation, FullAndPartialTilesOfEveryShape) {
  for (int64_t n : {int64_t{1}, int64_t{2}, int64_t{31}, int64_t{33}, int64_t{3839}, int64_t{3840}, int64_t{3841},
                    int64_t{2 * 3840 + 1}, int64_t{20011}}) {
    for (uint32_t range : {0u, 4u, 1u}) {
      for (int64_t na : {n / 2, n / 5, n - 1, int64_t{0}}) {
        const auto a = sorted_keys(static_cast<size_t>(na), range, 7 + static_cast<uint64_t>(n));
        const auto b = sorted_keys(static_cast<size_t>(n - na), range, 8 + static_cast<uint64_t>(n));
        check_merge_tiles<256, 15>(a, b);
        check_merge_tiles<256, 7>(a, b);
        check_merge_tiles<256, 3>(a, b);
        check_merge_tiles<32, 1>(a, b);
      }
    }
  }
}

// One input entirely before the other, and the comparator reversed.
TEST(MergeTileEmulation, SkewedInputsAndAnyComparator) {
  auto low = sorted_keys(9000, 1u << 20, 3);
  auto high = low;
  for (auto& k : high) k += 1u << 20;
  check_merge_tiles<256, 15>(low, high);
  check_merge_tiles<256, 15>(high, low);
  auto desc_a = sorted_keys(7777, 0, 4), desc_b = sorted_keys(5000, 0, 5);
  std::reverse(desc_a.begin(), desc_a.end());
  std::reverse(desc_b.begin(), desc_b.end());
  check_merge_tiles<256, 15>(desc_a, desc_b, Greater{});
}

TEST(MergeTileEmulation, SweepGivesBothBounds) {
  for (int64_t h : {int64_t{0}, int64_t{1}, int64_t{3839}, int64_t{3841}, int64_t{12345}}) {
    for (int64_t n : {int64_t{1}, int64_t{255}, int64_t{3840}, int64_t{9001}}) {
      const uint32_t range = static_cast<uint32_t>(2 * h + 3);
      const auto haystack = sorted_keys(static_cast<size_t>(h), range, 11 + static_cast<uint64_t>(h));
      const auto needles = sorted_keys(static_cast<size_t>(n), range + 10, 12 + static_cast<uint64_t>(n));
      check_sweep_tiles<256, 15, true>(haystack, needles);
      check_sweep_tiles<256, 15, false>(haystack, needles);
      check_sweep_tiles<256, 7, true>(haystack, needles);
      check_sweep_tiles<256, 7, false>(haystack, needles);
    }
  }
  const std::vector<uint32_t> same(10000, 42u);
  check_sweep_tiles<256, 15, true>(same, std::vector<uint32_t>{0, 41, 42, 42, 43, ~0u});
  check_sweep_tiles<256, 15, false>(same, std::vector<uint32_t>{0, 41, 42, 42, 43, ~0u});
}

}  // namespace
