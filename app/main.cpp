// slabcast: `slabcast render ...` (one frame, headless, to files), `slabcast view ...` (the viewer), `slabcast
// bench ...` (the benchmark), and `slabcast` alone (the viewer on the default scene, animated). Exit codes: 0 success, 1 runtime failure
// (broken mesh, no device, out of memory, unwritable file), 2 usage error (bad flag or value). Every failure is
// one "slabcast: error: ..." line on stderr; nothing is allowed to escape as a crash.
#include "bench_command.h"
#include "cli.h"
#include "render_command.h"

#if SLABCAST_HAVE_VIEWER
#include "app/viewer/viewer.h"
#endif

#include <exception>
#include <iostream>
#include <new>

namespace slabcast {
namespace {

#if SLABCAST_HAVE_VIEWER
ViewerOptions to_viewer_options(const ViewOptions& v) {
  ViewerOptions o;
  o.mesh_path = v.scene.scene.mesh_path;
  o.procedural_name = v.scene.scene.procedural_name;
  o.procedural_triangles = v.scene.scene.procedural_triangles;
  o.frame = v.scene.frame;
  // Each of eye / target / up comes from frame_mesh() unless given, as in `slabcast render` (resolve_camera).
  o.camera_given = v.scene.eye_given && v.scene.target_given;
  o.eye_given = v.scene.eye_given;
  o.target_given = v.scene.target_given;
  o.up_given = v.scene.up_given;
  o.backend_given = v.scene.backend.has_value();
  o.backend = v.scene.backend.value_or(Backend::cuda);
  o.gl_raster = v.gl_raster;
  o.animate = v.animate;
  o.time_scale = v.time_scale;
  o.vsync = v.vsync;
  o.show_overlay = v.show_overlay;
  o.headless = v.headless;
  o.frames = v.frames;
  o.max_frames_given = v.frames_given;
  o.screenshot_path = v.screenshot_path;
  o.screenshot_3d_only = v.screenshot_3d_only;
  return o;
}
#endif

int run_view(const ViewOptions& options) {
#if SLABCAST_HAVE_VIEWER
  return run_viewer(to_viewer_options(options));
#else
  (void)options;
  std::cerr << "slabcast: error: this slabcast was built without the viewer (app/viewer/ was not there when it was "
               "configured); use 'slabcast render' to render frames to files, e.g. 'slabcast render --out frame.png'\n";
  return kExitRuntime;
#endif
}

int run(int argc, char** argv) {
  const ParsedCommandLine cli = parse_command_line(argc, argv, std::cout, std::cerr);
  switch (cli.command) {
    case Command::exit:
      return cli.exit_code;
    case Command::render:
      return run_render(cli.render, std::cout, std::cerr);
    case Command::view:
      return run_view(cli.view);
    case Command::bench:
      return run_bench(cli.bench, std::cout, std::cerr);
  }
  return kExitRuntime;
}

}  // namespace
}  // namespace slabcast

int main(int argc, char** argv) {
  try {
    return slabcast::run(argc, argv);
  } catch (const slabcast::UsageError& e) {
    std::cerr << "slabcast: error: " << e.what() << "\n";
    return slabcast::kExitUsage;
  } catch (const std::bad_alloc&) {
    std::cerr << "slabcast: error: out of host memory\n";
    return slabcast::kExitRuntime;
  } catch (const std::exception& e) {
    std::cerr << "slabcast: error: " << e.what() << "\n";
    return slabcast::kExitRuntime;
  } catch (...) {
    std::cerr << "slabcast: error: unknown failure\n";
    return slabcast::kExitRuntime;
  }
}
