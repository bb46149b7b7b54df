#!/usr/bin/env bash
# Installs tessel's build dependencies on Debian 12 (bookworm) -- cmake, ninja-build, g++,
# doctest-dev, and any PACKAGE:COMMAND given as arguments (tools/fuzz.sh adds clang and
# libclang-rt-14-dev; tools/test.sh the Python module's pybind11-dev, libdlpack-dev, python3-dev,
# python3-numpy, python3-pytest; the llvm step of tools/test.sh adds llvm-22-dev and
# llvm-22-linker-tools, whose libLTO LLVM's CMake exports name) -- but only those that are missing. Idempotent; prints nothing when all are
# present. Runs as root, or through sudo otherwise.
set -euo pipefail

# package:command (a command found on PATH counts as installed; doctest-dev has none, since CMake
# must find its package files in /usr/lib/cmake/doctest).
requirements=(cmake:cmake ninja-build:ninja g++:g++ doctest-dev: "$@")

is_installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}

missing=()
for req in "${requirements[@]}"; do
  pkg=${req%%:*}
  cmd=${req#*:}
  if is_installed "$pkg"; then
    continue
  fi
  if [[ -n "$cmd" ]] && command -v "$cmd" >/dev/null 2>&1; then
    continue
  fi
  missing+=("$pkg")
done

if ((${#missing[@]} == 0)); then
  exit 0
fi

if ((EUID == 0)); then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo)
else
  echo "setup.sh: need to install ${missing[*]}, but not root and no sudo" >&2
  exit 1
fi

echo "setup.sh: installing ${missing[*]}"
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null

for pkg in "${missing[@]}"; do
  if ! is_installed "$pkg"; then
    echo "setup.sh: failed to install $pkg" >&2
    exit 1
  fi
done
