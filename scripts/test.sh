#!/usr/bin/env bash
# Set up, build and run the whole test suite. Tests labelled `gpu` report SKIPPED where no CUDA device exists.
# Usage: scripts/test.sh [extra ctest arguments, e.g. -L gpu or -R split]
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
say "running the test suite (ctest)"
cd "$SLABCAST_BUILD"
ctest --output-on-failure -j "$(nproc)" "$@"
