#include "app/formats/mesh_sequence.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <stdexcept>
#include <system_error>

namespace slabcast {
namespace fs = std::filesystem;

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

char lower_ascii(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool has_mesh_extension(const fs::path& path) {
  static constexpr std::array<std::string_view, 6> kMeshExtensions = {".obj", ".ply", ".stl", ".off", ".gltf", ".glb"};
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), lower_ascii);
  return std::find(kMeshExtensions.begin(), kMeshExtensions.end(), ext) != kMeshExtensions.end();
}

// The regular files (symbolic links followed) of `dir` that `keep` accepts, by file name.
template <typename Keep>
std::vector<std::string> regular_files_in(const fs::path& dir, const std::string& spec, Keep keep) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw std::runtime_error(spec + ": no such directory '" + dir.string() + "'");
  std::vector<std::string> files;
  fs::directory_iterator it(dir, ec);
  if (ec) throw std::runtime_error(spec + ": cannot list '" + dir.string() + "': " + ec.message());
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) throw std::runtime_error(spec + ": cannot list '" + dir.string() + "': " + ec.message());
    std::error_code type_ec;
    if (!it->is_regular_file(type_ec)) continue;
    const std::string name = it->path().filename().string();
    if (keep(name)) files.push_back(it->path().string());
  }
  if (ec) throw std::runtime_error(spec + ": cannot list '" + dir.string() + "': " + ec.message());
  return files;
}

std::string base_name(const std::string& path) { return fs::path(path).filename().string(); }

}  // namespace

bool natural_less(std::string_view a, std::string_view b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (is_digit(a[i]) && is_digit(b[j])) {
      // Compare the digit runs as numbers without converting (a run may exceed 64 bits): skip leading zeros, then
      // the longer run is larger, and runs of one length compare digit by digit.
      size_t a_end = i, b_end = j;
      while (a_end < a.size() && is_digit(a[a_end])) ++a_end;
      while (b_end < b.size() && is_digit(b[b_end])) ++b_end;
      size_t a_first = i, b_first = j;
      while (a_first + 1 < a_end && a[a_first] == '0') ++a_first;
      while (b_first + 1 < b_end && b[b_first] == '0') ++b_first;
      const size_t a_len = a_end - a_first, b_len = b_end - b_first;
      if (a_len != b_len) return a_len < b_len;
      const int digits = a.substr(a_first, a_len).compare(b.substr(b_first, b_len));
      if (digits != 0) return digits < 0;
      i = a_end;
      j = b_end;
    } else {
      if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
      ++i;
      ++j;
    }
  }
  if ((i < a.size()) != (j < b.size())) return j < b.size();  // a prefix comes first
  return a < b;                                                // equal as numbers ("01" vs "1"): plain order
}

bool glob_match(std::string_view pattern, std::string_view name) {
  // Greedy matching with one backtrack point (the last '*'): linear in practice, never exponential.
  size_t p = 0, n = 0;
  size_t star = std::string_view::npos, star_name = 0;
  while (n < name.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == name[n])) {
      ++p;
      ++n;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      star_name = n;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      n = ++star_name;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::vector<std::string> list_sequence_frames(const std::string& spec) {
  const fs::path path(spec);
  std::error_code ec;
  std::vector<std::string> files;
  if (fs::is_directory(path, ec)) {
    files = regular_files_in(path, spec, [](const std::string& name) {
      return name[0] != '.' && has_mesh_extension(name);
    });
    if (files.empty()) throw std::runtime_error(spec + ": no mesh files (.obj .ply .stl .off .gltf .glb) in the directory");
  } else {
    const std::string pattern = path.filename().string();
    const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
    if (dir.string().find_first_of("*?") != std::string::npos) {
      throw std::runtime_error(spec + ": wildcards ('*', '?') are allowed in the file name only, not in the directory");
    }
    files = regular_files_in(dir, spec, [&](const std::string& name) {
      // As in a shell, a hidden file matches only a pattern that spells out the leading '.'.
      return (name[0] != '.' || pattern[0] == '.') && glob_match(pattern, name);
    });
    if (files.empty()) throw std::runtime_error(spec + ": no file matches");
  }
  if (files.size() == 1) throw std::runtime_error(spec + ": is a single mesh, not a sequence (only " + files[0] + ")");
  std::sort(files.begin(), files.end(), [](const std::string& a, const std::string& b) { return natural_less(a, b); });
  return files;
}

// ---- SequencePlayer ----

SequencePlayer::SequencePlayer(std::vector<std::string> frames, SequenceMeshLoader loader, double fps,
                               size_t memory_budget_bytes, SequencePositionsReader fast_reader)
    : frames_(std::move(frames)), loader_(std::move(loader)), fast_reader_(std::move(fast_reader)), fps_(fps) {
  if (frames_.empty()) throw std::invalid_argument("mesh sequence: no frames");
  if (!(std::isfinite(fps_) && fps_ > 0.0)) {
    throw std::invalid_argument("mesh sequence: frames per second must be finite and > 0, got " + std::to_string(fps_));
  }
  topology_ = loader_(frames_[0]);
  const size_t frame_bytes = std::max<size_t>(topology_.positions.size() * sizeof(glm::vec3), 1);
  capacity_ = std::min(std::max(memory_budget_bytes / frame_bytes, kMinResidentFrames), frames_.size());

  slots_.resize(frames_.size());
  slots_[0].state = SlotState::ready;
  slots_[0].positions = std::make_shared<const std::vector<glm::vec3>>(topology_.positions);
  resident_ = 1;

  const unsigned hardware = std::thread::hardware_concurrency();
  const unsigned threads = std::clamp(hardware > 1 ? hardware - 1 : 1u, 1u, kMaxDecodeThreads);
  const size_t useful = std::min<size_t>(threads, frames_.size() - 1);  // more threads than frames would idle
  try {
    for (size_t t = 0; t < useful; ++t) decoders_.emplace_back(&SequencePlayer::decode_loop, this);
  } catch (...) {
    stop_decoders();  // the destructor does not run for a throwing constructor, and a joinable thread terminates
    throw;
  }
}

SequencePlayer::~SequencePlayer() { stop_decoders(); }

void SequencePlayer::stop_decoders() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  work_changed_.notify_all();
  for (std::thread& t : decoders_) {
    if (t.joinable()) t.join();
  }
}

size_t SequencePlayer::distance_ahead(size_t frame) const {
  const size_t n = frames_.size();
  if (loop_) return (frame + n - head_) % n;
  // Not looping, frames behind the head come after every frame ahead, the farthest behind last.
  return frame >= head_ ? frame - head_ : n + (head_ - frame);
}

long SequencePlayer::next_frame_to_decode() const {
  const size_t n = frames_.size();
  for (size_t d = 0; d < capacity_; ++d) {
    const size_t frame = loop_ ? (head_ + d) % n : head_ + d;
    if (frame >= n) break;
    if (slots_[frame].state == SlotState::absent) return static_cast<long>(frame);
  }
  return -1;
}

bool SequencePlayer::evict_one_outside_window() {
  long victim = -1;
  for (size_t f = 0; f < slots_.size(); ++f) {
    if (slots_[f].state != SlotState::ready || in_window(f)) continue;
    if (victim < 0 || distance_ahead(f) > distance_ahead(static_cast<size_t>(victim))) victim = static_cast<long>(f);
  }
  if (victim < 0) return false;
  slots_[victim].state = SlotState::absent;
  slots_[victim].positions.reset();  // freed now, or when the last KeyframeRequest holding it goes
  --resident_;
  return true;
}

std::vector<glm::vec3> SequencePlayer::decode_frame(size_t frame) const {
  const std::string& path = frames_[frame];
  Mesh mesh;
  try {
    if (fast_reader_ && fast_reader_(path, mesh.positions) && mesh.positions.size() == topology_.positions.size()) {
      return std::move(mesh.positions);
    }
    mesh = loader_(path);
  } catch (const std::exception& e) {
    // The project's loaders name the file; a loader that does not still gets it named.
    const std::string what = e.what();
    throw std::runtime_error(what.find(base_name(path)) != std::string::npos ? what : path + ": " + what);
  } catch (...) {
    throw std::runtime_error(path + ": failed to load (unknown error)");
  }
  const std::string first = base_name(frames_[0]);
  if (mesh.positions.size() != topology_.positions.size()) {
    throw std::runtime_error(path + ": " + std::to_string(mesh.positions.size()) + " vertices, " + first + " has " +
                             std::to_string(topology_.positions.size()));
  }
  if (mesh.indices.size() != topology_.indices.size()) {
    throw std::runtime_error(path + ": " + std::to_string(mesh.triangle_count()) + " triangles, " + first + " has " +
                             std::to_string(topology_.triangle_count()));
  }
  const auto differ = std::mismatch(mesh.indices.begin(), mesh.indices.end(), topology_.indices.begin());
  if (differ.first != mesh.indices.end()) {
    const size_t triangle = static_cast<size_t>(differ.first - mesh.indices.begin()) / 3;
    throw std::runtime_error(path + ": faces differ from " + first + " at triangle " + std::to_string(triangle));
  }
  return std::move(mesh.positions);
}

void SequencePlayer::decode_loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    const long wanted = next_frame_to_decode();
    if (wanted < 0 || (resident_ >= capacity_ && !evict_one_outside_window())) {
      work_changed_.wait(lock);
      continue;
    }
    const size_t frame = static_cast<size_t>(wanted);
    slots_[frame].state = SlotState::decoding;
    ++resident_;
    lock.unlock();
    // Nothing may escape this thread (std::terminate): every failure becomes the frame's error.
    std::shared_ptr<const std::vector<glm::vec3>> positions;
    std::string error;
    try {
      positions = std::make_shared<const std::vector<glm::vec3>>(decode_frame(frame));
    } catch (const std::exception& e) {
      error = e.what();
    } catch (...) {
      error = frames_[frame] + ": failed to load (unknown error)";
    }
    lock.lock();
    Slot& slot = slots_[frame];
    if (positions) {
      slot.state = SlotState::ready;
      slot.positions = std::move(positions);
    } else {
      slot.state = SlotState::failed;
      slot.error = std::move(error);
      --resident_;
      if (first_broken_frame_ < 0 || wanted < first_broken_frame_) first_broken_frame_ = wanted;
    }
    frame_settled_.notify_all();
    work_changed_.notify_all();  // a decoder waiting for room may now evict this frame
  }
}

void SequencePlayer::throw_if_broken() const {
  if (first_broken_frame_ >= 0) throw std::runtime_error(slots_[first_broken_frame_].error);
}

std::shared_ptr<const std::vector<glm::vec3>> SequencePlayer::wait_for(size_t frame,
                                                                       std::unique_lock<std::mutex>& lock,
                                                                       bool& waited) {
  while (slots_[frame].state != SlotState::ready) {
    throw_if_broken();  // covers this frame failing too
    waited = true;
    frame_settled_.wait(lock);
  }
  return slots_[frame].positions;
}

KeyframeRequest SequencePlayer::at(double seconds, bool loop) {
  if (!std::isfinite(seconds)) throw std::invalid_argument("mesh sequence: time is not finite");
  const size_t n = frames_.size();
  double t = seconds * fps_;
  // A time computed as k / fps can land a hair below k: snap it, so frame k shows alone (mix 0) at its own time.
  const double nearest = std::round(t);
  if (std::abs(t - nearest) <= 1e-9 * std::max(1.0, std::abs(t))) t = nearest;

  size_t a = 0, b = 0;
  double mix = 0.0;
  if (loop) {
    double wrapped = std::fmod(t, static_cast<double>(n));
    if (wrapped < 0.0) wrapped += static_cast<double>(n);
    a = std::min(static_cast<size_t>(wrapped), n - 1);
    mix = std::clamp(wrapped - static_cast<double>(a), 0.0, 1.0);
    b = (a + 1) % n;
  } else {
    const double clamped = std::clamp(t, 0.0, static_cast<double>(n - 1));
    a = static_cast<size_t>(clamped);
    mix = clamped - static_cast<double>(a);
    b = std::min(a + 1, n - 1);
  }

  std::unique_lock<std::mutex> lock(mutex_);
  throw_if_broken();
  if (head_ != a || loop_ != loop) {
    head_ = a;
    loop_ = loop;
    work_changed_.notify_all();
  }
  KeyframeRequest request;
  bool waited = false;
  const auto start = std::chrono::steady_clock::now();
  request.a_positions = wait_for(a, lock, waited);
  request.b_positions = wait_for(b, lock, waited);
  if (waited) {
    ++stalls_.waits;
    stalls_.wait_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  request.keyframes.a_key = a;
  request.keyframes.b_key = b;
  request.keyframes.a = request.a_positions->data();
  request.keyframes.b = request.b_positions->data();
  request.keyframes.mix = std::min(static_cast<float>(mix), 1.0f);
  return request;
}

void SequencePlayer::wait_until_prefetched() {
  std::unique_lock<std::mutex> lock(mutex_);
  const auto settled = [&] {
    if (first_broken_frame_ >= 0) return true;
    for (size_t f = 0; f < slots_.size(); ++f) {
      if (in_window(f) && slots_[f].state != SlotState::ready && slots_[f].state != SlotState::failed) return false;
    }
    return true;
  };
  frame_settled_.wait(lock, settled);
  throw_if_broken();
}

SequenceStalls SequencePlayer::stalls() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stalls_;
}

}  // namespace slabcast
