// gpu tests whose point is size (labels gpu, large; SKIPPED without a CUDA device): the stage-by-stage sweep of
// test_render_gpu.cpp at its larger frame sizes, where partial tiles, many tile columns and deep cells meet. The
// sanitizer runs leave this program out by its label; every property it checks runs at small sizes in render_gpu.
#include <gtest/gtest.h>

#include <utility>

#include "render/cuda_vs_cpu.h"

namespace slabcast::test {
namespace {

class CudaVsCpu : public CudaVsCpuFixture, public ::testing::WithParamInterface<SceneCase> {};

TEST_P(CudaVsCpu, StageByStage) { expect_scene_matches(GetParam()); }

INSTANTIATE_TEST_SUITE_P(LargeScenes, CudaVsCpu,
                         ::testing::Combine(::testing::ValuesIn(gpu_scenes()),
                                            ::testing::Values(std::make_pair(101, 77), std::make_pair(257, 131)),
                                            ::testing::Values(1, 4, 16)));

}  // namespace
}  // namespace slabcast::test
