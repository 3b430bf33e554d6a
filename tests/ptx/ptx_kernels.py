"""What the PTX checks share: compiling a CUDA source to PTX, and reading its kernels' lines."""
import re
import subprocess


def compile_to_ptx(compiler_command, source, output):
    """Runs the compiler for device PTX only; returns its output text on failure, else None."""
    built = subprocess.run(compiler_command + ["--cuda-device-only", "-S", source, "-o", output],
                           capture_output=True, text=True)
    return built.stdout + built.stderr if built.returncode != 0 else None


def kernel_lines(ptx_path):
    """(line number, line) for each line inside a kernel (.entry), not in out-of-line .func."""
    in_kernel = False
    for number, line in enumerate(open(ptx_path, encoding="utf-8"), 1):
        if line.startswith((".visible .entry", ".entry", ".weak .entry")):
            in_kernel = True
        elif re.match(r"^(\.visible |\.weak )?\.func", line):
            in_kernel = False
        if in_kernel:
            yield number, line
