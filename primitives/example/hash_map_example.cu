// The hash map example of primitives/README.md: index sparse 32-bit ids (say, the ids of the particles alive in a
// frame) by their position, then look ids up on the device. The first occurrence of a repeated id wins (the map keeps
// the smallest value, and the values are positions). Prints a few answers and "ok"; exits non-zero with the CUDA
// error where no usable GPU exists.
#include <cstdint>
#include <cstdio>
#include <vector>

#include "prim/prim.h"

#define CHECK(call)                                                                                          \
  do {                                                                                                       \
    const cudaError_t status_ = (call);                                                                      \
    if (status_ != cudaSuccess) {                                                                            \
      std::fprintf(stderr, "prim_hash_map_example: %s failed: %s (%s)\n", #call, cudaGetErrorName(status_),  \
                   cudaGetErrorString(status_));                                                             \
      return 1;                                                                                              \
    }                                                                                                        \
  } while (0)

int main() {
  constexpr int64_t n = 1 << 20;
  constexpr int64_t queries = 8;

  // Ids: every 7th multiple of a large odd number, with each id of an even position repeated at the next one.
  std::vector<uint32_t> ids(n), positions(n);
  for (int64_t i = 0; i < n; ++i) {
    ids[i] = static_cast<uint32_t>((i & ~int64_t{1}) * 7 * 2654435761u);
    positions[i] = static_cast<uint32_t>(i);
  }
  const uint32_t asked[queries] = {ids[0], ids[2], ids[1001], ids[n - 1], 12345u, 7u, ids[n / 2], 0xFFFFFFFFu};

  prim::DeviceBuffer<uint32_t> ids_buf, positions_buf, asked_buf, found_buf;
  prim::DeviceBuffer<bool> present_buf;
  prim::DeviceBuffer<uint64_t> invalid_buf;
  CHECK(ids_buf.allocate(n));
  CHECK(positions_buf.allocate(n));
  CHECK(asked_buf.allocate(queries));
  CHECK(found_buf.allocate(queries));
  CHECK(present_buf.allocate(queries));
  CHECK(invalid_buf.allocate(1));
  CHECK(ids_buf.upload(ids.data(), n));
  CHECK(positions_buf.upload(positions.data(), n));
  CHECK(asked_buf.upload(asked, queries));
  CHECK(invalid_buf.fill_bytes(0));

  // The table: u32 -> u32 slots (8 bytes) for n / 2 distinct ids at load 0.8, allocated once and cleared. The calls
  // below allocate nothing and never wait for the host; 0xFFFFFFFF is the reserved (empty) key, so the last query
  // is counted invalid and not found.
  using Map = prim::HashMap<uint32_t, uint32_t>;
  Map map;
  CHECK(map.allocate(Map::View::capacity_for(n / 2, 0.8)));
  cudaStream_t stream = nullptr;
  CHECK(cudaStreamCreate(&stream));
  CHECK(cudaDeviceSynchronize());  // the uploads and the clear ran on the legacy stream
  CHECK(map.insert(ids_buf.data(), positions_buf.data(), n, stream, invalid_buf.data()));
  CHECK(map.find(asked_buf.data(), found_buf.data(), queries, prim::hash_map_not_found<uint32_t>(), stream,
                 invalid_buf.data()));
  CHECK(map.contains(asked_buf.data(), present_buf.data(), queries, stream));
  CHECK(cudaStreamSynchronize(stream));

  uint32_t found[queries];
  bool present[queries];
  uint64_t invalid = 0;
  CHECK(found_buf.download(found, queries));
  CHECK(present_buf.download(present, queries));
  CHECK(invalid_buf.download(&invalid, 1));

  std::printf("%lld ids (%lld distinct) in a table of %llu slots (%.1f MiB)\n", static_cast<long long>(n),
              static_cast<long long>(n / 2), static_cast<unsigned long long>(map.capacity()), map.bytes() / 1048576.0);
  std::printf("        id   position   present\n");
  bool ok = invalid == 1;
  for (int64_t q = 0; q < queries; ++q) {
    // The expected answer: the first position holding the id.
    uint32_t first = prim::hash_map_not_found<uint32_t>();
    for (int64_t i = 0; i < n && asked[q] != 0xFFFFFFFFu; ++i) {
      if (ids[i] == asked[q]) {
        first = static_cast<uint32_t>(i);
        break;
      }
    }
    ok = ok && found[q] == first && present[q] == (first != prim::hash_map_not_found<uint32_t>());
    if (found[q] == prim::hash_map_not_found<uint32_t>()) {
      std::printf("%10u          -   %s\n", asked[q], present[q] ? "yes" : "no");
    } else {
      std::printf("%10u %10u   %s\n", asked[q], found[q], present[q] ? "yes" : "no");
    }
  }
  std::printf("%s\n", ok ? "ok: every id found at its first position, absent ids not found, the reserved id counted"
                         : "MISMATCH");
  cudaStreamDestroy(stream);
  return ok ? 0 : 1;
}
