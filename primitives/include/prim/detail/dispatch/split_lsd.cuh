// LSD driver shared by SplitSort (prim/sort.h) and the iterative split (prim/iterative_split.h): a sequence of
// stable splits, each on the next digit of a wide key or bucket id, ping-ponging between the caller's output and
// one alternate buffer carved from the scratch blob so that the last pass lands in the output.
//
// Two routes, the same result:
//   one sweep  (two passes or more, n.max < 2^30): one histogram of every pass's digits (lsd_histogram.cuh), one
//              scan per pass, then each pass is a single downsweep whose tiles find their bases by look-back over
//              the whole input (GlobalLookbackPartition), as CUB's one-sweep radix sort does. The keys are read
//              passes + 1 times instead of 2 x passes.
//   per pass   (one pass, or more records): every pass is a whole prim::split, with its own upsweep and spine.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "prim/detail/core/bits.h"
#include "prim/detail/agent/lsd_histogram.cuh"
#include "prim/detail/dispatch/split_dispatch.cuh"
#include "prim/detail/core/error.h"
#include "prim/detail/core/item_count.h"
#include "prim/detail/core/key_bits.h"
#include "prim/detail/core/temp_storage.h"

namespace prim {
namespace detail {

// Digit [shift, shift + bits) of an unsigned key (bits <= kLsdDigitBits: one LSD pass). Every digit is a bucket
// of the pass (2^bits of them), and the all-ones key's is the last: a partial tile is padded (PadsWithAllOnes).
template <typename Key>
struct KeyDigit {
  static constexpr bool kPadsWithAllOnes = true;
  int shift;
  int bits;
  __host__ __device__ __forceinline__ uint32_t operator()(const Key& key) const {
    if constexpr (sizeof(Key) == 16) {
      return key.bits(shift, bits);
    } else if constexpr (sizeof(Key) <= 4) {  // 32-bit arithmetic; shift < 32 unless the range is empty
      return bits == 0 ? 0u : (static_cast<uint32_t>(key) >> shift) & ((1u << bits) - 1u);
    } else {
      return static_cast<uint32_t>((static_cast<uint64_t>(key) >> shift) & ((uint64_t{1} << bits) - 1));
    }
  }
};

// Each pass's KeyDigit (SplitSort's make_op).
template <typename Key>
struct MakeKeyDigit {
  __host__ __device__ KeyDigit<Key> operator()(int /*pass*/, int shift, int bits) const { return {shift, bits}; }
};

// The functor of a single pass by a user's functor (prim::split, split_pairs and split_index into at most 256
// buckets, below; the MakeOp of lsd_split_one_sweep): the user's bucket, or for an out-of-range one BucketOrSink's
// sink (split_dispatch.cuh), which the histogram counts invalid and the downsweep drops.
// ANY_ORDER: SplitOrder::unstable, whose pass takes its bases from cursors (GlobalSplitPass's CURSOR_BASES).
template <class BucketOp, bool ANY_ORDER = false>
struct MakeBucketOrSink {
  BucketOrSink<BucketOp> op;
  __host__ __device__ BucketOrSink<BucketOp> operator()(int /*pass*/, int /*shift*/, int /*bits*/) const { return op; }
};

// The passes of a split by a user's functor into 257..2048 buckets (below): pass p's digit is byte p of the bucket,
// and pass 0's is the sink for an out-of-range bucket.
template <class BucketOp>
struct MakeBucketBytesOrSink {
  BucketOrSink<BucketOp> op;
  __host__ __device__ BucketByteOrSink<BucketOp> operator()(int /*pass*/, int shift, int /*bits*/) const {
    return {op, shift};
  }
};

// Whether a pass's functor may return the sink (a user's functor), so that its kernels hold a general tile apart.
template <class MakeOp>
struct MakesBucketOrSink : std::false_type {
  static constexpr bool kAnyOrder = false;
};
template <class BucketOp, bool ANY_ORDER>
struct MakesBucketOrSink<MakeBucketOrSink<BucketOp, ANY_ORDER>> : std::true_type {
  static constexpr bool kAnyOrder = ANY_ORDER;
};
template <class BucketOp>
struct MakesBucketOrSink<MakeBucketBytesOrSink<BucketOp>> : std::true_type {
  static constexpr bool kAnyOrder = false;
};

// Digit [shift, shift + bits) of a user bucket id (IdOp returns uint64_t). With check_bits >= 0 (first pass
// only) an id >= 2^check_bits is reported as an out-of-range bucket, so the split drops and counts it.
template <typename IdOp>
struct IdDigit {
  IdOp id_of;
  int shift;
  int bits;
  int check_bits;  // -1: no check
  template <typename T>
  __host__ __device__ __forceinline__ uint32_t operator()(const T& record) const {
    const uint64_t id = id_of(record);
    if (check_bits >= 0 && check_bits < 64 && (id >> check_bits) != 0) return 0xFFFFFFFFu;
    return static_cast<uint32_t>((id >> shift) & ((uint64_t{1} << bits) - 1));
  }
};
// Each pass's IdDigit (the iterative split's make_op): pass 0 checks the id's width.
template <typename IdOp>
struct MakeIdDigit {
  IdOp id_of;
  int id_bits;
  __host__ __device__ IdDigit<IdOp> operator()(int pass, int shift, int bits) const {
    return {id_of, shift, bits, pass == 0 ? id_bits : -1};
  }
};
// The iterative split's pass 0 may return the sink (an id too wide), as a user's bucket functor may: so its passes
// take the functor split's shapes (a kernel for clean tiles beside one for general tiles; later passes only the
// first), which move 4-byte records as fast as SplitSort's passes, and not the slower resident shape of general tiles.
template <typename IdOp>
struct MakesBucketOrSink<MakeIdDigit<IdOp>> : std::true_type {
  static constexpr bool kAnyOrder = false;
};

// Digit widths: ceil(total_bits / 8) passes of 8 bits, the last one narrower; 0 bits still make one 1-bucket pass
// (it applies the device-resident count, and the first-pass validity check of the iterative split).
struct LsdPlan {
  int passes;
  int total_bits;
  int bits_of(int pass) const { return lsd_pass_bits(total_bits, pass); }
};
inline LsdPlan lsd_plan(int total_bits) { return {std::max(1, passes_for_bits(total_bits, kLsdDigitBits)), total_bits}; }

// Runs run_pass(pass, bits, src_keys, dst_keys, src_values, dst_values) for every pass of the plan, ping-ponging
// between the caller's output and the alternate buffers so that the last pass lands in the output.
template <class K, class V, class RunPass>
cudaError_t for_each_lsd_pass(const LsdPlan& plan, const K* keys_in, K* keys_out, K* alt_keys, const V* values_in,
                              V* values_out, V* alt_values, RunPass run_pass) {
  const K* src_keys = keys_in;
  const V* src_values = values_in;
  for (int pass = 0; pass < plan.passes; ++pass) {
    const bool to_out = (plan.passes - 1 - pass) % 2 == 0;
    K* dst_keys = to_out ? keys_out : alt_keys;
    V* dst_values = to_out ? values_out : alt_values;
    PRIM_TRY(run_pass(pass, plan.bits_of(pass), src_keys, dst_keys, src_values, dst_values));
    src_keys = dst_keys;
    src_values = dst_values;
  }
  return cudaSuccess;
}

// The shape of a one-sweep pass (GlobalSplitPass). SplitSort's 32-bit keys take CUB's one-sweep shape: a block a
// tile, with 19 keys a thread and at most 56 registers so that three blocks share an SM (keys only), or 20 records a
// thread at two blocks an SM (u32+u32 pairs; also narrower keys with u32 values, such as split_index's u16 buckets
// with u32 indices above 256 buckets). The values and their tags: OneSweepShape (tuning.h).
// The iterative split's id functor keeps the resident grid of 24-record tiles: in the keys' shape it spills at 56
// registers and was 12-15% slower (5% slower at two blocks an SM).
// A user functor's single pass (BucketOrSink) may meet out-of-range buckets, so a kernel of its pass holds the general
// tile too, whose registers make the keys' shape spill (u32 keys by a hash: 0.68 ms against 0.50 in the resident
// grid). Hence the two kernels of GlobalSplitPass's CLEAN_TILES_APART: the shape's kernel for valid input, with the
// partial last tile out of line, and a resident grid of general tiles for input with invalid records (keys 0.48 ms,
// split_index 0.50, pairs 0.67 against 0.69 in one kernel).
template <class MakeOp, class K>
constexpr bool kSortsKeyDigits = std::is_same_v<decltype(std::declval<MakeOp>()(0, 0, 0)), KeyDigit<K>>;
template <SplitOutput OUT, class K, class V, class MakeOp>
using LsdPassFor = std::conditional_t<
    OUT == SplitOutput::keys && sizeof(K) == 4 && kSortsKeyDigits<MakeOp, K>,
    GlobalSplitPass<OUT, K, V, OneSweepShape::kKeysItems, OneSweepShape::kKeysMinBlocks, true>,
    std::conditional_t<(OUT == SplitOutput::keys || OUT == SplitOutput::gather_index) && sizeof(K) == 4 &&
                           sizeof(V) <= 4 && MakesBucketOrSink<MakeOp>::value,
                       GlobalSplitPass<OUT, K, V, OneSweepShape::kKeysItems, OneSweepShape::kKeysMinBlocks, true, true,
                                       MakesBucketOrSink<MakeOp>::kAnyOrder>,
    std::conditional_t<OUT == SplitOutput::pairs && sizeof(K) <= 4 && sizeof(V) == 4 &&
                           (kSortsKeyDigits<MakeOp, K> || MakesBucketOrSink<MakeOp>::value),
                       GlobalSplitPass<OUT, K, V, OneSweepShape::kPairsItems, OneSweepShape::kPairsMinBlocks, true,
                                       MakesBucketOrSink<MakeOp>::value,
                                       MakesBucketOrSink<MakeOp>::kAnyOrder>,
                       GlobalSplitPass<OUT, K, V, OneSweepShape::kResidentItems, OneSweepShape::kResidentMinBlocks,
                                       false, false, MakesBucketOrSink<MakeOp>::kAnyOrder>>>>;

// The one-sweep route's counts: bins (MAX_PASSES x 256) and the words after them up to zeroed_end (pass 0's look-back
// words) are zeroed, one histogram counts every pass's digits, and scanned (MAX_PASSES x 257) receives each pass's
// bucket starts ([256] = the valid records). The scan overlaps the histogram, and pass 0's downsweep may overlap the
// scan (overlap: each waits for the kernel before it first): there is no stream operation between the three kernels.
template <int MAX_PASSES, class K, class MakeOp>
cudaError_t count_lsd_digits(const K* keys_in, ItemCount n, int first_bit, const LsdPlan& plan, MakeOp make_op,
                             unsigned long long* bins, const uint32_t* zeroed_end, uint64_t* scanned,
                             cudaStream_t stream, uint64_t* d_num_invalid, bool& overlap) {
  using HistPolicy = LsdHistogramPolicy<MAX_PASSES, K>;
  auto histogram = lsd_histogram_kernel<MAX_PASSES, K, MakeOp>;
  int grid = 1;
  const int64_t max_tiles = ceil_div(std::max<int64_t>(n.max, 1), HistPolicy::kTile);
  PRIM_TRY(split_grid_size(histogram, HistPolicy::kThreads, 0, 2048 / HistPolicy::kThreads, max_tiles, grid));
  PRIM_TRY(cudaMemsetAsync(bins, 0, reinterpret_cast<const char*>(zeroed_end) - reinterpret_cast<char*>(bins),
                           stream));
  const LsdPassDigits<MakeOp> digits{make_op, first_bit, plan.total_bits, plan.passes};
  histogram<<<grid, HistPolicy::kThreads, 0, stream>>>(keys_in, n, digits, bins,
                                                       reinterpret_cast<unsigned long long*>(d_num_invalid));
  PRIM_TRY_LAUNCH();
  overlap = false;
  PRIM_TRY(kernel_waits_for_earlier_kernels<lsd_scan_bins_kernel<kLsdDigits>>(overlap));
  PRIM_TRY(launch_overlapped(overlap, lsd_scan_bins_kernel<kLsdDigits>, dim3(static_cast<unsigned>(plan.passes)),
                             dim3(kLsdDigits), 0, stream, static_cast<const unsigned long long*>(bins), scanned));
  PRIM_TRY_LAUNCH();
  return cudaSuccess;
}

// The one-sweep route (see the top of this file). make_op must be callable on the device too (the histogram
// kernel builds every pass's functor). The invalid records (pass 0's) are counted by the histogram.
// d_first_pass_offsets (may be null): pass 0's bucket starts, first_pass_buckets + 1 entries (0: 2^bits(0) + 1), the
// last the valid records (a one-pass split's bucket offsets; pass 0's buckets from first_pass_buckets to 2^bits(0)
// must be empty). A single pass writes the output directly: no alternate buffers.
template <SplitOutput OUT, int MAX_PASSES, class K, class V, class MakeOp>
cudaError_t lsd_split_one_sweep(void* d_temp, size_t& temp_bytes, const K* keys_in, K* keys_out, const V* values_in,
                                V* values_out, ItemCount n, int first_bit, const LsdPlan& plan, MakeOp make_op,
                                cudaStream_t stream, uint64_t* d_num_invalid,
                                uint64_t* d_first_pass_offsets = nullptr, uint32_t first_pass_buckets = 0) {
  constexpr bool kPairs = OUT == SplitOutput::pairs;
  using Pass = LsdPassFor<OUT, K, V, MakeOp>;
  if (n.max > Pass::kMaxRecords) return cudaErrorInvalidValue;
  const bool ping_pong = plan.passes > 1;
  TempCarver carver(d_temp);
  K* alt_keys = ping_pong ? carver.take<K>(static_cast<size_t>(n.max)) : nullptr;
  V* alt_values = kPairs && ping_pong ? carver.take<V>(static_cast<size_t>(n.max)) : nullptr;
  uint64_t* scanned = carver.take<uint64_t>(size_t{MAX_PASSES} * (kLsdDigits + 1));
  // The bins and pass 0's look-back words side by side: one memset zeroes both.
  auto* bins = carver.take<unsigned long long>(size_t{MAX_PASSES} * kLsdDigits);
  uint32_t* lookback = carver.take<uint32_t>(Pass::lookback_words(n.max));
  bool size_query = false;
  PRIM_TRY(carver.finish(temp_bytes, size_query));
  if (size_query) return cudaSuccess;

  // ---- one histogram of every pass, one scan per pass ----
  const uint32_t first_digits = uint32_t{1} << plan.bits_of(0);
  const uint32_t* zeroed_end = lookback + Pass::pass_lookback_words(n.max, first_digits);
  bool overlap = false;
  PRIM_TRY((count_lsd_digits<MAX_PASSES>(keys_in, n, first_bit, plan, make_op, bins, zeroed_end, scanned, stream,
                                         d_num_invalid, overlap)));

  // ---- the passes: one downsweep each; pass 0's publishes the bucket offsets ----
  PassOptions first;
  first.bucket_offsets = d_first_pass_offsets;  // the digits above pass 0's buckets are empty
  first.offsets_buckets = first_pass_buckets ? first_pass_buckets : first_digits;
  first.lookback_zeroed = true;
  first.overlap = overlap;
  PassOptions later;
  later.later_pass = true;
  const ItemCount valid(n.max, scanned + kLsdDigits);  // pass 0's valid records: the count of every later pass
  return for_each_lsd_pass(plan, keys_in, keys_out, alt_keys, values_in, values_out, alt_values,
                           [&](int pass, int bits, const K* src_k, K* dst_k, const V* src_v, V* dst_v) {
                             return Pass::launch(src_k, dst_k, src_v, dst_v, pass == 0 ? n : valid,
                                                 uint32_t{1} << bits,
                                                 make_op(pass, first_bit + pass * kLsdDigitBits, bits),
                                                 scanned + static_cast<size_t>(pass) * (kLsdDigits + 1), lookback,
                                                 stream, pass == 0 ? first : later);
                           });
}

// ---- prim::split / split_pairs by a key's bits: SplitSort's single pass ----
// A split of SplitSort's 32- or 64-bit keys by prim::KeyBits{shift, bits} into exactly 2^bits <= 256 buckets is one
// LSD pass: no record can be invalid, and the all-ones key is in the last bucket. It takes the one-sweep route's
// kernels (one histogram, one scan, one downsweep whose tiles find their bases by look-back over the whole input, as
// CUB's one-sweep radix sort does) instead of the split's upsweep, spine and chunked downsweep. The scratch holds no
// second copy of the records (a single pass writes the output directly).
template <class K, class BucketOp>
bool splits_by_key_bits_in_one_sweep(const BucketOp& bucket_of, ItemCount n, uint32_t num_buckets) {
  if constexpr (std::is_same_v<BucketOp, KeyBits<K>> && (std::is_same_v<K, uint32_t> || std::is_same_v<K, uint64_t>)) {
    return bucket_of.bits >= 0 && bucket_of.bits <= kLsdDigitBits && bucket_of.shift >= 0 &&
           bucket_of.shift < static_cast<int>(8 * sizeof(K)) &&
           bucket_of.shift + bucket_of.bits <= static_cast<int>(8 * sizeof(K)) &&
           num_buckets == (uint32_t{1} << bucket_of.bits) && n.max >= 0 &&
           n.max <= GlobalSplitPass<SplitOutput::keys, K, NoValue>::kMaxRecords;
  } else {
    return false;
  }
}

template <SplitOutput OUT, class K, class V>
cudaError_t split_by_key_bits_one_sweep(void* d_temp, size_t& temp_bytes, const K* keys_in, K* keys_out,
                                        const V* values_in, V* values_out, ItemCount n, KeyBits<K> key_bits,
                                        uint64_t* d_bucket_offsets, cudaStream_t stream, uint64_t* d_num_invalid) {
  return lsd_split_one_sweep<OUT, 1>(d_temp, temp_bytes, keys_in, keys_out, values_in, values_out, n, key_bits.shift,
                                     lsd_plan(key_bits.bits), MakeKeyDigit<K>{}, stream, d_num_invalid,
                                     d_bucket_offsets);
}

// ---- prim::split / split_pairs / split_index by any other functor into at most 256 buckets: the same single pass ----
// A split of n.max <= kMaxRecords records, in either order, is one pass of the one-sweep route as well, its digit the
// functor's bucket with an out-of-range one (>= num_buckets) made the pass's sink: the histogram counts it invalid
// and the downsweep drops it (the general tile, as for the iterative split's first pass). The unstable order's
// tiles take their bases from per-bucket cursors instead of looking back (CURSOR_BASES). The pass has
// 2^bits_for_buckets(num_buckets) digits; those from num_buckets up stay empty. Against the split's own route
// (an upsweep a chunk, a spine scan, a downsweep with look-back inside a chunk) it saves the upsweep's table and its
// scan.
template <SplitOutput OUT, class K, class V>
bool splits_by_functor_in_one_sweep(ItemCount n, uint32_t num_buckets) {
  return num_buckets >= 1 && num_buckets <= uint32_t{kLsdDigits} && n.max >= 0 &&
         n.max <= GlobalSplitPass<OUT, K, V>::kMaxRecords;
}

template <SplitOutput OUT, class K, class V, class BucketOp>
cudaError_t split_by_functor_one_sweep(void* d_temp, size_t& temp_bytes, const K* keys_in, K* keys_out,
                                       const V* values_in, V* values_out, ItemCount n, uint32_t num_buckets,
                                       BucketOp bucket_of, uint64_t* d_bucket_offsets, cudaStream_t stream,
                                       uint64_t* d_num_invalid, SplitOrder order = SplitOrder::stable) {
  const BucketOrSink<BucketOp> op{bucket_of, num_buckets};
  const LsdPlan plan = lsd_plan(bits_for_buckets(num_buckets));
  if (order == SplitOrder::unstable) {
    return lsd_split_one_sweep<OUT, 1>(d_temp, temp_bytes, keys_in, keys_out, values_in, values_out, n, 0, plan,
                                       MakeBucketOrSink<BucketOp, true>{op}, stream, d_num_invalid,
                                       d_bucket_offsets, num_buckets);
  }
  return lsd_split_one_sweep<OUT, 1>(d_temp, temp_bytes, keys_in, keys_out, values_in, values_out, n, 0, plan,
                                     MakeBucketOrSink<BucketOp>{op}, stream, d_num_invalid, d_bucket_offsets,
                                     num_buckets);
}

// ---- prim::split / split_pairs (and split_index's bucket-index pairs) into 257..2048 buckets: two LSD passes ----
// Pass 0 splits by the bucket's low byte (an out-of-range bucket is its sink: counted invalid and dropped), pass 1 by
// the bits above it, both stable, as the split's own two passes do (dispatch_split_two_passes); here one histogram
// counts both passes' digits and each pass is a single downsweep (the one-sweep route above) instead of an upsweep,
// a spine scan and a downsweep a pass. Either order takes it (a stable split is a valid unstable one). The bucket
// offsets come from the sorted output, as on the other route.
template <SplitOutput OUT, class K, class V>
bool splits_by_functor_in_two_sweeps(ItemCount n, uint32_t num_buckets) {
  return num_buckets > uint32_t{kLsdDigits} && num_buckets <= kMaxSplitBuckets && n.max >= 0 &&
         n.max <= GlobalSplitPass<OUT, K, V>::kMaxRecords;
}

template <SplitOutput OUT, class K, class V, class BucketOp>
cudaError_t split_by_functor_two_sweeps(void* d_temp, size_t& temp_bytes, const K* keys_in, K* keys_out,
                                        const V* values_in, V* values_out, ItemCount n, uint32_t num_buckets,
                                        BucketOp bucket_of, uint64_t* d_bucket_offsets, cudaStream_t stream,
                                        uint64_t* d_num_invalid) {
  static_assert(OUT == SplitOutput::keys || OUT == SplitOutput::pairs, "two passes move records");
  const BucketOrSink<BucketOp> in_range{bucket_of, num_buckets};
  const LsdPlan plan = lsd_plan(bits_for_buckets(num_buckets));  // 9..11 bits: two passes
  TempCarver carver(d_temp);
  uint64_t* low_offsets = carver.take<uint64_t>(kLsdDigits + 1);  // pass 0's; [256] = the valid records
  size_t pass_bytes = 0;
  PRIM_TRY((lsd_split_one_sweep<OUT, 2>(nullptr, pass_bytes, keys_in, keys_out, values_in, values_out, n, 0, plan,
                                        MakeBucketBytesOrSink<BucketOp>{in_range}, stream, d_num_invalid,
                                        low_offsets)));
  void* pass_temp = carver.take<unsigned char>(pass_bytes);
  bool size_query = false;
  PRIM_TRY(carver.finish(temp_bytes, size_query));
  if (size_query) return cudaSuccess;

  PRIM_TRY((lsd_split_one_sweep<OUT, 2>(pass_temp, pass_bytes, keys_in, keys_out, values_in, values_out, n, 0, plan,
                                        MakeBucketBytesOrSink<BucketOp>{in_range}, stream, d_num_invalid,
                                        low_offsets)));
  if (d_bucket_offsets == nullptr) return cudaSuccess;
  return launch_sorted_bucket_offsets(keys_out, n.max, low_offsets + kLsdDigits, num_buckets, bucket_of,
                                      d_bucket_offsets, stream);
}

// A split into more than 256 buckets: two LSD passes of the one-sweep route where they apply, else the split's own
// two passes.
template <SplitOutput OUT, class K, class V, class BucketOp>
cudaError_t split_into_more_than_256_buckets(void* d_temp, size_t& temp_bytes, const K* keys_in, K* keys_out,
                                             const V* values_in, V* values_out, ItemCount n, uint32_t num_buckets,
                                             BucketOp bucket_of, uint64_t* d_bucket_offsets, cudaStream_t stream,
                                             uint64_t* d_num_invalid) {
  if (splits_by_functor_in_two_sweeps<OUT, K, V>(n, num_buckets)) {
    return split_by_functor_two_sweeps<OUT>(d_temp, temp_bytes, keys_in, keys_out, values_in, values_out, n,
                                            num_buckets, bucket_of, d_bucket_offsets, stream, d_num_invalid);
  }
  return dispatch_split_two_passes<OUT>(d_temp, temp_bytes, keys_in, keys_out, values_in, values_out, n, num_buckets,
                                        bucket_of, d_bucket_offsets, stream, d_num_invalid);
}

// prim::split / split_pairs: a split by a key's bits or by any functor into at most 2048 buckets as above; any other
// split (2^30 records or more), in either order, through the split's own route (dispatch_split).
template <SplitOutput OUT, class K, class V, class BucketOp>
cudaError_t dispatch_split_of_any_functor(SplitOrder order, void* d_temp, size_t& temp_bytes, const K* keys_in,
                                          K* keys_out, const V* values_in, V* values_out, ItemCount n,
                                          uint32_t num_buckets, BucketOp bucket_of, uint64_t* d_bucket_offsets,
                                          cudaStream_t stream, uint64_t* d_num_invalid) {
  if constexpr (std::is_same_v<BucketOp, KeyBits<K>>) {
    if (splits_by_key_bits_in_one_sweep<K>(bucket_of, n, num_buckets)) {  // stable: either order's promise
      return split_by_key_bits_one_sweep<OUT>(d_temp, temp_bytes, keys_in, keys_out, values_in, values_out, n,
                                              bucket_of, d_bucket_offsets, stream, d_num_invalid);
    }
  }
  if (splits_by_functor_in_one_sweep<OUT, K, V>(n, num_buckets)) {
    return split_by_functor_one_sweep<OUT>(d_temp, temp_bytes, keys_in, keys_out, values_in, values_out, n,
                                           num_buckets, bucket_of, d_bucket_offsets, stream, d_num_invalid, order);
  }
  if (num_buckets > uint32_t{kLsdDigits} && num_buckets <= kMaxSplitBuckets) {
    return split_into_more_than_256_buckets<OUT>(d_temp, temp_bytes, keys_in, keys_out, values_in, values_out, n,
                                                 num_buckets, bucket_of, d_bucket_offsets, stream, d_num_invalid);
  }
  return dispatch_split<OUT, K, V>(d_temp, temp_bytes, keys_in, keys_out, values_in, values_out, n, num_buckets,
                                   bucket_of, d_bucket_offsets, stream, d_num_invalid);
}

// make_op(pass, shift, bits) returns the pass's bucket functor (one type for every pass); MAX_PASSES bounds the
// passes (the key's or id's bits / 8).
template <SplitOutput OUT, int MAX_PASSES, class K, class V, class MakeOp>
cudaError_t lsd_split(void* d_temp, size_t& temp_bytes, const K* keys_in, K* keys_out, const V* values_in,
                      V* values_out, ItemCount n, int first_bit, int total_bits, MakeOp make_op, cudaStream_t stream,
                      uint64_t* d_num_invalid) {
  static_assert(OUT == SplitOutput::keys || OUT == SplitOutput::pairs, "LSD moves keys or pairs");
  if (n.max < 0 || total_bits < 0) return cudaErrorInvalidValue;
  const LsdPlan plan = lsd_plan(total_bits);
  if (plan.passes > MAX_PASSES) return cudaErrorInvalidValue;
  if (plan.passes >= 2 && n.max <= GlobalSplitPass<OUT, K, V>::kMaxRecords) {
    return lsd_split_one_sweep<OUT, MAX_PASSES>(d_temp, temp_bytes, keys_in, keys_out, values_in, values_out, n,
                                                first_bit, plan, make_op, stream, d_num_invalid);
  }
  constexpr bool kPairs = OUT == SplitOutput::pairs;

  TempCarver carver(d_temp);
  K* alt_keys = plan.passes > 1 ? carver.take<K>(static_cast<size_t>(n.max)) : nullptr;
  V* alt_values = (kPairs && plan.passes > 1) ? carver.take<V>(static_cast<size_t>(n.max)) : nullptr;
  // Bucket offsets of the first pass: their last entry is the number of valid records, the count of every later
  // pass (so records dropped as invalid by the first pass are not read again, and no host sync is needed).
  uint64_t* first_offsets = carver.take<uint64_t>((size_t{1} << kLsdDigitBits) + 1);
  size_t split_bytes = 0;
  PRIM_TRY((dispatch_split<OUT, K, V>(nullptr, split_bytes, keys_in, keys_out, values_in, values_out, n,
                                      uint32_t{1} << kLsdDigitBits, make_op(0, first_bit, kLsdDigitBits), nullptr,
                                      stream, nullptr)));
  void* split_temp = carver.take<unsigned char>(split_bytes);
  bool size_query = false;
  PRIM_TRY(carver.finish(temp_bytes, size_query));
  if (size_query) return cudaSuccess;

  const ItemCount valid(n.max, first_offsets + (size_t{1} << plan.bits_of(0)));
  return for_each_lsd_pass(plan, keys_in, keys_out, alt_keys, values_in, values_out, alt_values,
                           [&](int pass, int bits, const K* src_k, K* dst_k, const V* src_v, V* dst_v) {
                             size_t bytes = split_bytes;
                             return dispatch_split<OUT, K, V>(
                                 split_temp, bytes, src_k, dst_k, src_v, dst_v, pass == 0 ? n : valid,
                                 uint32_t{1} << bits, make_op(pass, first_bit + pass * kLsdDigitBits, bits),
                                 pass == 0 ? first_offsets : nullptr, stream, pass == 0 ? d_num_invalid : nullptr);
                           });
}

}  // namespace detail
}  // namespace prim
