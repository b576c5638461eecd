// The compaction calls on a frame's triangles: keep the visible ones (select_if), the ones a flag marks
// (select_flagged), one of each run of equal sorted cell ids (select_unique), and split into visible and hidden
// (partition_if, both sides in input order). Counts stay on the device until the end. Prints the counts and `ok`;
// exits non-zero with the CUDA error where no usable GPU exists.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <vector>

#include "prim/prim.h"

#define CHECK(call)                                                                                         \
  do {                                                                                                      \
    const cudaError_t status_ = (call);                                                                     \
    if (status_ != cudaSuccess) {                                                                           \
      std::fprintf(stderr, "prim_example_select: %s failed: %s (%s)\n", #call, cudaGetErrorName(status_),  \
                   cudaGetErrorString(status_));                                                            \
      return 1;                                                                                             \
    }                                                                                                       \
  } while (0)

struct Triangle {
  uint32_t id;
  float depth;  // negative: behind the camera
};

struct InFront {
  __host__ __device__ bool operator()(const Triangle& t) const { return t.depth > 0.0f; }
};

int main() {
  constexpr int64_t n = 1 << 20;
  std::vector<Triangle> tris(n);
  std::vector<uint8_t> marked(n);
  std::vector<uint32_t> cells(n);
  for (int64_t i = 0; i < n; ++i) {
    tris[i] = Triangle{static_cast<uint32_t>(i), static_cast<float>(static_cast<int64_t>((i * 2654435761u) % 1000) - 300)};
    marked[i] = static_cast<uint8_t>(i % 5 == 0);
    cells[i] = static_cast<uint32_t>(i / 3);  // sorted cell ids, runs of 3
  }

  prim::DeviceBuffer<Triangle> d_tris, d_visible, d_hidden, d_marked_tris;
  prim::DeviceBuffer<uint8_t> d_marked;
  prim::DeviceBuffer<uint32_t> d_cells, d_unique_cells;
  prim::DeviceBuffer<uint64_t> d_counts;  // visible, marked, distinct cells, visible again (partition)
  for (auto* b : {&d_tris, &d_visible, &d_hidden, &d_marked_tris}) CHECK(b->allocate(n));
  CHECK(d_marked.allocate(n));
  CHECK(d_cells.allocate(n));
  CHECK(d_unique_cells.allocate(n));
  CHECK(d_counts.allocate(4));
  CHECK(d_tris.upload(tris.data(), n));
  CHECK(d_marked.upload(marked.data(), n));
  CHECK(d_cells.upload(cells.data(), n));
  uint64_t* c = d_counts.data();

  // Size queries first, one allocation, then stream-ordered calls that allocate nothing and never wait for the host.
  size_t sizes[4] = {};
  CHECK(prim::select_if(nullptr, sizes[0], d_tris.data(), d_visible.data(), c, n, InFront{}));
  CHECK(prim::select_flagged(nullptr, sizes[1], d_tris.data(), d_marked.data(), d_marked_tris.data(), c + 1, n));
  CHECK(prim::select_unique(nullptr, sizes[2], d_cells.data(), d_unique_cells.data(), c + 2, n));
  CHECK(prim::partition_if(nullptr, sizes[3], d_tris.data(), d_visible.data(), d_hidden.data(), c + 3, n, InFront{}));
  size_t temp_bytes = *std::max_element(sizes, sizes + 4);
  prim::DeviceBuffer<unsigned char> temp;
  CHECK(temp.allocate(temp_bytes));
  void* t = temp.data();
  cudaStream_t stream = nullptr;
  CHECK(cudaStreamCreate(&stream));
  CHECK(prim::select_if(t, temp_bytes, d_tris.data(), d_visible.data(), c, n, InFront{}, stream));
  CHECK(prim::select_flagged(t, temp_bytes, d_tris.data(), d_marked.data(), d_marked_tris.data(), c + 1, n, stream));
  CHECK(prim::select_unique(t, temp_bytes, d_cells.data(), d_unique_cells.data(), c + 2, n, prim::EqualTo{}, stream));
  CHECK(prim::partition_if(t, temp_bytes, d_tris.data(), d_visible.data(), d_hidden.data(), c + 3, n, InFront{},
                           stream));
  CHECK(cudaStreamSynchronize(stream));

  uint64_t counts[4] = {};
  CHECK(d_counts.download(counts, 4));
  std::vector<Triangle> visible(counts[3]), hidden(n - counts[3]);
  CHECK(d_visible.download(visible.data(), visible.size()));
  CHECK(d_hidden.download(hidden.data(), hidden.size()));
  std::vector<Triangle> want_visible, want_hidden;
  for (const Triangle& tri : tris) (InFront{}(tri) ? want_visible : want_hidden).push_back(tri);
  const auto same_ids = [](const std::vector<Triangle>& a, const std::vector<Triangle>& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](const Triangle& x, const Triangle& y) {
             return x.id == y.id;
           });
  };
  const uint64_t want_marked = static_cast<uint64_t>(std::count(marked.begin(), marked.end(), 1));
  const bool ok = counts[0] == want_visible.size() && counts[1] == want_marked && counts[2] == (n + 2) / 3 &&
                  same_ids(visible, want_visible) && same_ids(hidden, want_hidden);
  std::printf("%lld triangles: %llu in front, %llu behind, %llu marked; %llu distinct cells\n", static_cast<long long>(n),
              static_cast<unsigned long long>(counts[3]), static_cast<unsigned long long>(n - counts[3]),
              static_cast<unsigned long long>(counts[1]), static_cast<unsigned long long>(counts[2]));
  std::printf("%s\n", ok ? "ok: counts and both sides of the partition in input order" : "MISMATCH");
  cudaStreamDestroy(stream);
  return ok ? 0 : 1;
}
