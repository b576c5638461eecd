// Iterative split: stable order by a bucket id of any width (thesis ch. 4.3), for ids too wide for one split.
//
// IdOp: `__host__ __device__ uint64_t operator()(const T& record) const`, returning an id < 2^id_bits
// (0 <= id_bits <= 64). A record with a larger id is invalid: not written, counted in *d_num_invalid (device
// uint64, the call adds to it); the valid records stay packed from position 0 in stable id order.
//
// iterative_split / iterative_split_pairs: LSD, ceil(id_bits / 8) stable 256-way splits, lowest digit first. Every
// pass moves all records (reads and writes keys and values once), after one histogram of every pass's digits (a read
// of the keys; SplitSort's one-sweep route, prim/sort.h). Any distribution, any width, any n.
//
// Ids that are a bit range of the record: pass prim::KeyBits<T>{shift, bits} (uint32_t or uint64_t records, bits <=
// id_bits). The split is then SplitSort on bits [shift, shift + bits) (prim/sort.h): no id can be invalid, and its
// passes rank the key's digits with no test, as fast as CUB's radix sort of the same bits. Any other functor's first
// pass tests every id for its width and keeps the tiles with an invalid record apart, which costs about a tenth
// (docs/bench/README.md).
//
// Scratch: one alternate buffer of n.max records (and values) plus small tables; in/out pointers, input unchanged.
// n may be a device-resident count. No allocation, no host sync, safe in graph capture.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "prim/detail/dispatch/split_lsd.cuh"
#include "prim/detail/core/error.h"
#include "prim/item_count.h"
#include "prim/key_bits.h"
#include "prim/workspace.h"

namespace prim {

namespace detail {
constexpr int kIterativeMaxPasses = 64 / kLsdDigitBits;  // ids of up to 64 bits

// Ids that are a bit range of SplitSort's own keys (prim::KeyBits<T> over uint32_t or uint64_t records, no wider than
// id_bits): no id can be invalid, and the split is SplitSort on that range, whose passes sort the key's digits with
// no test for out-of-range ids.
template <typename T, typename IdOp>
bool ids_are_key_bits(const IdOp& id_of, int id_bits) {
  if constexpr (std::is_same_v<IdOp, KeyBits<T>> && (std::is_same_v<T, uint32_t> || std::is_same_v<T, uint64_t>)) {
    return id_of.shift >= 0 && id_of.bits >= 0 && id_of.bits <= id_bits &&
           id_of.shift + id_of.bits <= static_cast<int>(8 * sizeof(T));
  } else {
    return false;
  }
}
}  // namespace detail

template <typename T, typename IdOp>
cudaError_t iterative_split(void* d_temp, size_t& temp_bytes, const T* d_in, T* d_out, ItemCount n, int id_bits,
                            IdOp id_of, cudaStream_t stream = 0, uint64_t* d_num_invalid = nullptr) {
  if (id_bits < 0 || id_bits > 64) return cudaErrorInvalidValue;
  if constexpr (std::is_same_v<IdOp, KeyBits<T>>) {
    if (detail::ids_are_key_bits<T>(id_of, id_bits)) {
      return detail::lsd_split<detail::SplitOutput::keys, static_cast<int>(sizeof(T))>(
          d_temp, temp_bytes, d_in, d_out, static_cast<const detail::NoValue*>(nullptr),
          static_cast<detail::NoValue*>(nullptr), n, id_of.shift, id_of.bits, detail::MakeKeyDigit<T>{}, stream,
          d_num_invalid);
    }
  }
  return detail::lsd_split<detail::SplitOutput::keys, detail::kIterativeMaxPasses>(
      d_temp, temp_bytes, d_in, d_out, static_cast<const detail::NoValue*>(nullptr),
      static_cast<detail::NoValue*>(nullptr), n, 0, id_bits, detail::MakeIdDigit<IdOp>{id_of, id_bits}, stream,
      d_num_invalid);
}

// Key-value variant: the id functor sees the key.
template <typename K, typename V, typename IdOp>
cudaError_t iterative_split_pairs(void* d_temp, size_t& temp_bytes, const K* d_keys_in, K* d_keys_out,
                                  const V* d_values_in, V* d_values_out, ItemCount n, int id_bits, IdOp id_of,
                                  cudaStream_t stream = 0, uint64_t* d_num_invalid = nullptr) {
  if (id_bits < 0 || id_bits > 64) return cudaErrorInvalidValue;
  if constexpr (std::is_same_v<IdOp, KeyBits<K>>) {
    if (detail::ids_are_key_bits<K>(id_of, id_bits)) {
      return detail::lsd_split<detail::SplitOutput::pairs, static_cast<int>(sizeof(K))>(
          d_temp, temp_bytes, d_keys_in, d_keys_out, d_values_in, d_values_out, n, id_of.shift, id_of.bits,
          detail::MakeKeyDigit<K>{}, stream, d_num_invalid);
    }
  }
  return detail::lsd_split<detail::SplitOutput::pairs, detail::kIterativeMaxPasses>(
      d_temp, temp_bytes, d_keys_in, d_keys_out, d_values_in, d_values_out, n, 0, id_bits,
      detail::MakeIdDigit<IdOp>{id_of, id_bits}, stream, d_num_invalid);
}

// ---- Workspace overloads (synchronise; invalid ids -> cudaErrorInvalidValue) ----
template <typename T, typename IdOp>
cudaError_t iterative_split(Workspace& ws, const T* d_in, T* d_out, ItemCount n, int id_bits, IdOp id_of,
                            cudaStream_t stream = 0) {
  return detail::run_checking_invalid(ws, stream, [&](void* d_temp, size_t& bytes, uint64_t* d_invalid) {
    return iterative_split(d_temp, bytes, d_in, d_out, n, id_bits, id_of, stream, d_invalid);
  });
}

template <typename K, typename V, typename IdOp>
cudaError_t iterative_split_pairs(Workspace& ws, const K* d_keys_in, K* d_keys_out, const V* d_values_in,
                                  V* d_values_out, ItemCount n, int id_bits, IdOp id_of, cudaStream_t stream = 0) {
  return detail::run_checking_invalid(ws, stream, [&](void* d_temp, size_t& bytes, uint64_t* d_invalid) {
    return iterative_split_pairs(d_temp, bytes, d_keys_in, d_keys_out, d_values_in, d_values_out, n, id_bits, id_of,
                                 stream, d_invalid);
  });
}

}  // namespace prim
