// Mesh-sequence keyframes (renderer.h's Keyframes) on the cpu backend: the interpolated positions, the two resident
// slots (a keyframe already on the renderer is not given again), and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "render/frame_setup.h"
#include "render/renderer.h"
#include "render/scenes.h"

namespace slabcast::test {
namespace {

// Frame k of a made-up sequence: the mesh's positions moved by k / 10 along x and scaled in y.
std::vector<glm::vec3> sequence_frame(const Mesh& m, int k) {
  std::vector<glm::vec3> out = m.positions;
  for (glm::vec3& p : out) p = glm::vec3(p.x + 0.1f * static_cast<float>(k), p.y * (1.0f + 0.05f * k), p.z);
  return out;
}

std::vector<glm::vec3> frame_with(Renderer& r, const Mesh& m, const Keyframes* k) {
  FrameSettings f;
  f.width = 40;
  f.height = 30;
  f.camera = frame_mesh(m);
  f.keyframes = k;
  std::vector<uint8_t> pixels;
  r.render(f, host_surface(pixels, f.width, f.height));
  return r.last_deformed_positions();
}

TEST(KeyframePlan, KeepsWhatIsHeldAndFillsTheOtherSlot) {
  KeyframeSlots slots;
  glm::vec3 dummy(0.0f);
  Keyframes k{0, 1, &dummy, &dummy, 0.0f};
  KeyframePlan p = plan_keyframes(slots, k);
  EXPECT_TRUE(p.upload_a && p.upload_b);
  EXPECT_NE(p.slot_a, p.slot_b);
  const int slot_of_1 = p.slot_b;
  k = Keyframes{1, 2, nullptr, &dummy, 0.5f};  // 1 is held: only 2 is uploaded, into the slot 0 held
  p = plan_keyframes(slots, k);
  EXPECT_FALSE(p.upload_a);
  EXPECT_TRUE(p.upload_b);
  EXPECT_EQ(p.slot_a, slot_of_1);
  EXPECT_EQ(p.slot_b, 1 - slot_of_1);
  k = Keyframes{2, 2, nullptr, nullptr, 1.0f};  // the same keyframe twice: one slot
  p = plan_keyframes(slots, k);
  EXPECT_FALSE(p.upload_a || p.upload_b);
  EXPECT_EQ(p.slot_a, p.slot_b);
  k = Keyframes{7, 8, nullptr, &dummy, 0.0f};
  EXPECT_THROW(plan_keyframes(slots, k), std::invalid_argument);  // 7 is not held and has no positions
  k = Keyframes{2, 1, nullptr, nullptr, 1.5f};
  EXPECT_THROW(plan_keyframes(slots, k), std::invalid_argument);  // mix outside [0, 1]
}

TEST(Keyframes, InterpolateAndStepThroughASequence) {
  const Mesh m = make_procedural_mesh("torus", 2000);
  auto r = make_renderer(Backend::cpu);
  r->set_mesh(m);
  std::vector<std::vector<glm::vec3>> frames;
  for (int k = 0; k < 5; ++k) frames.push_back(sequence_frame(m, k));
  for (int k = 0; k + 1 < 5; ++k) {
    for (float mix : {0.0f, 0.25f, 0.75f}) {
      // Only the first step gives both arrays; later steps give only the new keyframe (the other is resident).
      Keyframes kf{static_cast<uint64_t>(k), static_cast<uint64_t>(k + 1), k == 0 ? frames[0].data() : nullptr,
                   frames[static_cast<size_t>(k) + 1].data(), mix};
      const std::vector<glm::vec3> got = frame_with(*r, m, &kf);
      ASSERT_EQ(got.size(), m.positions.size());
      for (size_t v = 0; v < got.size(); ++v) {
        const glm::vec3 a = frames[static_cast<size_t>(k)][v], b = frames[static_cast<size_t>(k) + 1][v];
        const glm::vec3 want = a + mix * (b - a);
        ASSERT_EQ(got[v], want) << "step " << k << " mix " << mix << " vertex " << v;
      }
    }
  }
  // Without keyframes: the rest positions again.
  EXPECT_EQ(frame_with(*r, m, nullptr), m.positions);
}

TEST(Keyframes, BadKeyframesAreRefusedAndTheRendererGoesOn) {
  const Mesh m = make_procedural_mesh("torus", 2000);
  auto r = make_renderer(Backend::cpu);
  r->set_mesh(m);
  std::vector<glm::vec3> bad = m.positions;
  bad[17].y = NAN;
  Keyframes kf{1, 2, m.positions.data(), bad.data(), 0.5f};
  try {
    frame_with(*r, m, &kf);
    ADD_FAILURE() << "a NaN keyframe was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("keyframe 2: non-finite coordinate at vertex 17"), std::string::npos)
        << e.what();
  }
  // Nothing was taken in: keyframe 1 is not resident either.
  Keyframes only_b{1, 3, nullptr, m.positions.data(), 0.5f};
  EXPECT_THROW(frame_with(*r, m, &only_b), std::invalid_argument);
  Keyframes good{1, 3, m.positions.data(), m.positions.data(), 0.5f};
  EXPECT_EQ(frame_with(*r, m, &good), m.positions);
  // A new mesh forgets the resident keyframes.
  r->set_mesh(m);
  Keyframes resident_before{1, 3, nullptr, nullptr, 0.0f};
  EXPECT_THROW(frame_with(*r, m, &resident_before), std::invalid_argument);
}

}  // namespace
}  // namespace slabcast::test
