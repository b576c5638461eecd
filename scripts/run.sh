#!/usr/bin/env bash
# Set up, build and run slabcast's main job. Extra arguments go to the program.
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
main="$SLABCAST_BUILD/app/slabcast"
if [ -x "$main" ]; then
  say "running: $main $*"
  exec "$main" "$@"
fi
say "running the primitives example: $SLABCAST_BUILD/primitives/prim_example"
exec "$SLABCAST_BUILD/primitives/prim_example" "$@"
