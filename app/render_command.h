// `slabcast render`: one frame, headless, into ordinary memory (host for cpu, device for cuda), written to disk in
// the formats of docs/architecture.md, with the frame's statistics printed.
#pragma once
#include "app/cli.h"
#include "app/scene_motion.h"
#include "render/renderer.h"

#include <iosfwd>
#include <optional>

namespace slabcast {

// A scene as loaded: its mesh and what moves it by itself.
struct LoadedScene {
  Mesh mesh;
  SceneMotion motion;
};

// Whether --mesh names a mesh sequence: a glob pattern (* or ?) or a directory of frames.
bool is_sequence_spec(const std::string& path);

// Loads the scene: a mesh file in any format load_mesh reads (with a progress line on `log` for large files), a glTF
// file with its animation (--animation), a mesh sequence (a glob or a directory), or a procedural mesh.
// Throws std::runtime_error naming the file for a broken mesh, UsageError naming the flag for a bad one.
LoadedScene load_scene(const SceneSpec& scene, std::ostream& log);

// The backend asked for, or (none asked) cuda where a CUDA device exists, else cpu with a note on `log`.
Backend choose_backend(const std::optional<Backend>& requested, std::ostream& log);

// The camera: frame_mesh()'s, with --eye / --target / --up in its place where given.
// Throws UsageError naming the flag when the result is degenerate (eye on the target, up along the view).
Camera resolve_camera(const SceneOptions& options, const Mesh& mesh);

// Runs `slabcast render`: statistics and written paths on `out`, notes and progress on `log`.
// Returns kExitOk; throws UsageError / std::runtime_error for main() to report.
int run_render(const RenderOptions& options, std::ostream& out, std::ostream& log);

}  // namespace slabcast
