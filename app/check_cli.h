// The `slabcast check` subcommand's flags (the rest of the command line is in cli.cpp).
#pragma once
#include "app/options.h"

namespace CLI {
class App;
}

namespace slabcast {

// Adds `check` to `app`; its flags fill `options` when parsed.
CLI::App* add_check_subcommand(CLI::App* app, CheckOptions* options);

// Checks the parsed values; throws UsageError naming the flag.
void finish_check(CheckOptions* options);

}  // namespace slabcast
