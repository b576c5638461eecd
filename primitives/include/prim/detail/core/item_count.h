// ItemCount: an element count that may live on the device, so that frame loops never synchronise to read a
// count that an earlier stage produced (moderngpu's launch over a device-resident count; CUB's
// d_num_selected_out on the producing side).
#pragma once
#include <cstdint>

namespace prim {

struct ItemCount {
  // Host upper bound: sizes the scratch memory and the grids. Always valid, also when `device` is set.
  int64_t max = 0;
  // If non-null, the real count is *device (read by the kernels, never by the host); it must be <= max.
  // If *device > max the call writes no output, reports zero-sized buckets, and counts all *device items as
  // invalid (in d_num_invalid where the call has one).
  const uint64_t* device = nullptr;

  ItemCount() = default;
  ItemCount(int64_t host_count) : max(host_count) {}  // NOLINT(google-explicit-constructor): a plain host count
  ItemCount(int64_t max_count, const uint64_t* device_count) : max(max_count), device(device_count) {}

  bool on_device() const { return device != nullptr; }
};

}  // namespace prim
