#!/usr/bin/env bash
# Compiler launcher for linpipe's kernels: runs the compile, passes its output through, and fails
# it when ptxas reports a serialisation ("Potential Performance Loss", e.g. C7510: wgmma
# serialised at a function call). ptxas prints those as info, so no ptxas flag makes them
# errors; a kernel built with one is not the kernel the benchmarks claim to time.
output="$("$@" 2>&1)"
status=$?
[[ -n "$output" ]] && printf '%s\n' "$output" >&2
if grep -q "Potential Performance Loss" <<<"$output"; then
  echo "error: ptxas serialised this kernel (see the notice above); a debug check or other" \
       "code in its call graph changed the kernel. linpipe's kernels must build without it." >&2
  exit 1
fi
exit $status
