// prim::HashMap / prim::HashMapView: a fixed-capacity open-addressing hash map of uint32_t or uint64_t keys and
// values, with bulk insert, find and contains.
//
//   prim::HashMap<uint32_t, uint32_t> map;
//   PRIM_TRY(map.allocate(prim::HashMapView<uint32_t, uint32_t>::capacity_for(n, 0.8)));  // allocated and cleared
//   PRIM_TRY(map.insert(d_keys, d_values, n, stream, d_num_invalid));
//   PRIM_TRY(map.find(d_queries, d_found, m, prim::hash_map_not_found<uint32_t>(), stream));
//   PRIM_TRY(map.contains(d_queries, d_present, m, stream));
//
// Overview. The table is an array of slots in device memory. HashMapView describes one (slots, capacity, probing) and
// owns nothing, so a renderer can carve it from its own memory; HashMap owns one in a prim::DeviceBuffer. The bulk
// calls take a view, launch one kernel, never allocate or synchronise, and are safe inside CUDA graph capture. They
// need no scratch memory, so they take none (no size query).
//
// The reserved key. A key with every bit set (hash_map_empty_key<K>(): 0xFFFFFFFF, 0xFFFFFFFFFFFFFFFF) marks an
// empty slot. It is never inserted, never found: as an insert's key or as a query it is counted invalid (a find
// writes not_found for it, contains false). Values are unrestricted.
//
// Slots (prim/detail/core/hash_map_types.h). uint32_t -> uint32_t: one 64-bit word, key in bits [0, 32), value in
// [32, 64), so an insert is a single atomicCAS. Every other pair: a 16-byte slot {key, value}; an insert claims the
// key with a CAS of the key, then folds its value in with an atomic minimum, so a key's value is complete once the
// insert call has finished (stream order), not while it runs. Clearing sets every byte to 0xFF. Memory: capacity x
// 8 bytes (u32 -> u32) or x 16 bytes, plus the ordered table's tail.
//
// Probing. Every key has a home from its hash (MurmurHash3's finalizer, 32- or 64-bit, a bijection) scaled to the
// table by a multiply (no division; a larger hash never has an earlier home). A probe reads one window: an aligned
// 32-byte sector (4 packed slots or 2 wide ones), by one thread with two 16-byte loads.
//   HashMapProbing::linear (default; every key and value type): windows from the home window on, wrapping around.
//     An insert takes the first empty slot of the first window that has one; a search ends at the key or at the first
//     empty slot. In expectation, for random keys, a present key costs 1.4 windows at load 0.8 and 2.0 at 0.9, an
//     absent key 3.8 and 13.2.
//   HashMapProbing::ordered (uint32_t -> uint32_t only, else cudaErrorInvalidValue): every run of occupied slots is
//     kept sorted by hash, as bidirectional linear probing keeps it (Amble and Knuth's ordered hash table), so a
//     search also ends at the first larger hash: an absent key costs what a present one does, 1.5 windows at load
//     0.8 and 2.1 at 0.9. An insert carries its pair from the home slot, swaps it with the first pair of larger hash
//     (one CAS of the packed word) and carries that one on, until an empty slot; 2.5 CAS a key at load 0.8, 4.7 at
//     0.9, against 1 for linear probing. The swaps run lock-free in one direction instead of shifting runs both ways
//     under locks. The table does not wrap: runs that reach the end spill into a tail of tail_slots() slots.
//   Choose ordered where absent keys are looked up often at high load; linear elsewhere (cheaper inserts).
//
// Duplicate keys: a key inserted more than once, in one call or across calls, keeps the smallest of its values. The
// rule is deterministic (no "first writer" race); with input positions as values it keeps the first occurrence, as a
// sequential insert-if-absent would.
//
// Determinism. The set of keys in the map and every key's value are deterministic whenever every key fits.
// Ordered probing: the whole table is, byte for byte (a function of the set of keys and their smallest values). Linear
// probing: which slot a key takes within its probe sequence depends on thread timing; every find / contains answer
// does not.
//
// Invalid input (added to *d_num_invalid, device uint64, when non-null; never stored):
//   - the reserved key, in an insert or as a query;
//   - insert into a full table: linear probing counts each key that found no empty slot in any window (a key already
//     present always finds itself); ordered probing counts each pair pushed past the end of the tail, which is the
//     pair of largest hash in the last run and may be one inserted by an earlier call. Either way the call ends:
//     a probe walks at most every window once.
//   - a device count above its host bound (ItemCount): nothing is done and the device count is added.
//
// Preconditions: the view's slots are 32-byte aligned and cleared before the first insert; capacity is a positive
// multiple of kWindowSlots (else cudaErrorInvalidValue); n.max >= 0; input and output arrays do not overlap the
// slots. Inserts and finds on one table must not run at the same time (order them in one stream): a find during an
// insert may miss keys the insert is moving (ordered) or see a key before its value (16-byte slots).
//
// Performance: one thread a key; a probe is a random DRAM sector, so a call's time is about its windows (above)
// over the device's rate of random sector reads; inserts' atomics hit the lines their loads brought into L2. Keys,
// values and answers stream once (evict-first).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "prim/detail/core/hash_map_types.h"
#include "prim/device_buffer.h"
#include "prim/error.h"
#include "prim/item_count.h"

namespace prim {

// Sets every slot empty (cudaMemsetAsync of view.bytes()).
template <typename K, typename V>
cudaError_t hash_map_clear(const HashMapView<K, V>& map, cudaStream_t stream = 0);

// Inserts d_keys[i] -> d_values[i] for i < n (d_values == nullptr: every value 0, a set). Duplicates keep the
// smallest value; invalid keys (above) are counted and skipped.
template <typename K, typename V>
cudaError_t hash_map_insert(const HashMapView<K, V>& map, const typename HashMapView<K, V>::key_type* d_keys,
                            const typename HashMapView<K, V>::value_type* d_values, ItemCount n,
                            cudaStream_t stream = 0, uint64_t* d_num_invalid = nullptr);

// d_values_out[i] = the value of d_queries[i], or not_found, for i < n.
template <typename K, typename V>
cudaError_t hash_map_find(const HashMapView<K, V>& map, const typename HashMapView<K, V>::key_type* d_queries,
                          typename HashMapView<K, V>::value_type* d_values_out, ItemCount n,
                          typename HashMapView<K, V>::value_type not_found = hash_map_not_found<V>(),
                          cudaStream_t stream = 0, uint64_t* d_num_invalid = nullptr);

// d_out[i] = whether d_queries[i] is in the map, for i < n.
template <typename K, typename V>
cudaError_t hash_map_contains(const HashMapView<K, V>& map, const typename HashMapView<K, V>::key_type* d_queries,
                              bool* d_out, ItemCount n, cudaStream_t stream = 0, uint64_t* d_num_invalid = nullptr);

// Compiled once in src/hash_map.cu for every pair of uint32_t / uint64_t keys and values.
#define PRIM_HASH_MAP_EXTERN(K, V)                                                                                   \
  extern template cudaError_t hash_map_clear<K, V>(const HashMapView<K, V>&, cudaStream_t);                        \
  extern template cudaError_t hash_map_insert<K, V>(const HashMapView<K, V>&, const K*, const V*, ItemCount,       \
                                                    cudaStream_t, uint64_t*);                                      \
  extern template cudaError_t hash_map_find<K, V>(const HashMapView<K, V>&, const K*, V*, ItemCount, V,            \
                                                  cudaStream_t, uint64_t*);                                        \
  extern template cudaError_t hash_map_contains<K, V>(const HashMapView<K, V>&, const K*, bool*, ItemCount,        \
                                                      cudaStream_t, uint64_t*);
PRIM_HASH_MAP_EXTERN(uint32_t, uint32_t)
PRIM_HASH_MAP_EXTERN(uint32_t, uint64_t)
PRIM_HASH_MAP_EXTERN(uint64_t, uint32_t)
PRIM_HASH_MAP_EXTERN(uint64_t, uint64_t)
#undef PRIM_HASH_MAP_EXTERN

// The owning map: its slots in a DeviceBuffer, the bulk calls as members. Move-only, never throws.
template <typename K, typename V>
class HashMap {
 public:
  using View = HashMapView<K, V>;
  using Slot = typename View::Slot;

  // Frees the old table, then allocates one whose home range is `capacity` slots rounded up to whole windows (see
  // View::capacity_for; the ordered tail comes on top) and clears it on `stream`. Ordered probing with slots other
  // than u32 -> u32: cudaErrorInvalidValue, nothing allocated.
  cudaError_t allocate(uint64_t capacity, HashMapProbing probing = HashMapProbing::linear, cudaStream_t stream = 0) {
    release();
    if (probing == HashMapProbing::ordered && !View::kPacked) return cudaErrorInvalidValue;
    const uint64_t rounded = View::round_capacity(capacity);
    PRIM_TRY(slots_.allocate(View::slot_count(rounded, probing)));
    capacity_ = rounded;
    probing_ = probing;
    return clear(stream);
  }
  void release() {
    slots_.release();
    capacity_ = 0;
  }

  cudaError_t clear(cudaStream_t stream = 0) const { return hash_map_clear(view(), stream); }
  cudaError_t insert(const K* d_keys, const V* d_values, ItemCount n, cudaStream_t stream = 0,
                     uint64_t* d_num_invalid = nullptr) const {
    return hash_map_insert(view(), d_keys, d_values, n, stream, d_num_invalid);
  }
  cudaError_t find(const K* d_queries, V* d_values_out, ItemCount n, V not_found = hash_map_not_found<V>(),
                   cudaStream_t stream = 0, uint64_t* d_num_invalid = nullptr) const {
    return hash_map_find(view(), d_queries, d_values_out, n, not_found, stream, d_num_invalid);
  }
  cudaError_t contains(const K* d_queries, bool* d_out, ItemCount n, cudaStream_t stream = 0,
                       uint64_t* d_num_invalid = nullptr) const {
    return hash_map_contains(view(), d_queries, d_out, n, stream, d_num_invalid);
  }

  View view() const { return View{slots_.data(), capacity_, probing_}; }
  uint64_t capacity() const { return capacity_; }
  HashMapProbing probing() const { return probing_; }
  size_t bytes() const { return slots_.bytes(); }

 private:
  DeviceBuffer<Slot> slots_;
  uint64_t capacity_ = 0;
  HashMapProbing probing_ = HashMapProbing::linear;
};

}  // namespace prim
