// prim::split_index: the permutation of a stable split instead of the moved records (thesis ch. 5: split once,
// then gather many attribute arrays of any record size with prim/gather_scatter.h).
//
//   gather:  perm[i] = index of the input record that lands at output position i;  out[i] = in[perm[i]].
//            perm receives offsets[num_buckets] (= number of valid records) entries, in output order.
//   scatter: perm[i] = output position of input record i;                          out[perm[i]] = in[i].
//            perm receives one entry per input record; entries of invalid records are left untouched.
//
// Index is uint32_t (n.max must be <= 2^32, else cudaErrorInvalidValue) or uint64_t. Everything else (bucket
// functor, offsets, invalid records, ItemCount, scratch, stream, Workspace overload) is as in prim/split.h.
// The stable order is always used: a permutation is only useful if it is reproducible.
//
// Cost: with up to 256 buckets the records are read twice (one histogram, then one downsweep whose tiles find their
// bases by look-back over the whole input, prim/detail/dispatch/split_lsd.cuh; from 2^30 records on, the split's
// upsweep, spine and chunked downsweep) and only the indices are written; the scatter kind needs no shared-memory
// exchange at all (each record writes its own slot). With more buckets (up to 2048) the (bucket, index) pairs of the
// records take two stable 8-bit passes (prim/detail/dispatch/split_index_two_passes.cuh; 16-bit buckets). Records of up
// to 4 bytes with 32-bit indices are read twice (a histogram, then the first pass, which writes the pairs); others
// once, by a kernel that writes the pairs. The scratch holds about 2 + 2 + 2 x sizeof(Index) bytes a record (n.max)
// more, plus sizeof(Index) for the scatter kind. Measured tables: docs/bench/README.md.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "prim/detail/dispatch/split_dispatch.cuh"
#include "prim/detail/dispatch/split_index_two_passes.cuh"
#include "prim/detail/dispatch/split_lsd.cuh"
#include "prim/detail/core/split_types.h"
#include "prim/item_count.h"
#include "prim/workspace.h"

namespace prim {

template <typename T, typename BucketOp, typename Index>
cudaError_t split_index(void* d_temp, size_t& temp_bytes, const T* d_in, ItemCount n, uint32_t num_buckets,
                        BucketOp bucket_of, Index* d_permutation, PermutationKind kind, uint64_t* d_bucket_offsets,
                        cudaStream_t stream = 0, uint64_t* d_num_invalid = nullptr) {
  static_assert(std::is_same_v<Index, uint32_t> || std::is_same_v<Index, uint64_t>, "Index: uint32_t or uint64_t");
  if constexpr (sizeof(Index) == 4) {
    if (n.max > (int64_t{1} << 32)) return cudaErrorInvalidValue;
  }
  if (num_buckets > 256) {
    return detail::split_index_two_passes(d_temp, temp_bytes, d_in, n, num_buckets, bucket_of, d_permutation, kind,
                                          d_bucket_offsets, stream, d_num_invalid);
  }
  if (kind == PermutationKind::gather) {
    if (detail::splits_by_functor_in_one_sweep<detail::SplitOutput::gather_index, T, Index>(n, num_buckets)) {
      return detail::split_by_functor_one_sweep<detail::SplitOutput::gather_index>(
          d_temp, temp_bytes, d_in, static_cast<T*>(nullptr), static_cast<const Index*>(nullptr), d_permutation, n,
          num_buckets, bucket_of, d_bucket_offsets, stream, d_num_invalid);
    }
    return detail::dispatch_split<detail::SplitOutput::gather_index, T, Index>(
        d_temp, temp_bytes, d_in, static_cast<T*>(nullptr), static_cast<const Index*>(nullptr), d_permutation, n,
        num_buckets, bucket_of, d_bucket_offsets, stream, d_num_invalid);
  }
  if (detail::splits_by_functor_in_one_sweep<detail::SplitOutput::scatter_index, T, Index>(n, num_buckets)) {
    return detail::split_by_functor_one_sweep<detail::SplitOutput::scatter_index>(
        d_temp, temp_bytes, d_in, static_cast<T*>(nullptr), static_cast<const Index*>(nullptr), d_permutation, n,
        num_buckets, bucket_of, d_bucket_offsets, stream, d_num_invalid);
  }
  return detail::dispatch_split<detail::SplitOutput::scatter_index, T, Index>(
      d_temp, temp_bytes, d_in, static_cast<T*>(nullptr), static_cast<const Index*>(nullptr), d_permutation, n,
      num_buckets, bucket_of, d_bucket_offsets, stream, d_num_invalid);
}

template <typename T, typename BucketOp, typename Index>
cudaError_t split_index(Workspace& ws, const T* d_in, ItemCount n, uint32_t num_buckets, BucketOp bucket_of,
                        Index* d_permutation, PermutationKind kind, uint64_t* d_bucket_offsets,
                        cudaStream_t stream = 0) {
  return detail::run_checking_invalid(ws, stream, [&](void* d_temp, size_t& bytes, uint64_t* d_invalid) {
    return split_index(d_temp, bytes, d_in, n, num_buckets, bucket_of, d_permutation, kind, d_bucket_offsets,
                       stream, d_invalid);
  });
}

}  // namespace prim
