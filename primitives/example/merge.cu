// prim::merge_pairs: two sorted lists of hits (depth, triangle id), say from two halves of a scene, merged into one
// front-to-back list. Hits at the same depth keep the first list's first (a stable merge). Prints the first hits and
// `ok`; exits non-zero with the CUDA error where no usable GPU exists.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "prim/prim.h"

#define CHECK(call)                                                                                        \
  do {                                                                                                     \
    const cudaError_t status_ = (call);                                                                    \
    if (status_ != cudaSuccess) {                                                                          \
      std::fprintf(stderr, "prim_example_merge: %s failed: %s (%s)\n", #call, cudaGetErrorName(status_),  \
                   cudaGetErrorString(status_));                                                           \
      return 1;                                                                                            \
    }                                                                                                      \
  } while (0)

int main() {
  constexpr int64_t na = 300000, nb = 200000;
  // Depths in fixed point (sorted), ids: the first list's triangles are 0.., the second's 1'000'000..
  std::vector<uint32_t> depth_a(na), depth_b(nb), id_a(na), id_b(nb);
  for (int64_t i = 0; i < na; ++i) depth_a[i] = static_cast<uint32_t>(i * 7 / 3), id_a[i] = static_cast<uint32_t>(i);
  for (int64_t i = 0; i < nb; ++i) depth_b[i] = static_cast<uint32_t>(i * 7 / 2), id_b[i] = 1000000u + static_cast<uint32_t>(i);

  prim::DeviceBuffer<uint32_t> d_depth_a, d_depth_b, d_id_a, d_id_b, d_depth, d_id;
  for (auto* b : {&d_depth_a, &d_id_a}) CHECK(b->allocate(na));
  for (auto* b : {&d_depth_b, &d_id_b}) CHECK(b->allocate(nb));
  for (auto* b : {&d_depth, &d_id}) CHECK(b->allocate(na + nb));
  CHECK(d_depth_a.upload(depth_a.data(), na));
  CHECK(d_id_a.upload(id_a.data(), na));
  CHECK(d_depth_b.upload(depth_b.data(), nb));
  CHECK(d_id_b.upload(id_b.data(), nb));

  // Size query, one allocation, then the stream-ordered call.
  size_t temp_bytes = 0;
  CHECK(prim::merge_pairs(nullptr, temp_bytes, d_depth_a.data(), d_id_a.data(), na, d_depth_b.data(), d_id_b.data(),
                          nb, d_depth.data(), d_id.data()));
  prim::DeviceBuffer<unsigned char> temp;
  CHECK(temp.allocate(temp_bytes));
  cudaStream_t stream = nullptr;
  CHECK(cudaStreamCreate(&stream));
  CHECK(prim::merge_pairs(temp.data(), temp_bytes, d_depth_a.data(), d_id_a.data(), na, d_depth_b.data(),
                          d_id_b.data(), nb, d_depth.data(), d_id.data(), prim::Less{}, stream));
  CHECK(cudaStreamSynchronize(stream));

  std::vector<uint32_t> depth(na + nb), id(na + nb);
  CHECK(d_depth.download(depth.data(), depth.size()));
  CHECK(d_id.download(id.data(), id.size()));
  bool ok = std::is_sorted(depth.begin(), depth.end());
  for (size_t i = 1; i < depth.size(); ++i) {
    // Equal depths: the first list's hits first, each list in its own order.
    if (depth[i] == depth[i - 1]) ok = ok && (id[i - 1] < 1000000u || id[i] >= 1000000u) && id[i - 1] < id[i];
  }
  std::printf("%lld + %lld hits merged front to back\n  depth  triangle\n", static_cast<long long>(na),
              static_cast<long long>(nb));
  for (int i = 0; i < 6; ++i) std::printf("%7u  %8u\n", depth[i], id[i]);
  std::printf("%s\n", ok ? "ok: sorted by depth, equal depths in input order (first list first)" : "MISMATCH");
  cudaStreamDestroy(stream);
  return ok ? 0 : 1;
}
