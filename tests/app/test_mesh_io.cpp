// app/mesh_io: OBJ loading (broken-file corpus, which statements are read, ignored or rejected, triangulation of
// convex and concave polygons, face order, relative indices, line endings, progress) and writing (round trip).
#include "app/formats/mesh_format.h"
#include "app/mesh_io.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace slabcast {
namespace {

const std::string kSource = SLABCAST_SOURCE_DIR;
const std::string kBroken = kSource + "/tests/app/broken/";
const std::string kMeshes = kSource + "/tests/app/meshes/";

std::string temp_dir() {
  const std::string dir = ::testing::TempDir() + "slabcast_mesh_io_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  return dir;
}

std::string write_text(const std::string& name, const std::string& text) {
  const std::string path = temp_dir() + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// The message of the runtime_error that loading `path` throws ("" if it loads).
std::string load_error(const std::string& path) {
  try {
    load_mesh(path);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return {};
}

struct BrokenCase {
  std::string file;
  int line = 0;
  std::string contains;
};

std::vector<BrokenCase> broken_corpus() {
  std::ifstream in(kBroken + "expected.tsv");
  std::vector<BrokenCase> cases;
  std::string row;
  while (std::getline(in, row)) {
    if (row.empty() || row[0] == '#') continue;
    std::istringstream fields(row);
    BrokenCase c;
    std::string line;
    std::getline(fields, c.file, '\t');
    std::getline(fields, line, '\t');
    std::getline(fields, c.contains);
    c.line = std::stoi(line);
    cases.push_back(c);
  }
  return cases;
}

TEST(MeshIo, EveryBrokenFileFailsWithOneLineNamingFileAndLine) {
  const std::vector<BrokenCase> cases = broken_corpus();
  ASSERT_GE(cases.size(), 20u) << "tests/app/broken/expected.tsv not found or short";
  size_t files_in_dir = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kBroken)) files_in_dir += entry.path().filename() != "expected.tsv";
  EXPECT_EQ(files_in_dir, cases.size()) << "every file in tests/app/broken needs a line in expected.tsv";
  for (const BrokenCase& c : cases) {
    SCOPED_TRACE(c.file);
    const std::string path = kBroken + c.file;
    const std::string message = load_error(path);
    ASSERT_FALSE(message.empty()) << "loaded without an error";
    const std::string prefix = c.line > 0 ? path + ":" + std::to_string(c.line) + ": " : path + ": ";
    EXPECT_EQ(message.rfind(prefix, 0), 0u) << "message: " << message << "\nexpected prefix: " << prefix;
    EXPECT_NE(message.find(c.contains), std::string::npos) << "message: " << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << "not one line: " << message;
    EXPECT_LT(message.size(), 300u) << message;
  }
}

TEST(MeshIo, MissingFile) {
  EXPECT_EQ(load_error(kBroken + "no-such-file.obj"), kBroken + "no-such-file.obj: no such file");
}

TEST(MeshIo, Directory) {
  EXPECT_EQ(load_error(kBroken), kBroken + ": is a directory, not a mesh file");
}

TEST(MeshIo, NotARegularFile) {
  EXPECT_EQ(load_error("/dev/null"), "/dev/null: not a regular file");
}

TEST(MeshIo, UnreadableFile) {
  const std::string path = write_text("unreadable.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
  ASSERT_EQ(::chmod(path.c_str(), 0), 0);
  if (::geteuid() != 0) {
    EXPECT_EQ(load_error(path), path + ": cannot open: Permission denied");
    return;
  }
  // Root reads a mode-000 file: try as "nobody" in a child process, which reports the message through a pipe.
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(fds[0]);
    constexpr uid_t kNobody = 65534;
    if (::setgid(kNobody) != 0 || ::setuid(kNobody) != 0) ::_exit(3);
    const std::string message = load_error(path);
    const ssize_t written = ::write(fds[1], message.data(), message.size());
    ::_exit(written == ssize_t(message.size()) ? 0 : 4);
  }
  ::close(fds[1]);
  std::string message;
  char buffer[512];
  ssize_t n;
  while ((n = ::read(fds[0], buffer, sizeof buffer)) > 0) message.append(buffer, size_t(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 3) GTEST_SKIP() << "cannot switch to user nobody";
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  EXPECT_EQ(message, path + ": cannot open: Permission denied");
}

TEST(MeshIo, TrianglesKeepFileOrderAndConvexPolygonsAreFans) {
  // A triangle, a quad, a pentagon (both convex), across groups and materials: IDs follow the file's face order.
  const std::string path = write_text("order.obj",
                                      "o first\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv -1 0.5 0\n"
                                      "vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nvt 0.5 0.5\n"
                                      "f 1 2 3\n"
                                      "g second\nusemtl red\nf 1 2 3 4\n"
                                      "usemtl blue\nf 1/1 2/2 3/3 4/4 5/5\n"
                                      "o third\nf 5//1 4//1 3//1\n");
  const Mesh mesh = load_obj(path);
  EXPECT_EQ(mesh.name, "order.obj");
  ASSERT_EQ(mesh.positions.size(), 5u);
  const std::vector<uint32_t> expected = {0, 1, 2,                    // triangle
                                          0, 1, 2, 0, 2, 3,           // quad
                                          0, 1, 2, 0, 2, 3, 0, 3, 4,  // pentagon
                                          4, 3, 2};
  EXPECT_EQ(mesh.indices, expected);
  EXPECT_EQ(mesh.triangle_count(), 7u);
}

TEST(MeshIo, StatementsTheRendererDoesNotUseAreSkippedWhateverTheirNumbers) {
  // Lines, points, skin weights and normals carry no triangles: they are skipped, even with numbers that would
  // overflow an int or a float (tinyobjloader converts those unchecked; fuzzing found "vw"). Texture coordinates
  // are read (and checked: TextureCoordinatesBecomeCornerUvs).
  const std::string text =
      "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0 1e300 -1e300 7\n"
      "vt 0.5 0.25\nvn inf nan 1e999\nvw 1 inf 0.5 -inf 2\nl 0 1\np -99999999999\n"
      "t crease 99999999999/1/1 1e300\nmtllib none.mtl\ns off\n"
      "f 1/1/1 2/-1/-1 3//99999999999\nf 4 3 2\n";
  const Mesh mesh = parse_obj(text, "skipped.obj");
  EXPECT_EQ(mesh.positions.size(), 4u);
  EXPECT_EQ(mesh.indices, (std::vector<uint32_t>{0, 1, 2, 3, 2, 1}));
}

// The message of the runtime_error that parsing `text` throws ("" if it loads).
std::string parse_error(const std::string& text, const std::string& name) {
  try {
    parse_obj(text, name);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return {};
}

TEST(MeshIo, UnknownStatementsAreErrorsNamingFileLineAndToken) {
  // Misspelt, upper-case, glued to their first number, superseded (bsp), or not OBJ at all: never dropped in
  // silence. The token is quoted as the other messages quote: non-ASCII bytes as hex (here a no-break space).
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"xyz 1 2 3", "xyz"}, {"vv 1 2 3", "vv"}, {"f1 2 3", "f1"}, {"V 1 2 3", "V"},     {"F 1 2 3", "F"},
      {"v1 2 3", "v1"},     {"vt1 0", "vt1"},   {"1 2 3", "1"},   {"bsp 1 2", "bsp"}, {"f\xC2\xA0""1 2 3", "f\\xC2\\xA01"},
  };
  const std::string head = "v 0 0 0\nv 1 0 0\n# comment\n\n";
  for (const auto& [line, token] : cases) {
    SCOPED_TRACE(line);
    const std::string message = parse_error(head + line + "\nv 0 1 0\nf 1 2 3\n", "unknown.obj");
    EXPECT_EQ(message, "unknown.obj:5: unknown OBJ statement '" + token + "'");
  }
  // A long token is cut short.
  EXPECT_EQ(parse_error("v 0 0 0\n" + std::string(100, 'q') + " 1\n", "long.obj"),
            "long.obj:2: unknown OBJ statement '" + std::string(32, 'q') + "...'");
}

TEST(MeshIo, EveryStatementOfTheFormatTheRendererDoesNotUseLoadsAndIsIgnored) {
  // One line of each statement the loader reads and ignores, with typical arguments.
  const std::vector<std::string> lines = {
      "vt 0.5 0.5", "vt 0.5 0.5 0", "vn 0 0 1", "vp 0.2 0.3 1", "cstype rat bspline", "deg 3 3",
      "bmat u 1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1", "step 1 1", "p 1", "l 1 2 3", "curv 0 1 1 2 3 4",
      "curv2 1 2 3", "surf 0 1 0 1 1/1 2/2 3/3 4/4", "parm u 0 0 0 0 1 1 1 1", "trim 0 1 1", "hole 0 1 1",
      "scrv 0 1 1", "sp 1 2", "end", "con 1 0 1 1 2 0 1 1", "g", "g left right", "s 1", "s off", "mg 1 0.5",
      "mg off", "o thing", "bevel on", "c_interp off", "d_interp on", "lod 5", "usemtl red",
      "mtllib a.mtl b.mtl", "shadow_obj shadow.obj", "trace_obj trace.obj", "ctech cparm 1.0",
      "stech cspace 0.5", "maplib a.map", "usemap off", "call other.obj 1 2", "csh -command",
      "vw 1 0 0.5 1 0.5", "t crease 2/1 1 2", "#comment without a space", "   # indented comment", "\t",
  };
  std::string text = "v 0 0 0\nv 1 0 0\nv 0 1 0\n";
  for (const std::string& line : lines) text += line + "\n";
  text += "f 1 2 3\n";
  const Mesh mesh = parse_obj(text, "every.obj");
  EXPECT_EQ(mesh.positions.size(), 3u);
  EXPECT_EQ(mesh.indices, (std::vector<uint32_t>{0, 1, 2}));
  // And each on its own after the face, so no statement can swallow a line it does not own.
  for (const std::string& line : lines) {
    SCOPED_TRACE(line);
    EXPECT_EQ(parse_error("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n" + line + "\n", "one.obj"), "");
  }
}

TEST(MeshIo, VertexWeightAndColoursAfterThePositionAreIgnored) {
  // "v x y z w" (a weight, for rational curves) and "v x y z r g b" (vertex colours, as tinyobjloader reads them;
  // some writers put a weight before the colours): the position is the first three numbers in every form.
  const Mesh mesh = parse_obj("v 1 2 3 0.5\nv 4 5 6 1 0 0\nv 7 8 9 1 0.2 0.4 0.6\nf 1 2 3\n", "extra.obj");
  ASSERT_EQ(mesh.positions.size(), 3u);
  EXPECT_EQ(mesh.positions[0], glm::vec3(1, 2, 3));
  EXPECT_EQ(mesh.positions[1], glm::vec3(4, 5, 6));
  EXPECT_EQ(mesh.positions[2], glm::vec3(7, 8, 9));
}

TEST(MeshIo, LineContinuationIsAnError) {
  // OBJ allows '\' to continue a statement on the next line; read as two lines, the face would lose corners.
  EXPECT_EQ(parse_error("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 \\\n3 4\n", "continued.obj"),
            "continued.obj:5: line continuation ('\\' at the end of a line) is not supported");
  EXPECT_EQ(parse_error("v 0 0 0\nv 1 0 0\nv 0 1 0\ng a \\  \t\nf 1 2 3\n", "group.obj"),
            "group.obj:4: line continuation ('\\' at the end of a line) is not supported");
  EXPECT_EQ(parse_error("# a comment may end in \\\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "comment.obj"), "");
}

double signed_area_z(const glm::vec3& a, const glm::vec3& b, const glm::vec3& c) {
  return 0.5 * ((double(b.x) - a.x) * (double(c.y) - a.y) - (double(b.y) - a.y) * (double(c.x) - a.x));
}

TEST(MeshIo, ConcavePolygonCoversItselfNotItsNotch) {
  const Mesh mesh = load_obj(kMeshes + "l_hexagon.obj");
  ASSERT_EQ(mesh.triangle_count(), 4u);
  double area = 0;
  for (size_t t = 0; t < mesh.triangle_count(); ++t) {
    const glm::vec3& a = mesh.positions[mesh.indices[3 * t]];
    const glm::vec3& b = mesh.positions[mesh.indices[3 * t + 1]];
    const glm::vec3& c = mesh.positions[mesh.indices[3 * t + 2]];
    const double triangle_area = signed_area_z(a, b, c);
    EXPECT_GT(triangle_area, 0.0) << "triangle " << t << " does not turn like the polygon (counter-clockwise)";
    area += triangle_area;
    const glm::vec3 centroid = (a + b + c) / 3.0f;
    EXPECT_FALSE(centroid.x > 1.0f && centroid.y > 1.0f) << "triangle " << t << " lies in the notch";
  }
  EXPECT_DOUBLE_EQ(area, 3.0);
  // A face after it keeps its ID: the polygon gave n-2 triangles.
  const Mesh two = parse_obj("v 2 0 0\nv 2 1 0\nv 1 1 0\nv 1 2 0\nv 0 2 0\nv 0 0 0\nf 1 2 3 4 5 6\nf 1 2 3\n", "two.obj");
  ASSERT_EQ(two.triangle_count(), 5u);
  EXPECT_EQ(std::vector<uint32_t>(two.indices.end() - 3, two.indices.end()), (std::vector<uint32_t>{0, 1, 2}));
}

TEST(MeshIo, ConcavePolygonThroughRelativeIndices) {
  // The same L through relative indices with texture and normal indices, its first corner the reflex one.
  const Mesh mesh = parse_obj("v 2 0 0\nv 2 1 0\nv 1 1 0\nv 1 2 0\nv 0 2 0\nv 0 0 0\nvt 0 0\nvn 0 0 1\n"
                              "f -4/1/1 -3/1/1 -2/1/1 -1/1/1 -6/1/1 -5/1/1\n", "relative_l.obj");
  ASSERT_EQ(mesh.triangle_count(), 4u);
  double area = 0;
  for (size_t t = 0; t < 4; ++t) {
    area += signed_area_z(mesh.positions[mesh.indices[3 * t]], mesh.positions[mesh.indices[3 * t + 1]],
                          mesh.positions[mesh.indices[3 * t + 2]]);
  }
  EXPECT_DOUBLE_EQ(area, 3.0);
}

TEST(MeshIo, HugeConcavePolygonIsFannedWithOneWarning) {
  // A comb of 10^6 corners, half of them reflex: past the ear-clipping work bound, so fanned, quickly, and said so
  // once, naming the polygon's line.
  constexpr int kTeeth = 500000;
  std::string text = "# comb\n";
  for (int i = 0; i < kTeeth; ++i) {
    text += "v " + std::to_string(2 * i) + " 0 0\nv " + std::to_string(2 * i + 1) + " 10 0\n";
  }
  text += "v " + std::to_string(2 * kTeeth) + " 0 0\nv " + std::to_string(2 * kTeeth) + " -1 0\nv 0 -1 0\nf";
  for (int i = 2 * kTeeth + 3; i >= 1; --i) text += " " + std::to_string(i);  // counter-clockwise
  text += "\nf 1 2 3\nf";
  for (int i = 2 * kTeeth + 3; i >= 1; --i) text += " " + std::to_string(i);
  text += "\n";
  std::vector<std::string> warnings;
  const auto start = std::chrono::steady_clock::now();
  const Mesh mesh = parse_obj(text, "comb.obj", {}, [&](const std::string& w) { warnings.push_back(w); });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(mesh.triangle_count(), 2 * size_t(2 * kTeeth + 1) + 1);
  EXPECT_LT(seconds, 10.0);
  ASSERT_EQ(warnings.size(), 1u);
  const std::string line = std::to_string(2 + 2 * kTeeth + 3);
  EXPECT_EQ(warnings[0].rfind("comb.obj:" + line + ": concave polygon of 1000003 corners, 499999 of them not convex, "
                              "fanned instead of ear-clipped", 0), 0u)
      << warnings[0];
  EXPECT_NE(warnings[0].find("; 1 more such polygon"), std::string::npos) << warnings[0];
  EXPECT_EQ(warnings[0].find('\n'), std::string::npos);
  // Without a warning callback the load is the same.
  EXPECT_EQ(parse_obj(text, "comb.obj").indices, mesh.indices);
}

TEST(MeshIo, RelativeIndicesAndForwardReferences) {
  const Mesh mesh = load_obj(write_text("relative.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf -3 -2 -1\nf 1 2 4\nv 1 1 1\n"));
  EXPECT_EQ(mesh.indices, (std::vector<uint32_t>{0, 1, 2, 0, 1, 3}));
}

TEST(MeshIo, LineEndingsCrLfAndLoneCr) {
  for (const std::string eol : {"\r\n", "\r"}) {
    const std::string text = "v 0 0 0" + eol + "v 1 0 0" + eol + "v 0 1 0" + eol + "f 1 2 3" + eol + "f 1 2 0" + eol;
    const std::string message = [&] {
      try {
        parse_obj(text, "eol.obj");
      } catch (const std::runtime_error& e) {
        return std::string(e.what());
      }
      return std::string();
    }();
    EXPECT_EQ(message.rfind("eol.obj:5: ", 0), 0u) << message;  // line numbers count either ending
  }
}

TEST(MeshIo, CoordinatesParseExactlyIncludingPlusSignAndExponents) {
  const Mesh mesh = parse_obj("v +1.5 -2e-3 .25\nv 0.1 1e+2 -0\nv 3 4 5 1\nf 1 2 3\n", "numbers.obj");
  ASSERT_EQ(mesh.positions.size(), 3u);
  EXPECT_EQ(mesh.positions[0], glm::vec3(1.5f, -2e-3f, 0.25f));
  EXPECT_EQ(mesh.positions[1], glm::vec3(0.1f, 100.0f, -0.0f));
  EXPECT_EQ(mesh.positions[2], glm::vec3(3, 4, 5));  // the optional w is ignored
}

TEST(MeshIo, AByteOrderMarkDoesNotHideTheFirstVertex) {
  // Without the mark's bytes skipped, "v 5 5 5" would not read as a vertex and the face would name other vertices.
  const Mesh mesh = parse_obj("\xEF\xBB\xBFv 5 5 5\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "bom.obj");
  ASSERT_EQ(mesh.positions.size(), 4u);
  EXPECT_EQ(mesh.positions[0], glm::vec3(5, 5, 5));
  EXPECT_EQ(mesh.indices, (std::vector<uint32_t>{0, 1, 2}));
}

TEST(MeshIo, FormFeedAndVerticalTabSeparateTokens) {
  const Mesh mesh = parse_obj("v\f1 0 0\nv 0\v1 0\nv 0 0 1\nf\f1 2\v3\n", "blanks.obj");
  ASSERT_EQ(mesh.positions.size(), 3u);
  EXPECT_EQ(mesh.positions[0], glm::vec3(1, 0, 0));
  EXPECT_EQ(mesh.positions[1], glm::vec3(0, 1, 0));
  EXPECT_EQ(mesh.indices, (std::vector<uint32_t>{0, 1, 2}));
}

TEST(MeshIo, CoordinatesBelowTheSmallestFloatReadAsTheNearestFloat) {
  const Mesh mesh = parse_obj("v 1e-50 -1e-400 1e-40\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "tiny.obj");
  ASSERT_EQ(mesh.positions.size(), 3u);
  EXPECT_EQ(mesh.positions[0].x, 0.0f);
  EXPECT_EQ(mesh.positions[0].y, 0.0f);
  EXPECT_TRUE(std::signbit(mesh.positions[0].y));
  EXPECT_EQ(mesh.positions[0].z, static_cast<float>(1e-40));  // a denormal
  EXPECT_GT(mesh.positions[0].z, 0.0f);
  // Too large stays an error.
  EXPECT_THROW(parse_obj("v 1e39 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "huge.obj"), std::runtime_error);
}

TEST(MeshIo, MillionVertexPolygonLoadsQuickly) {
  // A polygon of 10^6 corners going round one triangle again and again (every corner turns the same way): a fan,
  // linear time; tinyobjloader's ear clipping would never finish.
  std::string text = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf";
  constexpr int kCorners = 1000000;
  for (int i = 0; i < kCorners; ++i) text += i % 3 == 0 ? " 1" : i % 3 == 1 ? " 2" : " 3";
  text += "\n";
  const auto start = std::chrono::steady_clock::now();
  const Mesh mesh = parse_obj(text, "polygon.obj");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(mesh.triangle_count(), size_t(kCorners - 2));
  EXPECT_LT(seconds, 10.0);
}

TEST(MeshIo, ProgressRisesToOne) {
  std::string text;
  for (int i = 0; i < 200000; ++i) text += "v " + std::to_string(i) + " 0.5 0.25\n";
  for (int i = 1; i + 2 <= 200000; i += 3) text += "f " + std::to_string(i) + " " + std::to_string(i + 1) + " " + std::to_string(i + 2) + "\n";
  std::vector<double> seen;
  parse_obj(text, "big.obj", [&](double f) { seen.push_back(f); });
  ASSERT_GE(seen.size(), 3u);
  for (size_t i = 1; i < seen.size(); ++i) EXPECT_GE(seen[i], seen[i - 1]);
  EXPECT_EQ(seen.back(), 1.0);
}

TEST(MeshIo, WriteThenLoadGivesTheSameMesh) {
  Mesh mesh;
  uint32_t state = 12345;
  const auto next = [&] { return state = state * 1664525u + 1013904223u; };
  for (int i = 0; i < 1000; ++i) {
    // Awkward floats: tiny, huge, negative zero, values with no short decimal form.
    const float v[3] = {float(int32_t(next())) * 1e-7f, float(next()) * 3.3e25f, i == 7 ? -0.0f : float(int32_t(next())) / 3.0f};
    mesh.positions.emplace_back(v[0], v[1], v[2]);
  }
  for (int i = 0; i < 3000; ++i) mesh.indices.push_back(next() % 1000);
  const std::string path = temp_dir() + "/round_trip.obj";
  write_obj(path, mesh.positions, mesh.indices, "round trip\nsecond line is dropped");
  const Mesh back = load_obj(path);
  ASSERT_EQ(back.positions.size(), mesh.positions.size());
  for (size_t i = 0; i < mesh.positions.size(); ++i) {
    for (int a = 0; a < 3; ++a) {
      EXPECT_EQ(std::signbit(back.positions[i][a]), std::signbit(mesh.positions[i][a]));
      EXPECT_EQ(back.positions[i][a], mesh.positions[i][a]) << "vertex " << i;
    }
  }
  EXPECT_EQ(back.indices, mesh.indices);
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
}

TEST(MeshIo, WriteToAMissingDirectoryNamesThePath) {
  const std::string path = temp_dir() + "/no/such/dir/out.obj";
  try {
    write_obj(path, {glm::vec3(0)}, {0, 0, 0});
    FAIL() << "wrote into a missing directory";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind(path + ": cannot write", 0), 0u) << e.what();
  }
}

TEST(MeshIo, ShippedAssetLoads) {
  const std::string path = kSource + "/assets/pawn.obj";
  const Mesh mesh = load_obj(path);
  EXPECT_GE(mesh.triangle_count(), 500u);
  EXPECT_LE(mesh.triangle_count(), 10000u);
}

}  // namespace
}  // namespace slabcast
