// The renderer's public interface: what app/ (CLI, viewer, bench) and the tests use.
// The contract between render/ and app/ — change it only together with every user.
//
// One frame: deform -> project and bin -> build (L1 / L2 / L3 split) -> cast -> shade (docs/architecture.md).
#pragma once
#include <glm/glm.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace slabcast {

// ---- appearance (docs/formats.md): every part optional, an empty vector means "absent" ----

struct Color8 {  // 8-bit RGBA as stored in the file (no colour-space conversion)
  uint8_t r = 255, g = 255, b = 255, a = 255;
};

// A texture as decoded (stb_image): RGBA8, `height` rows of `width` texels, row 0 = the image's top row.
struct Texture {
  std::string name;  // the file it came from (or "NAME.glb:image 3"), for messages
  int width = 0;
  int height = 0;
  std::vector<uint8_t> rgba;  // 4 * width * height
};

// A material's base colour: factor x texture (at the hit's UV) x vertex colour (where the mesh has them).
struct Material {
  glm::vec4 base_color{1.0f, 1.0f, 1.0f, 1.0f};  // RGBA factor as stored (OBJ Kd, glTF baseColorFactor)
  int32_t texture = -1;                          // index into Mesh::textures; -1 = none
};

// ---- animation evaluated in the deform stage (render/stages/deform.h) ----

// Morph target: moves vertices [first_vertex, first_vertex + position_deltas.size()) by
// weight x delta, where the weight is FramePose::morph_weights[weight].
struct MorphTarget {
  uint32_t first_vertex = 0;
  uint32_t weight = 0;
  std::vector<glm::vec3> position_deltas;
};

// Vertex animation: the rig's position p (positions[v]) -> morphed p' = p + sum over targets of weight x delta ->
// skinned sum over i < influences of weights[v * influences + i] x (palette[joints[v * influences + i]] x p').
// A vertex whose weights are all 0 (or influences = 0) is not skinned: p' is its world position. The per-frame
// palette and weights are a FramePose; without one (FrameSettings::pose = nullptr) the mesh shows Mesh::positions.
struct MeshRig {
  std::vector<glm::vec3> positions; // [vertices] or empty (no rig): each vertex in the space its rig moves it from
                                    //   (its skin's or node's); Mesh::positions holds the rest pose in world space
  int influences = 0;               // joint influences per vertex
  std::vector<uint32_t> joints;     // [vertices * influences], each < palette_size
  std::vector<float> weights;       // [vertices * influences]
  std::vector<MorphTarget> morph_targets;
  uint32_t palette_size = 0;        // matrices a FramePose must give
  uint32_t morph_weight_count = 0;  // morph weights a FramePose must give
  bool empty() const { return positions.empty(); }
};

// One moment of a MeshRig's animation (app/ evaluates it, e.g. a glTF animation at time t).
struct FramePose {
  std::vector<glm::mat4> palette;     // [MeshRig::palette_size]: world-from-rest transforms (affine)
  std::vector<float> morph_weights;   // [MeshRig::morph_weight_count]
};

// Positions of a mesh sequence (one mesh a frame, same vertices and faces): the frame shows lerp(a, b, mix) of
// two keyframes in place of the rest positions, a + mix * (b - a) per coordinate. Each keyframe is a whole array
// of the mesh's vertex count, named by a caller-chosen key: the renderer keeps the last two it was given on the
// device and uploads a keyframe only when its key is new (so a player stepping from (k, k+1) to (k+1, k+2) uploads
// one array). A mesh with a rig ignores its rig while keyframes are given.
struct Keyframes {
  uint64_t a_key = 0, b_key = 0;
  const glm::vec3* a = nullptr;  // [vertices], read during render() only when a_key is not resident
  const glm::vec3* b = nullptr;
  float mix = 0.0f;              // in [0, 1]
};

// A user displacement (the viewer's vertex drag): after every other deformer (the procedural one, the rig's pose or
// the keyframes), vertex v moves by offsets[v] + weights[v] * offset, world space. The two arrays are the caller's,
// named together by `key`: the renderer copies them (to the device, on the cuda backend) only when the key differs
// from the one it holds, so a caller changes the key whenever it changes either array, and a frame that only changes
// `offset` (a drag in progress) costs no upload. Either array may be nullptr (no such term).
struct Displacement {
  uint64_t key = 0;
  const glm::vec3* offsets = nullptr;  // [vertices], world units, finite; read during render() only for a new key
  const float* weights = nullptr;      // [vertices], each in [0, 1]; read during render() only for a new key
  glm::vec3 offset{0.0f, 0.0f, 0.0f};  // world units, finite
};

// A triangle mesh as loaded. Triangle i is (indices[3i], indices[3i+1], indices[3i+2]); its ID is i.
struct Mesh {
  std::string name;                  // file name or "sphere:1000000"; shown in the viewer and in errors
  std::vector<glm::vec3> positions;  // rest positions, world space (with a rig: its rest pose)
  std::vector<uint32_t> indices;     // 3 per triangle, each < positions.size()
  // Appearance (all optional). A mesh without materials is white (the shading's own colour), or shows its vertex
  // colours where it has them.
  std::vector<glm::vec2> corner_uvs;          // [3 * triangles] or empty: texture coordinates per triangle corner,
                                              //   v = 0 at the texture's top row (loaders convert OBJ's v)
  std::vector<Color8> vertex_colors;          // [positions.size()] or empty
  std::vector<uint32_t> triangle_materials;   // [triangles] or empty (then every triangle uses material 0)
  std::vector<Material> materials;            // empty: no material (white)
  std::vector<Texture> textures;
  MeshRig rig;                                // empty: static (only the procedural deformers move it)
  size_t triangle_count() const { return indices.size() / 3; }
};

enum class Deformer : uint8_t { none, twist, bend, wave, pulse };

struct DeformParams {
  Deformer kind = Deformer::none;
  float amount = 1.0f;  // strength; 0 leaves the mesh at rest
  float time = 0.0f;    // seconds; an input, so a frame is reproducible
};

struct Camera {
  glm::vec3 eye{0.0f, 0.0f, 3.0f};
  glm::vec3 target{0.0f, 0.0f, 0.0f};
  glm::vec3 up{0.0f, 1.0f, 0.0f};
  float fovy_degrees = 45.0f;
};

enum class Shading : uint8_t {
  phong,           // Blinn-Phong headlight, smooth vertex normals (default)
  flat,            // Blinn-Phong headlight, face normals
  depth,           // distance along the ray, near = bright
  normals,         // smooth normal as RGB
  triangle_id,     // a hashed colour per triangle ID
  slab,            // the slab of the visible triangle
  ray_tests,       // heat map of ray-triangle tests per pixel, log scale up to the frame's most (FrameStats::heat_max)
  tile_triangles,  // heat map of triangle references per tile, log scale up to the frame's most
  shadow,          // the shadow mask (FrameExtras::shadow_mask) as grey levels; turns the shadows on
  albedo,          // the surface colour as stored (material x texture x vertex colour), 8-bit, unlit; white
                   //   for a mesh without materials
};

// The light that shades the frame (and casts its shadows). Vectors are world space.
enum class LightType : uint8_t {
  headlight,  // at the eye (the default): lights what the camera sees, casts no visible shadow
  sun,        // parallel light; `vector` points from the scene towards the sun (any length)
  point,      // a point light at `vector`, anywhere (inside the mesh, behind the camera, ...)
};
struct Light {
  LightType type = LightType::headlight;
  glm::vec3 vector{0.0f, 0.0f, 0.0f};
};

enum class Backend : uint8_t { cuda, cpu };

// The colour of the pixels whose ray hits nothing, unless a frame gives another (FrameSettings::background).
constexpr Color8 kDefaultBackground{28, 30, 38, 255};

struct FrameSettings {
  int width = 1024;
  int height = 1024;
  Camera camera;
  DeformParams deform;
  int slabs = 16;  // 1..64
  Shading shading = Shading::phong;
  Light light;
  // Exact hard shadows from `light` (docs/architecture.md, "Shadows"): a pixel is in shadow when another triangle
  // crosses the segment from its hit to the light; shadowed pixels keep the ambient term only.
  bool shadows = false;
  // The rig's pose for this frame (Mesh::rig); nullptr = the rest pose. Read during render() only.
  const FramePose* pose = nullptr;
  // A mesh sequence's two keyframes (Keyframes); nullptr = the rest positions (or the pose).
  const Keyframes* keyframes = nullptr;
  // A user displacement on top of every deformer (Displacement); nullptr = none (the frame then has no extra work).
  const Displacement* displacement = nullptr;
  // Darken the pixels whose hit lies within about a pixel of its triangle's edges (any view; docs/architecture.md,
  // "Shade").
  bool wireframe = false;
  // Anti-aliasing (docs/architecture.md, "Samples"): 1, 4 or 16 rays a pixel, through the centres of a 1x1, 2x2 or
  // 4x4 grid over the pixel, their colours averaged (a box filter, integer sum and rounded division, the same bytes
  // on both backends). N > 1 renders N whole frames, each through one point of every pixel, so it costs about N
  // frames; 1 is the pixel-centre frame exactly. FrameExtras stay the centre rays' (an extra frame when asked for).
  int samples = 1;
  // Progressive anti-aliasing (docs/architecture.md, "Samples"): -1 renders all `samples` sample frames in one call.
  // k in 0 .. samples-1 renders sample frame k only, adds it to sums the renderer keeps between calls (k = 0 starts
  // them afresh) and writes the average of samples 0 .. k into the target, so that after k = samples-1 the target
  // holds the very bytes of the whole `samples`-sample frame. The caller renders k = 0, 1, 2, ... in order with
  // nothing but k changed in between (the renderer refuses a k > 0 that does not follow the previous call's k at the
  // same size and sample count with std::logic_error; any other change is the caller's to notice: restart at 0).
  int progressive_sample = -1;
  // The colour of the pixels whose ray hits nothing, in every view but the heat views and the shadow mask (which
  // colour those pixels by their own scale). The image is opaque: the alpha is ignored.
  Color8 background = kDefaultBackground;
  // Time each stage (FrameStats::ms); the frame's total is timed either way. The cuda backend records a GPU event
  // between stages, and they cost: 0.022 ms of the dragon's 0.57 ms frame with shadows at 1024x1024 (H200). False
  // lets a backend leave its stage times 0 (the cuda backend does; the cpu backend's clocks cost nothing and it fills
  // them). The benchmark and the viewer time the stages of one frame in kStageTimingInterval.
  bool stage_times = true;
};
constexpr int kStageTimingInterval = 8;  // the benchmark and the viewer time the stages of one frame in this many
// The heat views: a count per pixel (ray_tests) or per tile (tile_triangles) on a log colour scale fitted to the frame.
inline bool is_heat_view(Shading s) { return s == Shading::ray_tests || s == Shading::tile_triangles; }
// The heat views' scale, as the shade stage draws it (render/stages/shade.h), for legends: where a count lies on the
// scale, log2(1 + value) / log2(1 + max) in [0, 1] (0 when max is 0), and the colour at a position in [0, 1]
// (blue, cyan, green, yellow, red).
float heat_scale_position(uint64_t value, uint64_t max);
Color8 heat_scale_color(float position);
// Whether a frame computes shadows: asked for, or the shadow view.
inline bool frame_has_shadows(const FrameSettings& s) { return s.shadows || s.shading == Shading::shadow; }

// A plain RGBA8 surface: the renderer writes `height` rows of `width` pixels, row 0 = top.
// For the cuda backend `pixels` is device memory (or a mapped PBO); for the cpu backend host memory.
struct Surface {
  uint8_t* pixels = nullptr;
  int width = 0;
  int height = 0;
  size_t pitch_bytes = 0;  // bytes from one row to the next (>= 4 * width)
};

// Per-pixel extras, in host memory, filled only when asked for (tests, --depth, --ids). They are the pixel-centre
// rays' at any FrameSettings::samples: with samples > 1 the renderer casts the centre frame for them besides the
// samples.
struct FrameExtras {
  std::vector<float> depth;          // W*H, distance t along the normalized ray; miss = +inf
  std::vector<uint32_t> triangle_id; // W*H; miss = 0xFFFFFFFF
  std::vector<uint8_t> shadow_mask;  // W*H when the frame had shadows: 0 in shadow, 255 lit, 128 no hit; else empty
  std::vector<uint32_t> ray_tests;   // W*H, the ray-triangle tests of each pixel's ray (ray_triangle_tests' terms)
};

struct StageTimes {  // milliseconds; GPU times from CUDA events (cuda backend), wall clock (cpu backend)
  float deform = 0, bin = 0, l1 = 0, l2 = 0, l3 = 0, cast = 0;
  // Shadows (0 without): the samples and their packing by light tile; the triangles' light-space boxes and
  // references; the shadow rays' tests. On the cuda backend the caster makes the samples (their time is in cast)
  // and the samples are packed beside the triangles' boxes and references, so there shadow_samples holds only the
  // samples' keys, and shadow_bin the packing too.
  float shadow_samples = 0, shadow_bin = 0, shadow_test = 0;
  float shade = 0, total = 0;
};

// With FrameSettings::samples = N > 1 a frame is N sample frames (render/samples.h): the counts of work (binned
// triangles, references, cells, ray tests, pixels hit, shadow figures, frame_redone) are sums over the N samples, the
// maxima (max_refs_per_tile, heat_max) the largest of any sample, and the times sums over every frame rendered (the
// centre frame for FrameExtras too), the averaging counted in `shade`. Each sample of a heat view is drawn on its own
// scale.
struct FrameStats {
  uint64_t triangles_in = 0;        // triangles in the mesh
  uint64_t triangles_binned = 0;    // triangles that survived culling: in front, on screen, over a pixel centre
  uint64_t references = 0;          // triangle references after L1 (one per covered tile)
  uint64_t nonempty_cells = 0;      // (tile, slab) cells with at least one reference
  uint64_t max_refs_per_tile = 0;
  uint64_t depth_sorted_cells = 0;  // deep cells put in near-depth order (render/stages/cast.h)
  uint64_t hidden_duplicates = 0;   // triangles never drawn: an earlier one has the same vertex positions
  // The thesis's RTI for this frame: for each ray, every triangle of each slab it was not yet finished at. The
  // casters skip the arithmetic of a test whose triangle's pixel box (render/stages/bin.h) leaves out the ray's
  // pixel, a certain miss; such a test still counts, so the figure measures what the slabs prune, as in the thesis.
  // In a deep cell a ray counts the groups of references it took (render/stages/cast.h).
  uint64_t ray_triangle_tests = 0;
  uint64_t pixels_hit = 0;
  uint64_t shadow_samples = 0;      // shadows: pixels whose hit was tested against the light
  uint64_t light_references = 0;    // shadows: triangle references in light-space tiles (a large triangle's one)
  // Shadows: the (sample, triangle) pairs of light space: every triangle with every sample of each light tile it
  // reaches, every large triangle with every sample. A pair's ray is tested only where the triangle's light box holds
  // the sample and the sample is not yet known to be in shadow, but the count is the same however a backend orders
  // its tests.
  uint64_t shadow_tests = 0;
  // The heat views' scale: the count drawn red, the frame's most ray tests of a pixel (ray_tests) or references of
  // a tile (tile_triangles, = max_refs_per_tile); 0 for the other views. Zero is blue, log scale in between.
  uint64_t heat_max = 0;
  int frame_redone = 0;             // times the frame was redone after growing buffers
  StageTimes ms;
};

// A closed rectangle of the image in continuous pixel coordinates: pixel (px, py) covers [px, px + 1) x [py, py + 1),
// row 0 at the top (docs/architecture.md, "Conventions"). Empty when a min exceeds its max or a bound is NaN.
struct ImageRect {
  float x_min = 0, y_min = 0, x_max = -1, y_max = -1;
};

// A vertex of the last frame whose projection lies in a queried rectangle (Renderer::select_vertices).
struct SelectedVertex {
  uint32_t vertex = 0;  // index into Mesh::positions
  float x = 0, y = 0;   // its projection, continuous pixel coordinates as ImageRect's
  float depth = 0;      // its distance in front of the camera along the view axis, world units (> 0)
};

// The per-frame acceleration structure, downloaded for tests (stage-by-stage comparison of backends).
struct FrameStructure {
  int tiles_x = 0, tiles_y = 0, slabs = 0;
  float z_near = 0, z_far = 0;                // the slab range fitted this frame (view-space distance, in view
                                              // units: world units times ViewParams::view_scale, camera.h)
  std::vector<int32_t> tile_range;            // 4 per triangle: x0, y0, x1, y1 inclusive; culled: x0 > x1
  std::vector<uint8_t> slab_of_triangle;      // per triangle (culled: undefined)
  std::vector<uint64_t> cell_offsets;         // tiles_x*tiles_y*slabs + 1; cell = (ty*tiles_x + tx)*slabs + slab
  std::vector<uint32_t> cell_triangles;       // references, packed by cell
};

class Renderer {
 public:
  virtual ~Renderer() = default;
  // Upload a mesh (validated by the caller). Builds the vertex->triangle adjacency for normals.
  // Throws std::runtime_error with a clear message on failure; out of memory reads
  // "out of GPU memory: NAME needs 1.9 GiB more for WHAT (3.2 GiB free of 80 GiB); the previous mesh is kept"
  // (or "host" for the cpu backend). A failed set_mesh leaves the previous mesh in place, still rendering;
  // only if even re-uploading it fails (the message then says so) does the renderer hold no mesh.
  virtual void set_mesh(const Mesh& mesh) = 0;
  // Render one frame into `target` (device memory for cuda, host memory for cpu). No allocation inside a frame
  // unless the scene needs more references than ever before (then buffers grow and the frame is redone).
  // Out of memory (a new frame size, or references that no longer fit) throws std::runtime_error as set_mesh
  // does; the frame is then not drawn, and the renderer keeps working for frames that fit.
  virtual FrameStats render(const FrameSettings& settings, const Surface& target, FrameExtras* extras = nullptr) = 0;
  // The structure of the last frame (for tests and debugging; slow, synchronizes); with samples > 1, the last
  // sample's.
  virtual FrameStructure last_structure() const = 0;
  // The deformed positions of the last frame (for --deformed-mesh).
  virtual std::vector<glm::vec3> last_deformed_positions() const = 0;
  // The last frame's deformed vertices (every deformer and the displacement applied) that project into `rect` of
  // its image, in ascending vertex order: the query of a 2-D range tree over their projections, rebuilt by each
  // call (the vertices move every frame). A vertex at or behind the camera plane is never selected; hidden vertices
  // are (this selects by projection, not visibility). Empty before the first frame. Not part of a frame: the cuda
  // backend waits for its result, and allocates the tree's memory (about 250 bytes a vertex) at its first call for
  // a mesh of a new vertex count.
  virtual std::vector<SelectedVertex> select_vertices(const ImageRect& rect) = 0;
  // The smooth vertex normals (world space) as the last frame that shaded with them computed them (for tests).
  virtual std::vector<glm::vec3> last_vertex_normals() const = 0;
  virtual Backend backend() const = 0;
  virtual size_t device_bytes_in_use() const = 0;  // 0 for cpu
};

// Throws std::runtime_error if the backend is not available (e.g. cuda without a device).
std::unique_ptr<Renderer> make_renderer(Backend backend);

// Options that tests and benchmarks may set; the defaults suit everything else.
struct RendererOptions {
  // Triangle references (after L1) the renderer first allocates room for; 0 = automatic (a few per triangle).
  // When a frame needs more, the buffers grow geometrically and the frame is redone (FrameStats::frame_redone).
  // Tests set a tiny value to exercise that path.
  uint64_t initial_reference_capacity = 0;
  // The cpu backend's threads; 0 = every core of the machine. Any count renders the same frame, bit for bit.
  int threads = 0;
};
std::unique_ptr<Renderer> make_renderer(Backend backend, const RendererOptions& options);

// Throws std::runtime_error with make_renderer's message ("the cuda backend needs an NVIDIA GPU, but none is usable
// (why); use the cpu backend ...") unless a CUDA device is usable; for callers that need the device before the
// renderer (the benchmark's GL context on the CUDA device).
void require_cuda_device();

// Procedural meshes: name is one of "sphere", "torus", "torus_knot", "stress"; triangles is a target count.
// Throws std::invalid_argument for an unknown name or an absurd count, and std::runtime_error ("out of host
// memory: sphere:1073741824 needs 30.0 GiB more for building the mesh (22.6 GiB free of 23.4 GiB)") when the
// host clearly cannot hold it, rather than letting the kernel's out-of-memory killer end the process.
Mesh make_procedural_mesh(const std::string& name, uint64_t triangles);

// Adds a floor under the mesh: a quad (two triangles, IDs after the mesh's) at its lowest y, centred under its
// bounding box, with twice the box's x and z extents (4x its footprint). The name gets "+floor".
void add_floor(Mesh& mesh);

// ---- the default camera (docs/architecture.md, "The default camera"; render/framing.cpp) ----
// What the default camera keeps in view of one vertex, world space: a ball (or a disc) that the deformer keeps the
// vertex in at any time, with any amount up to the one framed for; at rest the vertex itself (reach 0).
struct FramingPoint {
  glm::vec3 position{0.0f};     // the centre: the vertex, or (for a rotation) the middle of the arc's chord
  float reach = 0.0f;           // the radius
  glm::vec3 disc_normal{0.0f};  // zero: a ball; a unit vector: a disc across it (the circle a rotation keeps it on)
  // A rotation's vertex also stays on its whole circle about the axis, in the same plane: a second disc around
  // circle_centre (on the axis) of radius circle_reach (negative: none). The vertex lies in both discs, so a framing
  // takes the nearer of the two bounds in each direction (the arc's disc is the tighter one across the vertex's
  // radius, the circle's along it).
  glm::vec3 circle_centre{0.0f};
  float circle_reach = -1.0f;
};
// The balls of the vertices that count, under `deform` (its kind and |amount|; its time does not matter: the ball
// holds the vertex at every time). Vertices used only by "huge" triangles (longest edge over 20x the median longest
// edge: the stress scene's backdrop and slivers, a ground plane under a scan) do not count, so that a few of them do
// not shrink the model to a dot; without such triangles, or when only they exist, every vertex counts. A rig's or a
// sequence's own motion is not bounded: such a mesh is framed at its rest positions. O(vertices + triangles).
std::vector<FramingPoint> framing_points(const Mesh& mesh, const DeformParams& deform = {});
// A rectangle of the image plane at distance 1 in front of the eye, in the view's units (render/camera.h's
// pixel_ray_view: x right, y up; the whole image is [-tan_x, tan_x] x [-tan_y, tan_y]).
struct ImagePlaneRect {
  double left = -1.0, right = 1.0, bottom = -1.0, top = 1.0;
};
// The whole image of a camera with this vertical field of view and aspect (width / height), shrunk about its centre
// by kFramingMargin.
ImagePlaneRect framing_rect(float fovy_degrees, float aspect);
// The camera looking down -Z with +Y up, as near as it can be, that shows every point's ball inside `rect`: the
// smallest eye distance for which both the horizontal and the vertical extent fit, the eye then in the middle of the
// sideways range that keeps every ball inside: the model's projection touches both edges of `rect` in the direction
// that binds, and is centred in the other to within its depth's perspective (exactly for a flat model facing the
// camera). The target is on the view axis at the depth of the points' box centre (the point orbiting turns about);
// the eye stays at least kFramingClearance of the points' size in front of the nearest ball. With no points, the
// default Camera. O(points), in double precision: a mesh scaled by a power of two gets the camera scaled by it.
Camera frame_points(const std::vector<FramingPoint>& points, float fovy_degrees, const ImagePlaneRect& rect);
// The default camera of `slabcast render` and the viewer: frame_points(framing_points(mesh, deform), fovy_degrees,
// framing_rect(fovy_degrees, aspect)). Every counted vertex, deformed by `deform` at any time, projects inside the
// image shrunk by kFramingMargin, and so does every triangle between them; a long model fills a wide or a tall image
// along its long side.
Camera frame_mesh(const Mesh& mesh, float fovy_degrees = 45.0f, float aspect = 1.0f, const DeformParams& deform = {});
// The camera --orbit and --turntable circle with (app/options.h, orbit_camera): looking down -Z with +Y up at the
// centre of the counted points' box, from the distance at which the sphere about that centre holding every point's
// ball (framing_points with `deform`) fits both fields of view with kFramingMargin. At that distance the model stays
// whole seen from any direction, so an orbit neither cuts it nor changes its distance; a long model looks smaller
// than frame_mesh shows it.
Camera frame_mesh_all_around(const Mesh& mesh, float fovy_degrees = 45.0f, float aspect = 1.0f,
                             const DeformParams& deform = {});
// How much larger than the points' projection the framed view is, so that the model does not touch the image's edge
// (and the float rounding of the deformers stays inside).
constexpr double kFramingMargin = 1.05;
// The least distance from the eye to the nearest point's ball, relative to the points' size (half their box
// diagonal): only a very wide field of view, or a model that is a dot or a line along the view, gets that near.
constexpr double kFramingClearance = 0.05;

// Validate a mesh: throws std::invalid_argument naming the problem (no triangles, index out of range at
// triangle k, non-finite coordinate at vertex k).
void validate_mesh(const Mesh& mesh);

}  // namespace slabcast
