#!/usr/bin/env bash
# Builds an earlier commit's benchmarks here, for an A/B on the GPU machine against the build
# that scripts/stage_device_run.sh stages (run_fixed_clock_ab.sh, attention_bench.py --before,
# run_rmsnorm_ab.sh take such a BEFORE folder). A git worktree of REV is built with the release
# preset; its gemm_bench and kernel libraries (those REV has) are copied, stripped, into
# out/before-REV/ (git-ignored, small enough to carry beside .device's subfolders).
# Usage: scripts/stage_before_build.sh REV     e.g. scripts/stage_before_build.sh 695ba5a
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${1:?usage: scripts/stage_before_build.sh REV}
sha=$(git rev-parse --short "$rev^{commit}")
cmake_bin=$(scripts/setup.sh)
tree=out/worktree-$sha dest=out/before-$sha
[ -d "$tree" ] || git worktree add --detach "$tree" "$sha" >/dev/null
(cd "$tree" && "$cmake_bin" --preset release >/dev/null)
targets=()
for t in gemm_bench linpipe_attention linpipe_rmsnorm; do
  # A commit from before a kernel library existed builds what it has.
  if "$cmake_bin" --build "$tree/build/release" --target help | grep -q "^$t:"; then targets+=("$t"); fi
done
"$cmake_bin" --build "$tree/build/release" --target "${targets[@]}"
mkdir -p "$dest"
for f in gemm_bench liblinpipe_attention.so liblinpipe_rmsnorm.so; do
  [ -f "$tree/build/release/kernels/$f" ] && cp "$tree/build/release/kernels/$f" "$dest/"
done
strip --strip-debug "$dest"/*
echo "staged $(ls "$dest" | tr '\n' ' ')in $dest ($(du -sh "$dest" | cut -f1)); carry it with the call"
