#!/usr/bin/env bash
# The GPU check: on any CUDA machine, build Release, run every `gpu`-labelled test, run compute-sanitizer
# (memcheck, racecheck, synccheck, initcheck) over every gpu test executable and over 100-frame headless renders of
# the dragon and the stress scene, run the benchmarks, and end with a summary table.
#
#   scripts/gpu-check.sh [OUT_DIR]          (default ./gpu-check-out)
#
# Writes into OUT_DIR (few files, so they can be fetched from a remote machine):
#   env.txt          GPU, driver, toolkit, CMake
#   build.log        configure + build
#   ctest-gpu.log    the gpu-labelled tests
#   sanitizer.log    every compute-sanitizer run (tail of each)
#   bench.log        prim_bench's progress and table
#   prim_bench.json  prim_bench's results (GPU, driver, CUDA, CCCL versions; every row)
#   slabcast-bench.{json,csv,txt}  `slabcast bench`: the renderer against the hardware-raster reference
#   slabcast-shadows.{json,csv,txt}  `slabcast bench --suite shadows --slabs 1`: exact shadows of a sun against the
#                    reference's shadow map; slabcast-point-lights.txt: the same scenes' frames under a point light
#   deep-stacks.txt  `slabcast bench` of the deep-stack files
#   results.tsv      one line per check: name, PASS/FAIL, seconds, detail
#   summary.md       the table printed at the end
# It continues past failures, records them, and exits non-zero if anything failed.
#
# Environment:
#   CMAKE_CUDA_ARCHITECTURES   default native
#   SLABCAST_WERROR            default ON (as CI)
#   SLABCAST_CMAKE_ARGS        extra configure arguments
#   SLABCAST_GPU_BUILD         build folder (default <root>/build-gpu-check)
#   SLABCAST_BUILD_TARGETS     build only these targets (default: all), for short calls that check one program
#   SLABCAST_GIT_COMMIT        commit recorded in the bench JSON (default: git rev-parse of the tree; set it where the
#                              machine's git metadata is stale)
#   SLABCAST_BENCH_ARGS        extra prim_bench arguments (default: its quick sizes 2^20, 2^24, 2^26, and --floors)
#   SLABCAST_SANITIZER_TIMEOUT seconds per sanitizer run (default 1800)
#   SLABCAST_SANITIZER_FILTER  gtest filter for the sanitizer runs (default: every test of each program)
#   SLABCAST_SANITIZER_TOOLS   default "memcheck racecheck synccheck initcheck"
#   SLABCAST_SANITIZER_TESTS   regex: which gpu test programs the sanitizers run (default: all but those labelled large)
#   SLABCAST_SANITIZER_LARGE   1: the sanitizers run the programs labelled large too (default 0)
#   SLABCAST_SANITIZER_JOBS    sanitizer runs at once (default 1); tests labelled fills_device (out of memory)
#                              always run alone
#   SLABCAST_SANITIZE_SOAK     0: step sanitize_frames leaves out the short soak runs (default 1)
#   SLABCAST_RACECHECK_CHUNK_FRAMES  racecheck renders its 100 frames as processes of this many (default 10)
#   SLABCAST_FRAMES_SCENES     scenes of step sanitize_frames (default "dragon stress")
#   SLABCAST_FRAMES_FIRST      only the chunks of the 100 frames that start at these frames (default: all)
#   SLABCAST_GPU_CHECK_STEPS   steps to run, default "env build gpu_tests render_bench shadows_bench bench frames
#                              deep_stacks sanitize_frames sanitizers" (the sanitizer steps last: their runs go on
#                              beside the next step's)
#   SLABCAST_DEEP_STACK_MS     step deep_stacks: the most milliseconds a frame of a deep stack may take (default 5)
#   SLABCAST_CTEST_JOBS        gpu tests run in parallel (default 1; the out-of-memory tests always run alone)
#   SLABCAST_CTEST_ARGS        more ctest arguments for step gpu_tests, e.g. "-LE soak": the soak tests watch the
#                              device's memory as a whole, so they need a GPU no other process is using
#   SLABCAST_RENDER_BENCH_ARGS arguments of `slabcast bench` (default: the full suite, a few minutes)
#   SLABCAST_GPU_CHECK_DEADLINE  seconds from the start after which no new step starts and running ones are cut
#                              (default: none), so a call on a machine lent for a few minutes still returns a
#                              summary of what did run
# The sanitizer runs set SLABCAST_TEST_QUICK=1: tests leave out their large sizes (every named property is still
# exercised on small inputs), since the tools slow kernels down 10-100x. The soak tests (thousands of frames) are
# sanitized as a short soak of the same program in step sanitize_frames.
#
# Extending: write a function step_NAME that calls `record NAME PASS|FAIL SECONDS DETAIL` for each check, and add
# NAME to STEPS below (the renderer's checks go there).
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$(mkdir -p "${1:-./gpu-check-out}" && cd "${1:-./gpu-check-out}" && pwd)"
BUILD="${SLABCAST_GPU_BUILD:-$ROOT/build-gpu-check}"
read -ra STEPS <<< "${SLABCAST_GPU_CHECK_STEPS:-env build gpu_tests render_bench shadows_bench bench frames deep_stacks sanitize_frames sanitizers}"
read -ra SANITIZER_TOOLS <<< "${SLABCAST_SANITIZER_TOOLS:-memcheck racecheck synccheck initcheck}"
SANITIZER_TESTS="${SLABCAST_SANITIZER_TESTS:-.}"
START_SECONDS=$SECONDS
DEADLINE="${SLABCAST_GPU_CHECK_DEADLINE:-0}"
RESULTS="$OUT/results.tsv"
SANITIZER_TIMEOUT="${SLABCAST_SANITIZER_TIMEOUT:-1800}"
# The sanitizers slow kernels 10-100x: they leave out the test programs labelled `large` (tests whose point is size;
# every named property also runs on small inputs in the other programs). SLABCAST_SANITIZER_LARGE=1 takes them too.
SANITIZER_FILTER="${SLABCAST_SANITIZER_FILTER:-*}"
SANITIZER_JOBS="${SLABCAST_SANITIZER_JOBS:-1}"

say() { printf '\033[1m[gpu-check]\033[0m %s\n' "$*"; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
# Seconds a command may still run before the deadline (a large number without one); at least 1.
time_left() {
  if [ "$DEADLINE" -le 0 ]; then echo 86400; return; fi
  local left=$((DEADLINE - (SECONDS - START_SECONDS)))
  [ "$left" -lt 1 ] && left=1
  echo "$left"
}
past_deadline() { [ "$DEADLINE" -gt 0 ] && [ $((SECONDS - START_SECONDS)) -ge "$DEADLINE" ]; }

# record NAME STATUS SECONDS DETAIL: one row of the summary (STATUS: PASS or FAIL).
record() {
  printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "${4:-}" >> "$RESULTS"
  say "$2  $1 (${3}s) ${4:-}"
}

# The renderer's program, in SLABCAST; where it is not built, a failure recorded for step $1 and a non-zero status.
SLABCAST="$BUILD/app/slabcast"
slabcast_built() {
  [ -x "$SLABCAST" ] && return 0
  record "$1" FAIL 0 "slabcast not built"
  return 1
}
# The commit the benchmarks' JSON records.
bench_commit() { echo "${SLABCAST_GIT_COMMIT:-$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)}"; }

# ---------------------------------------------------------------------------------------------------------------
step_env() {
  {
    echo "date: $(date -u +%FT%TZ)"
    echo "host: $(uname -a)"
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv 2>&1 || echo "nvidia-smi failed"
    command -v nvcc >/dev/null && nvcc --version | tail -n 2
    cmake --version | head -n 1
    command -v compute-sanitizer >/dev/null && compute-sanitizer --version | head -n 2
    echo "git: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null) $(git -C "$ROOT" status --porcelain 2>/dev/null | wc -l) changed files"
  } > "$OUT/env.txt" 2>&1
  if nvidia-smi -L >/dev/null 2>&1; then
    record env PASS 0 "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -n 1)"
  else
    record env FAIL 0 "nvidia-smi finds no GPU"
  fi
}

# Offline machines: the Debian packages (GoogleTest, GLM, GL loaders...) come from .gpu-bundle/ (the packages
# downloaded where a registry is reachable, with the unpack.sh that installs them); use it when present and
# GoogleTest is not installed. The bundle must hold the mesh-format libraries too: libassimp-dev libassimp5
# libdraco7 libdraco-dev libminizip1 libminizip-dev zlib1g-dev libtinygltf-dev libtinygltf2d nlohmann-json3-dev.
use_bundle_if_needed() {
  if [ -f "$ROOT/.gpu-bundle/unpack.sh" ] && [ ! -d /usr/include/gtest ]; then
    say "using the offline package bundle .gpu-bundle/"
    # shellcheck disable=SC1091
    source "$ROOT/.gpu-bundle/unpack.sh"
  fi
  if ! command -v nvcc >/dev/null; then
    for dir in /usr/local/cuda/bin /usr/local/cuda-*/bin; do
      [ -x "$dir/nvcc" ] && export PATH="$dir:$PATH" && break
    done
  fi
}

step_build() {
  local t0; t0="$(now)"
  use_bundle_if_needed
  local gen=() keep=() extra=()
  read -ra extra <<< "${SLABCAST_CMAKE_ARGS:-}"
  if command -v ninja >/dev/null; then gen=(-G Ninja); keep=(-k 0); else keep=(-k); fi
  say "configure + build (Release, CUDA architectures ${CMAKE_CUDA_ARCHITECTURES:-native}) into $BUILD"
  {
    cmake -S "$ROOT" -B "$BUILD" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CUDA_ARCHITECTURES="${CMAKE_CUDA_ARCHITECTURES:-native}" \
      -DSLABCAST_WERROR="${SLABCAST_WERROR:-ON}" "${extra[@]}"
  } > "$OUT/build.log" 2>&1
  local configured=$?
  if [ $configured -ne 0 ]; then
    record build FAIL "$(elapsed "$t0")" "configure failed (build.log)"
    return
  fi
  # Keep going past a failing target, so that everything that does build is still checked.
  local targets=()
  [ -n "${SLABCAST_BUILD_TARGETS:-}" ] && read -ra targets <<< "--target ${SLABCAST_BUILD_TARGETS}"
  if cmake --build "$BUILD" -j "$(nproc)" "${targets[@]}" -- "${keep[@]}" >> "$OUT/build.log" 2>&1; then
    record build PASS "$(elapsed "$t0")" "$(grep -ci 'warning' "$OUT/build.log") warning lines"
  else
    record build FAIL "$(elapsed "$t0")" "$(grep -c 'FAILED:' "$OUT/build.log") targets failed (build.log)"
  fi
}

# Every gpu-labelled test, one summary row each. On a GPU machine a SKIPPED gpu test is a failure.
step_gpu_tests() {
  local t0; t0="$(now)"
  if [ ! -f "$BUILD/CTestTestfile.cmake" ]; then
    record gpu_tests FAIL 0 "no build"
    return
  fi
  # shellcheck disable=SC2086
  (cd "$BUILD" && timeout "$(time_left)" ctest -L gpu ${SLABCAST_CTEST_ARGS:-} -j "${SLABCAST_CTEST_JOBS:-1}" \
     --output-on-failure --timeout 1800) > "$OUT/ctest-gpu.log" 2>&1
  local rc=$?
  awk '/Test +#[0-9]+: /{
         name = $4; st = "FAIL"; detail = "";
         if ($0 ~ /Passed/) st = "PASS";
         else if ($0 ~ /Skipped|Not Run/) { detail = "skipped or not run on a GPU machine" }
         else { detail = "see ctest-gpu.log" }
         t = "?"; if (match($0, /[0-9.]+ sec/)) t = substr($0, RSTART, RLENGTH - 4);
         printf "test %s\t%s\t%s\t%s\n", name, st, t, detail }' "$OUT/ctest-gpu.log" |
    while IFS=$'\t' read -r name st t detail; do record "$name" "$st" "$t" "$detail"; done
  local count; count=$(grep -cE 'Test +#[0-9]+: ' "$OUT/ctest-gpu.log")
  if [ "$count" -eq 0 ]; then
    record gpu_tests FAIL "$(elapsed "$t0")" "no gpu tests ran (ctest rc $rc)"
  fi
}

# name<TAB>executable<TAB>alone (1 for the label fills_device: a ballast takes the device) of every gpu-labelled
# test that is one gtest program (from ctest's JSON listing; a glob where python3 is missing, where the out-of-memory
# programs are known by name). Tests run with arguments (the soaks) are left out, and so are those labelled large
# unless SLABCAST_SANITIZER_LARGE=1.
gpu_test_executables() {
  local leave_out=(-LE large)
  [ "${SLABCAST_SANITIZER_LARGE:-0}" = 1 ] && leave_out=()
  if command -v python3 >/dev/null; then
    (cd "$BUILD" && ctest -L gpu "${leave_out[@]}" --show-only=json-v1) 2>/dev/null | python3 -c '
import json, sys
for t in json.load(sys.stdin).get("tests", []):
    cmd = t.get("command") or []
    props = {p["name"]: p["value"] for p in t.get("properties", [])}
    if len(cmd) == 1:
        print(t["name"] + "\t" + cmd[0] + "\t" + ("1" if "fills_device" in (props.get("LABELS") or []) else "0"))'
  else
    find "$BUILD/tests" -type f -perm -u+x -name '*_gpu*' |
      while read -r exe; do
        [ ${#leave_out[@]} -gt 0 ] && case "$exe" in *large*) continue ;; esac
        case "$exe" in *_oom_gpu) printf '%s\t%s\t1\n' "$(basename "$exe")" "$exe" ;;
                       *) printf '%s\t%s\t0\n' "$(basename "$exe")" "$exe" ;; esac
      done
  fi
}

# sanitize CHECK TOOL [ENV=VALUE...] -- COMMAND...: runs COMMAND (from the source root) under compute-sanitizer's
# TOOL, within the per-run and whole-check time limits, keeps the tail of its output for sanitizer.log and records
# one row: PASS when the tool exits 0 (no error found and the program succeeded). Safe to run several at once.
sanitize() {
  local check="$1" tool="$2"; shift 2
  local env_vars=()
  while [ "$1" != "--" ]; do env_vars+=("$1"); shift; done
  shift
  if past_deadline; then
    record "$check" FAIL 0 "not run: past SLABCAST_GPU_CHECK_DEADLINE"
    return
  fi
  local t0 log limit rc summary
  t0="$(now)"; log="$(mktemp)"
  limit="$(time_left)"; [ "$limit" -gt "$SANITIZER_TIMEOUT" ] && limit="$SANITIZER_TIMEOUT"
  # Each run writes its test files in a folder of its own: one program runs under several tools at once.
  local files; files="$OUT/test-output/$(printf '%s' "$check" | tr -c 'A-Za-z0-9_.-' '_')"
  (cd "$ROOT" && env SLABCAST_TEST_OUTPUT_DIR="$files" "${env_vars[@]}" timeout "$limit" \
     compute-sanitizer --tool "$tool" --error-exitcode 99 --print-limit 100 "$@") > "$log" 2>&1
  rc=$?
  { echo "===== $check (exit $rc, $(elapsed "$t0") s) ====="; tail -n 300 "$log"; } \
    > "$SANITIZER_PARTS/$(printf '%s' "$check" | tr -c 'A-Za-z0-9_.-' '_').log"
  summary="$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -n 1)"
  case $rc in
    0) record "$check" PASS "$(elapsed "$t0")" "$summary" ;;
    99) record "$check" FAIL "$(elapsed "$t0")" "${summary:-sanitizer reported errors}" ;;
    124) record "$check" FAIL "$(elapsed "$t0")" "timed out after ${limit}s" ;;
    77) record "$check" FAIL "$(elapsed "$t0")" "the program skipped itself (no device under the tool?)" ;;
    *) record "$check" FAIL "$(elapsed "$t0")" "exit $rc (the program failed under the tool; sanitizer.log)" ;;
  esac
  rm -f "$log"
  [ "$rc" -eq 0 ] && rm -rf "$files"  # a failed run's files stay, for the images a failing test leaves
}

# Sanitizer runs go through these: start_sanitize runs `sanitize ARGS` in the background once fewer than
# SLABCAST_SANITIZER_JOBS are running; sanitize_alone waits for all of them and runs it by itself.
SANITIZER_PARTS=""
start_sanitize() {
  while [ "$(jobs -rp | wc -l)" -ge "$SANITIZER_JOBS" ]; do wait -n; done
  sanitize "$@" &
}
sanitize_alone() {
  wait
  sanitize "$@"
}
# Waits for the runs still going, then appends the kept output of every run to sanitizer.log, in name order. The
# sanitizer steps leave their runs going (so the next step's runs start beside them): main calls this at the end.
collect_sanitizer_logs() {
  wait
  cat "$SANITIZER_PARTS"/*.log >> "$OUT/sanitizer.log" 2>/dev/null
  rm -rf "$SANITIZER_PARTS" "$OUT"/sanitized-*.png
}

step_sanitizers() {
  if ! command -v compute-sanitizer >/dev/null; then
    record sanitizers FAIL 0 "compute-sanitizer not on PATH"
    return
  fi
  local list; list="$(gpu_test_executables)"
  if [ -z "$list" ]; then
    record sanitizers FAIL 0 "no gpu test executables found"
    return
  fi
  local tool name exe serial
  local alone=()
  for tool in "${SANITIZER_TOOLS[@]}"; do
    while IFS=$'\t' read -r name exe serial; do
      [[ "$name" =~ $SANITIZER_TESTS ]] || continue
      [ -x "$exe" ] || { record "$tool $name" FAIL 0 "executable missing (build failed?)"; continue; }
      if [ "$serial" = 1 ]; then
        alone+=("$tool|$name|$exe")
      else
        start_sanitize "$tool $name" "$tool" SLABCAST_TEST_QUICK=1 GTEST_FILTER="$SANITIZER_FILTER" -- "$exe"
      fi
    done <<< "$list"
  done
  # The out-of-memory tests fill the device: nothing may run beside them.
  local entry
  for entry in "${alone[@]}"; do
    IFS='|' read -r tool name exe <<< "$entry"
    sanitize_alone "$tool $name" "$tool" SLABCAST_TEST_QUICK=1 GTEST_FILTER="$SANITIZER_FILTER" -- "$exe"
  done
}

step_bench() {
  local t0; t0="$(now)"
  local exe="$BUILD/primitives/bench/prim_bench"
  if [ ! -x "$exe" ]; then
    record prim_bench FAIL 0 "not built"
    return
  fi
  # shellcheck disable=SC2086
  timeout "$(time_left)" "$exe" --floors --json "$OUT/prim_bench.json" ${SLABCAST_BENCH_ARGS:-} > "$OUT/bench.log" 2>&1
  local rc=$?
  if [ $rc -eq 0 ]; then
    record prim_bench PASS "$(elapsed "$t0")" "all rows match their peers (bench.log, prim_bench.json)"
  else
    record prim_bench FAIL "$(elapsed "$t0")" "exit $rc: $(grep -m1 -E 'MISMATCH|failed|FAILED|no usable' "$OUT/bench.log")"
  fi
}


# The renderer's benchmark: full frames, stages, display cost and the gl-raster reference, same run.
step_render_bench() {
  local t0; t0="$(now)"
  slabcast_built render_bench || return
  local exe="$SLABCAST"
  # shellcheck disable=SC2086
  (cd "$ROOT" && SLABCAST_GIT_COMMIT="$(bench_commit)" timeout "$(time_left)" \
     "$exe" bench ${SLABCAST_RENDER_BENCH_ARGS:-} --json "$OUT/slabcast-bench.json" --csv "$OUT/slabcast-bench.csv") \
    > "$OUT/slabcast-bench.txt" 2> "$OUT/slabcast-bench.log"
  local rc=$?
  if [ $rc -eq 0 ]; then
    record render_bench PASS "$(elapsed "$t0")" "slabcast-bench.txt / .json / .csv"
  else
    record render_bench FAIL "$(elapsed "$t0")" "exit $rc: $(tail -n 1 "$OUT/slabcast-bench.log")"
  fi
}

# Shadows: the shadows suite (the dragon, where fetched, and the 16M sphere on a floor under a sun, one slab, beside
# the gl-raster reference's shadow-mapped frame), then the same scenes under a point light, which the reference has
# no shadow map for.
step_shadows_bench() {
  local t0; t0="$(now)"
  slabcast_built shadows_bench || return
  local exe="$SLABCAST"
  (cd "$ROOT" && SLABCAST_GIT_COMMIT="$(bench_commit)" timeout "$(time_left)" "$exe" bench --suite shadows --slabs 1 \
     --json "$OUT/slabcast-shadows.json" --csv "$OUT/slabcast-shadows.csv") \
    > "$OUT/slabcast-shadows.txt" 2> "$OUT/slabcast-shadows.log"
  local rc=$?
  if [ $rc -ne 0 ]; then
    record shadows_bench FAIL "$(elapsed "$t0")" "exit $rc: $(tail -n 1 "$OUT/slabcast-shadows.log")"
    return
  fi
  local point=(--floor --shadows --sizes "1024x1024,3840x2160" --slabs 1 --reference none --frames 100)
  : > "$OUT/slabcast-point-lights.txt"
  local scene
  for scene in "--procedural sphere:16M --light point:1.5,2.5,1.5" \
               "--mesh $ROOT/assets/models/dragon.obj --light point:0.3,1.5,0.2"; do
    case "$scene" in *dragon.obj*) [ -f "$ROOT/assets/models/dragon.obj" ] || continue ;; esac
    # shellcheck disable=SC2086
    (cd "$ROOT" && timeout "$(time_left)" "$exe" bench $scene "${point[@]}") \
      >> "$OUT/slabcast-point-lights.txt" 2>> "$OUT/slabcast-shadows.log"
    rc=$?
    if [ $rc -ne 0 ]; then
      record shadows_bench FAIL "$(elapsed "$t0")" \
        "point light, $scene: exit $rc: $(tail -n 1 "$OUT/slabcast-shadows.log")"
      return
    fi
  done
  record shadows_bench PASS "$(elapsed "$t0")" "slabcast-shadows.txt / .json / .csv, slabcast-point-lights.txt"
}

# The renderer end to end on the GPU: headless frames of the default scene and (when fetched) the dragon, with the
# statistics and per-stage times `slabcast render` prints, and a viewer screenshot through EGL + CUDA-GL interop.
step_frames() {
  slabcast_built frames || return
  local exe="$SLABCAST"
  : > "$OUT/frames.log"
  local t0 name args
  local scenes=("sphere-1M-1024 --procedural sphere:1M --size 1024x1024 --deform wave:0.3 --time 0.5"
                "sphere-1M-4k --procedural sphere:1M --size 3840x2160 --deform wave:0.3 --time 0.5"
                "stress-1024 --procedural stress:100k --size 1024x1024")
  [ -f "$ROOT/assets/models/dragon.obj" ] && scenes+=(
                "dragon-1024 --mesh $ROOT/assets/models/dragon.obj --size 1024x1024 --deform wave:0.3 --time 0.5"
                "dragon-4k --mesh $ROOT/assets/models/dragon.obj --size 3840x2160 --deform wave:0.3 --time 0.5")
  for scene in "${scenes[@]}"; do
    read -r name args <<< "$scene"
    t0="$(now)"
    local log; log="$(mktemp)"
    # shellcheck disable=SC2086
    if (cd "$ROOT" && "$exe" render --backend cuda $args --out "$OUT/frame-$name.png") > "$log" 2>&1; then
      record "frame $name" PASS "$(elapsed "$t0")" "$(grep -m1 -E 'total [0-9]' "$log" | tr -s ' ')"
    else
      record "frame $name" FAIL "$(elapsed "$t0")" "frames.log"
    fi
    { echo "===== $name: slabcast render --backend cuda $args"; cat "$log"; } >> "$OUT/frames.log"
    rm -f "$OUT/frame-$name.png" "$log"
  done
  if [ -f "$ROOT/assets/models/dragon.obj" ]; then
    t0="$(now)"
    if (cd "$ROOT" && "$exe" view --headless --frames 120 --size 1600x1000 --mesh assets/models/dragon.obj \
          --deform wave:0.3 --backend cuda --screenshot "$OUT/viewer-dragon.png") >> "$OUT/frames.log" 2>&1; then
      record "viewer headless dragon" PASS "$(elapsed "$t0")" "viewer-dragon.png"
    else
      record "viewer headless dragon" FAIL "$(elapsed "$t0")" "frames.log"
    fi
  fi
}

# Deep stacks, the bounded-work cases (render/stages/cast.h, render/mesh_duplicates.h), benchmarked at 1024x1024:
# 100,000 copies of one triangle (one OBJ face repeated), which passes when its median frame time is within
# SLABCAST_DEEP_STACK_MS (default 5); and, for the record, 100,000 distinct parallel layers 1e-5 apart (each layer
# covers thousands of tiles: some 450 million references a frame, deep cells in every covered tile).
step_deep_stacks() {
  slabcast_built deep_stacks || return
  local exe="$SLABCAST"
  local dir; dir="$(mktemp -d)"
  awk 'BEGIN { print "v 0 0 0\nv 1 0 0\nv 0 1 0"; for (i = 0; i < 100000; ++i) print "f 1 2 3" }' > "$dir/copies.obj"
  awk 'BEGIN { for (i = 0; i < 100000; ++i) { z = i * 1e-5; printf "v 0 0 %.6f\nv 1 0 %.6f\nv 0 1 %.6f\nf -3 -2 -1\n", z, z, z } }' \
    > "$dir/layers.obj"
  : > "$OUT/deep-stacks.txt"
  local name t0 limit="${SLABCAST_DEEP_STACK_MS:-5}"
  for name in copies layers; do
    t0="$(now)"
    if timeout "$(time_left)" "$exe" bench --mesh "$dir/$name.obj" --sizes 1024x1024 --slabs 16 --frames 50 --warmup 5 \
         --reference none --display off --backend cuda > "$dir/$name.txt" 2>&1; then
      local total; total="$(awk '$1 ~ /\.obj$/ { print $10; exit }' "$dir/$name.txt")"
      if [ "$name" = layers ] && [ -n "$total" ]; then
        record "deep stack $name" PASS "$(elapsed "$t0")" "median frame ${total} ms at 1024x1024 (no limit)"
      elif awk -v t="$total" -v l="$limit" 'BEGIN { exit !(t != "" && t + 0 <= l + 0) }'; then
        record "deep stack $name" PASS "$(elapsed "$t0")" "median frame ${total} ms at 1024x1024 (limit ${limit})"
      else
        record "deep stack $name" FAIL "$(elapsed "$t0")" "median frame ${total} ms at 1024x1024 (limit ${limit})"
      fi
    else
      record "deep stack $name" FAIL "$(elapsed "$t0")" "deep-stacks.txt"
    fi
    { echo "===== $name"; cat "$dir/$name.txt"; } >> "$OUT/deep-stacks.txt"
  done
  rm -rf "$dir"
}

# compute-sanitizer over whole frames: 100 animated headless frames of the dragon (when fetched) and of the stress
# scene (huge triangles, one crossing the camera plane), through the viewer's headless path (EGL + CUDA-GL interop;
# racecheck: in chunks of processes, see below).
step_sanitize_frames() {
  local exe="$BUILD/app/slabcast" soak="$BUILD/tests/soak/slabcast_soak"
  if [ ! -x "$exe" ] || ! command -v compute-sanitizer >/dev/null; then
    record sanitize_frames FAIL 0 "slabcast or compute-sanitizer missing"
    return
  fi
  local scenes=() wanted=" ${SLABCAST_FRAMES_SCENES:-dragon stress} "
  if [[ "$wanted" == *" dragon "* ]]; then
    if [ -f "$ROOT/assets/models/dragon.obj" ]; then
      scenes+=("dragon --mesh assets/models/dragon.obj")
    else
      record "sanitize_frames dragon" FAIL 0 "assets/models/dragon.obj missing: bash assets/fetch-models.sh"
    fi
  fi
  [[ "$wanted" == *" stress "* ]] && scenes+=("stress --procedural stress:100k")
  local tool scene name args
  for tool in "${SANITIZER_TOOLS[@]}"; do
    for scene in "${scenes[@]}"; do
      read -r name args <<< "$scene"
      # Under racecheck the process's host memory grows while it runs: the tool's host-side analysis (~3 cores a
      # process) falls behind the GPU (H100, 2026-11-23: ~450 MB/s for the stress scene alone; five dragon
      # processes side by side grew 570 MB/s together, and one was killed for memory on a 128 GB host). So racecheck
      # renders the 100 frames as consecutive chunks of SLABCAST_RACECHECK_CHUNK_FRAMES (default 10), each a process
      # of its own that starts at its first frame's animation time (--time k/60 s, the headless frame step): frames
      # 0..99 of the same animation (a chunk's first frame equals the continuous run's, checked on the cpu backend).
      # Measured with 10: dragon 160-170 s and ~33 GB a process three at a time, stress 48-81 s two at a time.
      # The other tools render the 100 frames in one process.
      local chunk=100 first count label
      [ "$tool" = racecheck ] && chunk="${SLABCAST_RACECHECK_CHUNK_FRAMES:-10}"
      for ((first = 0; first < 100; first += chunk)); do
        # SLABCAST_FRAMES_FIRST: only the chunks starting at these frames (a rerun of the ones a call did not finish).
        [ -n "${SLABCAST_FRAMES_FIRST:-}" ] && [[ " ${SLABCAST_FRAMES_FIRST} " != *" $first "* ]] && continue
        count=$((100 - first < chunk ? 100 - first : chunk))
        label="$tool frames $name"
        [ "$count" -lt 100 ] && label="$label $first-$((first + count - 1))"
        # shellcheck disable=SC2086
        start_sanitize "$label" "$tool" -- "$exe" view --headless --frames "$count" \
          --time "$(awk -v k="$first" 'BEGIN { printf "%.9g", k / 60 }')" --size 1024x1024 --deform wave:0.3 \
          --backend cuda $args --screenshot "$OUT/sanitized-$tool-$name-$first.png"
      done
    done
    # The soak tests' program, short: the renderer and the viewer's display path across a resize and every
    # deformer. Whole-device memory is not bounded (the tool's allocations and the runs beside it move it); the
    # renderer's own bytes and host memory still are.
    if [ -x "$soak" ] && [ "${SLABCAST_SANITIZE_SOAK:-1}" = 1 ]; then
      local viewer host_bound
      for viewer in "" --viewer; do
        # The interop path under racecheck: the tool's host memory grows (above), not the program's.
        host_bound=1024
        [ "$tool" = racecheck ] && [ -n "$viewer" ] && host_bound=1000000
        # shellcheck disable=SC2086
        start_sanitize "$tool soak${viewer:+ viewer}" "$tool" -- "$soak" $viewer --backend cuda --frames 90 \
          --size 320x240 --resize 400x300 --mesh sphere:20000 --warmup 10 --device-growth-mib 1000000 \
          --host-growth-mib "$host_bound"
      done
    fi
  done
}

# ---------------------------------------------------------------------------------------------------------------
write_summary() {
  {
    echo "# GPU check $(date -u +%FT%TZ)"
    echo
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1 | sed 's/^/GPU: /'
    echo
    echo "| check | result | seconds | detail |"
    echo "|---|---|---|---|"
    awk -F'\t' '{ printf "| %s | %s | %s | %s |\n", $1, $2, $3, $4 }' "$RESULTS"
    echo
    echo "$(grep -c $'\tPASS\t' "$RESULTS") passed, $(grep -c $'\tFAIL\t' "$RESULTS") failed"
    if [ -f "$OUT/prim_bench.json" ] && command -v python3 >/dev/null; then
      echo
      echo "## prim_bench at the largest size (ratio = peer ms / ours ms; target: the row's own)"
      echo
      python3 - "$OUT/prim_bench.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["rows"]
big = max((r["n"] for r in rows), default=0)
print(f'{d["gpu"]}, driver {d["driver"]}, CUDA runtime {d["cuda_runtime"]}, CCCL {d["cccl"]}\n')
print("| op | dist | n | ours ms | peer ms | ratio | target | check |")
print("|---|---|---|---|---|---|---|---|")
for r in rows:
    if r["n"] != big:
        continue
    t = r["target_ratio"]
    mark = "" if not t else (" met" if r["ratio"] >= t else " MISSED")
    print(f'| {r["op"]} | {r["dist"]} | 2^{r["n"].bit_length() - 1} | {r["ours_ms"]:.3f} | {r["peer_ms"]:.3f} | '
          f'{r["ratio"]:.2f} | {t if t else "-"}{mark} | {r["check"]} |')
floors = [f for f in d.get("floors", []) if f["n"] == big]
if floors:
    print("\n## Floors of the missed rows at the largest size (prim_bench --floors; docs/bench/README.md)\n")
    print("| row | dist | ours ms | target ms | floor | floor ms | ours / floor | floor <= target | check |")
    print("|---|---|---|---|---|---|---|---|---|")
    for f in floors:
        within = "-" if not f["target_ms"] else ("yes" if f["floor_ms"] <= f["target_ms"] else "no")
        ratio = f["ours_ms"] / f["floor_ms"] if f["floor_ms"] > 0 else 0
        print(f'| {f["row"]} | {f["dist"]} | {f["ours_ms"]:.3f} | {f["target_ms"]:.3f} | {f["floor"]} | '
              f'{f["floor_ms"]:.3f} | {ratio:.2f} | {within} | {f["check"]} |')
PY
    fi
  } > "$OUT/summary.md"
}

main() {
  : > "$RESULTS"
  : > "$OUT/sanitizer.log"
  SANITIZER_PARTS="$(mktemp -d)"
  say "output: $OUT"
  local step
  for step in "${STEPS[@]}"; do
    if past_deadline; then
      record "$step" FAIL 0 "not run: past SLABCAST_GPU_CHECK_DEADLINE (${DEADLINE}s)"
    elif declare -F "step_$step" >/dev/null; then
      "step_$step"
    else
      record "$step" FAIL 0 "unknown step"
    fi
  done
  collect_sanitizer_logs
  write_summary
  echo
  cat "$OUT/summary.md"
  if grep -q $'\tFAIL\t' "$RESULTS"; then
    say "FAILED: $(grep -c $'\tFAIL\t' "$RESULTS") check(s); see $OUT"
    exit 1
  fi
  say "all checks passed"
}

main
