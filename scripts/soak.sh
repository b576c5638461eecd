#!/usr/bin/env bash
# The long soak (docs/reliability.md): 20,000 frames per run with an orbiting camera, the deformer changing every
# 250 frames and two resizes; host and device memory must stay flat after warm-up, and frames must be bit-identical
# across processes (two full runs, and sampled frames rendered alone in a fresh process).
#   scripts/soak.sh [cpu|cuda|all] [FRAMES] [BUILD_DIR]     (default: all 20000 build-app)
# Each backend runs the bare renderer and the viewer's headless display path (EGL), then the determinism check;
# SLABCAST_SOAK_RUNS="renderer viewer determinism" (the default) picks which of the three run. Backends that cannot run here
# (no CUDA device, no EGL context) are reported SKIPPED. Logs: BUILD_DIR/soak/*.log. Exit 1 if anything failed.
# Time: cpu backend at 160x120 / 224x168 about 4 minutes per 20,000-frame run (12 ms/frame, one core), so about
# 16 minutes for the three cpu runs; cuda at 1024x768 / 1280x1024 with a million triangles an estimated 5-10 ms per
# frame (most of it copying colour, IDs and depth back to hash them), about 10 minutes for the three cuda runs.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
which="${1:-all}"
frames="${2:-20000}"
build="${3:-$root/build-app}"
case "$build" in /*) ;; *) build="$root/$build" ;; esac
soak="$build/tests/soak/slabcast_soak"
say() { printf '\033[1m[soak]\033[0m %s\n' "$*"; }
if [ ! -x "$soak" ]; then
  say "error: $soak not found: cmake --build $build --target slabcast_soak"; exit 1
fi
mkdir -p "$build/soak"
warmup=$((frames / 40))
last=$((frames - 1)); third=$((frames / 3)); two_thirds=$((2 * frames / 3))
hash_at="0,$((third - 1)),$third,$two_thirds,$last"
failed=0
runs=" ${SLABCAST_SOAK_RUNS:-renderer viewer determinism} "

run() {  # NAME ARGS...   (NAME is BACKEND-RUN; runs not named in SLABCAST_SOAK_RUNS are left out)
  local name="$1"; shift
  [[ "$runs" == *" ${name#*-} "* ]] || return 0
  local log="$build/soak/$name.log"
  say "$name: slabcast_soak $*"
  local start=$SECONDS
  "$soak" "$@" > "$log" 2>&1
  local rc=$?
  case $rc in
    0) say "$name: PASS ($((SECONDS - start)) s)";;
    77) say "$name: SKIPPED ($(grep -m1 SKIPPED "$log"))";;
    *) say "$name: FAIL (exit $rc; $log)"; failed=1;;
  esac
  grep -E "^(stretch|[0-9] |[0-9]+ frames|run hash|frame [0-9]+ alone|PASS|FAIL)" "$log" | sed 's/^/    /'
}

if [ "$which" = cpu ] || [ "$which" = all ]; then
  cpu=(--backend cpu --frames "$frames" --size 160x120 --resize 224x168 --mesh torus_knot:20000 --warmup "$warmup")
  run cpu-renderer "${cpu[@]}"
  run cpu-viewer --viewer "${cpu[@]}"
  run cpu-determinism --determinism "${cpu[@]}" --hash-at "$hash_at"
fi
if [ "$which" = cuda ] || [ "$which" = all ]; then
  cuda=(--backend cuda --frames "$frames" --size 1024x768 --resize 1280x1024 --mesh sphere:1000000 --warmup "$warmup")
  run cuda-renderer "${cuda[@]}"
  run cuda-viewer --viewer "${cuda[@]}"
  run cuda-determinism --determinism "${cuda[@]}" --hash-at "$hash_at"
fi
exit $failed
