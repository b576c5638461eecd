// prim::KeyBits: the bucket functor of a radix pass, bits [shift, shift + bits) of an unsigned key (CUB's radix sorts
// with begin_bit = shift, end_bit = shift + bits), and the declared bucket bound it carries.
//
//   prim::segmented_split(d_temp, bytes, d_in, d_out, n, d_seg, num_segments, 256, prim::KeyBits<uint32_t>{0, 8},
//                         nullptr, stream);
//
// Declared bound. A bucket functor may declare `__host__ uint64_t bucket_bound() const`: a promise that every bucket
// it returns is below that value. When the bound is at most the call's num_buckets, no record can be invalid, and a
// call may leave out its tests for out-of-range buckets. The segmented split's tiles of a thread-block cluster
// (segments of 49153 to 65536 four-byte keys) use it. No upsweep counted their invalid records, so each
// full tile tests its keys before it ranks them, and the other tiles go through an out-of-line general tile. With a
// bound of exactly num_buckets and the all-ones key in the last bucket (KeyBits with 2^bits buckets; the call
// evaluates the functor on the host to see that), every tile is a padded tile instead, with neither, which is
// faster (docs/bench/README.md quotes the segmented rows with and without the declaration).
// A functor that declares a bound and returns a bucket at or above it breaks the calls' preconditions: their output
// is then undefined. Without the declaration every call keeps its tests, and out-of-range buckets are reported as
// documented.
#pragma once
#include "prim/detail/core/key_bits.h"
