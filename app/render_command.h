// `slabcast render`: one frame, headless, into ordinary memory (host for cpu, device for cuda), written to disk in
// the formats of docs/architecture.md, with the frame's statistics printed.
#pragma once
#include "app/cli.h"
#include "app/scene_loading.h"
#include "render/renderer.h"

#include <iosfwd>
#include <optional>

namespace slabcast {


// The backend asked for, or (none asked) cuda where a CUDA device exists, else cpu with a note on `log`.
Backend choose_backend(const std::optional<Backend>& requested, std::ostream& log);

// The camera: frame_mesh()'s for the frame's size and deformer, with --eye / --target / --up in its place where given.
// Throws UsageError naming the flag when the result is degenerate (eye on the target, up along the view).
Camera resolve_camera(const SceneOptions& options, const Mesh& mesh);

// Runs `slabcast render`: statistics and written paths on `out`, notes and progress on `log`.
// Returns kExitOk; throws UsageError / std::runtime_error for main() to report.
int run_render(const RenderOptions& options, std::ostream& out, std::ostream& log);

}  // namespace slabcast
