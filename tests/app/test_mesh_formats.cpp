// app/formats: load_mesh over every format. The same triangles written as OBJ, PLY (ASCII, binary little- and
// big-endian), STL (ASCII, binary) and OFF load with the same triangle IDs; PLY and COFF vertex colours come back
// exactly; the shipped textured box's materials, texture and UVs; warnings for missing and broken material files;
// the format is chosen by content before extension. The files are written here from bytes, and the expectations
// are computed independently (the fan rule for convex polygons, the colours as written).
#include "app/formats/mesh_format.h"
#include "app/mesh_io.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace slabcast {
namespace {

const std::string kSource = SLABCAST_SOURCE_DIR;

std::string temp_dir() {
  const std::string dir = ::testing::TempDir() + "slabcast_mesh_formats_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  return dir;
}

std::string write_file(const std::string& name, const std::string& bytes) {
  const std::string path = temp_dir() + "/" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

// ---- the test mesh: a triangle, a convex quad and a convex pentagon, in that order ----

const std::vector<glm::vec3> kPositions = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {-0.5f, 0.5f, 0},
                                           {2, 0, 1}, {3, 0, 1}, {3, 1, 1.5f}};
const std::vector<std::vector<uint32_t>> kFaces = {{5, 6, 7}, {0, 1, 2, 3}, {0, 1, 2, 3, 4}};

// The triangles a convex face becomes, in order: the first-corner fan (v0, vk, vk+1).
std::vector<std::array<glm::vec3, 3>> expected_triangles() {
  std::vector<std::array<glm::vec3, 3>> out;
  for (const auto& f : kFaces) {
    for (size_t k = 1; k + 1 < f.size(); ++k) out.push_back({kPositions[f[0]], kPositions[f[k]], kPositions[f[k + 1]]});
  }
  return out;
}

template <class T>
std::string bytes_of(T value, bool big_endian) {
  char b[sizeof(T)];
  std::memcpy(b, &value, sizeof(T));
  if (big_endian) std::reverse(b, b + sizeof(T));
  return std::string(b, sizeof(T));
}

std::string obj_text() {
  std::string s;
  for (const auto& p : kPositions) s += "v " + std::to_string(p.x) + " " + std::to_string(p.y) + " " + std::to_string(p.z) + "\n";
  for (const auto& f : kFaces) {
    s += "f";
    for (uint32_t i : f) s += " " + std::to_string(i + 1);
    s += "\n";
  }
  return s;
}

std::string ply_header(const std::string& encoding, bool colors) {
  return "ply\nformat " + encoding + " 1.0\ncomment test\nelement vertex " + std::to_string(kPositions.size()) +
         "\nproperty float x\nproperty float y\nproperty float z\n" +
         (colors ? "property uchar red\nproperty uchar green\nproperty uchar blue\nproperty uchar alpha\n" : "") +
         "element face " + std::to_string(kFaces.size()) + "\nproperty list uchar int vertex_indices\nend_header\n";
}

Color8 color_of(size_t v) { return {uint8_t(v * 37), uint8_t(255 - v * 13), uint8_t(v * v), uint8_t(128 + v)}; }

std::string ply_ascii() {
  std::string s = ply_header("ascii", true);
  for (size_t v = 0; v < kPositions.size(); ++v) {
    const auto& p = kPositions[v];
    const Color8 c = color_of(v);
    s += std::to_string(p.x) + " " + std::to_string(p.y) + " " + std::to_string(p.z) + " " + std::to_string(c.r) +
         " " + std::to_string(c.g) + " " + std::to_string(c.b) + " " + std::to_string(c.a) + "\n";
  }
  for (const auto& f : kFaces) {
    s += std::to_string(f.size());
    for (uint32_t i : f) s += " " + std::to_string(i);
    s += "\n";
  }
  return s;
}

std::string ply_binary(bool big) {
  std::string s = ply_header(big ? "binary_big_endian" : "binary_little_endian", true);
  for (size_t v = 0; v < kPositions.size(); ++v) {
    for (int a = 0; a < 3; ++a) s += bytes_of(kPositions[v][a], big);
    const Color8 c = color_of(v);
    s += std::string{char(c.r), char(c.g), char(c.b), char(c.a)};
  }
  for (const auto& f : kFaces) {
    s += char(f.size());
    for (uint32_t i : f) s += bytes_of(int32_t(i), big);
  }
  return s;
}

std::string stl_ascii() {
  std::string s = "solid test\n";
  for (const auto& t : expected_triangles()) {
    s += " facet normal 0 0 1\n  outer loop\n";
    for (const auto& p : t) s += "   vertex " + std::to_string(p.x) + " " + std::to_string(p.y) + " " + std::to_string(p.z) + "\n";
    s += "  endloop\n endfacet\n";
  }
  return s + "endsolid test\n";
}

std::string stl_binary() {
  const auto triangles = expected_triangles();
  std::string s(80, ' ');
  s.replace(0, 5, "solid");  // real exporters do this: detection must go by the size, not by the word
  s += bytes_of(uint32_t(triangles.size()), false);
  for (const auto& t : triangles) {
    for (int a = 0; a < 3; ++a) s += bytes_of(0.0f, false);
    for (const auto& p : t) {
      for (int a = 0; a < 3; ++a) s += bytes_of(p[a], false);
    }
    s += std::string(2, '\0');
  }
  return s;
}

std::string off_text() {
  std::string s = "COFF\n# a comment\n" + std::to_string(kPositions.size()) + " " + std::to_string(kFaces.size()) + " 0\n";
  for (size_t v = 0; v < kPositions.size(); ++v) {
    const auto& p = kPositions[v];
    const Color8 c = color_of(v);
    s += std::to_string(p.x) + " " + std::to_string(p.y) + " " + std::to_string(p.z) + " " + std::to_string(c.r) +
         " " + std::to_string(c.g) + " " + std::to_string(c.b) + " " + std::to_string(c.a) + "\n";
  }
  for (const auto& f : kFaces) {
    s += std::to_string(f.size());
    for (uint32_t i : f) s += " " + std::to_string(i);
    s += "\n";
  }
  return s;
}

void expect_same_triangles(const Mesh& mesh) {
  const auto expected = expected_triangles();
  ASSERT_EQ(mesh.triangle_count(), expected.size());
  for (size_t t = 0; t < expected.size(); ++t) {
    for (size_t k = 0; k < 3; ++k) {
      EXPECT_EQ(mesh.positions[mesh.indices[3 * t + k]], expected[t][k]) << "triangle " << t << " corner " << k;
    }
  }
}

TEST(MeshFormats, SameTrianglesHaveTheSameIdsInEveryFormat) {
  const std::pair<std::string, std::string> files[] = {
      {"m.obj", obj_text()},          {"m_ascii.ply", ply_ascii()},   {"m_le.ply", ply_binary(false)},
      {"m_be.ply", ply_binary(true)}, {"m_ascii.stl", stl_ascii()},   {"m_binary.stl", stl_binary()},
      {"m.off", off_text()},
  };
  for (const auto& [name, bytes] : files) {
    SCOPED_TRACE(name);
    const Mesh mesh = load_mesh(write_file(name, bytes));
    EXPECT_EQ(mesh.name, name);
    expect_same_triangles(mesh);
  }
}

TEST(MeshFormats, PlyAndOffKeepTheFilesVertexOrderAndColours) {
  for (const std::string& bytes : {ply_ascii(), ply_binary(false), ply_binary(true), off_text()}) {
    const Mesh mesh = load_mesh(write_file(bytes[0] == 'p' ? "c.ply" : "c.off", bytes));
    ASSERT_EQ(mesh.positions, kPositions);
    ASSERT_EQ(mesh.vertex_colors.size(), kPositions.size());
    for (size_t v = 0; v < kPositions.size(); ++v) {
      const Color8 c = color_of(v), got = mesh.vertex_colors[v];
      EXPECT_EQ((std::array<int, 4>{got.r, got.g, got.b, got.a}), (std::array<int, 4>{c.r, c.g, c.b, c.a})) << v;
    }
  }
}

TEST(MeshFormats, StlCornersAreWeldedIntoSharedVertices) {
  for (const std::string& bytes : {stl_ascii(), stl_binary()}) {
    const Mesh mesh = load_mesh(write_file("w.stl", bytes));
    // 8 distinct positions: the quad and the pentagon share their corners, as in the other formats.
    EXPECT_EQ(mesh.positions.size(), kPositions.size());
    EXPECT_TRUE(mesh.vertex_colors.empty());
  }
}

TEST(MeshFormats, ShippedColoredSphereHasItsNormalsAsColours) {
  const Mesh mesh = load_mesh(kSource + "/assets/colored-sphere.ply");
  ASSERT_EQ(mesh.positions.size(), 266u);
  EXPECT_EQ(mesh.triangle_count(), 528u);
  ASSERT_EQ(mesh.vertex_colors.size(), mesh.positions.size());
  for (size_t v = 0; v < mesh.positions.size(); ++v) {
    const glm::vec3 n = mesh.positions[v];  // a unit sphere: the position is the normal
    const Color8 c = mesh.vertex_colors[v];
    EXPECT_EQ(c.r, int(std::floor((double(n.x) + 1.0) * 127.5 + 0.5))) << v;
    EXPECT_EQ(c.a, 255);
  }
}

TEST(MeshFormats, TexturedBoxHasItsMaterialsTextureAndUvs) {
  std::vector<std::string> warnings;
  const Mesh mesh = load_mesh(kSource + "/assets/textured-box/textured-box.obj", {},
                              [&](const std::string& w) { warnings.push_back(w); });
  EXPECT_TRUE(warnings.empty()) << warnings.front();
  ASSERT_EQ(mesh.triangle_count(), 12u);
  ASSERT_EQ(mesh.materials.size(), 2u);  // checker, tinted; every face has a usemtl
  EXPECT_EQ(mesh.materials[0].base_color, glm::vec4(1, 1, 1, 1));
  EXPECT_EQ(mesh.materials[0].texture, 0);
  EXPECT_EQ(mesh.materials[1].base_color, glm::vec4(0.2f, 0.6f, 1.0f, 0.5f));
  EXPECT_EQ(mesh.materials[1].texture, -1);
  EXPECT_EQ(mesh.triangle_materials, (std::vector<uint32_t>{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1}));
  ASSERT_EQ(mesh.textures.size(), 1u);
  const Texture& t = mesh.textures[0];
  ASSERT_EQ(t.width, 16);
  ASSERT_EQ(t.height, 16);
  ASSERT_EQ(t.rgba.size(), 16u * 16u * 4u);
  const auto texel = [&](int x, int y) { return std::vector<uint8_t>(&t.rgba[4 * (y * 16 + x)], &t.rgba[4 * (y * 16 + x)] + 4); };
  EXPECT_EQ(texel(0, 0), (std::vector<uint8_t>{230, 40, 40, 255}));   // top-left cell: red
  EXPECT_EQ(texel(4, 0), (std::vector<uint8_t>{40, 200, 60, 255}));   // its right neighbour: green
  EXPECT_EQ(texel(0, 4), (std::vector<uint8_t>{40, 80, 230, 255}));   // below it: blue
  EXPECT_EQ(texel(15, 15), (std::vector<uint8_t>{250, 220, 30, 255}));  // bottom-right: yellow
  // The front face "f 1/1 2/2 3/3 4/4" with vt (0,0) (1,0) (1,1) (0,1): triangles (1,2,3) and (1,3,4), v flipped.
  ASSERT_EQ(mesh.corner_uvs.size(), 36u);
  const std::vector<glm::vec2> front = {{0, 1}, {1, 1}, {1, 0}, {0, 1}, {1, 0}, {0, 0}};
  EXPECT_EQ(std::vector<glm::vec2>(mesh.corner_uvs.begin(), mesh.corner_uvs.begin() + 6), front);
  // The bottom face has no vt: (0, 0) at every corner.
  for (size_t i = 30; i < 36; ++i) EXPECT_EQ(mesh.corner_uvs[i], glm::vec2(0, 0)) << i;
}

TEST(MeshFormats, MissingLibraryTextureAndMaterialAreWarningsNamingTheFile) {
  const std::string dir = temp_dir() + "/materials";
  std::filesystem::create_directories(dir + "/lib");
  std::ofstream(dir + "/lib/a.mtl") << "newmtl red\nKd 1 0 0\nmap_Kd missing.png\nnewmtl bad\nKd 0 1 0\nmap_Kd bad.png\n";
  std::ofstream(dir + "/lib/bad.png") << "not a png at all";
  std::ofstream(dir + "/m.obj") << "mtllib lib/a.mtl\nmtllib gone.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\n"
                                   "f 1 2 3\nusemtl red\nf 1 2 3\nusemtl bad\nf 1 2 3\nusemtl nowhere\nf 1 2 3\n";
  std::vector<std::string> warnings;
  const Mesh mesh = load_mesh(dir + "/m.obj", {}, [&](const std::string& w) { warnings.push_back(w); });
  ASSERT_EQ(warnings.size(), 4u);
  EXPECT_NE(warnings[0].find(dir + "/m.obj:2: material library " + dir + "/gone.mtl"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[1].find(dir + "/lib/missing.png"), std::string::npos) << warnings[1];
  EXPECT_NE(warnings[2].find(dir + "/lib/bad.png"), std::string::npos) << warnings[2];
  EXPECT_NE(warnings[3].find("m.obj:11: material 'nowhere' is defined in no material library"), std::string::npos)
      << warnings[3];
  // red, bad, nowhere, and the white one for the face before any usemtl.
  ASSERT_EQ(mesh.materials.size(), 4u);
  EXPECT_EQ(mesh.materials[0].base_color, glm::vec4(1, 0, 0, 1));
  EXPECT_EQ(mesh.materials[0].texture, -1);
  EXPECT_EQ(mesh.materials[1].base_color, glm::vec4(0, 1, 0, 1));
  EXPECT_EQ(mesh.materials[2].base_color, glm::vec4(1, 1, 1, 1));
  EXPECT_EQ(mesh.triangle_materials, (std::vector<uint32_t>{3, 0, 1, 2}));
  EXPECT_TRUE(mesh.textures.empty());
  EXPECT_TRUE(mesh.corner_uvs.empty());  // no vt in the file
}

// Any other format Assimp reads, by extension: a Collada file whose node moves a quad and a triangle by +10 in x.
// The quad (a polygon of 4 corners) becomes 2 triangles that keep its winding, then the triangle, in file order.
TEST(MeshFormats, OtherAssimpFormatsLoadByExtensionWithTheirNodeTransforms) {
  const std::string path = std::string(SLABCAST_SOURCE_DIR) + "/tests/app/meshes/moved_quad.dae";
  EXPECT_EQ(detect_mesh_format(path), MeshFormat::assimp_scene);
  const Mesh mesh = load_mesh(path);
  ASSERT_EQ(mesh.triangle_count(), 3u);
  const glm::vec3 want[3][3] = {{{10, 0, 0}, {11, 0, 0}, {11, 1, 0}},
                                {{10, 0, 0}, {11, 1, 0}, {10, 1, 0}},
                                {{10, 1, 0}, {11, 1, 0}, {10.5f, 1.5f, 0}}};
  for (size_t t = 0; t < 3; ++t) {
    for (size_t k = 0; k < 3; ++k) EXPECT_EQ(mesh.positions[mesh.indices[3 * t + k]], want[t][k]) << t << " " << k;
  }
  EXPECT_EQ(mesh.name, "moved_quad.dae");
  // A broken one is Assimp's error, named.
  try {
    load_mesh(write_file("broken.dae", "<?xml version=\"1.0\"?><COLLADA><library_geometries>"));
    ADD_FAILURE() << "a broken Collada file loaded";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("broken.dae: Assimp: "), std::string::npos) << e.what();
  }
}

TEST(MeshFormats, ContentDecidesBeforeTheExtension) {
  EXPECT_EQ(detect_mesh_format(write_file("ply_named.obj", ply_ascii())), MeshFormat::assimp);
  EXPECT_EQ(detect_mesh_format(write_file("obj_named.ply", obj_text())), MeshFormat::obj);
  EXPECT_EQ(detect_mesh_format(write_file("stl_named.off", stl_binary())), MeshFormat::assimp);
  EXPECT_EQ(detect_mesh_format(write_file("off_named.dat", off_text())), MeshFormat::off);
  EXPECT_EQ(detect_mesh_format(write_file("g.bin", "glTF\x02\0\0\0")), MeshFormat::glb);
  EXPECT_EQ(detect_mesh_format(write_file("g.json", "{\n \"asset\": {\"version\": \"2.0\"}\n}\n")), MeshFormat::gltf);
  expect_same_triangles(load_mesh(write_file("ply_named.obj", ply_binary(true))));
  // Unknown content: the extension decides, and that format's reader says what is wrong.
  EXPECT_EQ(detect_mesh_format(write_file("garbage.ply", "\x01\x02garbage")), MeshFormat::assimp);
  EXPECT_TRUE(has_mesh_extension("a/b/Dragon.PLY"));
  EXPECT_FALSE(has_mesh_extension("a.ply/readme"));
}

}  // namespace
}  // namespace slabcast
