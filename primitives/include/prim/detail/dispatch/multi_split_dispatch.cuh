// Multi-split engine: count pass -> scan of per-element counts -> emit pass -> stable split of the pairs by bucket.
//
// The user's emitter runs twice per element, once with a counting `emit` and once with a writing one; both are
// the same function, so the two passes cannot disagree about how many pairs an element makes (gsplat's
// intersect-tile kernel). The emit pass lays the pairs out in input order (element i's pairs start at the
// exclusive sum of the counts), and prim::split_pairs then moves them stably into their buckets. The bucket
// offsets and the total come from the count pass, so they are right also when the total exceeds the capacity
// (then the emit pass and the split write nothing).
//
// The host side: count pass -> scan of per-element counts -> emit pass -> stable split of the pairs by bucket. With one
// bucket the emit pass's input order is the answer: it writes the output, and there is no split (an expansion:
// every element's pairs, packed in input order).
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "prim/detail/agent/multi_split_agent.cuh"
#include "prim/detail/core/bits.h"
#include "prim/detail/core/error.h"
#include "prim/detail/core/item_count.h"
#include "prim/detail/core/temp_storage.h"
#include "prim/detail/dispatch/cub_calls.cuh"
#include "prim/detail/dispatch/split_lsd.cuh"

namespace prim {
namespace detail {

struct IdentityBucket {
  __host__ __device__ uint32_t operator()(uint32_t bucket) const { return bucket; }
};

// The stable split of the emitted (bucket, payload) pairs: prim::split_pairs with the identity bucket functor.
template <typename Payload>
cudaError_t split_identity_buckets(void* d_temp, size_t& temp_bytes, const uint32_t* buckets_in, uint32_t* buckets_out,
                                   const Payload* payloads_in, Payload* payloads_out, ItemCount n,
                                   uint32_t num_buckets, cudaStream_t stream) {
  return dispatch_split_of_any_functor<SplitOutput::pairs, uint32_t, Payload>(
      SplitOrder::stable, d_temp, temp_bytes, buckets_in, buckets_out, payloads_in, payloads_out, n, num_buckets,
      IdentityBucket{}, nullptr, stream, nullptr);
}

template <typename Payload, typename EmitOp>
cudaError_t multi_split_dispatch(void* d_temp, size_t& temp_bytes, ItemCount num_inputs, EmitOp emitter,
                                 uint32_t num_buckets, Payload* d_out, int64_t out_capacity,
                                 uint64_t* d_bucket_offsets, uint64_t* d_total_emitted, cudaStream_t stream,
                                 uint64_t* d_num_invalid) {
  using Policy = MultiSplitPolicy;
  if (num_inputs.max < 0 || out_capacity < 0 || num_buckets == 0 || num_buckets > kMaxSplitBuckets ||
      d_bucket_offsets == nullptr || d_total_emitted == nullptr) {
    return cudaErrorInvalidValue;
  }
  const int64_t n_max = num_inputs.max;
  const int64_t capacity = out_capacity;

  // One bucket: the pairs in input order are the output, so the emit pass writes them there and nothing is split.
  const bool one_bucket = num_buckets == 1;
  const size_t pairs = one_bucket ? 0 : static_cast<size_t>(capacity);
  TempCarver carver(d_temp);
  uint32_t* counts = carver.take<uint32_t>(static_cast<size_t>(n_max));
  uint64_t* starts = carver.take<uint64_t>(static_cast<size_t>(n_max));
  unsigned long long* hist = carver.take<unsigned long long>(num_buckets);
  uint64_t* split_count = carver.take<uint64_t>(1);
  uint32_t* pair_buckets = carver.take<uint32_t>(pairs);
  uint32_t* sorted_buckets = carver.take<uint32_t>(pairs);
  Payload* pair_payloads = carver.take<Payload>(pairs);
  size_t scan_bytes = 0;
  PRIM_TRY(detail::exclusive_sum(nullptr, scan_bytes, counts, starts, n_max, stream));
  void* scan_temp = carver.take<unsigned char>(scan_bytes);
  const ItemCount split_n(capacity, split_count);
  size_t split_bytes = 0;
  if (!one_bucket) {
    PRIM_TRY(split_identity_buckets(nullptr, split_bytes, pair_buckets, sorted_buckets, pair_payloads, d_out, split_n,
                                    num_buckets, stream));
  }
  void* split_temp = carver.take<unsigned char>(split_bytes);
  bool size_query = false;
  PRIM_TRY(carver.finish(temp_bytes, size_query));
  if (size_query) return cudaSuccess;

  const bool shared_hist = num_buckets <= Policy::kMaxSharedHistogram;
  const int64_t blocks = std::min<int64_t>(std::max<int64_t>(ceil_div(n_max, Policy::kCountThreads), 1), Policy::kMaxGrid);
  const dim3 grid(static_cast<unsigned>(blocks)), block(Policy::kCountThreads);

  // ---- count pass ----
  PRIM_TRY(cudaMemsetAsync(hist, 0, num_buckets * sizeof(unsigned long long), stream));
  if (n_max > 0) {
    if (one_bucket) {
      multi_split_count_kernel<Policy, HistogramIn::block_sum><<<grid, block, 0, stream>>>(
          emitter, num_inputs, num_buckets, counts, hist, d_num_invalid);
    } else if (shared_hist) {
      multi_split_count_kernel<Policy, HistogramIn::shared><<<grid, block, num_buckets * sizeof(uint32_t), stream>>>(
          emitter, num_inputs, num_buckets, counts, hist, d_num_invalid);
    } else {
      multi_split_count_kernel<Policy, HistogramIn::global><<<grid, block, 0, stream>>>(
          emitter, num_inputs, num_buckets, counts, hist, d_num_invalid);
    }
    PRIM_TRY_LAUNCH();
  }
  // ---- bucket offsets and total ----
  multi_split_finalize_kernel<Policy><<<1, Policy::kFinalizeThreads, 0, stream>>>(
      num_inputs, num_buckets, hist, capacity, d_bucket_offsets, d_total_emitted, split_count, d_num_invalid);
  PRIM_TRY_LAUNCH();
  if (n_max == 0) return cudaSuccess;
  // ---- where each element's pairs start ----
  PRIM_TRY(detail::exclusive_sum(scan_temp, scan_bytes, counts, starts, n_max, stream));
  // ---- emit pass: pairs in input order (one bucket: straight into the output, which is then complete) ----
  if (one_bucket) {
    multi_split_emit_kernel<Policy, false><<<grid, block, 0, stream>>>(emitter, num_inputs, num_buckets, starts,
                                                                        d_total_emitted, capacity, nullptr, d_out);
    PRIM_TRY_LAUNCH();
    return cudaSuccess;
  }
  multi_split_emit_kernel<Policy, true><<<grid, block, 0, stream>>>(emitter, num_inputs, num_buckets, starts,
                                                                     d_total_emitted, capacity, pair_buckets,
                                                                     pair_payloads);
  PRIM_TRY_LAUNCH();
  // ---- stable split of the pairs by bucket (moves nothing when they did not fit) ----
  return split_identity_buckets(split_temp, split_bytes, pair_buckets, sorted_buckets, pair_payloads, d_out, split_n,
                                num_buckets, stream);
}

}  // namespace detail
}  // namespace prim
