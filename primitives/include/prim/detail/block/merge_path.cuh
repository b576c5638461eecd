// Merge path (Green, McColl and Bader, "GPU Merge Path"): where a diagonal of the merge matrix of two sorted sequences
// crosses the path, by binary search along the diagonal. The first `diag` items of the merged sequence hold the first
// merge_path(...) items of the first sequence and the rest from the second, so a merge splits into independent pieces
// at any set of diagonals.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

namespace prim {
namespace detail {

// The order of a merge step: the second sequence's head goes first when take_second(first_head, second_head).
// A stable merge by `comp` takes the second only when its head is strictly less (ties keep the first sequence first).
template <class Compare>
struct SecondIfLess {
  Compare comp;
  template <class A, class B>
  __host__ __device__ __forceinline__ bool operator()(const A& first, const B& second) const {
    return comp(second, first);
  }
};

// The number of items of `a` among the first `diag` items of the merge of a[0, na) and b[0, nb) in the order of
// take_second (0 <= diag <= na + nb). Whatever the inputs hold, the result lies in [max(0, diag - nb), min(diag, na)],
// so the pieces it cuts never reach outside the inputs; only sorted inputs make neighbouring cuts ordered.
template <class Offset, class ItA, class ItB, class TakeSecond>
__host__ __device__ __forceinline__ Offset merge_path(ItA a, Offset na, ItB b, Offset nb, Offset diag,
                                                      TakeSecond take_second) {
  Offset lo = diag > nb ? diag - nb : 0;
  Offset hi = diag < na ? diag : na;
  while (lo < hi) {
    const Offset mid = lo + (hi - lo) / 2;
    if (take_second(a[mid], b[diag - 1 - mid])) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

}  // namespace detail
}  // namespace prim
