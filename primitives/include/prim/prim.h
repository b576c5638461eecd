// slabcast's primitives library, all of it: #include "prim/prim.h" (or the one header you need).
// API documentation with a compiled example: primitives/README.md.
#pragma once

#include "prim/error.h"          // PRIM_TRY: every call returns cudaError_t
#include "prim/item_count.h"     // ItemCount: host count or device-resident count with a host bound
#include "prim/temp_storage.h"   // two-phase caller scratch (size query, then the call)
#include "prim/workspace.h"      // Workspace: owning scratch for casual callers
#include "prim/device_buffer.h"  // DeviceBuffer: the owning device array

#include "prim/histogram.h"      // histogram_buckets (functor), histogram_even / histogram_range (CUB)
#include "prim/reduce.h"         // reduce, reduce_sum / min / max (CUB)
#include "prim/scan.h"           // inclusive / exclusive scan and sum (CUB)

#include "prim/iterative_split.h"  // iterative_split / iterative_split_pairs (LSD): wide ids
#include "prim/key_bits.h"         // KeyBits: a key's bits as its bucket, with a declared bucket bound
#include "prim/multi_split.h"      // multi_split: 0..k (bucket, payload) pairs per element
#include "prim/segmented_split.h"  // segmented_split: every segment split on its own
#include "prim/split.h"            // split / split_pairs: stable or unstable, by a bucket functor
#include "prim/split_index.h"      // split_index: the gather or scatter permutation of a split
#include "prim/sort.h"             // SplitSort: sort_keys / sort_pairs for 32-, 64-, 128-bit keys
#include "prim/uint128.h"          // uint128 keys

#include "prim/gather_scatter.h"   // gather / scatter of records of any size
#include "prim/hash_map.h"         // HashMap / HashMapView: bulk insert, find, contains (u32 / u64 keys and values)

#include "prim/merge.h"    // merge / merge_pairs: stable merge of two sorted sequences (merge path)
#include "prim/search.h"   // lower_bound / upper_bound of many needles in a sorted haystack
#include "prim/select.h"   // select_if / select_flagged / select_unique / partition_if: stable compaction
#include "prim/range_tree.h"  // range_tree_build / _count / _sum / _report: a static 2-D range tree, box queries
