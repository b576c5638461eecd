// Enumerations shared by the device split family and its plain C++ references (no CUDA dependency here, so the
// references stay includable from host-only code such as the renderer's cpu backend).
#pragma once

namespace prim {

// stable: records of one bucket keep their input order. unstable: any order inside a bucket (its own, lighter
// downsweep kernel).
enum class SplitOrder { stable, unstable };

// What split_index returns instead of moving records:
//   gather:  out[i] = in[perm[i]]   (perm has one entry per valid record, in output order)
//   scatter: out[perm[i]] = in[i]   (perm has one entry per input record; entries of invalid records are untouched)
enum class PermutationKind { gather, scatter };

}  // namespace prim
