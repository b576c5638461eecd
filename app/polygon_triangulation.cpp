// Polygon triangulation for the OBJ loader: the first-corner fan for convex polygons, ear clipping for concave ones.
//
// Why our own ear clipper rather than tinyobjloader's (LoadObj with triangulate = true): its built-in clipper
// projects onto a coordinate plane chosen from the first non-collinear corner (a polygon can flip there), decides
// convexity with a term that is not the polygon's area, erases from the middle of a vector for every ear (quadratic
// even for a convex polygon: a 10^6-corner polygon would not finish) and gives up when it finds no ear, dropping the
// rest of the polygon's triangles (which would shift every later triangle ID); it also triangulates every face of
// the file, so convex faces could not keep their fan. Its robust variant needs mapbox's earcut.hpp, which Debian
// does not ship (only the Python binding); it too drops triangles of polygons it cannot handle.
//
// The ear clipper (Eberly, "Triangulation by Ear Clipping"): a corner is an ear when it turns with the polygon and
// no corner that does not (reflex or collinear; only those can lie in an ear's triangle of a simple polygon) lies in
// or on its triangle (previous, corner, next). Cutting an ear changes the ear status of its two neighbours only, so
// each cut costs two re-examinations. Collinear corners (zero turn) are ears of zero area: cutting one leaves the
// polygon's area as it was, and keeps the count at n-2.
//
// Order of the triangles, which the triangle IDs follow:
//   1. the ears among corners 0..n-1, in that order, form a queue;
//   2. the queue's head, if still an ear, is cut: triangle (previous, ear, next); its previous and then its next
//      neighbour are re-examined and queued at the tail if they are now ears;
//   3. if the queue runs dry with more than three corners left (only a polygon that touches or crosses itself can
//      do that), every remaining corner is re-examined in polygon order from the lowest-numbered remaining corner;
//      if that finds no ear, the first remaining corner in that order that turns with the polygon (or, failing
//      that, the lowest-numbered one) is cut anyway;
//   4. the last three corners, from the lowest-numbered, make the last triangle.
// If the work bound runs out first, the remaining corners are fanned from the lowest-numbered one.
#include "app/polygon_triangulation.h"

#include <cmath>
#include <deque>
#include <limits>

namespace slabcast {
namespace {

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

// Work the clipper may spend beyond its estimate (3·n·r) before it fans the rest: only a polygon that crosses
// itself re-examines all of its corners more than once.
constexpr uint64_t kWorkBudget = 4 * kMaxEarClipWork;

struct Point2 {
  double u, v;
};

// Twice the signed area of triangle (a, b, c); positive when it turns counter-clockwise. Its sign is also the turn
// at b of the path a -> b -> c. Float coordinates held as doubles: the differences and products are exact for
// coordinates of similar magnitude, so the sign is too.
double orient(const Point2& a, const Point2& b, const Point2& c) {
  return (b.u - a.u) * (c.v - a.v) - (b.v - a.v) * (c.u - a.u);
}

// The polygon's plane: the Newell normal's largest coordinate is dropped (a parallel projection, so corners keep
// their positions exactly and a planar polygon keeps its convexity and its corners' turns); `orientation` is the
// sign of the projected area, so orientation * orient(...) > 0 means "turns like the polygon".
struct Plane {
  int u_axis = 0, v_axis = 1;
  double orientation = 0;  // +1, -1, or 0 for a polygon of zero area
};

Plane polygon_plane(const glm::vec3* corners, uint32_t n) {
  // Newell's normal: the sum of the cross products of consecutive corners, taken relative to corner 0 so that a
  // polygon far from the origin loses no precision.
  double normal[3] = {0, 0, 0};
  const double o[3] = {corners[0].x, corners[0].y, corners[0].z};
  for (uint32_t i = 1; i + 1 < n; ++i) {
    const double a[3] = {corners[i].x - o[0], corners[i].y - o[1], corners[i].z - o[2]};
    const double b[3] = {corners[i + 1].x - o[0], corners[i + 1].y - o[1], corners[i + 1].z - o[2]};
    normal[0] += a[1] * b[2] - a[2] * b[1];
    normal[1] += a[2] * b[0] - a[0] * b[2];
    normal[2] += a[0] * b[1] - a[1] * b[0];
  }
  int axis = 0;
  for (int k = 1; k < 3; ++k) {
    if (std::fabs(normal[k]) > std::fabs(normal[axis])) axis = k;
  }
  // Cyclic order (y, z), (z, x), (x, y): the projected area then has the sign of normal[axis].
  Plane plane;
  plane.u_axis = (axis + 1) % 3;
  plane.v_axis = (axis + 2) % 3;
  plane.orientation = normal[axis] > 0 ? 1.0 : normal[axis] < 0 ? -1.0 : 0.0;
  return plane;
}

Point2 project(const glm::vec3& p, const Plane& plane) { return {double(p[plane.u_axis]), double(p[plane.v_axis])}; }

void append_fan(uint32_t n, std::vector<uint32_t>* triangles) {
  for (uint32_t k = 1; k + 1 < n; ++k) triangles->insert(triangles->end(), {0, k, k + 1});
}

class EarClipper {
 public:
  EarClipper(const glm::vec3* corners, uint32_t n, const Plane& plane) : n_(n), orientation_(plane.orientation) {
    nodes_.resize(n);
    for (uint32_t i = 0; i < n; ++i) {
      Node& node = nodes_[i];
      node.p = project(corners[i], plane);
      node.prev = i == 0 ? n - 1 : i - 1;
      node.next = i + 1 == n ? 0 : i + 1;
    }
    for (uint32_t i = 0; i < n; ++i) classify(i);
  }

  // Appends n-2 triangles; false when the work bound ran out and the rest was fanned.
  bool run(std::vector<uint32_t>* triangles) {
    for (uint32_t i = 0; i < n_ && within_budget(); ++i) examine(i);
    bool rescanned = false;
    while (remaining_ > 3 && within_budget()) {
      uint32_t ear = kNone;
      if (!queue_.empty()) {
        ear = queue_.front();
        queue_.pop_front();
        nodes_[ear].queued = false;
        if (nodes_[ear].removed || !nodes_[ear].ear) continue;
      } else if (!rescanned) {
        rescan();
        rescanned = true;
        continue;
      } else {
        ear = forced_cut();
      }
      cut(ear, triangles);
      rescanned = false;
    }
    const bool finished = remaining_ == 3;
    // The last triangle, or the fan of whatever the work bound left.
    for (uint32_t k = nodes_[start_].next; nodes_[k].next != start_; k = nodes_[k].next) {
      triangles->insert(triangles->end(), {start_, k, nodes_[k].next});
    }
    return finished;
  }

 private:
  struct Node {
    Point2 p;
    uint32_t prev = kNone, next = kNone;            // the remaining polygon, a cycle in corner order
    uint32_t prev_cand = kNone, next_cand = kNone;  // the list of corners that do not turn with the polygon
    int turn = 0;                                   // +1 with the polygon, -1 against it, 0 collinear
    bool candidate = false;                         // in that list (turn <= 0)
    bool ear = false, queued = false, removed = false;
  };

  bool within_budget() const { return work_ <= kWorkBudget; }

  // The corner's turn from its current neighbours; keeps the candidate list in step.
  void classify(uint32_t i) {
    Node& node = nodes_[i];
    const double turn = orientation_ * orient(nodes_[node.prev].p, node.p, nodes_[node.next].p);
    node.turn = turn > 0 ? 1 : turn < 0 ? -1 : 0;
    const bool candidate = node.turn <= 0;
    if (candidate == node.candidate) return;
    node.candidate = candidate;
    if (candidate) {  // push front
      node.prev_cand = kNone;
      node.next_cand = candidates_;
      if (candidates_ != kNone) nodes_[candidates_].prev_cand = i;
      candidates_ = i;
    } else {
      unlink_candidate(i);
    }
  }

  void unlink_candidate(uint32_t i) {
    Node& node = nodes_[i];
    if (node.prev_cand != kNone) nodes_[node.prev_cand].next_cand = node.next_cand;
    else candidates_ = node.next_cand;
    if (node.next_cand != kNone) nodes_[node.next_cand].prev_cand = node.prev_cand;
    node.prev_cand = node.next_cand = kNone;
    node.candidate = false;
  }

  bool is_ear(uint32_t i) {
    const Node& b = nodes_[i];
    if (b.turn == 0) return true;  // collinear: a triangle of zero area, the polygon's area stays as it was
    if (b.turn < 0) return false;
    const uint32_t ia = b.prev, ic = b.next;
    const Point2 a = nodes_[ia].p, c = nodes_[ic].p;
    for (uint32_t k = candidates_; k != kNone; k = nodes_[k].next_cand) {
      ++work_;
      if (k == ia || k == ic) continue;
      const Point2 p = nodes_[k].p;
      // A corner at the same place as one of the triangle's (a polygon touching itself there) does not block it;
      // without this, such a polygon would have no ear at all.
      if ((p.u == a.u && p.v == a.v) || (p.u == b.p.u && p.v == b.p.v) || (p.u == c.u && p.v == c.v)) continue;
      if (orientation_ * orient(a, b.p, p) >= 0 && orientation_ * orient(b.p, c, p) >= 0 &&
          orientation_ * orient(c, a, p) >= 0) {
        return false;  // in the triangle or on its boundary
      }
    }
    return true;
  }

  void examine(uint32_t i) {
    Node& node = nodes_[i];
    node.ear = is_ear(i);
    if (node.ear && !node.queued) {
      node.queued = true;
      queue_.push_back(i);
    }
  }

  void cut(uint32_t i, std::vector<uint32_t>* triangles) {
    Node& node = nodes_[i];
    const uint32_t a = node.prev, c = node.next;
    triangles->insert(triangles->end(), {a, i, c});
    nodes_[a].next = c;
    nodes_[c].prev = a;
    if (node.candidate) unlink_candidate(i);
    node.removed = true;
    node.ear = false;
    --remaining_;
    if (start_ == i) start_ = c;  // the corners stay in cyclic order, so c is the next-lowest
    classify(a);
    classify(c);
    examine(a);
    examine(c);
  }

  // Step 3 of the order: every remaining corner re-examined, from the lowest-numbered.
  void rescan() {
    uint32_t k = start_;
    do {
      ++work_;
      examine(k);
      k = nodes_[k].next;
    } while (k != start_ && within_budget());
  }

  uint32_t forced_cut() {
    uint32_t k = start_;
    do {
      ++work_;
      if (nodes_[k].turn > 0) return k;
      k = nodes_[k].next;
    } while (k != start_);
    return start_;
  }

  uint32_t n_;
  double orientation_;
  std::vector<Node> nodes_;
  std::deque<uint32_t> queue_;  // at most one entry per corner (Node::queued)
  uint32_t candidates_ = kNone;
  uint32_t start_ = 0;
  uint32_t remaining_ = n_;
  uint64_t work_ = 0;
};

}  // namespace

PolygonTriangles triangulate_polygon(const glm::vec3* corners, uint32_t n, std::vector<uint32_t>* triangles) {
  PolygonTriangles result;
  const Plane plane = n > 3 ? polygon_plane(corners, n) : Plane{};
  if (plane.orientation == 0) {  // a triangle, or a polygon of zero area: nothing to cut around
    append_fan(n, triangles);
    return result;
  }
  uint32_t reflex = 0, not_convex = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const Point2 a = project(corners[i == 0 ? n - 1 : i - 1], plane);
    const Point2 b = project(corners[i], plane);
    const Point2 c = project(corners[i + 1 == n ? 0 : i + 1], plane);
    const double turn = plane.orientation * orient(a, b, c);
    reflex += turn < 0;
    not_convex += turn <= 0;
  }
  if (reflex == 0) {
    append_fan(n, triangles);
    return result;
  }
  result.not_convex_corners = not_convex;
  if (uint64_t(n) * not_convex > kMaxEarClipWork) {
    append_fan(n, triangles);
    result.method = PolygonMethod::fan_too_large;
    return result;
  }
  triangles->reserve(triangles->size() + 3 * size_t(n - 2));
  EarClipper clipper(corners, n, plane);
  result.method = clipper.run(triangles) ? PolygonMethod::ear_clipped : PolygonMethod::fan_too_large;
  return result;
}

}  // namespace slabcast
