// The shadow stage's blocks on the GPU (stages/shadow.h has the per-item bodies both backends share): the samples'
// light-space bounds, which the caster's blocks fold into one atomic per key and block as their rays finish; the
// triangles' references, packed by light tile by a count, a scan and a scatter; and the test, whose warps each take
// 32 samples and load their tiles' triangles once for all of them, and whose block sums its pair count into one
// atomic.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "render/constants.h"
#include "render/cuda/cast_target.cuh"
#include "render/frame_params.h"
#include "render/stages/shadow.h"

namespace slabcast {

// The block's samples' light-space bounds into the frame's (counters->light_faces): each sample's four keys into the
// block's by shared atomics, then each of the block's keys that could raise the frame's by one global atomic. Every
// block adds to the same few words, whose atomics queue up at one L2 slice; the keys only grow, so a key at or below
// the frame's as last seen cannot raise it and is left out (a stale look costs only an atomic that changes nothing).
// Every thread of the block calls this, with whether its pixel is a sample and, if so, its light coordinate.
__device__ __forceinline__ void add_block_samples_to_light_bounds(const FrameParams& p, bool sample,
                                                                  const LightCoord& c) {
  constexpr int kKeys = kMaxLightFaces * 4;  // LightFaceKeys of each face, as words
  __shared__ uint32_t face_keys[kKeys];
  if (threadIdx.x < kKeys) face_keys[threadIdx.x] = 0;
  __syncthreads();
  if (sample) {
    uint32_t* k = face_keys + 4 * c.face;
    atomicMax(k + 0, ~ordered_key(c.u));
    atomicMax(k + 1, ordered_key(c.u));
    atomicMax(k + 2, ~ordered_key(c.v));
    atomicMax(k + 3, ordered_key(c.v));
  }
  __syncthreads();
  if (threadIdx.x < kKeys) {
    const uint32_t key = face_keys[threadIdx.x];
    uint32_t* frame_key = reinterpret_cast<uint32_t*>(p.counters->light_faces) + threadIdx.x;
    if (key > *static_cast<volatile uint32_t*>(frame_key)) atomicMax(frame_key, key);
  }
}

// The light tiles' counters, which the samples' keys and the triangles' count add to, cleared by the caster's threads
// (thread `first` of `stride`): its blocks are bound by latency and leave memory bandwidth to spare, where memsets
// would sit on the frame's path (on the 16M sphere at 1024x1024, 2M tiles: 40 MB).
__device__ __forceinline__ void clear_light_tile_counters(const FrameParams& p, int64_t first, int64_t stride) {
  const int64_t tiles = static_cast<int64_t>(light_tile_count(p.light));
  for (int64_t i = first; i < tiles + 2; i += stride) {
    p.light_ref_offsets[i] = 0;  // tiles + 2 entries: the tiles', the large triangles' and the total
    if (i < tiles) {
      p.light_tile_depth[i] = 0;
      p.light_sample_offsets[i] = 0;
    }
  }
}

// ---- the triangles' references ----
//
// Packed by light tile without a sort: each triangle counts one in each tile it reaches (LightTiles; tile `tiles` for
// a large one) into light_ref_offsets, an inclusive scan in place turns the counts into each tile's end, and each
// triangle then takes a slot in each tile by an atomic decrement of its end, which leaves the tile's start there
// (tile `tiles + 1`, never decremented, keeps the total). A tile's triangles so come in no set order, and nothing
// depends on it: the mask asks only whether any triangle of a sample's list blocks it, and the pair count is the
// lists' lengths (stages/shadow.h: shadow_test_one). The samples are packed the same way (light_sample_scatter_kernel).

// A slot of tile `tile`'s run, taken from its end: `ends` holds the tiles' counts scanned inclusively, and once all
// of a tile's slots are taken its entry holds the tile's start.
__device__ __forceinline__ uint64_t take_slot_from_end(uint64_t* ends, uint64_t tile) {
  return atomicAdd(reinterpret_cast<unsigned long long*>(ends) + tile, ~0ull) - 1;
}

// A sun's light space has one face and a point light's six, and each has a count and a scatter of its own: a sun's
// walk its triangle's one box with its cells worked out once (LightTiles::for_each_reached_in_box), the count from
// the box as computed, not read back. A point light's code beside it raised the sun's scatter from 32 to 41
// registers, costing occupancy that its atomics need.

// Triangle i's box, then its count: a sun's. A triangle that reaches no tile gets an empty box, so that the scatter
// passes it at once (its box is read only by the walks: no list holds it, so the test never reads it).
__device__ __forceinline__ void light_ref_count_sun(const FrameParams& p, int64_t i) {
  const LightTiles tiles = frame_light_tiles(p);
  unsigned long long* counts = reinterpret_cast<unsigned long long*>(p.light_ref_offsets);
  TriangleVerts t;
  const LightBox box = light_blocker(p, i, t) ? sun_light_box(p.light, t) : empty_light_box();
  const uint32_t reached =
      tiles.for_each_reached_in_box(box, tiles.grid_of(0), [&](uint64_t tile) { atomicAdd(counts + tile, 1ull); });
  p.light_boxes[i] = reached != 0 ? box : empty_light_box();
}

// A point light's. Each face's box is worked out and, where it covers cells, written; then each such face is walked
// (for a large triangle, the large list counted instead). Only what is read later is written: the boxes on the faces
// where it reaches a tile (a tile's list holds it there, and the test reads its box on the tile's face), a box on
// every face for a large triangle (every sample tests it, on the sample's own face: the faces where its box covers
// no cell get an empty one, which holds no sample either), and which of these it is (light_faces_reached), from which
// the scatter walks the same faces. Writing all six boxes and reading them back took most of this kernel's time.
constexpr uint8_t kLargeLightFaces = 0x80;  // light_faces_reached of a large triangle: every face's box is written

__device__ __forceinline__ void light_ref_count_cube(const FrameParams& p, int64_t i) {
  const LightTiles tiles = frame_light_tiles(p);
  unsigned long long* counts = reinterpret_cast<unsigned long long*>(p.light_ref_offsets);
  LightBox* boxes = p.light_boxes + i;
  const int64_t face_stride = p.num_triangles;
  TriangleVerts t;
  const bool blocks = light_blocker(p, i, t);
  uint64_t cells = 0;
  uint32_t covered = 0;  // bit f: the box on face f covers cells
  LightBox last{};       // the box of the last face covered, kept for its walk (most triangles cover one face)
  // Not unrolled: six copies of the face's box took 58 registers and stalled on fetching instructions (a quarter of
  // the warps' cycles), and the kernel ran 14 % slower.
#pragma unroll 1
  for (int f = 0; f < kMaxLightFaces; ++f) {
    LightBox box;
    LightCells c{0, 0, 0, 0};
    if (blocks && cube_face_box(p.light.position, f, t.a, t.b, t.c, box) &&
        light_cells(box, tiles.grid_of(f), p.light.grid, c)) {
      boxes[f * face_stride] = box;
      cells += cell_count(c);
      covered |= 1u << f;
      last = box;
    }
  }
  if (cells > kLargeLightTriangle) {
    atomicAdd(counts + light_tile_count(p.light), 1ull);
#pragma unroll
    for (int f = 0; f < kMaxLightFaces; ++f) {
      if ((covered >> f & 1u) == 0) boxes[f * face_stride] = empty_light_box();
    }
    p.light_faces_reached[i] = kLargeLightFaces;
    return;
  }
  const int last_face = covered == 0 ? 0 : 31 - __clz(static_cast<int>(covered));
  uint32_t reached = 0;
  for (uint32_t faces = covered; faces != 0; faces &= faces - 1) {
    const int f = __ffs(static_cast<int>(faces)) - 1;
    const LightBox box = f == last_face ? last : tiles.box_of(f, i);
    if (tiles.for_each_reached_on_face(f, box, [&](uint64_t tile) { atomicAdd(counts + tile, 1ull); }) != 0) {
      reached |= 1u << f;
    }
  }
  p.light_faces_reached[i] = static_cast<uint8_t>(reached);
}

// Every thread of the scatter's grid calls this first (i past the triangles included): the first records the total
// and whether it fits. False where the thread scatters nothing: past the triangles, or with no room (the frame is
// then redone with more, and the test tests nothing).
__device__ __forceinline__ bool light_ref_scatter_room(const FrameParams& p, int64_t i) {
  const uint64_t total = p.light_ref_offsets[light_tile_count(p.light) + 1];
  if (i == 0) {
    p.counters->light_references = total;
    if (total > p.light_capacity) p.counters->light_overflow = 1;
  }
  return i < p.num_triangles && total <= p.light_capacity;
}

// Triangle `id`'s reference into a slot of each tile it reaches (take_slot_from_end), as the scatters' walks call it.
struct LightRefSlots {
  const FrameParams& p;
  uint32_t id;
  __device__ __forceinline__ void operator()(uint64_t tile) const {
    p.light_refs[take_slot_from_end(p.light_ref_offsets, tile)] = light_key(tile, id);
  }
};

__device__ __forceinline__ void light_ref_scatter_sun(const FrameParams& p, int64_t i) {
  if (!light_ref_scatter_room(p, i)) return;
  const LightBox box = p.light_boxes[i];
  if (box.u0 > box.u1) return;  // reaches no tile: the count emptied its box
  const LightTiles tiles = frame_light_tiles(p);
  tiles.for_each_reached_in_box(box, tiles.grid_of(0), LightRefSlots{p, static_cast<uint32_t>(i)});
}

__device__ __forceinline__ void light_ref_scatter_cube(const FrameParams& p, int64_t i) {
  if (!light_ref_scatter_room(p, i)) return;
  const uint32_t reached = p.light_faces_reached[i];
  const LightRefSlots slots{p, static_cast<uint32_t>(i)};
  if (reached == kLargeLightFaces) {
    slots(light_tile_count(p.light));
    return;
  }
  const LightTiles tiles = frame_light_tiles(p);
  for (uint32_t faces = reached; faces != 0; faces &= faces - 1) {
    const int f = __ffs(static_cast<int>(faces)) - 1;
    tiles.for_each_reached_on_face(f, tiles.box_of(f, i), slots);
  }
}

// ---- the test ----
//
// One thread a sample, walking its tile's list from global memory, makes three dependent loads a pair (the
// reference, the triangle's box, its vertices) and waits on them: the tests themselves are cheap. The samples are
// packed by light tile, so a warp's 32 consecutive samples lie in a few tiles (runs of one tile, its segments), and the
// warp takes those tiles' lists together, 32 references a round: lane j loads reference j of the round, its box and,
// when a sample of its tile lies in the box, its vertices, so that one load serves every sample of that tile in the
// warp, and the next round's references are in flight during this round's tests. The (sample, triangle) pairs that
// pass the box test are spread evenly over the lanes (a triangle over many of the warp's samples would otherwise hold
// its lane), the triangle coming by shuffles. A sample found blocked takes no more pairs, and the warp leaves the
// tiles' lists once each of its samples is blocked.
// Then the large triangles, which every sample takes after its tile's: lane i walks them in list order for its own
// sample, 32 references loaded a round, each box and triangle loaded by all lanes at once (the same address for the
// samples of one face: one load for the warp, and the same few for every warp, so they stay in cache). A tile
// without samples is never looked at, and a tile with more samples than a warp is shared by as many warps as its
// samples fill, each loading its list once.

constexpr int kWarpLanes = 32;
constexpr unsigned kFullWarp = 0xFFFFFFFFu;

// A warp's samples in shared memory, entry i for sample first + i (lane i loads it). Segment s is a run of the samples
// in one tile: samples [segment_first[s], segment_first[s + 1]), whose tile's triangles light_refs[segment_refs[s] ..]
// are positions [segment_start[s], segment_start[s + 1]) of the warp's list, the segments' lists one after the other.
struct ShadowTestWarp {
  ShadowRay ray[kWarpLanes];
  float u[kWarpLanes], v[kWarpLanes];  // light coordinate on the sample's face
  float depth[kWarpLanes];              // light depth
  int face[kWarpLanes];
  uint32_t own[kWarpLanes];         // the triangle the sample lies on
  uint64_t tile_refs[kWarpLanes];   // triangles in the sample's tile
  uint64_t segment_refs[kWarpLanes];
  uint64_t segment_start[kWarpLanes + 1];
  int segment_first[kWarpLanes + 1];
};

struct WarpSamples {
  int count;       // the warp's samples: lanes [0, count)
  int segments;
  uint32_t pixel;  // the lane's sample's pixel
  uint32_t all;    // bit i for each sample i of the warp
};

// LoadSamples: lane i's sample into the warp's storage, and the warp's segments: a sample whose tile differs from the
// previous lane's starts one, and a scan of the segments' list lengths over their first lanes places their lists.
__device__ __forceinline__ WarpSamples load_warp_samples(const FrameParams& p, ShadowTestWarp& w, uint64_t first,
                                                         uint64_t samples) {
  const int lane = static_cast<int>(threadIdx.x) % kWarpLanes;
  const int count = samples - first < static_cast<uint64_t>(kWarpLanes) ? static_cast<int>(samples - first)
                                                                       : kWarpLanes;
  const bool mine = lane < count;
  uint32_t tile = 0, pixel = 0;
  LightRefRange refs{0, 0};
  if (mine) {
    const ShadowSample s = shadow_sample_at(p, first + static_cast<uint64_t>(lane));
    tile = s.tile;
    pixel = s.pixel;
    refs = tile_light_refs(p, s.tile);
    w.ray[lane] = s.ray;
    w.u[lane] = s.c.u;
    w.v[lane] = s.c.v;
    w.depth[lane] = s.c.depth;
    w.face[lane] = s.c.face;
    w.own[lane] = s.own;
    w.tile_refs[lane] = refs.end - refs.begin;
  }
  const uint32_t previous = __shfl_up_sync(kFullWarp, tile, 1);
  const bool head = mine && (lane == 0 || tile != previous);
  const uint32_t heads = __ballot_sync(kFullWarp, head);
  const int segment = __popc(heads & (kFullWarp >> (kWarpLanes - 1 - lane))) - 1;
  const int segments = __popc(heads);
  uint64_t end = head ? refs.end - refs.begin : 0;  // inclusive scan of the heads' lengths
  for (int d = 1; d < kWarpLanes; d *= 2) {
    const uint64_t below = __shfl_up_sync(kFullWarp, end, d);
    if (lane >= d) end += below;
  }
  if (head) {
    w.segment_refs[segment] = refs.begin;
    w.segment_start[segment] = end - (refs.end - refs.begin);
    w.segment_first[segment] = lane;
  }
  if (lane == kWarpLanes - 1) {
    w.segment_start[segments] = end;
    w.segment_first[segments] = count;
  }
  __syncwarp();
  return WarpSamples{count, segments, pixel, count == kWarpLanes ? kFullWarp : (1u << count) - 1u};
}

// Position q of the warp's list: its reference and its samples.
struct TileEntry {
  uint64_t ref;     // into light_refs
  int first, last;  // samples [first, last)
  bool valid;       // false past the list's end
};
__device__ __forceinline__ TileEntry tile_entry(const ShadowTestWarp& w, int segments, uint64_t q) {
  if (q >= w.segment_start[segments]) return TileEntry{0, 0, 0, false};
  int s = 0;  // the last segment that starts at or before q (an empty one before it starts there too)
  for (int step = kWarpLanes / 2; step > 0; step /= 2) {
    if (s + step < segments && w.segment_start[s + step] <= q) s += step;
  }
  return TileEntry{w.segment_refs[s] + (q - w.segment_start[s]), w.segment_first[s], w.segment_first[s + 1], true};
}

__device__ __forceinline__ Vec3 shfl_vec3(Vec3 a, int lane) {
  return Vec3{__shfl_sync(kFullWarp, a.x, lane), __shfl_sync(kFullWarp, a.y, lane), __shfl_sync(kFullWarp, a.z, lane)};
}

// The position of set bit r (from 0, counted from the lowest) of mask, which has more than r set bits.
__device__ __forceinline__ int nth_set_bit(uint32_t mask, uint32_t r) {
  int at = 0;
  for (int width = kWarpLanes / 2; width > 0; width /= 2) {
    const uint32_t low = static_cast<uint32_t>(__popc(mask & ((1u << width) - 1u)));
    if (r >= low) {  // in the upper half of the bits left
      r -= low;
      mask >>= width;
      at += width;
    }
  }
  return at;
}

// TestPairs: the lanes' candidates (bit i of lane j's: sample i against lane j's triangle `tv`) spread over the
// warp: pair k of the round's (lane by lane, bit by bit) goes to lane k % 32, which finds lane j by a binary search
// over the lanes' exclusive sums and takes the triangle from it by shuffles. Returns the samples found blocked (bit
// i for sample i), the same in every lane. Every lane of the warp calls it.
__device__ __forceinline__ uint32_t test_candidate_pairs(const ShadowTestWarp& w, uint32_t candidates,
                                                         const TriangleVerts& tv) {
  const int lane = static_cast<int>(threadIdx.x) % kWarpLanes;
  const uint32_t mine = static_cast<uint32_t>(__popc(candidates));
  uint32_t start = mine;
  for (int d = 1; d < kWarpLanes; d *= 2) {
    const uint32_t below = __shfl_up_sync(kFullWarp, start, d);
    if (lane >= d) start += below;
  }
  const uint32_t pairs = __shfl_sync(kFullWarp, start, kWarpLanes - 1);
  start -= mine;
  uint32_t blocked = 0;
  for (uint32_t k0 = 0; k0 < pairs; k0 += kWarpLanes) {
    const uint32_t k = k0 + static_cast<uint32_t>(lane);
    int j = 0;  // the last lane whose pairs start at or before k: the one that holds pair k
    for (int step = kWarpLanes / 2; step > 0; step /= 2) {
      if (__shfl_sync(kFullWarp, start, j + step) <= k) j += step;
    }
    const uint32_t mask = __shfl_sync(kFullWarp, candidates, j);
    const uint32_t r = k - __shfl_sync(kFullWarp, start, j);
    const TriangleVerts t{shfl_vec3(tv.a, j), shfl_vec3(tv.b, j), shfl_vec3(tv.c, j)};
    uint32_t found = 0;
    if (k < pairs) {
      const int i = nth_set_bit(mask, r);
      if (blocks(w.ray[i], t)) found = 1u << i;
    }
    blocked |= __reduce_or_sync(kFullWarp, found);
  }
  return blocked;
}

// TileTriangles: the warp's list 32 positions a round. Lane j's candidates are the samples of its triangle's tile
// that are not blocked, do not lie on it, lie in its box and lie no nearer the light than its nearest point
// (box_holds); only a lane with candidates loads the vertices. The warp stops once every sample is blocked. Returns
// the samples blocked (bit i for sample i), the same in every lane.
__device__ __forceinline__ uint32_t test_tile_triangles(const FrameParams& p, const ShadowTestWarp& w,
                                                        const WarpSamples& ws) {
  const int lane = static_cast<int>(threadIdx.x) % kWarpLanes;
  const uint64_t total = w.segment_start[ws.segments];
  TileEntry e = tile_entry(w, ws.segments, static_cast<uint64_t>(lane));
  uint32_t id = e.valid ? light_ref_triangle(p.light_refs[e.ref]) : 0;
  uint32_t blocked = 0;
  for (uint64_t base = 0; base < total; base += kWarpLanes) {
    const TileEntry next = tile_entry(w, ws.segments, base + kWarpLanes + static_cast<uint64_t>(lane));
    const uint32_t next_id = next.valid ? light_ref_triangle(p.light_refs[next.ref]) : 0;
    uint32_t candidates = 0;
    if (e.valid) {
      const LightBox box = p.light_boxes[static_cast<int64_t>(w.face[e.first]) * p.num_triangles + id];  // one face
      for (int i = e.first; i < e.last; ++i) {
        if ((blocked >> i & 1u) != 0 || w.own[i] == id) continue;  // blocked; its own triangle
        if (box_holds(box, w.u[i], w.v[i], w.depth[i])) candidates |= 1u << i;
      }
    }
    TriangleVerts tv{};
    if (candidates != 0) tv = p.tri_verts[id];
    blocked |= test_candidate_pairs(w, candidates, tv);
    if (blocked == ws.all) break;
    e = next;
    id = next_id;
  }
  return blocked;
}

// LargeTriangles: each sample not blocked by its tile's triangles walks the large ones in list order, 32 references
// loaded a round (lane j loads the round's j-th), then each triangle's box (on the lane's face) and vertices loaded by
// every lane at once. Returns the samples blocked, those passed in included, the same in every lane.
__device__ __forceinline__ uint32_t test_large_triangles(const FrameParams& p, const ShadowTestWarp& w,
                                                         const WarpSamples& ws, uint32_t blocked) {
  const int lane = static_cast<int>(threadIdx.x) % kWarpLanes;
  const LightRefRange large = large_light_refs(p);
  const bool mine = lane < ws.count;
  bool open = mine && (blocked >> lane & 1u) == 0;
  if (large.begin == large.end || blocked == ws.all) return blocked;  // warp-uniform
  ShadowRay ray{};
  float u = 0.0f, v = 0.0f, depth = 0.0f;
  uint32_t own = kNoHit;
  const LightBox* boxes = p.light_boxes;
  if (mine) {
    ray = w.ray[lane];
    u = w.u[lane];
    v = w.v[lane];
    depth = w.depth[lane];
    own = w.own[lane];
    boxes += static_cast<int64_t>(w.face[lane]) * p.num_triangles;
  }
  for (uint64_t base = large.begin; base < large.end; base += kWarpLanes) {
    const uint64_t r = base + static_cast<uint64_t>(lane);
    const uint32_t round_ids = r < large.end ? light_ref_triangle(p.light_refs[r]) : 0;
    const int n = large.end - base < static_cast<uint64_t>(kWarpLanes) ? static_cast<int>(large.end - base)
                                                                        : kWarpLanes;
    for (int j = 0; j < n; ++j) {
      const uint32_t id = __shfl_sync(kFullWarp, round_ids, j);
      if (!open) continue;
      if (id != own && box_holds(boxes[id], u, v, depth) && blocks(ray, p.tri_verts[id])) open = false;
    }
    if (!__any_sync(kFullWarp, open)) break;
  }
  return blocked | __ballot_sync(kFullWarp, mine && !open);
}

// Finish: the lane's sample's mask (and, where the frame's shadowed pixels are one grey, that grey into the target
// over the caster's lit colour) and its pairs, its list's length.
__device__ __forceinline__ uint64_t finish_warp_sample(const FrameParams& p, const CastTarget& target,
                                                       const ShadowTestWarp& w, const WarpSamples& ws,
                                                       uint32_t blocked) {
  const int lane = static_cast<int>(threadIdx.x) % kWarpLanes;
  if (lane >= ws.count) return 0;
  if ((blocked >> lane & 1u) != 0) {
    p.shadow_mask[ws.pixel] = 0;
    if (target.grey_shadows) {
      const int px = static_cast<int>(ws.pixel % static_cast<uint32_t>(p.view.width));
      const int py = static_cast<int>(ws.pixel / static_cast<uint32_t>(p.view.width));
      write_pixel(target, px, py, target.shadowed_grey);
    }
  }
  const LightRefRange large = large_light_refs(p);
  return w.tile_refs[lane] + (large.end - large.begin);
}

// The test's block: kShadowTestBlock / 32 warps, each on the 32 samples from `first` + 32 times its index (stages/
// shadow.h: shadow_test_one is the same test one sample at a time). Every thread of the block calls this.
__device__ __forceinline__ void shadow_test_block(const FrameParams& p, const CastTarget& target, uint64_t first) {
  static_assert(kShadowTestBlock % kWarpLanes == 0, "whole warps");
  __shared__ ShadowTestWarp warps[kShadowTestBlock / kWarpLanes];
  __shared__ unsigned long long block_tests;
  const uint64_t samples = p.counters->shadow_samples;  // the first of light_samples, in tile order
  // Block-uniform: the grid is sized by the pixels, an upper bound; after an overflow the frame is redone.
  if (first >= samples || p.counters->light_overflow != 0) return;
  if (threadIdx.x == 0) block_tests = 0;
  __syncthreads();
  const int warp = static_cast<int>(threadIdx.x) / kWarpLanes;
  const uint64_t warp_first = first + static_cast<uint64_t>(warp) * kWarpLanes;
  unsigned long long tests = 0;
  if (warp_first < samples) {  // warp-uniform
    ShadowTestWarp& w = warps[warp];
    const WarpSamples ws = load_warp_samples(p, w, warp_first, samples);
    const uint32_t blocked = test_large_triangles(p, w, ws, test_tile_triangles(p, w, ws));
    tests = finish_warp_sample(p, target, w, ws, blocked);
  }
  for (int d = kWarpLanes / 2; d > 0; d /= 2) tests += __shfl_xor_sync(kFullWarp, tests, d);
  if (threadIdx.x % kWarpLanes == 0 && tests != 0) atomicAdd(&block_tests, tests);
  __syncthreads();
  if (threadIdx.x == 0 && block_tests != 0) {
    atomicAdd(reinterpret_cast<unsigned long long*>(&p.counters->shadow_tests), block_tests);
  }
}

}  // namespace slabcast
