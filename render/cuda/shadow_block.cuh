// The shadow stage's blocks on the GPU (stages/shadow.h has the per-item bodies both backends share): the samples,
// whose block folds the faces' light-space bounds into one atomic per key and block, and the tests, whose block sums
// its test count into one atomic.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "render/frame_params.h"
#include "render/stages/shadow.h"

namespace slabcast {

// Every thread of the block calls this (pix past the end included).
__device__ __forceinline__ void shadow_sample_block(const FrameParams& p, int64_t pix) {
  __shared__ uint32_t face_keys[kMaxLightFaces * 4];  // LightFaceKeys of each face, as words
  if (threadIdx.x < kMaxLightFaces * 4) face_keys[threadIdx.x] = 0;
  if (pix == 0) *p.light_on_device = p.light;  // for the splits' functors, fixed in the frame graph
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

// Every thread of the block calls this (k past the samples included).
__device__ __forceinline__ void shadow_test_block(const FrameParams& p, int64_t k) {
  __shared__ unsigned long long block_tests;
  if (threadIdx.x == 0) block_tests = 0;
  __syncthreads();
  const uint64_t samples = p.light_sample_offsets[static_cast<uint64_t>(p.light.faces) * p.light.grid * p.light.grid];
  uint64_t tests = 0;
  if (static_cast<uint64_t>(k) < samples) shadow_test_one(p, static_cast<uint64_t>(k), tests);
  if (tests != 0) atomicAdd(&block_tests, static_cast<unsigned long long>(tests));
  __syncthreads();
  if (threadIdx.x == 0 && block_tests != 0) {
    atomicAdd(reinterpret_cast<unsigned long long*>(&p.counters->shadow_tests), block_tests);
  }
}

}  // namespace slabcast
