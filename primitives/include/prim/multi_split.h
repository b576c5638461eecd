// prim::multi_split: every input element emits 0..k (bucket, payload) pairs; the pairs come out packed by bucket.
// This is the renderer's L1 (a triangle emits one reference per tile column it covers).
//
//   struct TileColumns {                                  // the emitter: one functor for counting and writing
//     template <typename Emit>
//     __host__ __device__ void operator()(int64_t i, Emit& emit) const {
//       for (uint32_t c = first_column(i); c <= last_column(i); ++c) emit(c, uint32_t(i));
//     }
//   };
//   size_t bytes = 0;
//   prim::multi_split<uint32_t>(nullptr, bytes, n, TileColumns{}, 480, d_refs, capacity, d_offsets, d_total);
//   ... d_temp = <bytes of device memory, allocated once> ...
//   prim::multi_split<uint32_t>(d_temp, bytes, n, TileColumns{}, 480, d_refs, capacity, d_offsets, d_total, s);
//   // later, on the host (once per frame or when convenient): if (*d_total > capacity) grow d_refs and redo.
//
// Emitter: `template <typename Emit> __host__ __device__ void operator()(int64_t i, Emit& emit) const` calls
// `emit(uint32_t bucket, payload)` any number of times for element i; the payload converts to Payload. It runs
// twice per element (count pass, emit pass) and must emit the same sequence both times (a pure function of i).
//
// Output: d_out holds the valid pairs' payloads packed by bucket (bucket 0 first), in input order inside a bucket
// and, for one element, in emission order. d_bucket_offsets (device, num_buckets + 1, required): bucket b occupies
// [offsets[b], offsets[b+1]); offsets[num_buckets] = *d_total_emitted (device uint64, required) = number of valid
// pairs, also when it exceeds out_capacity. In that case nothing is written to d_out (the offsets still reflect the
// counts): the caller grows d_out to at least *d_total_emitted and runs again.
//
// num_inputs may be device-resident (ItemCount); a device count above its bound writes no output, reports empty
// buckets and adds the count to *d_num_invalid. A pair whose bucket is >= num_buckets is not written, not counted
// in the total, and added to *d_num_invalid (device uint64, the call adds to it) when that pointer is non-null.
// The Workspace overload synchronises and returns cudaErrorInvalidValue if anything was invalid.
//
// One bucket is an expansion (every element's pairs, packed in input order): the emit pass writes d_out directly,
// with no split after it and no scratch for the pairs (the renderer's light bin emits tile keys so, then sorts them).
//
// Preconditions: 1 <= num_buckets <= 2048 (else cudaErrorInvalidValue). No allocation, no host synchronisation
// (except the Workspace overload); safe inside CUDA graph capture. The scratch size depends only on
// num_inputs.max, num_buckets and out_capacity (plus the Payload size).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "prim/detail/dispatch/multi_split_dispatch.cuh"
#include "prim/item_count.h"
#include "prim/workspace.h"

namespace prim {

// Largest num_buckets a multi-split call accepts.
constexpr uint32_t kMaxMultiSplitBuckets = detail::kMaxSplitBuckets;

template <typename Payload, typename EmitOp>
cudaError_t multi_split(void* d_temp, size_t& temp_bytes, ItemCount num_inputs, EmitOp emitter, uint32_t num_buckets,
                        Payload* d_out, int64_t out_capacity, uint64_t* d_bucket_offsets, uint64_t* d_total_emitted,
                        cudaStream_t stream = 0, uint64_t* d_num_invalid = nullptr) {
  return detail::multi_split_dispatch<Payload>(d_temp, temp_bytes, num_inputs, emitter, num_buckets, d_out,
                                               out_capacity, d_bucket_offsets, d_total_emitted, stream, d_num_invalid);
}

// Workspace overload (allocates on growth, synchronises, reports invalid pairs as cudaErrorInvalidValue). An
// overflow is not an error: compare *d_total_emitted with out_capacity.
template <typename Payload, typename EmitOp>
cudaError_t multi_split(Workspace& ws, ItemCount num_inputs, EmitOp emitter, uint32_t num_buckets, Payload* d_out,
                        int64_t out_capacity, uint64_t* d_bucket_offsets, uint64_t* d_total_emitted,
                        cudaStream_t stream = 0) {
  return detail::run_checking_invalid(ws, stream, [&](void* d_temp, size_t& bytes, uint64_t* d_invalid) {
    return multi_split<Payload>(d_temp, bytes, num_inputs, emitter, num_buckets, d_out, out_capacity,
                                d_bucket_offsets, d_total_emitted, stream, d_invalid);
  });
}

}  // namespace prim
