#!/usr/bin/env bash
# SASS of a kernel source on this GPU-less machine, as a build compiles it, with each kernel's
# count of wgmma (HGMMA), R2UR (a value moved from an ordinary register into a uniform one; a
# wgmma descriptor built in ordinary registers needs one before every wgmma) and local-memory
# instructions. The CUDA toolkit here has ptxas but no disassembler; Debian's non-free
# nvidia-cuda-toolkit (11.8) has nvdisasm, which reads a CUDA 13 cubin once its ELF header is
# given the older ABI's form (the instructions' encoding is the same).
# Usage: sass_here.sh BUILD_DIR SOURCE OUT_PREFIX   (SOURCE: a file name in BUILD_DIR's
#   compile_commands.json, e.g. gemm_pingpong_kernels.cu). Writes OUT_PREFIX.{ptx,ptxas,cubin,sass}.
# Needs: non-free in apt's sources (Components: non-free) for the one-time download into
#   .tools/nvdisasm-11.8.
set -euo pipefail
build=$1 source=$2 out=$3
here=$(cd "$(dirname "$0")/../.." && pwd)
nvdisasm=$here/.tools/nvdisasm-11.8/usr/bin/nvdisasm
if [ ! -x "$nvdisasm" ]; then
  tmp=$(mktemp -d)
  (cd "$tmp" && apt-get download nvidia-cuda-toolkit >/dev/null 2>&1) ||
    { echo "sass_here.sh: apt-get download nvidia-cuda-toolkit failed: add Debian's non-free component to apt's sources" >&2; exit 1; }
  mkdir -p "$here/.tools/nvdisasm-11.8" && dpkg-deb -x "$tmp"/nvidia-cuda-toolkit_*.deb "$tmp/x"
  mkdir -p "$here/.tools/nvdisasm-11.8/usr/bin" && cp "$tmp/x/usr/bin/nvdisasm" "$here/.tools/nvdisasm-11.8/usr/bin/"
  rm -rf "$tmp"
fi
# The build's own command for SOURCE, made to emit device PTX only.
read -r file command < <(python3 - "$build" "$source" <<'PY'
import json, re, sys
for entry in json.load(open(sys.argv[1] + "/compile_commands.json")):
    if entry["file"].endswith("/" + sys.argv[2]):
        command = re.sub(r" -o \S+ -c \S+$", "", entry["command"])
        print(entry["file"], re.sub(r"-Xarch_host -fprebuilt-module-path=\S+", "", command))
        break
else:
    sys.exit(f"{sys.argv[2]}: not in {sys.argv[1]}/compile_commands.json")
PY
)
(cd "$build" && eval "$command --cuda-device-only -S -o $out.ptx $file")
/usr/local/cuda/bin/ptxas -arch=sm_90a -v "$out.ptx" -o "$out.cubin" 2> "$out.ptxas"
# ELF header as CUDA 12 wrote it for sm_90: OS/ABI CUDA (0x33), ABI version 7, and e_flags
# 0x5a055a (SM 90, virtual SM 90, 64-bit addresses, unified texture mode).
python3 - "$out.cubin" <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
data[7], data[8] = 0x33, 7
struct.pack_into("<I", data, 0x30, 0x5a055a)
open(sys.argv[1], "wb").write(data)
PY
"$nvdisasm" -c "$out.cubin" > "$out.sass"
awk '/^\s*\.text\./ { k = substr($1, 7); sub(/:$/, "", k); n[k] = 0 }
     k != "" && /HGMMA/ { h[k]++ } k != "" && /R2UR/ { r[k]++ } k != "" && /[^A-Z](LDL|STL)[. ]/ { l[k]++ }
     END { for (k in n) printf "%-90.90s HGMMA %3d  R2UR %4d  local %3d\n", k, h[k], r[k], l[k] }' "$out.sass" | sort
