// Mesh sequences: simulation output saved as one mesh file a frame, played back as the renderer's Keyframes.
//
// The files are listed from a glob pattern or a directory (list_sequence_frames); a SequencePlayer loads frame 0 as
// the topology, then decodes the frames ahead of the play head on host threads into a cache bounded by a memory
// budget, so that playback never waits on the disk once the frames ahead are decoded.
#pragma once
#include "render/renderer.h"

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace slabcast {

// The frames of a sequence, sorted naturally (natural_less). `spec` is either
//  - a directory: every regular file in it whose extension (any case) is a mesh format's: .obj .ply .stl .off .gltf
//    .glb; other files, subdirectories and hidden files (a leading '.', e.g. macOS "._frame.obj") are left out; or
//  - a glob pattern such as "dir/frame_*.ply": '*' (any run of characters) and '?' (one character) in the file-name
//    part only, matched against every regular file of that directory (its extension is not checked: the pattern
//    says what is wanted). As in a shell, a wildcard does not match a leading '.'. No shell expansion takes place.
// Throws std::runtime_error naming `spec` when the directory is missing, a wildcard is in the directory part, nothing
// matches, or only one file does ("SPEC: is a single mesh, not a sequence (only FILE)"): a caller that accepts a
// single mesh loads `spec` itself in that case.
std::vector<std::string> list_sequence_frames(const std::string& spec);

// Natural order: runs of digits compare as numbers ("frame_2" < "frame_10"), everything else byte by byte; names
// equal in that order ("f_01", "f_1") fall back to plain string order, so the order is total.
bool natural_less(std::string_view a, std::string_view b);

// Whether `name` (one file name, no '/') matches `pattern` ('*' any run, '?' one character, the rest literal).
bool glob_match(std::string_view pattern, std::string_view name);

// Loads one mesh file; throws std::runtime_error naming the file. Called from several threads at once.
using SequenceMeshLoader = std::function<Mesh(const std::string& path)>;
// An optional fast path for the frames after the first (formats/ply_frame.h): true when it read the frame's
// positions and the frame has the first frame's faces; false to leave the frame to the loader.
using SequencePositionsReader = std::function<bool(const std::string& path, std::vector<glm::vec3>& positions)>;

// The keyframes of one moment, as SequencePlayer::at() returns them. Pass &keyframes as FrameSettings::keyframes.
// keyframes.a / .b point into the arrays held here, so they stay valid for as long as this object (or a copy) lives,
// whatever the player evicts meanwhile.
struct KeyframeRequest {
  Keyframes keyframes;                                      // keys are frame indices
  std::shared_ptr<const std::vector<glm::vec3>> a_positions;  // owns keyframes.a
  std::shared_ptr<const std::vector<glm::vec3>> b_positions;  // owns keyframes.b
};

// How often at() had to wait for a frame still being decoded, and how long it waited in all.
struct SequenceStalls {
  uint64_t waits = 0;
  double wait_seconds = 0.0;
};

// Plays a mesh sequence. Frame k is shown at time k / fps; between frames the renderer blends the two neighbours.
//
// Memory: at most max(budget / bytes per frame, kMinResidentFrames) frames are held (all of them when the sequence
// fits), plus the two a live KeyframeRequest holds. The frames held are the play head's and those after it (wrapping
// round when looping); the one needed again last goes first.
// Threads: min(hardware threads - 1, 8), at least 1, decode ahead. The public members are for one thread (the
// render loop); the destructor stops the decoding threads, waiting for a file in progress to finish.
class SequencePlayer {
 public:
  static constexpr size_t kDefaultMemoryBudget = size_t{1} << 30;  // 1 GiB of positions
  // The two frames shown plus two being decoded ahead, so the next step never starts from an empty cache.
  static constexpr size_t kMinResidentFrames = 4;
  static constexpr unsigned kMaxDecodeThreads = 8;  // leaves cores to the render loop and the cpu backend

  // Loads frames[0] now (its Mesh is the topology: indices, name, appearance) and starts decoding the frames after
  // it. Every later frame must have frame 0's vertex count and indices; one that does not is an error at at().
  // Throws std::invalid_argument for no frames or fps not finite and > 0; rethrows frame 0's load error.
  SequencePlayer(std::vector<std::string> frames, SequenceMeshLoader loader, double fps = 24.0,
                 size_t memory_budget_bytes = kDefaultMemoryBudget, SequencePositionsReader fast_reader = {});
  ~SequencePlayer();
  SequencePlayer(const SequencePlayer&) = delete;
  SequencePlayer& operator=(const SequencePlayer&) = delete;

  // The keyframes to show at `seconds`: a_key = k = floor(seconds * fps), b_key = k + 1 (0 after the last frame when
  // looping; the last frame again at the end when not), mix = the fractional part. Looping, the sequence repeats
  // every frame_count() / fps seconds (the last frame blends back into the first); not looping, times before 0 show
  // frame 0 and times from the last frame's on show the last frame (mix 0). Moves the play head to k, so decoding
  // follows. Waits only when frame k or k + 1 is not decoded yet (counted in stalls()).
  // Throws std::runtime_error naming the file when a frame failed to load or differs from frame 0 (the earliest
  // such frame found so far; the sequence stays broken, so every later call throws too), and std::invalid_argument
  // for a time that is not finite.
  KeyframeRequest at(double seconds, bool loop);

  // Blocks until every frame the cache wants around the current play head is decoded (or failed): a warm-up before
  // timed playback. Throws as at() does.
  void wait_until_prefetched();

  const Mesh& topology() const { return topology_; }  // frame 0 as loaded
  const std::vector<std::string>& frames() const { return frames_; }
  size_t frame_count() const { return frames_.size(); }
  double fps() const { return fps_; }
  size_t resident_frame_limit() const { return capacity_; }
  SequenceStalls stalls() const;

 private:
  enum class SlotState : uint8_t { absent, decoding, ready, failed };
  struct Slot {
    SlotState state = SlotState::absent;
    std::shared_ptr<const std::vector<glm::vec3>> positions;  // when ready
    std::string error;                                        // when failed
  };

  void decode_loop();
  std::vector<glm::vec3> decode_frame(size_t frame) const;  // loads and checks against frame 0
  // Frames in the order they will be needed from the play head: the cache keeps the first capacity_ of them.
  size_t distance_ahead(size_t frame) const;
  bool in_window(size_t frame) const { return distance_ahead(frame) < capacity_; }
  long next_frame_to_decode() const;  // -1: nothing wanted
  bool evict_one_outside_window();
  void throw_if_broken() const;
  // Waits (lock held by the caller) until `frame` is decoded; sets `waited` when it had to.
  std::shared_ptr<const std::vector<glm::vec3>> wait_for(size_t frame, std::unique_lock<std::mutex>& lock,
                                                         bool& waited);
  void stop_decoders();  // joins the decoders, each after the file it is decoding

  const std::vector<std::string> frames_;
  const SequenceMeshLoader loader_;
  const SequencePositionsReader fast_reader_;
  const double fps_;
  Mesh topology_;
  size_t capacity_ = kMinResidentFrames;

  mutable std::mutex mutex_;             // guards everything below
  std::condition_variable work_changed_;   // decoders: the play head moved, a slot freed, or stop
  std::condition_variable frame_settled_;  // at(): a frame became ready or failed
  std::vector<Slot> slots_;
  size_t resident_ = 0;  // slots decoding or ready
  size_t head_ = 0;
  bool loop_ = true;
  long first_broken_frame_ = -1;
  bool stopping_ = false;
  SequenceStalls stalls_;
  std::vector<std::thread> decoders_;  // last: started after every member above exists
};

}  // namespace slabcast
