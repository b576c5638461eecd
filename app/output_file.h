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
#include <memory>
#include <string>
#include <vector>

namespace slabcast {

// Writes `path` through a temporary as above. `body` writes the content to the stream and returns false on a write
// error. Returns the empty string on success, else why it failed (the temporary is gone and `path` is untouched).
std::string write_file_atomically(const std::string& path, const std::function<bool(std::FILE*)>& body);

class TemporaryPath;

// The outputs of one run, landing together: add() writes each file to a temporary of its own as above, and commit()
// renames them into place one after the other once all are complete. A failed write (a full disk, a missing folder, a
// file-size limit) leaves every target as it was, since nothing is renamed before every file is on disk. A rename
// within one folder does not need space, so the renames do not fail for the reasons writes do; should one fail
// anyway, the files before it have landed and the rest are removed.
class OutputBatch {
 public:
  OutputBatch();
  ~OutputBatch();  // removes the temporaries of files not committed
  OutputBatch(const OutputBatch&) = delete;
  OutputBatch& operator=(const OutputBatch&) = delete;

  // Writes `path`'s content to its temporary. Returns the empty string, or why it failed (that temporary is gone; the
  // ones added before stay until commit() or the batch's end).
  std::string add(const std::string& path, const std::function<bool(std::FILE*)>& body);
  // Renames every file added, in the order added. Returns the empty string, or "PATH: why" for the first that failed.
  std::string commit();

 private:
  struct Pending {
    std::string target;
    std::unique_ptr<TemporaryPath> temporary;
  };
  std::vector<Pending> pending_;
};

}  // namespace slabcast
