# Shared set-up for scripts/run.sh and scripts/test.sh (sourced, not run): installs the Debian packages that
# are missing, then configures and builds slabcast into build/ (Release). Idempotent; prints what it does.
set -euo pipefail

SLABCAST_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SLABCAST_BUILD="${SLABCAST_BUILD:-$SLABCAST_ROOT/build}"

say() { printf '\033[1m[slabcast]\033[0m %s\n' "$*"; }

# Every build and test dependency, from Debian's archive (see README.md, "Dependencies").
SLABCAST_PACKAGES=(
  cmake ninja-build g++ pkg-config
  libgtest-dev libgmock-dev            # tests
  libglm-dev                           # render/ maths
  libglfw3-dev libimgui-dev python3-glad libegl-dev libgl-dev libegl-mesa0 libgl1-mesa-dri  # viewer, GL
  libtinyobjloader-dev libstb-dev libcli11-dev libassimp-dev libtinygltf-dev nlohmann-json3-dev  # app/
  xvfb xauth openbox                   # the window tests on machines without a display (openbox: minimise works)
  gnuplot-nox                          # scripts/plot-bench (the README's charts)
)

install_missing_packages() {
  local missing=()
  for pkg in "${SLABCAST_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    say "all ${#SLABCAST_PACKAGES[@]} Debian packages present"
    return
  fi
  say "installing missing Debian packages: ${missing[*]}"
  local sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

find_nvcc() {
  if command -v nvcc >/dev/null 2>&1; then return; fi
  for dir in /usr/local/cuda/bin /usr/local/cuda-*/bin; do
    if [ -x "$dir/nvcc" ]; then export PATH="$dir:$PATH"; return; fi
  done
  cat >&2 <<'MSG'
[slabcast] error: nvcc (the CUDA compiler) was not found on PATH or under /usr/local/cuda*/bin.
[slabcast] Install the CUDA Toolkit 12.4 or newer (NVIDIA's 'cuda-toolkit' package from
[slabcast] https://developer.nvidia.com/cuda-downloads, or Debian's 'nvidia-cuda-toolkit'), then run this again.
MSG
  exit 1
}

configure_and_build() {
  say "configuring $SLABCAST_BUILD (Release, CUDA architectures: ${CMAKE_CUDA_ARCHITECTURES:-90})"
  cmake -S "$SLABCAST_ROOT" -B "$SLABCAST_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        ${CMAKE_CUDA_ARCHITECTURES:+-DCMAKE_CUDA_ARCHITECTURES=$CMAKE_CUDA_ARCHITECTURES} \
        ${SLABCAST_CMAKE_ARGS:-} >/dev/null
  say "building with $(nproc) jobs (the first build takes several minutes: CUDA templates)"
  cmake --build "$SLABCAST_BUILD" -j "$(nproc)"
}

find_nvcc
say "nvcc: $(nvcc --version | tail -n 1)"
install_missing_packages
configure_and_build
