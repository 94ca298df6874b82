#!/bin/bash
# scripts/windows-deps.sh — builds the libraries the Windows interop-lab.exe links (zlib and libpng for its
# PNGs, GLFW and Dear ImGui with its Direct3D 11 and 12 backends for its window and panel) for 64-bit Windows with mingw-w64, from Debian's own source packages: `apt-get source` fetches them (with
# Debian's patches applied by dpkg-source), nothing third-party is kept in the repository. Static
# libraries and headers go to one prefix, which tests/windows finds them in (-DWINDOWS_DEPS_PREFIX).
# scripts/windows-cross.sh calls it.
#
# Downloads and builds once: each package's sources stay in DEPS_DIR/downloads (later runs need no
# network), and a stamp per built version in the prefix skips the build (a new Debian version rebuilds).
# Needs a deb-src entry for bookworm, dpkg-dev, xz-utils and bzip2 (scripts/setup.sh adds and installs them),
# and g++-mingw-w64-x86-64-posix, cmake and ninja.
# Environment: DEPS_DIR (default build/windows-deps); the prefix is DEPS_DIR/prefix. Prints the prefix.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
deps_dir=$(realpath -m "${DEPS_DIR:-build/windows-deps}")
prefix=$deps_dir/prefix
toolchain=$root/cmake/mingw-w64-x86_64.cmake
triplet=x86_64-w64-mingw32
mkdir -p "$deps_dir/downloads" "$deps_dir/src" "$prefix"

say() { echo "windows-deps: $*" >&2; }

# The source package's .dsc in downloads, fetched from bookworm (not bookworm-security, whose .dsc files the
# mirror may not carry) when there is none yet.
fetch() {
  local package=$1 dsc
  dsc=$(find "$deps_dir/downloads" -maxdepth 1 -name "${package}_*.dsc" | sort -V | tail -n 1)
  if [ -z "$dsc" ]; then
    say "fetching the Debian source package $package (bookworm)"
    if ! (cd "$deps_dir/downloads" && apt-get source --download-only "$package/bookworm" >/dev/null 2>"$deps_dir/downloads/$package.log"); then
      cat "$deps_dir/downloads/$package.log" >&2
      say "apt-get source $package/bookworm failed: it needs a deb-src line for bookworm (scripts/setup.sh adds one)"
      exit 1
    fi
    dsc=$(find "$deps_dir/downloads" -maxdepth 1 -name "${package}_*.dsc" | sort -V | tail -n 1)
  fi
  echo "$dsc"
}

# Unpacks `dsc` afresh into src/ (dpkg-source applies Debian's patches) and prints the folder.
unpack() {
  local dsc=$1 name
  name=$(basename "$dsc" .dsc)
  rm -rf "$deps_dir/src/$name"
  dpkg-source --no-check -x "$dsc" "$deps_dir/src/$name" >/dev/null
  echo "$deps_dir/src/$name"
}

# zlib: its own configure builds the static libz.a with the cross compiler (CHOST picks the mingw tools).
dsc=$(fetch zlib)
stamp=$prefix/.built-$(basename "$dsc" .dsc)
if [ ! -f "$stamp" ]; then
  say "building $(basename "$dsc" .dsc) for Windows"
  source_dir=$(unpack "$dsc")
  (
    cd "$source_dir"
    CHOST=$triplet CC=$triplet-gcc-posix AR=$triplet-ar RANLIB=$triplet-ranlib \
      ./configure --static --prefix="$prefix" >/dev/null
    make -j"$(nproc)" libz.a >/dev/null
    make install >/dev/null
  )
  touch "$stamp"
fi

# libpng: its CMake build, static only, against that zlib.
dsc=$(fetch libpng1.6)
stamp=$prefix/.built-$(basename "$dsc" .dsc)
if [ ! -f "$stamp" ]; then
  say "building $(basename "$dsc" .dsc) for Windows"
  source_dir=$(unpack "$dsc")
  cmake -S "$source_dir" -B "$source_dir/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_TOOLCHAIN_FILE="$toolchain" -DCMAKE_INSTALL_PREFIX="$prefix" \
    -DPNG_SHARED=OFF -DPNG_STATIC=ON -DPNG_TESTS=OFF -DPNG_EXECUTABLES=OFF \
    -DZLIB_LIBRARY="$prefix/lib/libz.a" -DZLIB_INCLUDE_DIR="$prefix/include" >/dev/null
  cmake --build "$source_dir/build" --parallel "$(nproc)" >/dev/null
  cmake --install "$source_dir/build" >/dev/null
  touch "$stamp"
fi

# GLFW: its CMake build, static, without its examples, tests and documentation.
dsc=$(fetch glfw3)
stamp=$prefix/.built-$(basename "$dsc" .dsc)
if [ ! -f "$stamp" ]; then
  say "building $(basename "$dsc" .dsc) for Windows"
  source_dir=$(unpack "$dsc")
  cmake -S "$source_dir" -B "$source_dir/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_TOOLCHAIN_FILE="$toolchain" -DCMAKE_INSTALL_PREFIX="$prefix" -DBUILD_SHARED_LIBS=OFF \
    -DGLFW_BUILD_EXAMPLES=OFF -DGLFW_BUILD_TESTS=OFF -DGLFW_BUILD_DOCS=OFF >/dev/null
  cmake --build "$source_dir/build" --parallel "$(nproc)" >/dev/null
  cmake --install "$source_dir/build" >/dev/null
  touch "$stamp"
fi

# Dear ImGui: Debian's Makefile builds the Linux backends against the system's stb; for Windows, the core,
# the GLFW backend and the Direct3D 11 and 12 backends are compiled here (with ImGui's own stb headers, which
# the source package holds) into libimgui.a, the headers laid out as Debian's (include/imgui, backends/). The
# stamp names the backends, so a prefix built with fewer is rebuilt.
imgui_backends=(imgui_impl_glfw imgui_impl_dx11 imgui_impl_dx12)
dsc=$(fetch imgui)
stamp=$prefix/.built-$(basename "$dsc" .dsc)-$(IFS=-; echo "${imgui_backends[*]}")
if [ ! -f "$stamp" ]; then
  say "building $(basename "$dsc" .dsc) for Windows (${imgui_backends[*]})"
  source_dir=$(unpack "$dsc")
  # The Direct3D 12 backend loads D3D12SerializeRootSignature from d3d12.dll through Microsoft's pointer type,
  # which mingw-w64's d3d12.h does not declare (it has only the versioned one's): declared here, before it.
  d3d12_compat=$source_dir/mingw_d3d12_compat.h
  cat >"$d3d12_compat" <<'HEADER'
#include <d3d12.h>
typedef HRESULT(WINAPI* PFN_D3D12_SERIALIZE_ROOT_SIGNATURE)(const D3D12_ROOT_SIGNATURE_DESC*, D3D_ROOT_SIGNATURE_VERSION,
                                                           ID3DBlob**, ID3DBlob**);
HEADER
  objects=()
  for source in imgui imgui_draw imgui_tables imgui_widgets "${imgui_backends[@]/#/backends/}"; do
    extra=()
    [ "$source" != backends/imgui_impl_dx12 ] || extra=(-include "$d3d12_compat")
    # -w: GCC 12 warns falsely in imgui_draw.cpp (-Wstringop-overflow); not our code to change.
    # WIDL_EXPLICIT_AGGREGATE_RETURNS: d3d12.h's structure-returning methods with Microsoft's convention, as
    # app/d3d12/renderer.hpp has them.
    $triplet-g++-posix -std=c++17 -O2 -w -DWIDL_EXPLICIT_AGGREGATE_RETURNS "${extra[@]}" -I"$source_dir" \
      -I"$prefix/include" -c "$source_dir/$source.cpp" -o "$source_dir/$(basename "$source").o"
    objects+=("$source_dir/$(basename "$source").o")
  done
  rm -f "$prefix/lib/libimgui.a"
  $triplet-ar rcs "$prefix/lib/libimgui.a" "${objects[@]}"
  mkdir -p "$prefix/include/imgui/backends"
  cp "$source_dir"/*.h "$prefix/include/imgui/"
  for backend in "${imgui_backends[@]}"; do
    cp "$source_dir/backends/$backend.h" "$prefix/include/imgui/backends/"
  done
  rm -f "$prefix"/.built-imgui_*
  touch "$stamp"
fi

echo "$prefix"
