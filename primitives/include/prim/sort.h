// SplitSort: a stable LSD radix sort built from this library's own stable splits (one 256-way stable split pass per
// 8 bits of the key range; not cub::DeviceRadixSort). With two passes or more and n.max < 2^30 one histogram counts
// every pass's digits first and each pass is a single look-back downsweep (prim/detail/dispatch/split_lsd.cuh, "one
// sweep").
//
//   size_t bytes = 0;
//   prim::sort_pairs(nullptr, bytes, d_keys_in, d_keys_out, d_vals_in, d_vals_out, n);   // size query
//   prim::sort_pairs(d_temp, bytes, d_keys_in, d_keys_out, d_vals_in, d_vals_out, n, 0, 32, stream);
//
// Keys: uint32_t, uint64_t or prim::uint128 (prim/uint128.h), ordered as unsigned integers on the bit range
// [begin_bit, end_bit) only (bits outside the range do not influence the order). Values: any trivially copyable
// type. Stable: equal keys keep their input order.
//
// Buffers: separate input and output pointers (the input is not modified; output must not overlap it). The
// scratch blob holds one alternate buffer of n.max keys (and values), so scratch is about one copy of the data;
// callers who can afford it get the fewest bytes moved this way: ceil(bits / 8) passes, each reading the keys and
// values once and writing both once, plus one read of the keys for the histogram (a pass of its own reads and
// counts the keys again when n.max >= 2^30 or the range is at most 8 bits).
//
// n may be a device-resident count (prim/item_count.h). No allocation, no host sync, safe in graph capture.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "prim/detail/dispatch/split_lsd.cuh"
#include "prim/error.h"
#include "prim/item_count.h"
#include "prim/uint128.h"
#include "prim/workspace.h"

namespace prim {

template <typename Key>
constexpr bool is_split_sort_key_v =
    std::is_same_v<Key, uint32_t> || std::is_same_v<Key, uint64_t> || std::is_same_v<Key, uint128>;

namespace detail {
template <typename Key>
cudaError_t check_bit_range(int begin_bit, int end_bit) {
  return (begin_bit < 0 || end_bit < begin_bit || end_bit > static_cast<int>(sizeof(Key) * 8)) ? cudaErrorInvalidValue
                                                                                                 : cudaSuccess;
}
}  // namespace detail

template <typename Key>
cudaError_t sort_keys(void* d_temp, size_t& temp_bytes, const Key* d_keys_in, Key* d_keys_out, ItemCount n,
                      int begin_bit = 0, int end_bit = static_cast<int>(sizeof(Key) * 8), cudaStream_t stream = 0) {
  static_assert(is_split_sort_key_v<Key>, "SplitSort keys: uint32_t, uint64_t or prim::uint128");
  PRIM_TRY(detail::check_bit_range<Key>(begin_bit, end_bit));
  return detail::lsd_split<detail::SplitOutput::keys, static_cast<int>(sizeof(Key))>(
      d_temp, temp_bytes, d_keys_in, d_keys_out, static_cast<const detail::NoValue*>(nullptr),
      static_cast<detail::NoValue*>(nullptr), n, begin_bit, end_bit - begin_bit, detail::MakeKeyDigit<Key>{}, stream,
      nullptr);
}

template <typename Key, typename Value>
cudaError_t sort_pairs(void* d_temp, size_t& temp_bytes, const Key* d_keys_in, Key* d_keys_out,
                       const Value* d_values_in, Value* d_values_out, ItemCount n, int begin_bit = 0,
                       int end_bit = static_cast<int>(sizeof(Key) * 8), cudaStream_t stream = 0) {
  static_assert(is_split_sort_key_v<Key>, "SplitSort keys: uint32_t, uint64_t or prim::uint128");
  PRIM_TRY(detail::check_bit_range<Key>(begin_bit, end_bit));
  return detail::lsd_split<detail::SplitOutput::pairs, static_cast<int>(sizeof(Key))>(
      d_temp, temp_bytes, d_keys_in, d_keys_out, d_values_in, d_values_out, n, begin_bit, end_bit - begin_bit,
      detail::MakeKeyDigit<Key>{}, stream, nullptr);
}

// ---- Workspace overloads (allocate on growth; no sync: a sort has no invalid records to report) ----
template <typename Key>
cudaError_t sort_keys(Workspace& ws, const Key* d_keys_in, Key* d_keys_out, ItemCount n, int begin_bit = 0,
                      int end_bit = static_cast<int>(sizeof(Key) * 8), cudaStream_t stream = 0) {
  return ws.run([&](void* d_temp, size_t& bytes) {
    return sort_keys(d_temp, bytes, d_keys_in, d_keys_out, n, begin_bit, end_bit, stream);
  });
}

template <typename Key, typename Value>
cudaError_t sort_pairs(Workspace& ws, const Key* d_keys_in, Key* d_keys_out, const Value* d_values_in,
                       Value* d_values_out, ItemCount n, int begin_bit = 0,
                       int end_bit = static_cast<int>(sizeof(Key) * 8), cudaStream_t stream = 0) {
  return ws.run([&](void* d_temp, size_t& bytes) {
    return sort_pairs(d_temp, bytes, d_keys_in, d_keys_out, d_values_in, d_values_out, n, begin_bit, end_bit,
                      stream);
  });
}

}  // namespace prim
