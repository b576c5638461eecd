// Every file slabcast writes (images, depth, IDs, meshes, benchmark reports) is written whole or not at all.
//
// The content goes to a new temporary file in the target's folder, created exclusively under a random name (never an
// existing file, never through a symbolic link, and short, so that every legal target name works), flushed to disk and
// then renamed over the target, which replaces it atomically. Two processes writing one path each rename a complete
// file of their own, so the path ends up holding one of them whole. On a failure the temporary is removed, and so it
// is when SIGINT, SIGTERM or SIGHUP ends the process while it is open (where those signals have their default action).
#pragma once
#include <cstdio>
#include <functional>
#include <string>

namespace slabcast {

// Writes `path` through a temporary as above. `body` writes the content to the stream and returns false on a write
// error. Returns the empty string on success, else why it failed (the temporary is gone and `path` is untouched).
std::string write_file_atomically(const std::string& path, const std::function<bool(std::FILE*)>& body);

}  // namespace slabcast
