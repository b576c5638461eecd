// What the viewer can load and how: the model list (procedural meshes, shipped and fetched mesh files, shipped mesh
// sequences), a list entry or a typed path as the SceneSpec that load_scene reads, and the load itself, which runs on
// a background thread and reports its progress for the overlay's bar.
#pragma once
#include "app/options.h"
#include "app/scene_loading.h"

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace slabcast::viewer {

// One entry of the overlay's model list: a procedural mesh, a mesh file (any format load_mesh reads) or a mesh
// sequence (a directory of frames or a glob pattern, app/formats/mesh_sequence.h).
struct ModelChoice {
  std::string label;             // shown in the list
  std::string path;              // mesh file, sequence directory or glob; empty for a procedural mesh
  std::string procedural;        // "sphere", ... when path is empty
  uint64_t triangles = 0;        // procedural target count
};

// The procedural meshes, the shipped mesh files and sequences (assets/*) and the fetched files (assets/models/*),
// looked up under the working directory and under the source tree the binary was built from.
std::vector<ModelChoice> list_models();

// The scene of a model chosen after the first: only the mesh (or sequence) itself and the sequence frame rate of
// `command_line`. The command line's other extras (--animation, --floor, ...) name the first model's scene; a
// floor, for one, cannot go under a sequence, and another file may have no animation of that name.
SceneSpec scene_of(const ModelChoice& model, const SceneSpec& command_line);

// load_scene on the calling thread (the viewer calls it from a background thread): `progress` goes from 0 to 1,
// warnings go to stderr. Throws as load_scene does.
LoadedScene load_model(const SceneSpec& scene, std::atomic<double>* progress);

// load_scene reports a large file's progress only as log lines, "[slabcast] loading FILE (SIZE): NN%"; this reads
// the fraction from one such line (false for any other line). load_model uses it to drive the progress bar.
bool parse_progress_line(const std::string& line, double* fraction);

}  // namespace slabcast::viewer
