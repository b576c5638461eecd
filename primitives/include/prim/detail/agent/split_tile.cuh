// The split engine's tile vocabulary: what a downsweep writes, the bucket functors every pass adapts, and the
// arrays a tile reads and writes. Shared by the upsweep and downsweep agents and by host dispatch.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "prim/detail/core/item_count.h"

namespace prim {
namespace detail {

// What a downsweep writes.
enum class SplitOutput {
  keys,           // records (keys) only
  pairs,          // keys and values
  gather_index,   // out[pos] = original index (no records moved)
  scatter_index,  // out[original index] = pos (no records moved, no exchange needed)
  // The first pass of split_index into more than 256 buckets (split_index_two_passes.cuh): out[pos] = original index
  // as gather_index, and buckets_out[pos] = the record's whole bucket (16 bits; the pass splits by its low byte), the
  // (bucket, index) pairs that the second pass splits by the bucket's high byte.
  buckets_and_gather_index,
};


// A functor's bucket, or kSinkBucket for one out of range (>= num_buckets): every split pass drops and counts that.
constexpr uint32_t kSinkBucket = 0xFFFFFFFFu;
template <class BucketOp>
struct BucketOrSink {
  BucketOp bucket_of;
  uint32_t num_buckets;
  template <class T>
  __host__ __device__ __forceinline__ uint32_t operator()(const T& record) const {
    const uint32_t bucket = bucket_of(record);
    return bucket < num_buckets ? bucket : kSinkBucket;
  }
};
// Byte `shift / 8` of a functor's bucket, or the sink for an out-of-range bucket: each pass of a split into more than
// 256 buckets (shift 0, then 8), on either route (dispatch_split_two_passes, and split_lsd.cuh's two sweeps).
template <class BucketOp>
struct BucketByteOrSink {
  BucketOrSink<BucketOp> in_range;
  int shift = 0;
  template <class T>
  __host__ __device__ __forceinline__ uint32_t operator()(const T& record) const {
    const uint32_t bucket = in_range(record);
    return bucket == kSinkBucket ? kSinkBucket : ((bucket >> shift) & 0xFFu);
  }
};
template <class BucketOp>
struct IsBucketByteOrSink : std::false_type {};
template <class BucketOp>
struct IsBucketByteOrSink<BucketByteOrSink<BucketOp>> : std::true_type {};

// What a downsweep writes where the keys go: the records themselves, or buckets_and_gather_index's 16-bit buckets.
template <SplitOutput OUT, class KeyT>
using SplitKeysOut = std::conditional_t<OUT == SplitOutput::buckets_and_gather_index, uint16_t, KeyT>;

struct NoValue {};

// A bucket functor that declares `static constexpr bool kPadsWithAllOnes = true` promises that every record's bucket
// is in range and that the key of all one bits falls in the last bucket (SplitSort's key digits). A partial tile
// of such a split is then padded with that key, as CUB pads its last tile: the padding ranks after every real
// record of the last bucket, so the clean tile's code serves it with a bound on the scatter, and the split's kernel
// has no sink path at all.
template <class BucketOp, class = void>
struct PadsWithAllOnes : std::false_type {};
template <class BucketOp>
struct PadsWithAllOnes<BucketOp, std::void_t<decltype(BucketOp::kPadsWithAllOnes)>>
    : std::integral_constant<bool, BucketOp::kPadsWithAllOnes> {};

template <class T>
__device__ __forceinline__ T all_ones() {
  T out;
  memset(&out, 0xFF, sizeof(T));
  return out;
}

// How a downsweep tile is split (SplitDownsweepAgent::split_tile):
//   clean   — a full tile whose run has no out-of-range record: no bounds, no sinks;
//   padded  — a partial tile of a PadsWithAllOnes functor: the clean code, with all-ones keys past the end;
//   general — anything else: out-of-range records and the unused tail are ranked under the sink digit.
enum class TileKind { clean, padded, general };

// The real element count inside a kernel (device-resident counts are read here, never on the host).
__device__ __forceinline__ int64_t resolve_count(const ItemCount& n) {
  if (n.device == nullptr) return n.max;
  const uint64_t c = *n.device;
  return c <= static_cast<uint64_t>(n.max) ? static_cast<int64_t>(c) : 0;
}

// Everything a downsweep tile needs besides its position.
template <class KeyT, class ValueT, class BucketOp, class KeysOutT = KeyT>
struct SplitIo {
  const KeyT* __restrict__ keys_in;
  KeysOutT* __restrict__ keys_out;
  const ValueT* __restrict__ values_in;
  ValueT* __restrict__ values_out;
  uint32_t num_buckets;
  BucketOp bucket_of;
};

}  // namespace detail
}  // namespace prim
