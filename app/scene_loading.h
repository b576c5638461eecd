// Loading a scene for `render`, `bench` and the viewer: its mesh and what moves it by itself (app/scene_motion.h).
#pragma once
#include "app/options.h"
#include "app/scene_motion.h"
#include "render/renderer.h"

#include <iosfwd>
#include <string>

namespace slabcast {

// A scene as loaded: its mesh and what moves it by itself.
struct LoadedScene {
  Mesh mesh;
  SceneMotion motion;
};

// Whether --mesh names a mesh sequence: a glob pattern (* or ?) or a directory of frames.
bool is_sequence_spec(const std::string& path);

// Loads the scene: a mesh file in any format load_mesh reads (with a progress line on `log` for large files), a glTF
// file with its animation (--animation), a mesh sequence (a glob or a directory), or a procedural mesh; then the
// generated rig or texture and the floor the spec asks for. Warnings go to `log`.
// Throws std::runtime_error naming the file for a broken mesh, UsageError naming the flag for a bad one.
LoadedScene load_scene(const SceneSpec& scene, std::ostream& log);

}  // namespace slabcast
