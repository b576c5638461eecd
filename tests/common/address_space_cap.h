// Host out-of-memory on demand, for the out-of-memory tests: a cap on the process's address space (RLIMIT_AS) a
// little above what it maps now, so that a large allocation fails for real while small ones still succeed.
#pragma once
#include <sys/resource.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

// AddressSanitizer reserves terabytes of address space up front: RLIMIT_AS cannot be used under it.
#if defined(__SANITIZE_ADDRESS__)
#define SLABCAST_TEST_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SLABCAST_TEST_UNDER_ASAN 1
#endif
#endif

namespace slabcast::test {

// A "Key:   1234 kB" line of /proc/self/status, in KiB (0 if absent).
inline uint64_t proc_status_kib(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) == 0) {
      std::istringstream fields(line.substr(std::string(key).size()));
      uint64_t kib = 0;
      fields >> kib;
      return kib;
    }
  }
  return 0;
}

// Caps the address space at what the process maps now plus `headroom` until destroyed (or lift()).
class AddressSpaceCap {
 public:
  explicit AddressSpaceCap(uint64_t headroom) {
    getrlimit(RLIMIT_AS, &saved_);
    rlimit cap = saved_;
    cap.rlim_cur = proc_status_kib("VmSize:") * 1024 + headroom;
    active_ = setrlimit(RLIMIT_AS, &cap) == 0;
  }
  ~AddressSpaceCap() { lift(); }
  AddressSpaceCap(const AddressSpaceCap&) = delete;
  AddressSpaceCap& operator=(const AddressSpaceCap&) = delete;
  void lift() {
    if (active_) setrlimit(RLIMIT_AS, &saved_);
    active_ = false;
  }
  bool active() const { return active_; }

 private:
  rlimit saved_{};
  bool active_ = false;
};

}  // namespace slabcast::test
