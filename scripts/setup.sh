#!/bin/bash
# scripts/setup.sh — installs the Debian 12 packages interop-lab needs to build and test, and checks
# that a CUDA Toolkit (12 or newer) is there. It is not a Debian package here: it lives at /usr/local/cuda
# or wherever CUDACXX points.
# Idempotent: when everything is installed it only checks and returns (well under a second).
# Needs root, or sudo; apt-get runs only when something is missing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config  # toolchain (CMake 3.25 + Ninja)
  clang-format                                  # the C++ layout every file keeps (scripts/format.sh)
  python3-glad                                  # generates the GL and EGL loaders at build time
  libepoxy-dev                                  # a GL loader a library user may bring instead (consumer test)
  libglfw3-dev libimgui-dev libstb-dev          # window, panel (libimgui.a needs libstb)
  libglm-dev libcli11-dev libpng-dev nlohmann-json3-dev libgtest-dev
  libegl-dev libopengl-dev libgl-dev            # GL and EGL through glvnd
  libgl1-mesa-dri libegl-mesa0 libglx-mesa0     # Mesa llvmpipe: GL without an NVIDIA GPU
  xvfb xauth                                    # an X server for window tests without a display
  python3-numpy python3-pytest                  # the Python package's tests (python/tests)
  python3-pil                                   # decodes the served viewer's JPEGs in its tests (desk_client.py)
  python3-venv python3-setuptools python3-wheel # pip installs the package into a virtual environment (test.sh)
  libvulkan-dev mesa-vulkan-drivers             # Vulkan: headers, loader and lavapipe (Vulkan on the CPU)
  vulkan-validationlayers                       # the Khronos validation layer, on in the Vulkan tests
  glslc                                         # compiles the Vulkan shaders (GLSL -> SPIR-V) at build time
  libx11-dev                                    # vulkan_tests reads the Vulkan presenter's window back (Xlib)
  g++-mingw-w64-x86-64-posix wine64            # the Windows pieces cross-built and run (scripts/windows-cross.sh)
  dpkg-dev xz-utils bzip2                       # apt-get source: Debian's libpng and zlib built for Windows (windows-deps.sh)
  libboost-dev libturbojpeg0-dev                # the browser desk (--serve): Boost.Beast HTTP + WebSocket, JPEG
  chromium chromium-driver python3-selenium     # the desk's page driven in a headless browser (tests/web)
  python3-nbclient python3-ipykernel            # a notebook run headless on a Jupyter kernel (tests/web/test_notebook.py)
  optipng                                       # shrinks the desk's screenshot (scripts/desk-screenshot.py)
)

say() { echo "setup: $*" >&2; }

# The CUDA Toolkit: CUDACXX, then /usr/local/cuda, then PATH — the order CMakeLists.txt uses.
find_nvcc() {
  if [ -n "${CUDACXX:-}" ]; then
    command -v "$CUDACXX" || true
    return
  fi
  if [ -x /usr/local/cuda/bin/nvcc ]; then
    echo /usr/local/cuda/bin/nvcc
    return
  fi
  command -v nvcc || true
}

nvcc=$(find_nvcc)
if [ -z "$nvcc" ]; then
  if [ -n "${CUDACXX:-}" ]; then
    say "CUDACXX=$CUDACXX is not an executable nvcc."
  else
    say "nvcc not found (looked at \$CUDACXX, /usr/local/cuda/bin/nvcc and PATH)."
  fi
  say "interop-lab needs the CUDA Toolkit 12 or newer, which is not a Debian package here:"
  say "  install it from https://developer.nvidia.com/cuda-downloads (it goes to /usr/local/cuda),"
  say "  or point to an installed one: CUDACXX=/path/to/cuda/bin/nvcc scripts/test.sh"
  exit 1
fi
cuda_release=$("$nvcc" --version | sed -n 's/.*release \([0-9]*\)\.\([0-9]*\).*/\1.\2/p')
if [ -z "$cuda_release" ] || [ "${cuda_release%%.*}" -lt 12 ]; then
  say "$nvcc is CUDA ${cuda_release:-of an unknown version}; interop-lab needs CUDA 12 or newer."
  say "Point to a newer one with CUDACXX=/path/to/cuda/bin/nvcc."
  exit 1
fi

missing=()
for package in "${packages[@]}"; do
  if [ "$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null)" != "install ok installed" ]; then
    missing+=("$package")
  fi
done
# scripts/windows-deps.sh fetches Debian's source packages (apt-get source), which needs deb-src entries:
# where apt has no source index (its lists hold no *_Sources file), one is added for the same mirror and
# suites as debian.sources. (Globbing the lists is instant; `apt-get indextargets` takes a second.)
binary_sources=/etc/apt/sources.list.d/debian.sources
source_entries=/etc/apt/sources.list.d/interop-lab-src.sources
needs_source_entries=1
for index in /var/lib/apt/lists/*_Sources*; do
  [ -f "$index" ] && needs_source_entries=0
  break
done
if [ ${#missing[@]} -eq 0 ] && [ "$needs_source_entries" -eq 0 ]; then
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null; then
  # Without a terminal sudo cannot ask for a password: fail at once instead of hanging.
  if [ -t 0 ]; then as_root=(sudo); else as_root=(sudo -n); fi
else
  say "not root and no sudo: as root, run"
  [ "$needs_source_entries" -eq 0 ] ||
    say "  sed 's/^Types: deb\$/Types: deb-src/' $binary_sources > $source_entries"
  say "  apt-get update && apt-get install --no-install-recommends ${missing[*]}"
  exit 1
fi

if [ "$needs_source_entries" -eq 1 ]; then
  if [ ! -f "$binary_sources" ]; then
    say "apt has no deb-src entries and there is no $binary_sources to copy them from: add a deb-src line for"
    say "bookworm (scripts/windows-deps.sh runs apt-get source)"
    exit 1
  fi
  say "adding deb-src entries ($source_entries) for scripts/windows-deps.sh's apt-get source"
  sed 's/^Types: deb$/Types: deb-src/' "$binary_sources" | "${as_root[@]}" tee "$source_entries" >/dev/null
fi
apt_options=(-q -o Dpkg::Use-Pty=0)
"${as_root[@]}" apt-get "${apt_options[@]}" update >/dev/null
if [ ${#missing[@]} -eq 0 ]; then
  say "done (deb-src entries added)"
  exit 0
fi
say "installing ${#missing[@]} missing package(s): ${missing[*]}"
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get "${apt_options[@]}" install -y --no-install-recommends "${missing[@]}" \
  | grep -E 'newly installed' || true
# The filter above hides apt-get's exit status (its errors go to stderr, unfiltered): check the result.
for package in "${missing[@]}"; do
  if [ "$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null)" != "install ok installed" ]; then
    say "$package did not install; see apt-get's messages above."
    exit 1
  fi
done
say "done (CUDA $cuda_release at $nvcc)"
