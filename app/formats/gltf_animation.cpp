// glTF animation sampling and the pose of a rig: see gltf_animation.h.
#include "gltf_animation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <utility>

namespace slabcast {
namespace {

// Below this |cos| gap the two rotations are so close that slerp's sin(angle) loses its digits: lerp, then normalize.
constexpr double kSlerpLinearThreshold = 1.0 - 1e-9;

// The spherical interpolation of unit quaternions a -> b (x y z w) at u along the shorter arc, into out.
void slerp_xyzw(const double* a, const double* b, double u, double* out) {
  double cos_angle = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
  double sign = 1.0;
  if (cos_angle < 0.0) {  // q and -q are the same rotation; -b is the nearer one
    cos_angle = -cos_angle;
    sign = -1.0;
  }
  double wa = 1.0 - u, wb = u;
  if (cos_angle < kSlerpLinearThreshold) {
    const double angle = std::acos(std::min(cos_angle, 1.0));
    const double s = std::sin(angle);
    wa = std::sin((1.0 - u) * angle) / s;
    wb = std::sin(u * angle) / s;
  }
  double len2 = 0.0;
  for (int i = 0; i < 4; ++i) {
    out[i] = wa * a[i] + sign * wb * b[i];
    len2 += out[i] * out[i];
  }
  const double len = std::sqrt(len2);
  if (len > 0.0)
    for (int i = 0; i < 4; ++i) out[i] /= len;
}

void normalize4(double* q) {
  const double len = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (len > 0.0)
    for (int i = 0; i < 4; ++i) q[i] /= len;
}

glm::dquat quat_xyzw(const double* q) {
  glm::dquat r;
  r.x = q[0];
  r.y = q[1];
  r.z = q[2];
  r.w = q[3];
  return r;
}

glm::dmat4 local_matrix(const GltfNode& n) {
  if (n.has_matrix) return n.matrix;
  glm::dmat4 m = glm::mat4_cast(n.rotation);
  for (int c = 0; c < 3; ++c) m[c] *= n.scale[c];  // R x S: scale the columns
  m[3] = glm::dvec4(n.translation, 1.0);           // T x (R x S)
  return m;
}

}  // namespace

void sample_channel(const GltfChannel& ch, double seconds, double* out) {
  const size_t keys = ch.times.size();
  const size_t w = size_t(ch.width);
  const bool cubic = ch.interpolation == GltfInterpolation::cubic_spline;
  // The value (not a tangent) of key k.
  auto value = [&](size_t k) { return ch.values.data() + (cubic ? (3 * k + 1) * w : k * w); };
  auto copy = [&](const double* v) { std::copy(v, v + w, out); };

  if (keys == 0) return;
  if (!(seconds > ch.times.front())) return copy(value(0));  // also NaN: the first key
  if (seconds >= ch.times.back()) return copy(value(keys - 1));
  // The last key at or before `seconds`: times[k] <= seconds < times[k + 1].
  const size_t k = size_t(std::upper_bound(ch.times.begin(), ch.times.end(), seconds) - ch.times.begin()) - 1;
  const double d = ch.times[k + 1] - ch.times[k];
  const double u = d > 0.0 ? (seconds - ch.times[k]) / d : 0.0;

  switch (ch.interpolation) {
    case GltfInterpolation::step:
      return copy(value(k));
    case GltfInterpolation::linear:
      if (ch.path == GltfPath::rotation) return slerp_xyzw(value(k), value(k + 1), u, out);
      for (size_t i = 0; i < w; ++i) out[i] = (1.0 - u) * value(k)[i] + u * value(k + 1)[i];
      return;
    case GltfInterpolation::cubic_spline: {
      const double u2 = u * u, u3 = u2 * u;
      const double h00 = 2 * u3 - 3 * u2 + 1, h10 = u3 - 2 * u2 + u, h01 = -2 * u3 + 3 * u2, h11 = u3 - u2;
      const double* out_tangent = ch.values.data() + (3 * k + 2) * w;     // b_k
      const double* in_tangent = ch.values.data() + (3 * (k + 1)) * w;    // a_k+1
      for (size_t i = 0; i < w; ++i)
        out[i] = h00 * value(k)[i] + h10 * d * out_tangent[i] + h01 * value(k + 1)[i] + h11 * d * in_tangent[i];
      if (ch.path == GltfPath::rotation) normalize4(out);
      return;
    }
  }
}

GltfAnimations::GltfAnimations(std::string file, std::vector<GltfNode> nodes, std::vector<GltfAnimation> animations,
                               std::vector<GltfPaletteEntry> palette, std::vector<GltfMorphSlot> morph_slots)
    : file_(std::move(file)),
      nodes_(std::move(nodes)),
      animations_(std::move(animations)),
      palette_(std::move(palette)),
      morph_slots_(std::move(morph_slots)) {
  // Parents before children: a walk down from the roots (the loader has rejected cycles and second parents).
  std::vector<std::vector<int>> children(nodes_.size());
  for (size_t i = 0; i < nodes_.size(); ++i)
    if (nodes_[i].parent >= 0) children[size_t(nodes_[i].parent)].push_back(int(i));
  std::vector<int> stack;
  for (size_t i = 0; i < nodes_.size(); ++i)
    if (nodes_[i].parent < 0) stack.push_back(int(i));
  while (!stack.empty()) {
    const int n = stack.back();
    stack.pop_back();
    order_.push_back(n);
    for (int c : children[size_t(n)]) stack.push_back(c);
  }
  if (order_.size() != nodes_.size()) throw std::logic_error(file_ + ": the node hierarchy has a cycle");
}

std::vector<std::string> GltfAnimations::describe() const {
  std::vector<std::string> out;
  for (size_t i = 0; i < animations_.size(); ++i) {
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.2f s", animations_[i].duration);
    const std::string& n = animations_[i].name;
    out.push_back(std::to_string(i) + " " + (n.empty() ? std::string("(unnamed)") : "'" + n + "'") + " (" + seconds +
                  ")");
  }
  return out;
}

int GltfAnimations::find_animation(const std::string& name_or_index) const {
  for (size_t i = 0; i < animations_.size(); ++i)
    if (animations_[i].name == name_or_index) return int(i);
  if (!name_or_index.empty() && name_or_index.size() < 10 &&
      name_or_index.find_first_not_of("0123456789") == std::string::npos) {
    const long index = std::stol(name_or_index);
    if (index < long(animations_.size())) return int(index);
  }
  std::string list;
  for (const std::string& d : describe()) list += (list.empty() ? "" : ", ") + d;
  throw std::runtime_error(file_ + ": no animation '" + name_or_index + "'; " +
                           (list.empty() ? std::string("the file has none") : "the file has: " + list));
}

void GltfAnimations::evaluate(int animation, double seconds, std::vector<glm::dmat4>& globals,
                              std::vector<std::vector<double>>& weights) const {
  std::vector<GltfNode> local = nodes_;
  if (animation >= 0) {
    double v[4] = {0, 0, 0, 0};
    for (const GltfChannel& ch : animations_.at(size_t(animation)).channels) {
      GltfNode& n = local[size_t(ch.node)];
      if (ch.path == GltfPath::weights) {
        n.weights.resize(size_t(ch.width));
        sample_channel(ch, seconds, n.weights.data());
        continue;
      }
      sample_channel(ch, seconds, v);
      switch (ch.path) {
        case GltfPath::translation: n.translation = glm::dvec3(v[0], v[1], v[2]); break;
        case GltfPath::rotation: n.rotation = quat_xyzw(v); break;
        case GltfPath::scale: n.scale = glm::dvec3(v[0], v[1], v[2]); break;
        case GltfPath::weights: break;
      }
    }
  }
  globals.assign(nodes_.size(), glm::dmat4(1.0));
  for (int i : order_) {
    const GltfNode& n = local[size_t(i)];
    globals[size_t(i)] = n.parent < 0 ? local_matrix(n) : globals[size_t(n.parent)] * local_matrix(n);
  }
  weights.resize(nodes_.size());
  for (size_t i = 0; i < nodes_.size(); ++i) weights[i] = std::move(local[i].weights);
}

std::vector<glm::dmat4> GltfAnimations::node_globals(int animation, double seconds) const {
  std::vector<glm::dmat4> globals;
  std::vector<std::vector<double>> weights;
  evaluate(animation, seconds, globals, weights);
  return globals;
}

FramePose GltfAnimations::pose_from(const std::vector<glm::dmat4>& globals,
                                    const std::vector<std::vector<double>>& weights) const {
  FramePose pose;
  pose.palette.reserve(palette_.size());
  for (const GltfPaletteEntry& e : palette_)
    pose.palette.push_back(glm::mat4(e.node < 0 ? glm::dmat4(1.0) : globals[size_t(e.node)] * e.inverse_bind));
  pose.morph_weights.reserve(morph_slots_.size());
  for (const GltfMorphSlot& s : morph_slots_) {
    const std::vector<double>& w = weights[size_t(s.node)];
    pose.morph_weights.push_back(size_t(s.target) < w.size() ? float(w[size_t(s.target)]) : 0.0f);
  }
  return pose;
}

FramePose GltfAnimations::pose_at(int animation, double seconds) const {
  if (animation < 0 || animation >= count())
    throw std::out_of_range(file_ + ": animation " + std::to_string(animation) + " does not exist (the file has " +
                            std::to_string(count()) + ")");
  std::vector<glm::dmat4> globals;
  std::vector<std::vector<double>> weights;
  evaluate(animation, seconds, globals, weights);
  return pose_from(globals, weights);
}

FramePose GltfAnimations::rest_pose() const {
  std::vector<glm::dmat4> globals;
  std::vector<std::vector<double>> weights;
  evaluate(-1, 0.0, globals, weights);
  return pose_from(globals, weights);
}

}  // namespace slabcast
