// The shadow stage's blocks on the GPU (stages/shadow.h has the per-item bodies both backends share): the samples,
// whose block folds the faces' light-space bounds into one atomic per key and block, and the test, whose warps each
// take 32 triangles and deal the samples of their light tiles over their lanes, and whose block sums its counts into
// one atomic each.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "render/constants.h"
#include "render/frame_params.h"
#include "render/stages/shadow.h"

namespace slabcast {

// Every thread of the block calls this (pix past the end included).
__device__ __forceinline__ void shadow_sample_block(const FrameParams& p, int64_t pix) {
  __shared__ uint32_t face_keys[kMaxLightFaces * 4];  // LightFaceKeys of each face, as words
  if (threadIdx.x < kMaxLightFaces * 4) face_keys[threadIdx.x] = 0;
  if (pix == 0) *p.light_on_device = p.light;  // for the keys' kernel and emitter, fixed in the frame graph
  __syncthreads();
  LightCoord c;
  if (pix < static_cast<int64_t>(p.view.width) * p.view.height && shadow_sample_one(p, pix, c)) {
    uint32_t* k = face_keys + 4 * c.face;
    atomicMax(k + 0, ~ordered_key(c.u));
    atomicMax(k + 1, ordered_key(c.u));
    atomicMax(k + 2, ~ordered_key(c.v));
    atomicMax(k + 3, ordered_key(c.v));
  }
  __syncthreads();
  if (threadIdx.x < kMaxLightFaces * 4 && face_keys[threadIdx.x] != 0) {
    atomicMax(reinterpret_cast<uint32_t*>(p.counters->light_faces) + threadIdx.x, face_keys[threadIdx.x]);
  }
}

// ---- the test ----
//
// A thread a triangle. A thread that walked its triangle's tiles and tested each tile's samples itself would leave
// most of its warp idle: the tiles a triangle reaches, and the samples a tile holds, vary from one to hundreds. So a
// warp's 32 triangles take their tiles in rounds: in a round each lane takes its triangle's next tile (LightTiles'
// walk), the warp lays the samples of those tiles end to end (a scan of their counts) and deals them out 32 at a
// time, the pair's triangle and box coming from its lane by shuffles. A sample's coordinates are read in light-tile
// order (light_sample_coords), so a tile's samples are one or two cache lines; its origin only when the box holds it.
// A pair needs no order: a sample is in shadow when any of its pairs blocks, and a sample already in shadow skips its
// remaining ray tests (the mask, which other warps write, read as it is). The large triangles are tested after, a
// thread a sample against each of them.

constexpr int kWarpLanes = 32;
constexpr unsigned kFullWarp = 0xFFFFFFFFu;

// The pairs whose box test passed, waiting for their ray tests: a warp tests 32 at a time, one a lane, so that the
// ray test, the dear part, runs on full warps (a round's passing pairs are few and scattered over its lanes).
struct ShadowCandidates {
  uint32_t pixel[2 * kWarpLanes];
  uint32_t id[2 * kWarpLanes];
  int count;
};

// The first `n` (<= 32) candidates, a lane each.
__device__ __forceinline__ void test_candidates(const FrameParams& p, const ShadowCandidates& q, int n) {
  const int lane = static_cast<int>(threadIdx.x) % kWarpLanes;
  if (lane < n) shadow_test_candidate(p, q.pixel[lane], q.id[lane]);
}

// Adds each lane's candidate (when `pass`) to the warp's queue and tests 32 once it holds as many. Every lane of the
// warp calls it.
__device__ __forceinline__ void queue_candidate(const FrameParams& p, ShadowCandidates& q, bool pass, uint32_t pixel,
                                                uint32_t id) {
  const int lane = static_cast<int>(threadIdx.x) % kWarpLanes;
  const uint32_t passing = __ballot_sync(kFullWarp, pass);
  if (passing == 0) return;
  const int count = q.count;
  if (pass) {
    const int at = count + __popc(passing & ((1u << lane) - 1u));
    q.pixel[at] = pixel;
    q.id[at] = id;
  }
  const int total = count + __popc(passing);
  __syncwarp();
  if (total < kWarpLanes) {
    if (lane == 0) q.count = total;
    __syncwarp();
    return;
  }
  test_candidates(p, q, kWarpLanes);
  __syncwarp();
  if (lane < total - kWarpLanes) {  // the rest down to the front
    q.pixel[lane] = q.pixel[kWarpLanes + lane];
    q.id[lane] = q.id[kWarpLanes + lane];
  }
  if (lane == 0) q.count = total - kWarpLanes;
  __syncwarp();
}

// The warp's pairs of one round: lane j's tile holds `count` samples from `begin` (0 when the lane has no tile this
// round), its triangle is `id`, whose box on the tile's face is `box`. A lane takes kPairsInFlight pairs at a time,
// their coordinates loaded together; those in the box go to the queue. Every lane of the warp calls it.
template <int kPairsInFlight>
__device__ __forceinline__ void test_round_pairs(const FrameParams& p, ShadowCandidates& q, uint64_t begin,
                                                 uint32_t count, uint32_t id, const LightBox& box) {
  const int lane = static_cast<int>(threadIdx.x) % kWarpLanes;
  uint32_t start = count;  // inclusive, then exclusive scan of the counts
  for (int d = 1; d < kWarpLanes; d *= 2) {
    const uint32_t below = __shfl_up_sync(kFullWarp, start, d);
    if (lane >= d) start += below;
  }
  const uint32_t total = __shfl_sync(kFullWarp, start, kWarpLanes - 1);
  start -= count;
  for (uint32_t k0 = 0; k0 < total; k0 += kWarpLanes * kPairsInFlight) {
    uint64_t sample[kPairsInFlight];
    int owner[kPairsInFlight];
#pragma unroll
    for (int u = 0; u < kPairsInFlight; ++u) {
      const uint32_t k = k0 + static_cast<uint32_t>(u * kWarpLanes + lane);
      int j = 0;  // the last lane whose samples start at or before k: the one that holds pair k
      for (int step = kWarpLanes / 2; step > 0; step /= 2) {
        if (__shfl_sync(kFullWarp, start, j + step) <= k) j += step;
      }
      owner[u] = j;
      sample[u] = __shfl_sync(kFullWarp, begin, j) + (k - __shfl_sync(kFullWarp, start, j));
    }
    LightSampleCoord c[kPairsInFlight];
#pragma unroll
    for (int u = 0; u < kPairsInFlight; ++u) {
      if (k0 + static_cast<uint32_t>(u * kWarpLanes + lane) < total) c[u] = p.light_sample_coords[sample[u]];
    }
#pragma unroll
    for (int u = 0; u < kPairsInFlight; ++u) {
      const int j = owner[u];
      const uint32_t pair_id = __shfl_sync(kFullWarp, id, j);
      const LightBox b{__shfl_sync(kFullWarp, box.u0, j), __shfl_sync(kFullWarp, box.u1, j),
                       __shfl_sync(kFullWarp, box.v0, j), __shfl_sync(kFullWarp, box.v1, j),
                       __shfl_sync(kFullWarp, box.near, j)};
      const bool pass =
          k0 + static_cast<uint32_t>(u * kWarpLanes + lane) < total && box_holds(b, c[u].u, c[u].v, c[u].depth);
      queue_candidate(p, q, pass, c[u].pixel, pair_id);
    }
  }
}

// The test's block: a thread a triangle, its tiles' samples dealt over its warp. With kStrided, lane l of warp w takes
// triangle l * warps + w (a warp's triangles from 32 parts of the mesh) instead of 32 w + l. Counts the references
// (a tile reached, or a large triangle's entry on the list) and the pairs (the samples of the tiles reached) into one
// atomic each. Every thread of the block calls this.
template <bool kStrided, int kPairsInFlight>
__device__ __forceinline__ void shadow_triangle_block(const FrameParams& p) {
  __shared__ unsigned long long block_refs, block_pairs;
  __shared__ ShadowCandidates candidates[kShadowTestBlock / kWarpLanes];
  ShadowCandidates& q = candidates[threadIdx.x / kWarpLanes];
  if (threadIdx.x == 0) {
    block_refs = 0;
    block_pairs = 0;
  }
  if (threadIdx.x % kWarpLanes == 0) q.count = 0;
  __syncthreads();
  const int64_t thread = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t warps = static_cast<int64_t>(gridDim.x) * (blockDim.x / kWarpLanes);
  const int64_t i = kStrided ? (thread % kWarpLanes) * warps + thread / kWarpLanes : thread;
  const LightTiles tiles{p.light_boxes, p.num_triangles, &p.light, p.counters->light_faces, p.light_tile_depth};
  LightTileWalk walk{};
  bool walking = false;
  unsigned long long refs = 0, pairs = 0;
  if (i < p.num_triangles) {
    if (tiles.covered(i) > kLargeLightTriangle) {
      p.light_large[atomicAdd(reinterpret_cast<unsigned long long*>(&p.counters->light_large), 1ull)] =
          static_cast<uint32_t>(i);
      refs = 1;
    } else {
      walk = tiles.start(i);
      walking = true;
    }
  }
  while (__any_sync(kFullWarp, walking)) {
    uint64_t begin = 0;
    uint32_t count = 0, tile = 0;
    if (walking) {
      walking = tiles.next(walk, i, tile);
      if (walking) {
        begin = p.light_sample_offsets[tile];
        count = static_cast<uint32_t>(p.light_sample_offsets[tile + 1] - begin);
        ++refs;
        pairs += count;
      }
    }
    test_round_pairs<kPairsInFlight>(p, q, begin, count, static_cast<uint32_t>(i), walk.box);
  }
  test_candidates(p, q, q.count);  // the last few
  for (int d = kWarpLanes / 2; d > 0; d /= 2) {
    refs += __shfl_xor_sync(kFullWarp, refs, d);
    pairs += __shfl_xor_sync(kFullWarp, pairs, d);
  }
  if (threadIdx.x % kWarpLanes == 0) {
    if (refs != 0) atomicAdd(&block_refs, refs);
    if (pairs != 0) atomicAdd(&block_pairs, pairs);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    if (block_refs != 0) atomicAdd(reinterpret_cast<unsigned long long*>(&p.counters->light_references), block_refs);
    if (block_pairs != 0) atomicAdd(reinterpret_cast<unsigned long long*>(&p.counters->shadow_tests), block_pairs);
  }
}

// Sample k (in light-tile order) against the large triangles, unless it is in shadow already; the first thread adds
// every sample's pairs with them to the count.
__device__ __forceinline__ void shadow_large_one(const FrameParams& p, uint64_t k) {
  const uint64_t samples = p.counters->shadow_samples, large = p.counters->light_large;
  if (k == 0 && large != 0) {
    atomicAdd(reinterpret_cast<unsigned long long*>(&p.counters->shadow_tests),
              static_cast<unsigned long long>(samples * large));
  }
  if (k >= samples || large == 0) return;
  const LightSampleCoord c = p.light_sample_coords[k];
  if (p.shadow_mask[c.pixel] == 0) return;
  const ShadowOrigin o = p.shadow_origin[c.pixel];
  const uint64_t face = light_key_tile(p.light_samples[k]) / (static_cast<uint64_t>(p.light.grid) * p.light.grid);
  const LightBox* boxes = p.light_boxes + static_cast<int64_t>(face) * p.num_triangles;
  const ShadowRay ray = make_shadow_ray(p.light, o.origin);
  for (uint64_t r = 0; r < large; ++r) {
    const uint32_t id = p.light_large[r];
    if (id != o.id && box_holds(boxes[id], c.u, c.v, c.depth) && blocks(ray, p.tri_verts[id])) {
      p.shadow_mask[c.pixel] = 0;
      return;
    }
  }
}

}  // namespace slabcast
