// The real `slabcast` binary: bad values and broken files end in one clear error line and the right exit code
// (2 usage, 1 runtime), never a crash; a good run writes every file it was asked for, in the documented formats.
#include "app/image_io.h"
#include "app/mesh_io.h"
#include "exe_runner.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace slabcast {
namespace {

using test::run_slabcast;

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

TEST(CliExe, BadValuesExitTwoNamingTheFlag) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"render", "--size", "0x0"}, "--size"},
      {{"render", "--size", "-5x10"}, "--size"},
      {{"render", "--size", "20000x20000"}, "--size"},
      {{"render", "--slabs", "0"}, "--slabs"},
      {{"render", "--slabs", "1000"}, "--slabs"},
      {{"render", "--deform", "melt"}, "--deform"},
      {{"render", "--shading", "toon"}, "--shading"},
      {{"render", "--backend", "metal"}, "--backend"},
      {{"render", "--eye", "1,2"}, "--eye"},
      {{"render", "--target", "a,b,c"}, "--target"},
      {{"render", "--up", "nan,1,0"}, "--up"},
      {{"render", "--fovy", "nan"}, "--fovy"},
      {{"render", "--procedural", "cube:10"}, "--procedural"},
      {{"render", "--out", "/no/such/dir/x.png"}, "--out"},
      {{"view", "--frames", "-1"}, "--frames"},
  };
  for (const auto& [args, flag] : cases) {
    SCOPED_TRACE(args[1] + " " + (args.size() > 2 ? args[2] : ""));
    const test::ExeResult r = run_slabcast(args);
    EXPECT_EQ(r.signal, 0) << r.describe();
    EXPECT_EQ(r.exit_code, 2) << r.describe();
    EXPECT_EQ(first_line(r.err).rfind("slabcast: error: " + flag, 0), 0u) << r.describe();
  }
}

TEST(CliExe, BrokenMeshesExitOneNamingTheFile) {
  const std::string dir = std::string(SLABCAST_SOURCE_DIR) + "/tests/app/broken/";
  std::ifstream manifest(dir + "expected.tsv");
  std::string row;
  int cases = 0;
  while (std::getline(manifest, row)) {
    if (row.empty() || row[0] == '#') continue;
    const std::string file = row.substr(0, row.find('\t'));
    SCOPED_TRACE(file);
    const std::string path = "tests/app/broken/" + file;  // relative: the binary runs in the source tree
    const test::ExeResult r = run_slabcast({"render", "--backend", "cpu", "--mesh", path, "--out", "/tmp/unused.png"});
    EXPECT_EQ(r.signal, 0) << r.describe();
    EXPECT_EQ(r.exit_code, 1) << r.describe();
    EXPECT_EQ(r.err.rfind("slabcast: error: " + path + ":", 0), 0u) << r.describe();
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "not one line:\n" << r.err;
    ++cases;
  }
  EXPECT_GE(cases, 20);
  const test::ExeResult missing = run_slabcast({"render", "--backend", "cpu", "--mesh", "no/such/mesh.obj"});
  EXPECT_EQ(missing.exit_code, 1) << missing.describe();
  EXPECT_EQ(missing.err.rfind("slabcast: error: no/such/mesh.obj: ", 0), 0u) << missing.describe();
  // A directory is a mesh sequence: here its first frame (in natural order) is broken, and the error names it.
  const test::ExeResult folder = run_slabcast({"render", "--backend", "cpu", "--mesh", "tests/app/broken"});
  EXPECT_EQ(folder.exit_code, 1) << folder.describe();
  EXPECT_EQ(folder.err.rfind("slabcast: error: tests/app/broken/", 0), 0u) << folder.describe();
}

TEST(CliExe, UnwritableOutputExitsOneNamingThePath) {
  const test::ExeResult r = run_slabcast({"render", "--backend", "cpu", "--procedural", "sphere:200", "--size", "16x16",
                                          "--out", "/proc/slabcast-frame.png"});
  EXPECT_EQ(r.signal, 0) << r.describe();
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_NE(r.err.find("slabcast: error: /proc/slabcast-frame.png: cannot write"), std::string::npos) << r.describe();
}

TEST(CliExe, HelpExitsZero) {
  for (const auto& args : std::vector<std::vector<std::string>>{{"--help"}, {"render", "--help"}, {"view", "--help"}}) {
    const test::ExeResult r = run_slabcast(args);
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    EXPECT_NE(r.out.find("--procedural"), std::string::npos) << r.describe();
  }
}

// Shadows on the cpu backend: the mask is a W x H PGM of 0 / 128 / 255 with both shadowed and lit pixels, 128
// exactly where the ID file says no hit, and the shadow statistics are printed.
TEST(CliExe, RenderWritesTheShadowMask) {
  const std::string dir = test::output_dir("render_writes_the_shadow_mask");
  const test::ExeResult r = run_slabcast({"render", "--backend", "cpu", "--mesh", "assets/pawn.obj", "--floor",
                                          "--size", "96x80", "--light", "sun:1,2,0.5", "--out", dir + "/f.png",
                                          "--ids", dir + "/f.ids", "--shadow-mask", dir + "/m.pgm"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  for (const char* line : {"shadow samples", "light references", "shadow pairs", "shadow test", "m.pgm"}) {
    EXPECT_NE(r.out.find(line), std::string::npos) << line << " missing from\n" << r.out;
  }
  const GrayImage mask = read_pgm(dir + "/m.pgm");
  const IdImage ids = read_ids(dir + "/f.ids");
  ASSERT_EQ(mask.width, 96);
  ASSERT_EQ(mask.height, 80);
  size_t shadowed = 0, lit = 0;
  for (size_t i = 0; i < mask.pixels.size(); ++i) {
    const uint8_t m = mask.pixels[i];
    EXPECT_EQ(m == 128, ids.ids[i] == 0xFFFFFFFFu) << "pixel " << i;
    EXPECT_TRUE(m == 0 || m == 128 || m == 255) << "pixel " << i << ": " << int(m);
    shadowed += m == 0 ? 1 : 0;
    lit += m == 255 ? 1 : 0;
  }
  EXPECT_GT(shadowed, 50u);
  EXPECT_GT(lit, 50u);
}

TEST(CliExe, RenderWritesEveryOutput) {
  const std::string dir = test::output_dir("render_writes_every_output");
  const test::ExeResult r = run_slabcast({"render", "--backend", "cpu", "--mesh", "assets/pawn.obj", "--size", "97x61",
                                          "--deform", "twist", "--time", "0.5", "--out", dir + "/f.png", "--depth",
                                          dir + "/f.pfm", "--ids", dir + "/f.ids", "--deformed-mesh", dir + "/d.obj"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  for (const char* line : {"triangles in", "references (L1)", "ray-triangle tests", "stage times (ms)", "wrote "}) {
    EXPECT_NE(r.out.find(line), std::string::npos) << line << " missing from\n" << r.out;
  }
  const Mesh pawn = load_obj(std::string(SLABCAST_SOURCE_DIR) + "/assets/pawn.obj");
  const Rgba8Image png = read_png(dir + "/f.png");
  const DepthImage depth = read_pfm(dir + "/f.pfm");
  const IdImage ids = read_ids(dir + "/f.ids");
  EXPECT_EQ(png.width, 97);
  EXPECT_EQ(png.height, 61);
  ASSERT_EQ(depth.width, 97);
  ASSERT_EQ(depth.height, 61);
  ASSERT_EQ(ids.width, 97);
  ASSERT_EQ(ids.height, 61);
  size_t hits = 0;
  for (size_t i = 0; i < ids.ids.size(); ++i) {
    if (ids.ids[i] == 0xFFFFFFFFu) {
      EXPECT_TRUE(std::isinf(depth.depth[i]) && depth.depth[i] > 0) << "pixel " << i << ": a miss has depth +inf";
    } else {
      ++hits;
      EXPECT_LT(ids.ids[i], pawn.triangle_count()) << "pixel " << i;
      EXPECT_TRUE(std::isfinite(depth.depth[i]) && depth.depth[i] > 0) << "pixel " << i;
    }
  }
  EXPECT_GT(hits, ids.ids.size() / 10) << "the framed pawn should cover a good part of the image";
  EXPECT_LT(hits, ids.ids.size()) << "and leave some background";
  const Mesh deformed = load_obj(dir + "/d.obj");
  EXPECT_EQ(deformed.indices, pawn.indices);
  EXPECT_EQ(deformed.positions.size(), pawn.positions.size());
  EXPECT_NE(deformed.positions, pawn.positions) << "twist at t=0.5 should move vertices";
}

TEST(CliExe, UndeformedMeshWrittenBackIsTheInput) {
  const std::string dir = test::output_dir("undeformed_mesh");
  const test::ExeResult r = run_slabcast({"render", "--backend", "cpu", "--mesh", "assets/pawn.obj", "--size", "8x8",
                                          "--out", dir + "/f.png", "--deformed-mesh", dir + "/d.obj"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  const Mesh pawn = load_obj(std::string(SLABCAST_SOURCE_DIR) + "/assets/pawn.obj");
  const Mesh back = load_obj(dir + "/d.obj");
  EXPECT_EQ(back.positions, pawn.positions);
  EXPECT_EQ(back.indices, pawn.indices);
}

TEST(CliExe, ConcavePolygonDrawsTheSamePixelsAsItsTriangles) {
  // The L-shaped hexagon as one face and as four explicit triangles: the same pixels hit, none in the notch that a
  // fan from its first corner would fill.
  const std::string dir = test::output_dir("concave_polygon");
  const auto hits = [&](const std::string& mesh) {
    const std::string ids_path = dir + "/" + mesh + ".ids";
    const test::ExeResult r = run_slabcast({"render", "--backend", "cpu", "--mesh", "tests/app/meshes/" + mesh + ".obj",
                                            "--size", "64x64", "--out", dir + "/" + mesh + ".png", "--ids", ids_path});
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;
    const IdImage ids = read_ids(ids_path);
    std::vector<bool> hit(ids.ids.size());
    for (size_t i = 0; i < ids.ids.size(); ++i) {
      hit[i] = ids.ids[i] != 0xFFFFFFFFu;
      if (hit[i]) {
        EXPECT_LT(ids.ids[i], 4u) << mesh << " pixel " << i;
      }
    }
    return hit;
  };
  const std::vector<bool> polygon = hits("l_hexagon"), triangles = hits("l_hexagon_triangles");
  ASSERT_EQ(polygon.size(), size_t(64 * 64));
  const auto count = [](const std::vector<bool>& v) { return std::count(v.begin(), v.end(), true); };
  EXPECT_GT(count(triangles), 64 * 64 / 10) << "the framed L should cover a good part of the image";
  EXPECT_EQ(count(polygon), count(triangles));
  EXPECT_TRUE(polygon == triangles) << "the polygon and its triangles hit different pixels";
}

// Two renders to one path at once: each exits 0 having put its complete file in place, so the path holds one of
// the two images whole (never one image with the other's tail).
TEST(CliExe, ConcurrentRendersToOnePathLeaveOneWholeImage) {
  const std::string dir = test::output_dir("concurrent_renders");
  const auto render = [&](const std::string& shading, const std::string& out) {
    return run_slabcast({"render", "--backend", "cpu", "--procedural", "sphere:20000", "--size", "256x256", "--shading",
                         shading, "--out", out});
  };
  ASSERT_EQ(render("normals", dir + "/normals.png").exit_code, 0);
  ASSERT_EQ(render("slab", dir + "/slab.png").exit_code, 0);
  const std::string normals = test::read_file(dir + "/normals.png"), slab = test::read_file(dir + "/slab.png");
  ASSERT_NE(normals, slab);
  for (int round = 0; round < 4; ++round) {
    test::ExeResult first, second;
    std::thread a([&] { first = render("normals", dir + "/s.png"); });
    std::thread b([&] { second = render("slab", dir + "/s.png"); });
    a.join();
    b.join();
    ASSERT_EQ(first.exit_code, 0) << first.describe();
    ASSERT_EQ(second.exit_code, 0) << second.describe();
    const std::string got = test::read_file(dir + "/s.png");
    ASSERT_TRUE(got == normals || got == slab) << "round " << round << ": " << got.size() << " bytes, neither image";
  }
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) files += entry.is_regular_file();
  EXPECT_EQ(files, 3u) << "a temporary was left behind";
}

// The outputs of one run land together: when a later one cannot be written (here the file-size limit stops the
// deformed mesh, while the image and depth would fit), the earlier ones are not left behind, an old image is not
// replaced, and the run fails naming the path.
TEST(CliExe, AnOutputThatCannotBeWrittenKeepsEveryOutputOfTheRunOut) {
  const std::string dir = test::output_dir("outputs_together");
  std::ofstream(dir + "/old.png") << "the previous image";
  const std::string command = std::string("trap '' XFSZ; ulimit -f 16; exec '") + SLABCAST_EXE +
                              "' render --backend cpu --procedural sphere:20000 --size 16x16 --out '" + dir +
                              "/old.png' --depth '" + dir + "/f.pfm' --deformed-mesh '" + dir + "/d.obj' > '" + dir +
                              "/stdout' 2> '" + dir + "/stderr'";
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status)) << command;
  EXPECT_EQ(WEXITSTATUS(status), 1);
  const std::string err = test::read_file(dir + "/stderr"), out = test::read_file(dir + "/stdout");
  EXPECT_NE(err.find(dir + "/d.obj: cannot write"), std::string::npos) << err;
  EXPECT_EQ(out.find("wrote "), std::string::npos) << "nothing was written:\n" << out;
  EXPECT_EQ(test::read_file(dir + "/old.png"), "the previous image");
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) files.push_back(entry.path().filename().string());
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files, (std::vector<std::string>{"old.png", "stderr", "stdout"})) << "no depth file, mesh or temporary";
}

// A model's size does not matter: one triangle at 1e-20, 1 and 1e20 (not powers of two, so the three are only
// nearly similar) renders nearly the same pixels with every deformer, and the deformed mesh holds no NaN.
TEST(CliExe, TinyAndHugeModelsRenderLikeUnitSizedOnes) {
  const std::string dir = test::output_dir("model_scale");
  std::vector<size_t> hits;
  for (const char* scale : {"1e-20", "1", "1e20"}) {
    const std::string obj = dir + "/triangle_" + scale + ".obj";
    std::ofstream(obj) << "v 0 0 0\nv " << scale << " 0 0\nv 0 " << scale << " 0\nv " << scale << " " << scale
                       << " " << scale << "\nf 1 2 3\nf 2 4 3\n";
    for (const char* deform : {"none", "twist", "wave", "pulse"}) {
      const test::ExeResult r = run_slabcast({"render", "--backend", "cpu", "--mesh", obj, "--size", "64x64",
                                              "--deform", deform, "--time", "0.3", "--out", dir + "/f.png", "--ids",
                                              dir + "/f.ids", "--deformed-mesh", dir + "/d.obj"});
      ASSERT_EQ(r.exit_code, 0) << scale << " " << deform << ": " << r.describe();
      const IdImage ids = read_ids(dir + "/f.ids");
      size_t hit = 0;
      for (uint32_t id : ids.ids) hit += id != 0xFFFFFFFFu;
      hits.push_back(hit);
      const std::string text = test::read_file(dir + "/d.obj");
      EXPECT_EQ(text.find("nan"), std::string::npos) << scale << " " << deform;
      EXPECT_EQ(text.find("inf"), std::string::npos) << scale << " " << deform;
    }
  }
  for (size_t i = 0; i < hits.size(); ++i) {
    EXPECT_GT(hits[i], 64u * 64u / 10) << "render " << i;
    EXPECT_NEAR(double(hits[i]), double(hits[i % 4 + 4]), 0.02 * double(hits[i % 4 + 4])) << "render " << i;
  }
}

// The default camera frames the model for the image's aspect: a long bar (4 x 0.5) is whole in a tall and in a wide
// image, with no hit on the border, and spans most of a tall image's width (the horizontal field of view binds).
TEST(CliExe, TheDefaultCameraFramesTheModelInTallAndWideImages) {
  const std::string dir = test::output_dir("framing");
  std::ofstream(dir + "/bar.obj") << "v -2 -0.25 0\nv 2 -0.25 0\nv 2 0.25 0\nv -2 0.25 0\nf 1 2 3 4\n";
  for (const auto& [w, h] : std::vector<std::pair<int, int>>{{80, 200}, {320, 60}, {100, 100}}) {
    const std::string size = std::to_string(w) + "x" + std::to_string(h);
    const test::ExeResult r = run_slabcast({"render", "--backend", "cpu", "--mesh", dir + "/bar.obj", "--size", size,
                                            "--out", dir + "/f.png", "--ids", dir + "/f.ids"});
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    const IdImage ids = read_ids(dir + "/f.ids");
    size_t border = 0, hits = 0;
    int min_x = w, max_x = -1;
    for (int y = 0; y < h; ++y) {
      for (int x = 0; x < w; ++x) {
        if (ids.ids[size_t(y) * w + x] == 0xFFFFFFFFu) continue;
        ++hits;
        border += x == 0 || y == 0 || x == w - 1 || y == h - 1;
        min_x = std::min(min_x, x);
        max_x = std::max(max_x, x);
      }
    }
    EXPECT_EQ(border, 0u) << size << ": the bar is cut by the frame";
    if (w < h) {
      EXPECT_GT(max_x - min_x + 1, w * 8 / 10) << size << ": the bar should span most of the width";
    }
  }
}

// The viewer's default deformer visibly moves a sphere (a twist about its own axis leaves it looking still): between
// the first frame and one second later, a good share of the pixels changes.
TEST(CliExe, TheViewersDefaultAnimationVisiblyMovesTheSphere) {
  const std::string dir = test::output_dir("default_animation");
  for (const char* frames : {"1", "61"}) {
    const test::ExeResult r = run_slabcast({"view", "--headless", "--backend", "cpu", "--procedural", "sphere:20000",
                                            "--size", "160x120", "--frames", frames, "--screenshot-3d-only", "--screenshot",
                                            dir + "/f" + frames + ".png"});
    if (r.exit_code != 0 && r.err.find("EGL") != std::string::npos) GTEST_SKIP() << "no EGL here: " << r.err;
    ASSERT_EQ(r.exit_code, 0) << r.describe();
  }
  const Rgba8Image a = read_png(dir + "/f1.png"), b = read_png(dir + "/f61.png");
  ASSERT_EQ(a.pixels.size(), b.pixels.size());
  size_t changed = 0;
  for (size_t i = 0; i < a.pixels.size(); i += 4) changed += std::memcmp(&a.pixels[i], &b.pixels[i], 4) != 0;
  EXPECT_GT(changed, a.pixels.size() / 4 / 20) << "pixels changed in one second of the default animation";
}

// --orbit AZ,EL[,DIST] circles the model at the distance where it is whole from every side: 0,0 is on +Z of the
// target, 90,0 on +X at the same distance; a distance given is used as is.
TEST(CliExe, OrbitCirclesTheFramedModel) {
  const std::string dir = test::output_dir("orbit");
  const auto render = [&](std::vector<std::string> extra, const std::string& ids) {
    std::vector<std::string> args = {"render", "--backend", "cpu", "--mesh", "assets/pawn.obj", "--size", "64x48",
                                     "--out", dir + "/f.png", "--ids", dir + "/" + ids};
    args.insert(args.end(), extra.begin(), extra.end());
    const test::ExeResult r = run_slabcast(args);
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    return r.out;
  };
  // "  camera  eye X,Y,Z  target X,Y,Z ..." as numbers
  const auto camera_of = [](const std::string& out) {
    const size_t eye = out.find("eye "), target = out.find("target ");
    std::vector<double> v;
    for (size_t at : {eye + 4, target + 7}) {
      std::istringstream in(out.substr(at, out.find(' ', at) - at));
      std::string item;
      while (std::getline(in, item, ',')) v.push_back(std::stod(item));
    }
    return v;  // eye x, y, z, target x, y, z
  };
  // 0,0 looks from the default camera's side (+Z), from as far or farther: where the model's bounding sphere fits.
  const std::vector<double> plain = camera_of(render({}, "plain.ids"));
  const std::vector<double> home = camera_of(render({"--orbit", "0,0"}, "orbit0.ids"));
  const double distance = home[2] - home[5];
  EXPECT_NEAR(home[0] - home[3], 0.0, 1e-4 * distance);
  EXPECT_NEAR(home[1] - home[4], 0.0, 1e-4 * distance);
  EXPECT_GE(distance, plain[2] - plain[5]);
  const std::vector<double> side = camera_of(render({"--orbit", "90,0"}, "side.ids"));
  EXPECT_NEAR(side[0] - side[3], distance, 1e-4 * distance);
  EXPECT_NEAR(side[1] - side[4], 0.0, 1e-4 * distance);
  EXPECT_NEAR(side[2] - side[5], 0.0, 1e-4 * distance);
  const std::vector<double> above = camera_of(render({"--orbit", "0,30,7"}, "above.ids"));
  EXPECT_NEAR(above[1] - above[4], 3.5, 1e-4);
  EXPECT_NEAR(above[2] - above[5], 7.0 * std::cos(3.14159265358979 / 6), 1e-4);
}

// The viewer takes --orbit as render does: its 0,0 is render's 0,0, pixel for pixel; 180,0 is another view.
TEST(CliExe, TheViewerOrbitsLikeRender) {
  const std::string dir = test::output_dir("view_orbit");
  const std::vector<std::string> scene = {"--backend", "cpu", "--mesh", "assets/pawn.obj", "--size", "96x72",
                                          "--deform", "none"};
  std::vector<std::string> shots;
  for (const std::vector<std::string>& extra : std::vector<std::vector<std::string>>{{"--orbit", "0,0"},
                                                                                      {"--orbit", "180,0"}}) {
    const std::string shot = dir + "/v" + std::to_string(shots.size()) + ".png";
    std::vector<std::string> args = {"view", "--headless", "--screenshot-3d-only", "--screenshot", shot};
    args.insert(args.end(), scene.begin(), scene.end());
    args.insert(args.end(), extra.begin(), extra.end());
    const test::ExeResult r = run_slabcast(args);
    if (r.exit_code != 0 && r.err.find("EGL") != std::string::npos) GTEST_SKIP() << "no EGL here: " << r.err;
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    shots.push_back(shot);
  }
  std::vector<std::string> args = {"render", "--orbit", "0,0", "--out", dir + "/r0.png"};
  args.insert(args.end(), scene.begin(), scene.end());
  const test::ExeResult r = run_slabcast(args);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(read_png(shots[0]).pixels, read_png(dir + "/r0.png").pixels) << "--orbit 0,0 as render has it";
  EXPECT_NE(read_png(shots[0]).pixels, read_png(shots[1]).pixels) << "--orbit 180,0 looks from the other side";
}

// --frames N writes an animation: frame k is the single frame at time + k / fps, and --turntable turns the orbit
// by D * k / N degrees; the names carry the frame numbers as asked.
TEST(CliExe, AnAnimationWritesEveryFrameAsItsOwnRender) {
  const std::string dir = test::output_dir("animation");
  const std::vector<std::string> scene = {"render", "--backend", "cpu", "--procedural", "torus:2000", "--size", "64x48",
                                          "--deform", "wave"};
  std::vector<std::string> animation = scene;
  for (const std::string& a : std::vector<std::string>{"--frames", "3", "--fps", "10", "--turntable", "90", "--out",
                                                       dir + "/f_%03d.png", "--ids", dir + "/f_%d.ids"}) {
    animation.push_back(a);
  }
  test::ExeResult r = run_slabcast(animation);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  for (int k = 0; k < 3; ++k) {
    std::vector<std::string> single = scene;
    const std::string time = std::to_string(k / 10.0), azimuth = std::to_string(30 * k);
    for (const std::string& a : std::vector<std::string>{"--time", time, "--orbit", azimuth + ",0", "--out",
                                                         dir + "/single.png", "--ids", dir + "/single.ids"}) {
      single.push_back(a);
    }
    r = run_slabcast(single);
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    char name[32];
    std::snprintf(name, sizeof name, "/f_%03d.png", k);
    EXPECT_EQ(test::read_file(dir + name), test::read_file(dir + "/single.png")) << "frame " << k;
    EXPECT_EQ(read_ids(dir + "/f_" + std::to_string(k) + ".ids").ids, read_ids(dir + "/single.ids").ids) << k;
  }
  EXPECT_NE(test::read_file(dir + "/f_000.png"), test::read_file(dir + "/f_001.png"));
}

// --version: what this is, where it came from and what it will render on.
TEST(CliExe, VersionNamesTheBuildTheCudaRuntimeAndTheGpu) {
  const test::ExeResult r = run_slabcast({"--version"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.out.rfind("slabcast 0.", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("(commit "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nCUDA runtime "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nGPU "), std::string::npos) << r.out;
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_EQ(run_slabcast({"render", "--version"}).exit_code, 2);
}

// Counts read as English: "1 triangle, 3 vertices".
TEST(CliExe, OneTriangleIsNotTriangles) {
  const std::string dir = test::output_dir("one_triangle");
  std::ofstream(dir + "/one.obj") << "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
  const test::ExeResult r = run_slabcast({"render", "--backend", "cpu", "--mesh", dir + "/one.obj", "--size", "16x16",
                                          "--out", dir + "/f.png"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("(1 triangle, 3 vertices)"), std::string::npos) << r.out;
}

// Statistics that cannot reach standard output (a full disk here) make the run a failure, not a silent success.
TEST(CliExe, AFailedWriteToStandardOutputIsAnError) {
  const std::string dir = test::output_dir("stdout_full");
  const std::string command = std::string("exec '") + SLABCAST_EXE +
                              "' render --backend cpu --procedural sphere:200 --size 16x16 --out '" + dir +
                              "/frame.png' > /dev/full 2> '" + dir + "/stderr'";
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status)) << command;
  EXPECT_EQ(WEXITSTATUS(status), 1);
  const std::string err = test::read_file(dir + "/stderr");
  EXPECT_NE(err.find("slabcast: error: cannot write to standard output"), std::string::npos) << err;
}

}  // namespace
}  // namespace slabcast
