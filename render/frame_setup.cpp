#include "render/frame_setup.h"

#include "render/scale.h"
#include "render/stages/build.h"
#include "render/stages/resolve.h"
#include "render/stages/shade.h"

#include <glm/glm.hpp>
#include <glm/gtc/matrix_transform.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

namespace slabcast {

static_assert(static_cast<int>(Deformer::none) == static_cast<int>(DeformKind::none), "deformer enums");
static_assert(static_cast<int>(Deformer::twist) == static_cast<int>(DeformKind::twist), "deformer enums");
static_assert(static_cast<int>(Deformer::bend) == static_cast<int>(DeformKind::bend), "deformer enums");
static_assert(static_cast<int>(Deformer::wave) == static_cast<int>(DeformKind::wave), "deformer enums");
static_assert(static_cast<int>(Deformer::pulse) == static_cast<int>(DeformKind::pulse), "deformer enums");
static_assert(static_cast<int>(Shading::phong) == static_cast<int>(ShadeMode::phong), "shading enums");
static_assert(static_cast<int>(Shading::flat) == static_cast<int>(ShadeMode::flat), "shading enums");
static_assert(static_cast<int>(Shading::depth) == static_cast<int>(ShadeMode::depth), "shading enums");
static_assert(static_cast<int>(Shading::normals) == static_cast<int>(ShadeMode::normals), "shading enums");
static_assert(static_cast<int>(Shading::triangle_id) == static_cast<int>(ShadeMode::triangle_id), "shading enums");
static_assert(static_cast<int>(Shading::slab) == static_cast<int>(ShadeMode::slab), "shading enums");
static_assert(static_cast<int>(Shading::ray_tests) == static_cast<int>(ShadeMode::ray_tests), "shading enums");
static_assert(static_cast<int>(Shading::tile_triangles) == static_cast<int>(ShadeMode::tile_triangles),
              "shading enums");
static_assert(static_cast<int>(Shading::shadow) == static_cast<int>(ShadeMode::shadow), "shading enums");
static_assert(static_cast<int>(Shading::albedo) == static_cast<int>(ShadeMode::albedo), "shading enums");
static_assert(static_cast<int>(LightType::headlight) == static_cast<int>(LightKind::headlight), "light enums");
static_assert(static_cast<int>(LightType::sun) == static_cast<int>(LightKind::sun), "light enums");
static_assert(kDefaultBackground.r == kBackground.r && kDefaultBackground.g == kBackground.g &&
                  kDefaultBackground.b == kBackground.b && kDefaultBackground.a == kBackground.a,
              "FrameSettings' default background is the shade stage's");
static_assert(static_cast<int>(LightType::point) == static_cast<int>(LightKind::point), "light enums");

namespace {
// Powers of two up to 2^125 either way keep a scale factor and its inverse normal floats.
constexpr int kMaxScaleExponent = 125;

Vec3 to_vec3(const glm::vec3& v) { return Vec3{v.x, v.y, v.z}; }
}  // namespace

MeshBounds rest_bounds(const Mesh& mesh) {
  MeshBounds b;
  if (mesh.positions.empty()) return b;
  glm::vec3 lo = mesh.positions[0], hi = mesh.positions[0];
  for (const glm::vec3& p : mesh.positions) {
    lo = glm::min(lo, p);
    hi = glm::max(hi, p);
  }
  const glm::vec3 c = (lo + hi) * 0.5f;
  const float r = length_without_overflow(hi - lo) * 0.5f;
  b.center = to_vec3(c);
  b.radius = r > 0.0f ? r : 1.0f;
  return b;
}

void check_settings(const FrameSettings& s) {
  if (s.width <= 0 || s.height <= 0) {
    throw std::invalid_argument("slabcast: frame size must be positive, got " + std::to_string(s.width) + "x" +
                                std::to_string(s.height));
  }
  // L1 / L2 split by tile column / row (at most kMaxTilesPerAxis buckets; rows also fit the 26-bit field).
  static_assert(static_cast<uint64_t>(kMaxTilesPerAxis) <= kRefRowMask + 1, "tile row field");
  if (tiles_for(s.width) > kMaxTilesPerAxis || tiles_for(s.height) > kMaxTilesPerAxis) {
    throw std::invalid_argument("slabcast: frame size " + std::to_string(s.width) + "x" + std::to_string(s.height) +
                                " is too large (at most " + std::to_string(kMaxTilesPerAxis * kTileSize) +
                                " pixels per axis)");
  }
  if (s.slabs < 1 || s.slabs > kMaxSlabs) {
    throw std::invalid_argument("slabcast: slabs must be 1.." + std::to_string(kMaxSlabs) + ", got " +
                                std::to_string(s.slabs));
  }
  if (!is_sample_count(s.samples)) {
    throw std::invalid_argument("slabcast: samples must be 1, 4 or 16, got " + std::to_string(s.samples));
  }
  if (s.progressive_sample < -1 || s.progressive_sample >= s.samples) {
    throw std::invalid_argument("slabcast: progressive sample must be -1 (off) or 0.." + std::to_string(s.samples - 1) +
                                " for " + std::to_string(s.samples) + " samples, got " +
                                std::to_string(s.progressive_sample));
  }
  const Camera& c = s.camera;
  if (!(c.fovy_degrees > 0.0f && c.fovy_degrees < 180.0f)) {
    throw std::invalid_argument("slabcast: camera fovy must be in (0, 180) degrees, got " +
                                std::to_string(c.fovy_degrees));
  }
  if (s.displacement != nullptr && !(std::isfinite(s.displacement->offset.x) && std::isfinite(s.displacement->offset.y) &&
                                     std::isfinite(s.displacement->offset.z))) {
    throw std::invalid_argument("slabcast: the displacement's offset must be finite");
  }
  const glm::vec3 f = c.target - c.eye;
  if (!(max_abs(f) > 0.0f) || !std::isfinite(max_abs(f)) || !std::isfinite(max_abs(c.eye))) {
    throw std::invalid_argument("slabcast: camera eye and target must be distinct finite points");
  }
  const glm::vec3 side = glm::cross(normalize_without_overflow(f), normalize_without_overflow(c.up));
  if (!(glm::dot(side, side) > 0.0f)) {
    throw std::invalid_argument("slabcast: camera up must not be parallel to the view direction");
  }
  const glm::vec3& l = s.light.vector;
  if (!std::isfinite(l.x) || !std::isfinite(l.y) || !std::isfinite(l.z)) {
    throw std::invalid_argument("slabcast: the light's vector must be finite");
  }
  if (s.light.type == LightType::sun && !(max_abs(l) > 0.0f)) {
    throw std::invalid_argument("slabcast: a sun's direction must not be the zero vector");
  }
}

void check_target(const FrameSettings& settings, const Surface& target) {
  if (target.pixels == nullptr || target.width != settings.width || target.height != settings.height ||
      target.pitch_bytes < 4 * static_cast<size_t>(target.width)) {
    throw std::invalid_argument("slabcast: the target surface does not match the frame size " +
                                std::to_string(settings.width) + "x" + std::to_string(settings.height));
  }
}

FrameSize frame_size(const FrameSettings& s, uint64_t triangles) {
  FrameSize size;
  size.width = s.width;
  size.height = s.height;
  size.slabs = s.slabs;
  size.tiles_x = tiles_for(s.width);
  size.tiles_y = tiles_for(s.height);
  if (frame_has_shadows(s)) {
    size.light_faces = s.light.type == LightType::sun ? 1 : kMaxLightFaces;
    const LightTileDensity d = light_tile_density();
    const double tiles = std::max(static_cast<double>(s.width) * s.height / d.pixels,
                                  static_cast<double>(triangles) / d.triangles) / size.light_faces;
    const int grid = static_cast<int>(std::ceil(std::sqrt(tiles)));
    size.light_grid = std::clamp(grid, 1, (kMaxLightColumns - 1) / size.light_faces);
  }
  return size;
}

uint64_t initial_light_capacity(const FrameSize& size, uint64_t triangles) {
  return std::max(kMinReferenceCapacity, kInitialRefsPerTriangle * triangles + kInitialLightRefsPerTile * size.light_tiles());
}

LightFrame make_light_frame(const FrameSettings& s, const ViewParams& view, const FrameSize& size) {
  LightFrame L;
  L.kind = static_cast<LightKind>(s.light.type);
  L.shadows = size.shadows();
  L.faces = std::max(1, size.light_faces);
  L.grid = std::max(1, size.light_grid);
  if (L.kind == LightKind::sun) {
    // The direction in view space, normalized in double (any length is accepted), and a basis across it.
    const glm::dvec3 d(s.light.vector);
    const glm::dvec3 w = d / glm::length(d);
    const glm::dvec3 r(view.right.x, view.right.y, view.right.z), u(view.up.x, view.up.y, view.up.z),
        b(view.back.x, view.back.y, view.back.z);
    const glm::dvec3 dv(glm::dot(r, w), glm::dot(u, w), glm::dot(b, w));
    const glm::dvec3 n = glm::normalize(dv);
    const glm::dvec3 helper = std::abs(n.x) < 0.9 ? glm::dvec3(1, 0, 0) : glm::dvec3(0, 1, 0);
    const glm::dvec3 au = glm::normalize(glm::cross(helper, n));
    const glm::dvec3 av = glm::cross(n, au);
    L.direction = Vec3{static_cast<float>(n.x), static_cast<float>(n.y), static_cast<float>(n.z)};
    L.axis_u = Vec3{static_cast<float>(au.x), static_cast<float>(au.y), static_cast<float>(au.z)};
    L.axis_v = Vec3{static_cast<float>(av.x), static_cast<float>(av.y), static_cast<float>(av.z)};
  } else if (L.kind == LightKind::point) {
    L.position = world_to_view(view, to_vec3(s.light.vector));
  }
  return L;
}

uint64_t mesh_bytes(uint64_t V, uint64_t T, uint64_t capacity) {
  const uint64_t kept = V * (sizeof(Vec3) * 3 + sizeof(ViewVertex)) + (V + 1) * sizeof(uint64_t) +
                        3 * T * sizeof(uint32_t) * 2 + T * sizeof(uint8_t) +
                        T * (sizeof(Vec3) + sizeof(PixelBox) + sizeof(float) + sizeof(TriangleVerts)) +
                        2 * capacity * sizeof(TriangleRef);
  return kept + 3 * T * sizeof(uint32_t) * 2;  // the adjacency build's (vertex, triangle) corners, sorted
}

std::string mesh_buffers_what(uint64_t V, uint64_t T, uint64_t capacity, int64_t textures) {
  const std::string appearance =
      textures < 0 ? "" : ", its materials and " + std::to_string(textures) + " textures with their mip levels";
  return "its buffers (" + std::to_string(T) + " triangles, " + std::to_string(V) + " vertices, room for " +
         std::to_string(capacity) + " triangle references" + appearance + ")";
}

float cone_spread_angle(const ViewParams& view) {
  // libm's atan here, once a frame on the host, so that both backends read the same value.
  return static_cast<float>(std::atan(2.0 * static_cast<double>(view.tan_half_fovy) / view.height));
}

ViewParams make_view_params(const Camera& camera, int width, int height, const MeshBounds* bounds) {
  // GLM's lookAt basis: f = forward, s = right, u = up; view space is (s, u, -f). The normalizations are
  // overflow-free and give GLM's bits wherever GLM's own do not overflow.
  const glm::vec3 f = normalize_without_overflow(camera.target - camera.eye);
  const glm::vec3 s = normalize_without_overflow(glm::cross(f, normalize_without_overflow(camera.up)));
  const glm::vec3 u = glm::cross(s, f);
  ViewParams v;
  v.eye = to_vec3(camera.eye);
  v.right = to_vec3(s);
  v.up = to_vec3(u);
  v.back = to_vec3(-f);
  v.tan_half_fovy = static_cast<float>(std::tan(glm::radians(static_cast<double>(camera.fovy_degrees)) * 0.5));
  v.aspect = static_cast<float>(width) / static_cast<float>(height);
  v.width = width;
  v.height = height;
  if (bounds) {
    // The scene's size: the mesh's radius, or the eye's distance from it where that is larger (a far camera).
    const glm::vec3 center(bounds->center.x, bounds->center.y, bounds->center.z);
    const float size = std::max(bounds->radius, max_abs(camera.eye - center));
    v.scale_exponent = std::clamp(pow2_exponent(size), -kMaxScaleExponent, kMaxScaleExponent);
    v.view_scale = std::ldexp(1.0f, -v.scale_exponent);
  }
  return v;
}

DeformFrame make_deform_frame(const DeformParams& params, const MeshBounds& bounds) {
  DeformFrame f;
  f.kind = static_cast<DeformKind>(params.kind);
  f.amount = params.amount;
  f.time = params.time;
  f.center = bounds.center;
  f.radius = bounds.radius;
  f.unit = std::ldexp(1.0f, -std::clamp(pow2_exponent(bounds.radius), -kMaxScaleExponent, kMaxScaleExponent));
  return f;
}

void depth_to_world_units(std::vector<float>& depth, int scale_exponent) {
  if (scale_exponent == 0) return;
  for (float& d : depth) d = std::ldexp(d, scale_exponent);
}

ShadeMode to_shade_mode(Shading shading) { return static_cast<ShadeMode>(shading); }

bool needs_smooth_normals(Shading shading) { return shading == Shading::phong || shading == Shading::normals; }

bool sync_stages_requested() {
  const char* v = std::getenv("SLABCAST_SYNC_STAGES");
  return v != nullptr && std::strcmp(v, "0") != 0 && v[0] != '\0';
}

LightTileDensity light_tile_density() {
  static const LightTileDensity density = [] {
    LightTileDensity d{kLightTileSamples, kLightTileTriangles};
    const char* v = std::getenv("SLABCAST_LIGHT_TILES");
    double pixels = 0, triangles = 0;
    char rest = 0;
    if (v == nullptr) return d;
    if (std::sscanf(v, "%lf,%lf%c", &pixels, &triangles, &rest) == 2 && pixels >= 1 && pixels <= 4096 &&
        triangles >= 1 && triangles <= 4096) {
      d = LightTileDensity{pixels, triangles};
    } else {
      std::fprintf(stderr, "slabcast: SLABCAST_LIGHT_TILES=%s ignored: expected P,T (a light tile per P pixels or T "
                   "triangles, each 1..4096); using %g,%g\n", v, d.pixels, d.triangles);
    }
    return d;
  }();
  return density;
}

bool frame_graph_requested() {
  const char* v = std::getenv("SLABCAST_FRAME_GRAPH");
  return v == nullptr || std::strcmp(v, "0") != 0;
}

KeyframePlan plan_keyframes(KeyframeSlots& slots, const Keyframes& k) {
  if (!(k.mix >= 0.0f && k.mix <= 1.0f)) {
    throw std::invalid_argument("slabcast: keyframe mix must be in [0, 1], got " + std::to_string(k.mix));
  }
  KeyframePlan plan;
  const auto held_in = [&](uint64_t key) { return slots.held[0] && slots.key[0] == key ? 0 : (slots.held[1] && slots.key[1] == key ? 1 : -1); };
  int a = held_in(k.a_key);
  int b = held_in(k.b_key);
  if (a < 0) {
    a = b == 0 ? 1 : 0;
    plan.upload_a = true;
  }
  if (k.b_key == k.a_key) {
    b = a;
  } else if (b < 0) {
    b = 1 - a;
    plan.upload_b = true;
  }
  if ((plan.upload_a && k.a == nullptr) || (plan.upload_b && k.b == nullptr)) {
    throw std::invalid_argument("slabcast: keyframe " + std::to_string(plan.upload_a && k.a == nullptr ? k.a_key : k.b_key) +
                                " is not on the device and no positions were given for it");
  }
  slots.key[a] = k.a_key;
  slots.held[a] = true;
  slots.key[b] = k.b_key;
  slots.held[b] = true;
  plan.slot_a = a;
  plan.slot_b = b;
  return plan;
}

void check_keyframe(const glm::vec3* positions, size_t count, uint64_t key) {
  for (size_t v = 0; v < count; ++v) {
    const glm::vec3& p = positions[v];
    if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z)) {
      throw std::invalid_argument("slabcast: keyframe " + std::to_string(key) + ": non-finite coordinate at vertex " +
                                  std::to_string(v));
    }
  }
}

bool take_displacement(DisplacementSlot& held, const Displacement& d, size_t vertices) {
  if (held.held && held.key == d.key) return false;
  for (size_t v = 0; d.offsets != nullptr && v < vertices; ++v) {
    const glm::vec3& o = d.offsets[v];
    if (!std::isfinite(o.x) || !std::isfinite(o.y) || !std::isfinite(o.z)) {
      throw std::invalid_argument("slabcast: displacement " + std::to_string(d.key) +
                                  ": non-finite offset at vertex " + std::to_string(v));
    }
  }
  for (size_t v = 0; d.weights != nullptr && v < vertices; ++v) {
    if (!(d.weights[v] >= 0.0f && d.weights[v] <= 1.0f)) {
      throw std::invalid_argument("slabcast: displacement " + std::to_string(d.key) + ": weight " +
                                  std::to_string(d.weights[v]) + " at vertex " + std::to_string(v) +
                                  " is outside [0, 1]");
    }
  }
  held = DisplacementSlot{true, d.key};
  return true;
}

}  // namespace slabcast
