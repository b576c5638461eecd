#include "app/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <memory>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <mutex>

namespace slabcast {
namespace {

// ---- the temporaries open right now, for the signal handler ----
// Fixed slots of plain bytes: the handler may only read them and call unlink, which is async-signal-safe.
constexpr int kSlots = 16;
constexpr size_t kPathBytes = 4096;
// A slot is free, being filled (not yet readable) or holding a path.
enum SlotState : int { kFree = 0, kFilling = 1, kHolding = 2 };
char g_temp_paths[kSlots][kPathBytes];
std::atomic<int> g_slot_state[kSlots];

void remove_temporaries_and_reraise(int signal_number) {
  for (int i = 0; i < kSlots; ++i) {
    if (g_slot_state[i].load() == kHolding) unlink(g_temp_paths[i]);
  }
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

// Installs the handler for the signals that still have their default action (a program that ignores or handles one
// keeps its own choice).
void install_signal_cleanup() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (const int signal_number : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction current {};
      if (sigaction(signal_number, nullptr, &current) != 0 || current.sa_handler != SIG_DFL) continue;
      struct sigaction cleanup {};
      cleanup.sa_handler = remove_temporaries_and_reraise;
      sigemptyset(&cleanup.sa_mask);
      sigaction(signal_number, &cleanup, nullptr);
    }
  });
}

}  // namespace

// A registered temporary: unregistered (and, unless renamed, removed) when it goes out of scope.
class TemporaryPath {
 public:
  explicit TemporaryPath(const std::string& path) : path_(path) {
    install_signal_cleanup();
    if (path.size() >= kPathBytes) return;  // not cleaned up on a signal, still removed on failure
    for (int i = 0; i < kSlots; ++i) {
      int expected = kFree;
      if (g_slot_state[i].compare_exchange_strong(expected, kFilling)) {
        std::memcpy(g_temp_paths[i], path.c_str(), path.size() + 1);
        g_slot_state[i].store(kHolding);  // only now may the handler read it
        slot_ = i;
        return;
      }
    }
  }
  TemporaryPath(const TemporaryPath&) = delete;
  TemporaryPath& operator=(const TemporaryPath&) = delete;
  ~TemporaryPath() {
    if (!renamed_) unlink(path_.c_str());
    if (slot_ >= 0) g_slot_state[slot_].store(kFree);
  }
  void mark_renamed() { renamed_ = true; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int slot_ = -1;
  bool renamed_ = false;
};

namespace {

// The permission bits a new file gets (0666 less the umask), as a plain open() would have given the target.
mode_t new_file_mode() {
  static const mode_t mode = [] {
    const mode_t mask = umask(0);
    umask(mask);
    return static_cast<mode_t>(0666 & ~mask);
  }();
  return mode;
}

std::string folder_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string reason(int error) { return error != 0 ? std::strerror(error) : "write failed"; }

}  // namespace

std::string OutputBatch::add(const std::string& path, const std::function<bool(std::FILE*)>& body) {
  // mkostemp's template: it replaces the six trailing placeholder characters with random ones.
  std::string name = folder_of(path) + "/.slabcast-" + std::string(6, 'X');
  // mkostemp: O_CREAT | O_EXCL under a random name, so it never opens an existing file or follows a link.
  const int fd = mkostemp(name.data(), O_CLOEXEC);
  if (fd < 0) return reason(errno);
  auto temporary = std::make_unique<TemporaryPath>(name);
  if (fchmod(fd, new_file_mode()) != 0) {
    const int error = errno;
    close(fd);
    return reason(error);
  }
  std::FILE* file = fdopen(fd, "wb");
  if (!file) {
    const int error = errno;
    close(fd);
    return reason(error);
  }
  errno = 0;
  int error = 0;
  // The content, then the stream's buffer, then the disk: a file renamed into place is complete even after a crash.
  bool ok = body(file) && std::fflush(file) == 0 && fsync(fileno(file)) == 0;
  if (!ok) error = errno;
  if (std::fclose(file) != 0 && ok) {
    ok = false;
    error = errno;
  }
  if (!ok) return reason(error);
  pending_.push_back(Pending{path, std::move(temporary)});
  return {};
}

std::string OutputBatch::commit() {
  std::string failed;
  for (Pending& file : pending_) {
    if (!failed.empty()) break;
    if (std::rename(file.temporary->path().c_str(), file.target.c_str()) != 0) {
      failed = file.target + ": " + reason(errno);
    } else {
      file.temporary->mark_renamed();
    }
  }
  pending_.clear();  // removes whatever was not renamed
  return failed;
}

OutputBatch::OutputBatch() = default;
OutputBatch::~OutputBatch() = default;

std::string write_file_atomically(const std::string& path, const std::function<bool(std::FILE*)>& body) {
  OutputBatch batch;
  const std::string error = batch.add(path, body);
  if (!error.empty()) return error;
  const std::string failed = batch.commit();
  return failed.empty() ? failed : failed.substr(path.size() + 2);
}

}  // namespace slabcast
