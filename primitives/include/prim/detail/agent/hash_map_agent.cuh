// The hash map's device side: one thread a key, a probe a 32-byte window (prim/hash_map.h has the contracts).
//
// Why one thread a key with 16-byte loads, not a cooperative group of lanes sharing a window: the probes are random
// DRAM sectors, so throughput is the number of probes in flight. A thread that holds its own window keeps one key in
// flight per thread (2048 an SM); a group of 4 or 8 lanes per window keeps 4 or 8 times fewer, and adds a ballot
// and a shuffle to every window. Most keys end in their first window (load 0.8: 1.4 windows for a present key in
// expectation, 3.8 for an absent one under linear probing, 1.5 for either under ordered probing), so a group's
// extra lanes would mostly read slots nobody needs.
//
// Steps of a bulk call (HashMapBulk): read the item count / for each item of the thread: probe / add the thread's
// invalid items to a warp sum, one atomic a warp.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "prim/detail/core/hash_map_types.h"

namespace prim {
namespace detail {

__device__ __forceinline__ uint32_t atomic_cas(uint32_t* p, uint32_t expected, uint32_t desired) {
  return atomicCAS(reinterpret_cast<unsigned int*>(p), expected, desired);
}
__device__ __forceinline__ uint64_t atomic_cas(uint64_t* p, uint64_t expected, uint64_t desired) {
  return atomicCAS(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(expected),
                   static_cast<unsigned long long>(desired));
}
__device__ __forceinline__ void atomic_min(uint32_t* p, uint32_t v) { atomicMin(reinterpret_cast<unsigned int*>(p), v); }
__device__ __forceinline__ void atomic_min(uint64_t* p, uint64_t v) {
  atomicMin(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
}

// One window's slots in registers: two 16-byte loads of one aligned 32-byte sector. Inserts read through L2 only
// (.cg): the slots change under them, and L1 holds nothing worth keeping for random windows. Finds run after the
// inserts in stream order, so they read through the read-only path.
template <class Slot, bool kMutable>
__device__ __forceinline__ void load_window(const Slot* window, Slot (&s)[kHashWindowBytes / sizeof(Slot)]) {
  const ulonglong2* v = reinterpret_cast<const ulonglong2*>(window);
  const ulonglong2 lo = kMutable ? __ldcg(v) : __ldg(v);
  const ulonglong2 hi = kMutable ? __ldcg(v + 1) : __ldg(v + 1);
  if constexpr (std::is_same_v<Slot, uint64_t>) {
    s[0] = lo.x;
    s[1] = lo.y;
    s[2] = hi.x;
    s[3] = hi.y;
  } else {
    static_assert(sizeof(Slot) == 16, "16-byte slots");
    memcpy(&s[0], &lo, sizeof(Slot));
    memcpy(&s[1], &hi, sizeof(Slot));
  }
}

template <class K, class V>
struct HashMapProbe {
  using View = HashMapView<K, V>;
  using Slot = typename View::Slot;
  static constexpr int kW = static_cast<int>(View::kWindowSlots);
  static constexpr K kEmpty = hash_map_empty_key<K>();

  // ---- linear probing ----

  // One slot of an insert's walk, `seen` its contents as last read: the key itself -> fold the value in; empty ->
  // claim it (a failed CAS re-examines the slot as the CAS found it); another key -> false, walk on. A claimed slot
  // never changes key, so a slot passed is passed for good, and two inserts of one key cannot claim two slots.
  __device__ static bool claim_or_fold(Slot* slot, Slot seen, K key, V value) {
    if constexpr (View::kPacked) {
      const uint64_t word = pack_slot(key, value);
      for (;;) {
        const uint32_t k = slot_key(seen);
        if (k == key) {
          // Same key bits, so the word's minimum is the value's (value in the high half).
          if (slot_value(seen) > value) atomic_min(slot, word);
          return true;
        }
        if (k != kEmpty) return false;
        const uint64_t old = atomic_cas(slot, seen, word);
        if (old == seen) return true;
        seen = old;
      }
    } else {
      K k = seen.key;
      V seen_value = seen.value;  // a claimed slot's value only decreases: fold only if ours is smaller
      for (;;) {
        if (k == key) {
          if (seen_value > value) atomic_min(&slot->value, value);
          return true;
        }
        if (k != kEmpty) return false;
        const K old = atomic_cas(&slot->key, kEmpty, key);
        if (old == kEmpty) {
          // Another insert of this key may have folded its value in between the CAS and here: a minimum, not a store.
          atomic_min(&slot->value, value);
          return true;
        }
        k = old;
        seen_value = static_cast<V>(~V{0});  // not seen: fold unconditionally
      }
    }
  }

  // Windows from the home window on, wrapping around; within a window the slots in order. False: no window had room.
  __device__ static bool insert_linear(const View& map, K key, V value) {
    const uint64_t windows = map.capacity / kW;
    uint64_t w = home_of(hash_position(key), windows);
    for (uint64_t step = 0; step < windows; ++step) {
      Slot* window = map.slots + w * kW;
      Slot s[kW];
      load_window<Slot, true>(window, s);
#pragma unroll
      for (int j = 0; j < kW; ++j) {
        if (claim_or_fold(window + j, s[j], key, value)) return true;
      }
      w = w + 1 == windows ? 0 : w + 1;
    }
    return false;
  }

  // A key sits after every slot of its probe sequence that was occupied when it was inserted, and slots are never
  // emptied, so the first empty slot on the way ends the search.
  __device__ static bool find_linear(const View& map, K key, V& value) {
    const uint64_t windows = map.capacity / kW;
    uint64_t w = home_of(hash_position(key), windows);
    for (uint64_t step = 0; step < windows; ++step) {
      Slot s[kW];
      load_window<Slot, false>(map.slots + w * kW, s);
#pragma unroll
      for (int j = 0; j < kW; ++j) {
        const K k = slot_key(s[j]);
        if (k == key) {
          value = static_cast<V>(slot_value(s[j]));
          return true;
        }
        if (k == kEmpty) return false;
      }
      w = w + 1 == windows ? 0 : w + 1;
    }
    return false;
  }

  // ---- ordered probing (packed u32 -> u32 slots only: a swap moves key and value in one CAS) ----

  // From the home slot on, the carried pair takes the place of the first pair with a larger hash and carries that
  // one on, until an empty slot takes the carried pair. A slot's hash only decreases (a swap puts a smaller hash in)
  // and no slot is emptied, so a slot passed (smaller hash) stays passed, and a stale window costs only a failed
  // CAS. The layout that results is the ordered table of the set of keys, whatever the timing. False: the carried
  // pair (not necessarily this thread's key) was pushed past the last slot of the tail and dropped.
  __device__ static bool insert_ordered(const View& map, K key, V value) {
    static_assert(View::kPacked, "ordered probing needs the packed slot");
    uint64_t carry = pack_slot(key, value);
    uint64_t carry_position = hash_position(key);
    const uint64_t home = home_of(carry_position, map.capacity);
    const uint64_t windows = map.slot_count() / kW;
    int first = static_cast<int>(home % kW);
    for (uint64_t w = home / kW; w < windows; ++w, first = 0) {
      uint64_t* window = map.slots + w * kW;
      uint64_t s[kW];
      load_window<uint64_t, true>(window, s);
#pragma unroll
      for (int j = 0; j < kW; ++j) {
        if (j < first) continue;
        uint64_t seen = s[j];
        for (;;) {
          const uint32_t k = slot_key(seen);
          uint64_t position = 0;
          if (k == kEmpty) {
            // Claim.
          } else if (k == slot_key(carry)) {
            // Fold: a CAS, not a word minimum, because the slot may meanwhile hold another key.
            if (slot_value(seen) <= slot_value(carry)) return true;
          } else {
            position = hash_position(k);
            if (position < carry_position) break;  // pass
          }
          const uint64_t old = atomic_cas(window + j, seen, carry);
          if (old != seen) {
            seen = old;
            continue;
          }
          if (k == kEmpty || k == slot_key(carry)) return true;
          carry = seen;  // swapped: carry the larger hash on
          carry_position = position;
          break;
        }
      }
    }
    return false;
  }

  // The run from the home slot is sorted by hash: a larger hash, like an empty slot, ends the search.
  __device__ static bool find_ordered(const View& map, K key, V& value) {
    const uint64_t position = hash_position(key);
    const uint64_t home = home_of(position, map.capacity);
    const uint64_t windows = map.slot_count() / kW;
    int first = static_cast<int>(home % kW);
    for (uint64_t w = home / kW; w < windows; ++w, first = 0) {
      Slot s[kW];
      load_window<Slot, false>(map.slots + w * kW, s);
#pragma unroll
      for (int j = 0; j < kW; ++j) {
        if (j < first) continue;
        const K k = slot_key(s[j]);
        if (k == key) {
          value = static_cast<V>(slot_value(s[j]));
          return true;
        }
        if (k == kEmpty || hash_position(k) > position) return false;
      }
    }
    return false;
  }

  template <HashMapProbing kProbing>
  __device__ static bool insert(const View& map, K key, V value) {
    if constexpr (kProbing == HashMapProbing::ordered) {
      return insert_ordered(map, key, value);
    } else {
      return insert_linear(map, key, value);
    }
  }
  template <HashMapProbing kProbing>
  __device__ static bool find(const View& map, K key, V& value) {
    if constexpr (kProbing == HashMapProbing::ordered) {
      return find_ordered(map, key, value);
    } else {
      return find_linear(map, key, value);
    }
  }
};

// ---- bulk calls ----

struct HashMapBulkArgs {
  int64_t max_n;             // host bound of the item count
  const uint64_t* d_n;       // device count (nullptr: max_n is the count)
  uint64_t* d_num_invalid;   // nullptr: not counted
};

// What a find writes: the value (or the caller's not-found value), or whether the key is present.
enum class HashMapAnswer { value, contains };

template <class K, class V>
struct HashMapBulk {
  using Probe = HashMapProbe<K, V>;
  using View = HashMapView<K, V>;

  // The item count: the device count when there is one. A device count above the host bound (ItemCount's contract):
  // nothing is done and every item is counted invalid, once for the grid.
  __device__ static bool item_count(const HashMapBulkArgs& args, int64_t& n) {
    n = args.max_n;
    if (args.d_n == nullptr) return true;
    const uint64_t device_n = *args.d_n;
    if (device_n > static_cast<uint64_t>(args.max_n)) {
      if (blockIdx.x == 0 && threadIdx.x == 0 && args.d_num_invalid) {
        atomicAdd(reinterpret_cast<unsigned long long*>(args.d_num_invalid), static_cast<unsigned long long>(device_n));
      }
      return false;
    }
    n = static_cast<int64_t>(device_n);
    return true;
  }

  // A warp sum, one atomic a warp that saw any. Every lane of the warp gets here (no lane returns early).
  __device__ static void add_invalid(uint64_t* d_num_invalid, uint32_t invalid) {
    if (d_num_invalid == nullptr) return;
    const uint32_t warp_invalid = __reduce_add_sync(0xffffffffu, invalid);
    if ((threadIdx.x & 31) == 0 && warp_invalid) {
      atomicAdd(reinterpret_cast<unsigned long long*>(d_num_invalid), static_cast<unsigned long long>(warp_invalid));
    }
  }

  // Keys and values are read once (evict-first loads keep L2 for the windows).
  template <HashMapProbing kProbing>
  __device__ static void insert(const View& map, const K* keys, const V* values, const HashMapBulkArgs& args) {
    int64_t n = 0;
    if (!item_count(args, n)) return;
    uint32_t invalid = 0;
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
      const K key = __ldcs(keys + i);
      const V value = values ? __ldcs(values + i) : V{0};
      const bool inserted = key != Probe::kEmpty && Probe::template insert<kProbing>(map, key, value);
      invalid += inserted ? 0u : 1u;
    }
    add_invalid(args.d_num_invalid, invalid);
  }

  template <HashMapProbing kProbing, HashMapAnswer kAnswer, class Out>
  __device__ static void find(const View& map, const K* queries, Out* out, V not_found, const HashMapBulkArgs& args) {
    int64_t n = 0;
    if (!item_count(args, n)) return;
    uint32_t invalid = 0;
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
      const K key = __ldcs(queries + i);
      V value = not_found;
      bool found = false;
      if (key == Probe::kEmpty) {
        ++invalid;
      } else {
        found = Probe::template find<kProbing>(map, key, value);
      }
      if constexpr (kAnswer == HashMapAnswer::contains) {
        __stcs(reinterpret_cast<unsigned char*>(out) + i, static_cast<unsigned char>(found));
      } else {
        __stcs(out + i, found ? value : not_found);
      }
    }
    add_invalid(args.d_num_invalid, invalid);
  }
};

}  // namespace detail
}  // namespace prim
