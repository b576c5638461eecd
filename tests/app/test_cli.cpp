// app/cli: the command line, parsed in-process. Bad values must give one error line naming the flag and exit
// code 2; good ones must land in the right fields. (test_cli_exe runs the real binary for the same.)
#include "app/cli.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace slabcast {
namespace {

struct Parsed {
  ParsedCommandLine parsed;
  std::string out, err;
};

Parsed parse(std::vector<std::string> args) {
  args.insert(args.begin(), "slabcast");
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  Parsed run;
  run.parsed = parse_command_line(int(argv.size()), argv.data(), out, err);
  run.out = out.str();
  run.err = err.str();
  return run;
}

struct BadCase {
  std::vector<std::string> args;
  std::string flag;  // the error must start with "slabcast: error: <flag>"
};

TEST(Cli, BadValuesNameTheFlagAndExitWithTwo) {
  const std::vector<BadCase> cases = {
      {{"render", "--size", "0x0"}, "--size"},
      {{"render", "--size", "0x600"}, "--size"},
      {{"render", "--size", "-5x10"}, "--size"},
      {{"render", "--size=-5x10"}, "--size"},
      {{"render", "--size", "16385x16"}, "--size"},
      {{"render", "--size", "100000x100000"}, "--size"},
      {{"render", "--size", "99999999999999999999x1"}, "--size"},
      {{"render", "--size", "1024"}, "--size"},
      {{"render", "--size", "axb"}, "--size"},
      {{"render", "--size="}, "--size"},
      {{"render", "--slabs", "0"}, "--slabs"},
      {{"render", "--slabs", "65"}, "--slabs"},
      {{"render", "--slabs", "1000"}, "--slabs"},
      {{"render", "--slabs", "-3"}, "--slabs"},
      {{"render", "--slabs", "4.5"}, "--slabs"},
      {{"render", "--deform", "melt"}, "--deform"},
      {{"render", "--deform", "twist:nan"}, "--deform"},
      {{"render", "--deform", "twist:1e9"}, "--deform"},
      {{"render", "--shading", "toon"}, "--shading"},
      {{"render", "--light", "moon:1,2,3"}, "--light"},
      {{"render", "--background", "256,0,0"}, "--background"},
      {{"render", "--background", "1,2"}, "--background"},
      {{"render", "--background", "1,2,3,4"}, "--background"},
      {{"render", "--background", "-1,0,0"}, "--background"},
      {{"render", "--background", "0.5,0,0"}, "--background"},
      {{"render", "--background", "#12345"}, "--background"},
      {{"render", "--background", "#12345g"}, "--background"},
      {{"render", "--background", "red"}, "--background"},
      {{"render", "--background="}, "--background"},
      {{"view", "--background", "1,,3"}, "--background"},
      {{"bench", "--background", "#1234567"}, "--background"},
      {{"render", "--light", "sun:0,0,0"}, "--light"},
      {{"render", "--light", "sun:1,2"}, "--light"},
      {{"render", "--light", "point:1,nan,3"}, "--light"},
      {{"render", "--light", "point"}, "--light"},
      {{"render", "--shadow-mask", "mask.png"}, "--shadow-mask"},
      {{"render", "--shadows", "--backend", "gl-raster"}, "--shadows"},
      {{"render", "--light", "point:0,1,0", "--shadows", "--backend", "gl-raster"}, "--shadows"},
      {{"render", "--shading", "shadow", "--backend", "gl-raster"}, "--shading"},
      {{"render", "--backend", "opencl"}, "--backend"},
      {{"render", "--eye", "1,2"}, "--eye"},
      {{"render", "--eye", "a,b,c"}, "--eye"},
      {{"render", "--eye", "1,2,3,4"}, "--eye"},
      {{"render", "--eye", "nan,0,0"}, "--eye"},
      {{"render", "--eye", "inf,0,0"}, "--eye"},
      {{"render", "--target", "1,,3"}, "--target"},
      {{"render", "--up", "0,0,0"}, "--up"},
      {{"render", "--eye", "0,0,5", "--target", "0,0,5"}, "--eye"},
      {{"render", "--eye", "0,5,0", "--target", "0,0,0"}, "--up"},  // looking along the default up
      {{"render", "--fovy", "1e-30"}, "--fovy"},
      {{"render", "--threads", "0"}, "--threads"},
      {{"render", "--frames", "2"}, "--out"},  // frame.png holds no frame number
      {{"render", "--frames", "0", "--out", "f_%d.png"}, "--frames"},
      {{"render", "--out", "f_%x.png"}, "--out"},
      {{"render", "--out", "f_%d_%d.png"}, "--out"},
      {{"render", "--frames", "2", "--out", "f_%d.png", "--ids", "f.ids"}, "--ids"},
      {{"render", "--fps", "0"}, "--fps"},
      {{"render", "--turntable", "90", "--eye", "1,2,3"}, "--turntable"},
      {{"render", "--backend", "gl-raster", "--frames", "2", "--out", "f_%d.png"}, "--frames"},
      {{"render", "--orbit", "30"}, "--orbit"},
      {{"render", "--orbit", "30,90"}, "--orbit"},
      {{"render", "--orbit", "30,-95"}, "--orbit"},
      {{"render", "--orbit", "30,10,0"}, "--orbit"},
      {{"render", "--orbit", "30,10,1,2"}, "--orbit"},
      {{"render", "--orbit", "a,b"}, "--orbit"},
      {{"view", "--orbit", "30,10", "--eye", "1,2,3"}, "--orbit"},
      {{"render", "--threads", "two"}, "--threads"},
      {{"view", "--threads", "-1"}, "--threads"},
      {{"render", "--fovy", "0.09"}, "--fovy"},
      {{"render", "--fovy", "179.5"}, "--fovy"},
      {{"render", "--eye", "0,0,1e-30", "--target", "0,0,1e-30"}, "--eye"},
      {{"render", "--eye", "-3e38,0,0", "--target", "3e38,0,0"}, "--eye"},  // the distance overflows a float
      {{"render", "--fovy", "0"}, "--fovy"},
      {{"render", "--fovy", "180"}, "--fovy"},
      {{"render", "--fovy", "-10"}, "--fovy"},
      {{"render", "--fovy", "nan"}, "--fovy"},
      {{"render", "--time", "inf"}, "--time"},
      {{"render", "--time", "soon"}, "--time"},
      {{"render", "--procedural", "cube:100"}, "--procedural"},
      {{"render", "--procedural", "sphere:"}, "--procedural"},
      {{"render", "--procedural", "sphere:-5"}, "--procedural"},
      {{"render", "--procedural", "sphere:0"}, "--procedural"},
      {{"render", "--procedural", "sphere:99999999999"}, "--procedural"},
      {{"render", "--procedural", "sphere:5000M"}, "--procedural"},
      {{"render", "--out", "frame.jpg"}, "--out"},
      {{"render", "--out", "/no/such/dir/frame.png"}, "--out"},
      {{"render", "--depth", "d.png"}, "--depth"},
      {{"render", "--ids", "i.txt"}, "--ids"},
      {{"render", "--deformed-mesh", "m.ply"}, "--deformed-mesh"},
      {{"render", "--mesh", "a.obj", "--procedural", "sphere:10"}, "--mesh"},
      {{"render", "--bogus"}, "The following argument"},
      {{"render", "--size"}, "--size"},
      {{"view", "--frames", "0"}, "--frames"},
      {{"view", "--slabs", "0"}, "--slabs"},
      {{"view", "--screenshot", "shot.bmp"}, "--screenshot"},
      {{"render", "--samples", "0"}, "--samples"},
      {{"render", "--samples", "2"}, "--samples"},
      {{"render", "--samples", "8"}, "--samples"},
      {{"render", "--samples", "32"}, "--samples"},
      {{"render", "--samples", "four"}, "--samples"},
      {{"render", "--samples", "4", "--backend", "gl-raster"}, "--samples"},
      {{"view", "--samples", "3"}, "--samples"},
      {{"bench", "--samples", "9"}, "--samples"},
      {{"bogus"}, "The following argument"},
  };
  for (const BadCase& c : cases) {
    std::string joined;
    for (const std::string& a : c.args) joined += a + " ";
    SCOPED_TRACE(joined);
    const Parsed run = parse(c.args);
    EXPECT_EQ(run.parsed.command, Command::exit);
    EXPECT_EQ(run.parsed.exit_code, kExitUsage);
    EXPECT_EQ(run.err.rfind("slabcast: error: " + c.flag, 0), 0u) << run.err;
    EXPECT_EQ(run.err.find('\n'), run.err.size() - 1) << "not one line: " << run.err;
  }
}

TEST(Cli, DefaultsForRender) {
  const Parsed run = parse({"render"});
  ASSERT_EQ(run.parsed.command, Command::render) << run.err;
  const RenderOptions& r = run.parsed.render;
  EXPECT_EQ(r.scene.label(), "sphere:1000000");
  EXPECT_EQ(r.frame.width, 1024);
  EXPECT_EQ(r.frame.height, 1024);
  EXPECT_EQ(r.frame.slabs, 16);
  EXPECT_EQ(r.frame.shading, Shading::phong);
  EXPECT_EQ(r.frame.deform.kind, Deformer::none);
  EXPECT_FALSE(r.backend.has_value());
  EXPECT_FALSE(r.eye_given);
  EXPECT_EQ(r.out, "frame.png");
  EXPECT_TRUE(r.depth_path.empty());
}

TEST(Cli, EveryRenderFlag) {
  const Parsed run = parse({"render", "--procedural", "torus-knot:250k", "--size", "640x480", "--eye", "1,2,3",
                         "--target", "0,0.5,0", "--up", "0,0,1", "--fovy", "60", "--deform", "wave:0.5", "--time", "1.25",
                         "--slabs", "4", "--backend", "cpu", "--shading", "triangle-id", "--out", "a.png", "--depth",
                         "a.pfm", "--ids", "a.ids", "--deformed-mesh", "a.obj"});
  ASSERT_EQ(run.parsed.command, Command::render) << run.err;
  const RenderOptions& r = run.parsed.render;
  EXPECT_EQ(r.scene.procedural_name, "torus_knot");
  EXPECT_EQ(r.scene.procedural_triangles, 250000u);
  EXPECT_EQ(r.frame.width, 640);
  EXPECT_EQ(r.frame.height, 480);
  EXPECT_EQ(r.frame.camera.eye, glm::vec3(1, 2, 3));
  EXPECT_EQ(r.frame.camera.target, glm::vec3(0, 0.5f, 0));
  EXPECT_EQ(r.frame.camera.up, glm::vec3(0, 0, 1));
  EXPECT_TRUE(r.eye_given && r.target_given && r.up_given);
  EXPECT_EQ(r.frame.camera.fovy_degrees, 60.0f);
  EXPECT_EQ(r.frame.deform.kind, Deformer::wave);
  EXPECT_EQ(r.frame.deform.amount, 0.5f);
  EXPECT_EQ(r.frame.deform.time, 1.25f);
  EXPECT_EQ(r.frame.slabs, 4);
  EXPECT_EQ(r.backend, Backend::cpu);
  EXPECT_EQ(r.frame.shading, Shading::triangle_id);
  EXPECT_EQ(r.out, "a.png");
  EXPECT_EQ(r.depth_path, "a.pfm");
  EXPECT_EQ(r.ids_path, "a.ids");
  EXPECT_EQ(r.deformed_mesh_path, "a.obj");
}

TEST(Cli, NegativeCoordinatesAsValues) {
  const Parsed run = parse({"render", "--eye", "-1,-2,-3", "--target=0,0,0"});
  ASSERT_EQ(run.parsed.command, Command::render) << run.err;
  EXPECT_EQ(run.parsed.render.frame.camera.eye, glm::vec3(-1, -2, -3));
}

// A camera is judged by its directions, not its size: cameras at 1e-20 and 1e20 with a perpendicular up are fine,
// and so are the ends of the field-of-view range.
TEST(Cli, CamerasOfAnyScaleAndTheFieldOfViewRangeAreAccepted) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"render", "--eye", "0,0,1e20", "--target", "0,0,0"},
           {"render", "--eye", "0,0,1e-20", "--target", "0,0,0"},
           {"render", "--eye", "1e30,0,1e30", "--target", "0,1e-30,0", "--up", "0,1e-30,0"},
           {"render", "--fovy", "0.1"},
           {"render", "--fovy", "179"}}) {
    const Parsed run = parse(args);
    EXPECT_EQ(run.parsed.command, Command::render) << args[1] << " " << args[2] << ": " << run.err;
  }
}

TEST(Cli, LightsAndShadows) {
  const ParsedCommandLine a = parse({"render", "--light", "sun:1,2,-3", "--shadows", "--floor"}).parsed;
  ASSERT_EQ(a.command, Command::render);
  EXPECT_EQ(a.render.frame.light.type, LightType::sun);
  EXPECT_EQ(a.render.frame.light.vector, glm::vec3(1, 2, -3));
  EXPECT_TRUE(a.render.frame.shadows);
  EXPECT_TRUE(a.render.scene.floor);
  const ParsedCommandLine b = parse({"render", "--light", "Point: 0.5, -1, 2", "--shadow-mask", "m.pgm"}).parsed;
  EXPECT_EQ(b.render.frame.light.type, LightType::point);
  EXPECT_EQ(b.render.frame.light.vector, glm::vec3(0.5f, -1, 2));
  EXPECT_TRUE(b.render.frame.shadows) << "--shadow-mask turns the shadows on";
  EXPECT_EQ(b.render.shadow_mask_path, "m.pgm");
  const ParsedCommandLine c = parse({"render"}).parsed;
  EXPECT_EQ(c.render.frame.light.type, LightType::headlight);
  EXPECT_FALSE(c.render.frame.shadows);
  const ParsedCommandLine d = parse({"bench", "--suite", "shadows"}).parsed;
  EXPECT_TRUE(d.bench.shadows);
  EXPECT_TRUE(d.bench.floor);
  EXPECT_EQ(d.bench.light.type, LightType::sun);
  const ParsedCommandLine e = parse({"view", "--headless", "--light", "headlight", "--shading", "shadow"}).parsed;
  EXPECT_EQ(e.view.frame.shading, Shading::shadow);
}

TEST(Cli, SamplesReachEveryCommand) {
  EXPECT_EQ(parse({"render"}).parsed.render.frame.samples, 1);
  EXPECT_EQ(parse({"render", "--samples", "16"}).parsed.render.frame.samples, 16);
  EXPECT_EQ(parse({"view", "--headless", "--samples", "4"}).parsed.view.frame.samples, 4);
  EXPECT_EQ(parse({"bench", "--samples", "16"}).parsed.bench.samples, 16);
  EXPECT_EQ(parse({"bench"}).parsed.bench.samples, 1);
}

TEST(Cli, BackgroundOnRenderViewAndBench) {
  const ParsedCommandLine a = parse({"render", "--background", " 255, 0,7 "}).parsed;
  ASSERT_EQ(a.command, Command::render);
  EXPECT_EQ(a.render.frame.background.r, 255);
  EXPECT_EQ(a.render.frame.background.g, 0);
  EXPECT_EQ(a.render.frame.background.b, 7);
  EXPECT_EQ(a.render.frame.background.a, 255);
  const ParsedCommandLine b = parse({"view", "--headless", "--background", "#FFa001"}).parsed;
  ASSERT_EQ(b.command, Command::view);
  EXPECT_EQ(b.view.frame.background.r, 255);
  EXPECT_EQ(b.view.frame.background.g, 0xa0);
  EXPECT_EQ(b.view.frame.background.b, 1);
  const ParsedCommandLine c = parse({"bench", "--background", "1,2,3"}).parsed;
  ASSERT_EQ(c.command, Command::bench);
  EXPECT_EQ(c.bench.background.r, 1);
  EXPECT_EQ(c.bench.background.g, 2);
  EXPECT_EQ(c.bench.background.b, 3);
  for (const ParsedCommandLine& d : {parse({"render"}).parsed, parse({"view"}).parsed}) {  // the shade stage's own
    const Color8 bg = d.command == Command::render ? d.render.frame.background : d.view.frame.background;
    EXPECT_EQ(bg.r, 28);
    EXPECT_EQ(bg.g, 30);
    EXPECT_EQ(bg.b, 38);
  }
  EXPECT_EQ(parse({"bench"}).parsed.bench.background.b, 38);
}

TEST(Cli, MeshPath) {
  const Parsed run = parse({"render", "--mesh", "assets/pawn.obj"});
  ASSERT_EQ(run.parsed.command, Command::render) << run.err;
  EXPECT_EQ(run.parsed.render.scene.mesh_path, "assets/pawn.obj");
  EXPECT_EQ(run.parsed.render.scene.label(), "pawn.obj");
}

TEST(Cli, NoArgumentsIsTheAnimatedViewer) {
  const Parsed run = parse({});
  ASSERT_EQ(run.parsed.command, Command::view) << run.err;
  EXPECT_TRUE(run.parsed.view.animate);
  EXPECT_FALSE(run.parsed.view.headless);
  EXPECT_EQ(run.parsed.view.scene.label(), "sphere:1000000");
  EXPECT_NE(run.parsed.view.frame.deform.kind, Deformer::none);
}

TEST(Cli, ViewHeadless) {
  const Parsed run = parse({"view", "--headless", "--frames", "10", "--screenshot", "v.png", "--backend", "cpu",
                         "--size", "320x200", "--deform", "none", "--pause"});
  ASSERT_EQ(run.parsed.command, Command::view) << run.err;
  const ViewOptions& v = run.parsed.view;
  EXPECT_TRUE(v.headless);
  EXPECT_EQ(v.frames, 10);
  EXPECT_TRUE(v.frames_given);
  EXPECT_EQ(v.screenshot_path, "v.png");
  EXPECT_FALSE(v.animate);
  EXPECT_EQ(v.frame.width, 320);
  EXPECT_EQ(v.frame.deform.kind, Deformer::none);
}

TEST(Cli, HelpListsEveryFlagAndExitsZero) {
  for (const auto& args : std::vector<std::vector<std::string>>{{"render", "--help"}, {"view", "--help"}}) {
    const Parsed run = parse(args);
    EXPECT_EQ(run.parsed.command, Command::exit);
    EXPECT_EQ(run.parsed.exit_code, kExitOk);
    for (const char* flag : {"--mesh", "--procedural", "--size", "--eye", "--target", "--up", "--fovy", "--threads", "--deform",
                             "--time", "--slabs", "--backend", "--shading", "--background"}) {
      EXPECT_NE(run.out.find(flag), std::string::npos) << flag << " missing from:\n" << run.out;
    }
  }
  const Parsed render = parse({"render", "--help"});
  for (const char* flag : {"--out", "--depth", "--ids", "--deformed-mesh"}) EXPECT_NE(render.out.find(flag), std::string::npos) << flag;
  const Parsed top = parse({"--help"});
  EXPECT_EQ(top.parsed.exit_code, kExitOk);
  EXPECT_NE(top.out.find("render"), std::string::npos);
  EXPECT_NE(top.out.find("view"), std::string::npos);
  EXPECT_NE(top.out.find("slabcast check"), std::string::npos);
}

TEST(Cli, CheckFillsItsOptions) {
  const Parsed run = parse({"check", "scenes.tsv", "--goldens", "g", "--update", "--backend", "cpu", "--diff-dir", "d",
                            "--json", "r.json", "--junit", "r.xml"});
  ASSERT_EQ(run.parsed.command, Command::check) << run.err;
  const CheckOptions& c = run.parsed.check;
  EXPECT_EQ(c.scenes_path, "scenes.tsv");
  EXPECT_EQ(c.goldens_dir, "g");
  EXPECT_TRUE(c.update);
  EXPECT_EQ(c.backend, "cpu");
  EXPECT_EQ(c.diff_dir, "d");
  EXPECT_EQ(c.json_path, "r.json");
  EXPECT_EQ(c.junit_path, "r.xml");
  const Parsed plain = parse({"check", "scenes.tsv", "--goldens", "g"});
  ASSERT_EQ(plain.parsed.command, Command::check) << plain.err;
  EXPECT_FALSE(plain.parsed.check.update);
  EXPECT_EQ(plain.parsed.check.diff_dir, "check-diffs");
  EXPECT_TRUE(plain.parsed.check.backend.empty());
}

TEST(Cli, CheckUsageErrorsNameTheFlag) {
  const std::vector<BadCase> cases = {
      {{"check", "scenes.tsv"}, "--goldens"},
      {{"check", "scenes.tsv", "--goldens", "g", "--backend", "metal"}, "--backend"},
      {{"check", "scenes.tsv", "--goldens", "g", "--json", "/no/such/dir/r.json"}, "--json"},
      {{"check", "scenes.tsv", "--goldens", "g", "--junit", "/no/such/dir/r.xml"}, "--junit"},
      {{"check", "scenes.tsv", "--goldens", "g", "--diff-dir", ""}, "--diff-dir"},
  };
  for (const BadCase& c : cases) {
    const Parsed run = parse(c.args);
    EXPECT_EQ(run.parsed.command, Command::exit) << c.flag;
    EXPECT_EQ(run.parsed.exit_code, kExitUsage) << c.flag;
    EXPECT_EQ(run.err.rfind("slabcast: error: " + c.flag, 0), 0u) << run.err;
  }
}

}  // namespace
}  // namespace slabcast
