// The `slabcast bench` subcommand's flags (the rest of the command line is in cli.cpp): the flags as text until
// parsed, then checked into BenchOptions.
#pragma once
#include "app/options.h"

#include <string>
#include <utility>
#include <vector>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace slabcast {

struct BenchFlags {
  std::vector<std::string> meshes, procedurals;
  std::string sizes, slabs, frames, warmup, deform, fovy, backend, reference, display, suite, threads, light,
      shadow_map_size, samples, background, json_path, csv_path;
  bool shadows = false, floor = false, wireframe = false;
  CLI::Option* mesh_opt = nullptr;
  CLI::Option* procedural_opt = nullptr;
  std::vector<std::pair<CLI::Option*, std::string*>> texts;  // every text flag and where its text goes
};

// Adds `bench` to `app`; its flags fill `flags` when parsed (flags must outlive the parse).
CLI::App* add_bench_subcommand(CLI::App* app, BenchFlags* flags);

// Checks the parsed flags into `options`; throws UsageError naming the flag.
void finish_bench(BenchFlags& flags, const CLI::App& bench, BenchOptions* options);

}  // namespace slabcast
