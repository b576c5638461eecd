// Plain C++ references of gather and scatter over raw records (record_bytes each). No CUDA.
// Same contract as prim/gather_scatter.h: a map entry outside the valid range is not accessed and is counted.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace prim::reference {

template <typename Index>
bool map_entry_valid(Index v, int64_t bound) {
  if constexpr (std::is_signed_v<Index>) {
    return v >= 0 && static_cast<int64_t>(v) < bound;
  } else {
    return static_cast<uint64_t>(v) < static_cast<uint64_t>(bound);
  }
}

// out[i] = in[map[i]] for i < n, in has in_size records; returns the number of invalid map entries.
template <typename Index>
uint64_t gather_bytes(const void* in, void* out, const Index* map, int64_t n, int64_t in_size, size_t record_bytes) {
  uint64_t invalid = 0;
  const auto* src = static_cast<const unsigned char*>(in);
  auto* dst = static_cast<unsigned char*>(out);
  for (int64_t i = 0; i < n; ++i) {
    if (!map_entry_valid(map[i], in_size)) {
      ++invalid;
      continue;
    }
    std::memcpy(dst + static_cast<size_t>(i) * record_bytes, src + static_cast<size_t>(map[i]) * record_bytes,
                record_bytes);
  }
  return invalid;
}

// out[map[i]] = in[i] for i < n, out has out_size records; returns the number of invalid map entries.
// With duplicate map entries the later i wins here (the device leaves it unspecified).
template <typename Index>
uint64_t scatter_bytes(const void* in, void* out, const Index* map, int64_t n, int64_t out_size, size_t record_bytes) {
  uint64_t invalid = 0;
  const auto* src = static_cast<const unsigned char*>(in);
  auto* dst = static_cast<unsigned char*>(out);
  for (int64_t i = 0; i < n; ++i) {
    if (!map_entry_valid(map[i], out_size)) {
      ++invalid;
      continue;
    }
    std::memcpy(dst + static_cast<size_t>(map[i]) * record_bytes, src + static_cast<size_t>(i) * record_bytes,
                record_bytes);
  }
  return invalid;
}

template <typename T, typename Index>
uint64_t gather(const T* in, T* out, const Index* map, int64_t n, int64_t in_size) {
  static_assert(std::is_trivially_copyable_v<T>);
  return gather_bytes(in, out, map, n, in_size, sizeof(T));
}
template <typename T, typename Index>
uint64_t scatter(const T* in, T* out, const Index* map, int64_t n, int64_t out_size) {
  static_assert(std::is_trivially_copyable_v<T>);
  return scatter_bytes(in, out, map, n, out_size, sizeof(T));
}

}  // namespace prim::reference
