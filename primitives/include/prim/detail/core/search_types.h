// Enumerations of the search calls (no CUDA dependency, as split_types.h).
#pragma once

namespace prim {

// What the caller knows of the needles' order. `sorted` (by the search's comparator) lets a call sweep needles and
// haystack together where that reads less than searching each needle; `any` searches each needle.
enum class NeedleOrder { any, sorted };

}  // namespace prim
