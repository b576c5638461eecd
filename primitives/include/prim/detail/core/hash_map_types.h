// The hash map's vocabulary, shared by the device map (prim/hash_map.h) and its plain C++ reference
// (primitives/reference/hash_map_reference.h): the reserved empty key, the slot layouts, the hash, the home of a key
// and the view over a slot array. No CUDA runtime dependency, so the reference stays includable from host-only code.
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#if defined(__CUDACC__)
#define PRIM_HASH_HD __host__ __device__ __forceinline__
#else
#define PRIM_HASH_HD inline
#endif

namespace prim {

// How a key's slot is found (the contracts: prim/hash_map.h).
//   linear:  linear probing over 32-byte windows from the key's home window, wrapping around the table.
//   ordered: linear probing that keeps every run of occupied slots sorted by hash (Amble and Knuth's ordered hash
//            table; bidirectional linear probing keeps the same order), so a search stops at the first larger hash.
enum class HashMapProbing { linear, ordered };

// The reserved key: all bits set. It marks an empty slot, so it can be neither inserted nor found.
template <typename K>
constexpr K hash_map_empty_key() {
  return static_cast<K>(~K{0});
}

// What find writes for a key that is not in the map unless the caller says otherwise: every bit set.
template <typename V>
constexpr V hash_map_not_found() {
  return static_cast<V>(~V{0});
}

namespace detail {

// A probe reads one window: a 32-byte DRAM sector, aligned, as two 16-byte loads.
constexpr uint32_t kHashWindowBytes = 32;
// The ordered table's tail: slots after the home range that runs pushed past the last home slot spill into (the
// ordered table does not wrap around). Its size: 1024 slots plus 1/64 of the home range, rounded to whole windows.
constexpr uint64_t kHashOrderedTailMinSlots = 1024;
constexpr int kHashOrderedTailShift = 6;

// ---- slot layouts ----
// u32 keys with u32 values: one 64-bit word, so that an insert is a single atomicCAS and the ordered probing's swap
// moves key and value together:
//   bits [0, 32): key   bits [32, 64): value          empty slot: all 64 bits set
// Every other pair: a 16-byte slot {key, value}; an insert claims the key with a CAS of the key alone, then folds
// its value in with an atomic minimum, so the value is complete when the insert call has finished.
//   empty slot: all 128 bits set (key = the reserved key, value = the largest value)
template <typename K, typename V>
struct alignas(16) HashPair {
  K key;
  V value;
};

template <typename K, typename V>
constexpr bool kHashPacked = sizeof(K) == 4 && sizeof(V) == 4;

template <typename K, typename V>
using HashSlot = std::conditional_t<kHashPacked<K, V>, uint64_t, HashPair<K, V>>;

PRIM_HASH_HD uint64_t pack_slot(uint32_t key, uint32_t value) { return (uint64_t{value} << 32) | key; }
PRIM_HASH_HD uint32_t slot_key(uint64_t slot) { return static_cast<uint32_t>(slot); }
PRIM_HASH_HD uint32_t slot_value(uint64_t slot) { return static_cast<uint32_t>(slot >> 32); }
template <typename K, typename V>
PRIM_HASH_HD K slot_key(const HashPair<K, V>& slot) {
  return slot.key;
}
template <typename K, typename V>
PRIM_HASH_HD V slot_value(const HashPair<K, V>& slot) {
  return slot.value;
}

// ---- hash ----
// MurmurHash3's finalizers: bijections, so two keys share a hash only when they are equal (the ordered probing's
// tie is always a duplicate key).
PRIM_HASH_HD uint32_t hash_mix(uint32_t k) {
  k ^= k >> 16;
  k *= 0x85ebca6bu;
  k ^= k >> 13;
  k *= 0xc2b2ae35u;
  k ^= k >> 16;
  return k;
}
PRIM_HASH_HD uint64_t hash_mix(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ull;
  k ^= k >> 33;
  return k;
}

// A key's hash as a 64-bit fraction of the table (a 32-bit hash in the high half): the order the ordered probing
// keeps, and the input of the home mapping.
template <typename K>
PRIM_HASH_HD uint64_t hash_position(K key) {
  if constexpr (sizeof(K) == 4) {
    return uint64_t{hash_mix(static_cast<uint32_t>(key))} << 32;
  } else {
    return hash_mix(static_cast<uint64_t>(key));
  }
}

PRIM_HASH_HD uint64_t mul_hi64(uint64_t a, uint64_t b) {
#if defined(__CUDA_ARCH__)
  return __umul64hi(a, b);
#else
  return static_cast<uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
#endif
}

// The home of a hash position in [0, range): floor(position * range / 2^64). Monotone in the position, which the
// ordered probing needs (a larger hash never has an earlier home); no division.
PRIM_HASH_HD uint64_t home_of(uint64_t position, uint64_t range) { return mul_hi64(position, range); }

}  // namespace detail

// ---- the view: a non-owning description of a table in device memory (the contracts: prim/hash_map.h) ----
template <typename K, typename V>
struct HashMapView {
  static_assert(std::is_same_v<K, uint32_t> || std::is_same_v<K, uint64_t>, "keys are uint32_t or uint64_t");
  static_assert(std::is_same_v<V, uint32_t> || std::is_same_v<V, uint64_t>, "values are uint32_t or uint64_t");
  using key_type = K;
  using value_type = V;
  using Slot = detail::HashSlot<K, V>;
  static constexpr bool kPacked = detail::kHashPacked<K, V>;
  static constexpr uint64_t kWindowSlots = detail::kHashWindowBytes / sizeof(Slot);  // 4 packed, 2 otherwise
  static_assert(detail::kHashWindowBytes % sizeof(Slot) == 0, "whole slots a window");

  Slot* slots = nullptr;    // slot_count() slots, 32-byte aligned, cleared (all bytes 0xFF) before the first insert
  uint64_t capacity = 0;    // the home range in slots: a multiple of kWindowSlots
  HashMapProbing probing = HashMapProbing::linear;

  // `capacity` rounded up to whole windows (at least one).
  PRIM_HASH_HD static constexpr uint64_t round_capacity(uint64_t capacity_slots) {
    const uint64_t c = capacity_slots == 0 ? 1 : capacity_slots;
    return (c + kWindowSlots - 1) / kWindowSlots * kWindowSlots;
  }
  // The capacity that holds num_keys keys at load factor max_load (0 < max_load <= 1).
  static uint64_t capacity_for(uint64_t num_keys, double max_load) {
    const double slots = static_cast<double>(num_keys) / (max_load > 0 && max_load <= 1 ? max_load : 1.0);
    uint64_t c = static_cast<uint64_t>(slots);
    if (static_cast<double>(c) < slots) ++c;
    return round_capacity(c);
  }
  // Slots after the home range: none for linear probing, which wraps around; the ordered table's tail otherwise.
  PRIM_HASH_HD static constexpr uint64_t tail_slots(uint64_t capacity_slots, HashMapProbing p) {
    if (p != HashMapProbing::ordered) return 0;
    const uint64_t tail = detail::kHashOrderedTailMinSlots + (capacity_slots >> detail::kHashOrderedTailShift);
    return (tail + kWindowSlots - 1) / kWindowSlots * kWindowSlots;
  }
  // The slots a table of this capacity and probing occupies in memory.
  PRIM_HASH_HD static constexpr uint64_t slot_count(uint64_t capacity_slots, HashMapProbing p) {
    return capacity_slots + tail_slots(capacity_slots, p);
  }
  PRIM_HASH_HD uint64_t slot_count() const { return slot_count(capacity, probing); }
  size_t bytes() const { return static_cast<size_t>(slot_count()) * sizeof(Slot); }
};

}  // namespace prim
