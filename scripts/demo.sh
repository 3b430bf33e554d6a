#!/usr/bin/env bash
# The main job: set up the toolchain, build linpipe (release), run the host-backend demo, and
# where a GPU is present, the GPU kernels' benchmarks. Never needs a GPU to succeed.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake_bin=$(scripts/setup.sh)

"$cmake_bin" --preset release >/dev/null
"$cmake_bin" --build --preset release

echo "== host backend demo (and a traced run: its timeline as trace-event JSON) =="
build/release/examples/host_stream --trace build/release/host_stream_trace.json

if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  echo "== GPU kernels =="
  for bench in build/release/kernels/*_bench; do
    if [[ -x "$bench" ]]; then "$bench"; fi
  done
else
  echo "== GPU kernels: built; no GPU on this machine, so not run =="
fi
