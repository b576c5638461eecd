// The cpu backend's loops on several threads: a range split into one contiguous chunk a thread, each thread with a
// state of its own (counters), merged in thread order afterwards. Every item writes only its own outputs and the
// counters are integer sums and maxima, so the result is the same bit for bit for any thread count.
#pragma once
#include <algorithm>
#include <cstdint>
#include <exception>
#include <thread>
#include <vector>

namespace slabcast {

// The threads a renderer uses for `requested` (RendererOptions::threads; 0: every core the machine has).
inline int cpu_threads(int requested) {
  if (requested > 0) return requested;
  const unsigned cores = std::thread::hardware_concurrency();
  return cores > 0 ? static_cast<int>(cores) : 1;
}

// Runs body(state, i) for i in [0, count) on up to `threads` threads (the calling one among them), each on a chunk
// of at least `grain` items with its own State copy of `initial`; returns the states in chunk order. An exception
// in any chunk is rethrown here after every thread has finished.
template <class State, class Body>
std::vector<State> parallel_chunks(int64_t count, int threads, int64_t grain, const State& initial, Body&& body) {
  const int64_t chunks = std::max<int64_t>(1, std::min<int64_t>(threads, (count + grain - 1) / std::max<int64_t>(grain, 1)));
  std::vector<State> states(static_cast<size_t>(chunks), initial);
  std::vector<std::exception_ptr> errors(static_cast<size_t>(chunks));
  const auto run = [&](int64_t c) {
    try {
      const int64_t begin = count * c / chunks, end = count * (c + 1) / chunks;
      for (int64_t i = begin; i < end; ++i) body(states[static_cast<size_t>(c)], i);
    } catch (...) {
      errors[static_cast<size_t>(c)] = std::current_exception();
    }
  };
  std::vector<std::thread> workers;
  workers.reserve(static_cast<size_t>(chunks - 1));
  for (int64_t c = 1; c < chunks; ++c) workers.emplace_back(run, c);
  run(0);
  for (std::thread& worker : workers) worker.join();
  for (const std::exception_ptr& error : errors) {
    if (error) std::rethrow_exception(error);
  }
  return states;
}

// The same without a state.
template <class Body>
void parallel_for(int64_t count, int threads, int64_t grain, Body&& body) {
  struct None {};
  parallel_chunks(count, threads, grain, None{}, [&](None&, int64_t i) { body(i); });
}

}  // namespace slabcast
