#!/usr/bin/env bash
# Re-renders the frame-dump regression goldens, tests/app/golden/NAME.png, for every scene in
# tests/app/golden/scenes.tsv, with the cpu backend (the reference; docs/architecture.md). Never run by a test or by CI:
# run it by hand after a change that is meant to change the images, look at every image (and at the diff
# images the failing test left in build/tests/app/output/golden_<backend>/diffs/), then commit them with the reason.
# The tests compare them through `slabcast check`. See docs/golden-images.md.
#
# Usage: scripts/regenerate-goldens.sh [SCENE ...]   (default: every scene)
# Uses the slabcast binary of $SLABCAST_BUILD (default build/, configured by scripts/setup.sh), rebuilt first.
set -euo pipefail
SLABCAST_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SLABCAST_BUILD="${SLABCAST_BUILD:-$SLABCAST_ROOT/build}"
say() { printf '\033[1m[slabcast]\033[0m %s\n' "$*"; }
[ -f "$SLABCAST_BUILD/CMakeCache.txt" ] ||
  { echo "[slabcast] error: $SLABCAST_BUILD is not configured: run scripts/setup.sh (or set SLABCAST_BUILD)" >&2; exit 1; }
say "building $SLABCAST_BUILD/app/slabcast"
cmake --build "$SLABCAST_BUILD" --target slabcast >/dev/null
cd "$SLABCAST_ROOT"
exe="$SLABCAST_BUILD/app/slabcast"

wanted=("$@")
count=0
while IFS=$'\t' read -r name args; do
  case "$name" in ''|'#'*) continue ;; esac
  if [ ${#wanted[@]} -gt 0 ] && [[ ! " ${wanted[*]} " =~ " $name " ]]; then continue; fi
  say "golden $name: slabcast render --backend cpu $args"
  # shellcheck disable=SC2086  # the arguments are words on purpose
  "$exe" render --backend cpu $args --out "tests/app/golden/$name.png" | grep -E '^(slabcast render|wrote)'
  count=$((count + 1))
done < tests/app/golden/scenes.tsv
[ "$count" -gt 0 ] || { echo "[slabcast] error: no scene matched: $*" >&2; exit 1; }
say "rendered $count golden image(s); look at them before committing (git diff --stat tests/app/golden)"
