#include "render/mesh_duplicates.h"

#include <cstring>

namespace slabcast {
namespace {

// A triangle's nine coordinates as bits (positions equal as bits, so +0 and -0 differ and NaN never occurs: the
// mesh was validated).
struct TriangleBits {
  uint32_t w[9];
  bool operator==(const TriangleBits& o) const { return std::memcmp(w, o.w, sizeof w) == 0; }
};

TriangleBits bits_of(const Mesh& mesh, size_t t) {
  TriangleBits b;
  for (int k = 0; k < 3; ++k) std::memcpy(&b.w[3 * k], &mesh.positions[mesh.indices[3 * t + k]], 3 * sizeof(float));
  return b;
}

uint64_t hash_of(const TriangleBits& b) {  // 64-bit FNV-1a over the words, then a final mix
  uint64_t h = 1469598103934665603ull;
  for (uint32_t w : b.w) h = (h ^ w) * 1099511628211ull;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  return h ^ (h >> 33);
}

}  // namespace

std::vector<uint8_t> find_hidden_duplicates(const Mesh& mesh, uint64_t* count) {
  *count = 0;
  const size_t T = mesh.triangle_count();
  if (T < 2) return {};
  // Open addressing, linear probing, at most half full: each slot holds a triangle ID + 1 (0 = empty) and its hash's
  // upper half, so that most probes settle without reading vertices.
  size_t slots = 1;
  while (slots < 2 * T) slots *= 2;
  std::vector<uint64_t> table(slots, 0);
  std::vector<uint8_t> hidden;
  for (size_t t = 0; t < T; ++t) {
    const TriangleBits b = bits_of(mesh, t);
    const uint64_t h = hash_of(b);
    const uint64_t tag = h >> 32;
    for (size_t slot = static_cast<size_t>(h) & (slots - 1);; slot = (slot + 1) & (slots - 1)) {
      const uint64_t entry = table[slot];
      if (entry == 0) {
        table[slot] = (tag << 32) | static_cast<uint64_t>(t + 1);
        break;
      }
      if ((entry >> 32) == tag && bits_of(mesh, static_cast<size_t>(entry & 0xFFFFFFFFu) - 1) == b) {
        if (hidden.empty()) hidden.assign(T, 0);
        hidden[t] = 1;
        ++*count;
        break;
      }
    }
  }
  return hidden;
}

}  // namespace slabcast
