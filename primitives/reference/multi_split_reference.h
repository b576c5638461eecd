// Plain C++ reference of prim::multi_split, with exactly the device semantics. It is the tests' oracle and the
// renderer cpu backend's L1 (the same emitter functor runs on the host).
//
// Semantics: element i in [0, num_inputs) emits 0..k (bucket, payload) pairs through `emitter(i, emit)`.
// Pairs are packed by bucket, stable by input order and, within one element, by emission order.
//   bucket_offsets[b] (num_buckets + 1 entries): start of bucket b; bucket_offsets[num_buckets] = total.
//   total (returned in *total_emitted): the number of valid pairs, also when it exceeds out_capacity.
//   total > out_capacity: nothing is written to `out` (the offsets still describe the counts).
//   A pair whose bucket is >= num_buckets is not written and not counted in the total; it is counted in the
//   return value (the device call's *d_num_invalid).
#pragma once
#include <cstdint>
#include <vector>

#if defined(__CUDACC__)
#define PRIM_REFERENCE_HD __host__ __device__
#else
#define PRIM_REFERENCE_HD
#endif

namespace prim {
namespace reference {
namespace multi_split_detail {

// The `emit` handed to the emitter while counting: per-bucket counts, invalid pairs counted apart.
struct CountEmit {
  uint64_t* counts;
  uint32_t num_buckets;
  uint64_t invalid = 0;
  template <typename P>
  PRIM_REFERENCE_HD void operator()(uint32_t bucket, const P&) {
    if (bucket < num_buckets) {
      ++counts[bucket];
    } else {
      ++invalid;
    }
  }
};

// The `emit` handed to the emitter while writing: each valid pair goes to its bucket's cursor.
template <typename Payload>
struct WriteEmit {
  uint64_t* cursor;
  Payload* out;
  uint32_t num_buckets;
  template <typename P>
  PRIM_REFERENCE_HD void operator()(uint32_t bucket, const P& payload) {
    if (bucket < num_buckets) out[cursor[bucket]++] = static_cast<Payload>(payload);
  }
};

}  // namespace multi_split_detail

// Returns the number of invalid pairs. bucket_offsets must hold num_buckets + 1 entries; total_emitted may be null.
template <typename Payload, typename EmitOp>
uint64_t multi_split(int64_t num_inputs, EmitOp emitter, uint32_t num_buckets, Payload* out, int64_t out_capacity,
                     uint64_t* bucket_offsets, uint64_t* total_emitted) {
  std::vector<uint64_t> counts(num_buckets, 0);
  multi_split_detail::CountEmit counter{counts.data(), num_buckets};
  for (int64_t i = 0; i < num_inputs; ++i) emitter(i, counter);

  std::vector<uint64_t> start(static_cast<size_t>(num_buckets) + 1, 0);
  for (uint32_t b = 0; b < num_buckets; ++b) start[b + 1] = start[b] + counts[b];
  const uint64_t total = start[num_buckets];
  for (uint32_t b = 0; b <= num_buckets; ++b) bucket_offsets[b] = start[b];
  if (total_emitted) *total_emitted = total;
  if (total > static_cast<uint64_t>(out_capacity < 0 ? 0 : out_capacity)) return counter.invalid;

  multi_split_detail::WriteEmit<Payload> writer{start.data(), out, num_buckets};
  for (int64_t i = 0; i < num_inputs; ++i) emitter(i, writer);
  return counter.invalid;
}

}  // namespace reference
}  // namespace prim
