#!/usr/bin/env bash
# Fuzz the mesh readers this project writes itself with libFuzzer (clang + AddressSanitizer + UBSan), bounded in time:
# fuzz_obj (the OBJ loader and its validation), then fuzz_formats (the PLY check before Assimp and the OFF reader),
# each with the same limits.
#   scripts/fuzz.sh [SECONDS [RUNS]]    (default 60 s, no run limit; .ci/run runs it with a fixed run count)
# Seed corpus: the shipped OBJ files in assets/, the test meshes in tests/app/meshes/ (a concave polygon), the
# broken-file corpus tests/app/broken/ and tests/fuzz/regressions/ (inputs that once crashed, replayed by every run).
# A crash leaves its input as build/fuzz/crash-*: add it to tests/fuzz/regressions/ (and, if it must be rejected, a
# file under tests/app/broken/ with its expected message), then fix the loader.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-60}"
runs="${2:--1}"   # a run count makes the result reproducible: CI stops at whichever limit comes first
out="$root/build/fuzz"
say() { printf '\033[1m[fuzz]\033[0m %s\n' "$*"; }

# clang and its sanitizer/fuzzer runtime, and the headers the loader includes (GLM through render/, tinyobjloader),
# from Debian: installed when missing, as scripts/setup.sh does (CI runs this before scripts/test.sh on a fresh machine).
missing=()
for pkg in clang libclang-rt-dev libglm-dev libtinyobjloader-dev libstb-dev; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ] && command -v apt-get >/dev/null; then
  say "installing missing Debian packages: ${missing[*]}"
  sudo=(); [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  "${sudo[@]}" apt-get update -qq && DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${missing[@]}"
fi
cxx="$(command -v clang++ || command -v clang++-14 || true)"
if [ -z "$cxx" ]; then
  say "error: clang++ not found (Debian: apt-get install clang libclang-rt-dev)"; exit 1
fi
rm -rf "$out/corpus"; mkdir -p "$out/corpus"   # start from the seeds every time, so runs are comparable
tinyobj_dir="$(dirname "$(find /usr/include -name tiny_obj_loader.h -print -quit)")"
extra=()
[ "$tinyobj_dir" = /usr/include ] || extra=(-isystem "$tinyobj_dir")  # -isystem /usr/include breaks #include_next
say "building the fuzz target with $("$cxx" --version | head -n 1)"
"$cxx" -std=c++17 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I"$root" "${extra[@]}" \
  "$root/tests/fuzz/fuzz_obj.cpp" "$root/app/mesh_io.cpp" "$root/app/polygon_triangulation.cpp" "$root/app/output_file.cpp" \
  "$root/app/formats/obj_materials.cpp" "$root/app/image_io.cpp" -lstb \
  -o "$out/fuzz_obj"
cp "$root"/assets/*.obj "$root"/tests/app/meshes/*.obj "$root"/tests/app/broken/*.obj "$root"/tests/fuzz/regressions/* \
  "$out/corpus/" 2>/dev/null || true
say "fuzzing parse_obj for ${seconds}s (seed corpus: $(ls "$out/corpus" | wc -l) files)"
(cd "$out"
# A fixed seed: CI replays the same mutation sequence that was run before landing (a slower machine, a prefix of it).
./fuzz_obj -seed=1 -runs="$runs" -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=4096 -timeout=10 -print_final_stats=1 \
  corpus 2>&1 | tail -n 15)

"$cxx" -std=c++17 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I"$root" "${extra[@]}" \
  "$root/tests/fuzz/fuzz_formats.cpp" "$root/app/formats/ply_layout.cpp" "$root/app/formats/off_mesh.cpp" \
  "$root/app/formats/mesh_file.cpp" "$root/app/polygon_triangulation.cpp" \
  -o "$out/fuzz_formats"
rm -rf "$out/corpus_formats"; mkdir -p "$out/corpus_formats"
cp "$root"/assets/*.ply "$root"/tests/app/broken/*.ply "$root"/tests/app/broken/*.off "$root"/tests/fuzz/regressions/* \
  "$out/corpus_formats/" 2>/dev/null || true
say "fuzzing check_ply and parse_off for ${seconds}s (seed corpus: $(ls "$out/corpus_formats" | wc -l) files)"
(cd "$out"
./fuzz_formats -seed=1 -runs="$runs" -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=4096 -timeout=10 \
  -print_final_stats=1 corpus_formats 2>&1 | tail -n 15)
say "no crash (limits: ${seconds}s, runs ${runs}, each target)"
