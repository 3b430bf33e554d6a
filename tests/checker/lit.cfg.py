# lit configuration for linpipe's clang-tidy checks (tests/checker).
#
# Run through CMake (ctest -R checker-lit), which writes lit.site.cfg.py into the build tree,
# or by hand from the source tree:
#   lit -v tests/checker --param linpipe_tidy_plugin=build/checker-dev/liblinpipe_tidy.so
# Settings come from the site config, else --param NAME=VALUE, else the environment
# (LINPIPE_TIDY_PLUGIN, CLANG_TIDY, LLVM_TOOLS_DIR), else the defaults below.
import json
import os
import shlex

import lit.formats


def setting(name, env, default=None):
    value = getattr(config, name, None)
    if value:
        return value
    value = lit_config.params.get(name) or os.environ.get(env)
    return value or default


config.name = "linpipe-checker"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".cpp", ".cu", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "wconsumed_comparison.md"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
config.test_exec_root = setting("linpipe_checker_obj_root", "LINPIPE_CHECKER_OBJ_ROOT",
                                os.path.join(config.test_source_root, "Output"))

llvm_tools_dir = setting("llvm_tools_dir", "LLVM_TOOLS_DIR", "/usr/lib/llvm-22/bin")
clang_tidy = setting("clang_tidy", "CLANG_TIDY", os.path.join(llvm_tools_dir, "clang-tidy"))
plugin = setting("linpipe_tidy_plugin", "LINPIPE_TIDY_PLUGIN")
if not plugin or not os.path.exists(plugin):
    lit_config.fatal("linpipe checker tests need the plugin: pass "
                     "--param linpipe_tidy_plugin=/path/to/liblinpipe_tidy.so (got %r)" % plugin)

# FileCheck, not and count come from LLVM's tools directory.
config.environment["PATH"] = os.pathsep.join([llvm_tools_dir, os.environ.get("PATH", "")])
for var in ("HOME", "TMPDIR"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

# %check_linpipe runs clang-tidy with the plugin loaded; the common compiler flags follow `--`.
config.substitutions.append(("%clang_tidy", shlex.quote(clang_tidy)))
config.substitutions.append(("%linpipe_tidy_plugin", shlex.quote(plugin)))
config.substitutions.append(
    ("%check_linpipe", "%s --quiet -load=%s" % (shlex.quote(clang_tidy), shlex.quote(plugin))))
config.substitutions.append(("%stage_flags", "-std=c++20 -I %S/Inputs"))

# CUDA tests (REQUIRES: cuda) parse .cu files with clang's CUDA support; no GPU is needed.
cuda_path = setting("cuda_path", "CUDA_PATH", "/usr/local/cuda")
if os.path.exists(os.path.join(cuda_path, "include", "cuda.h")):
    config.available_features.add("cuda")
    # The flavour's flags from the list the build uses (cmake/linpipe_cuda_flags.json).
    flags_file = os.path.join(config.test_source_root, "..", "..", "cmake", "linpipe_cuda_flags.json")
    with open(flags_file) as handle:
        lists = json.load(handle)
    arch = lists["default_cuda_architectures"][0]
    cuda_flags = [flag.replace("{cuda_path}", cuda_path).replace("{arch}", arch)
                  for flag in lists["cuda_compile"] + lists["cuda_arch"]]
    config.substitutions.append(("%cuda_flags", shlex.join(cuda_flags + ["-nocudalib"])))

# Optional: flags for tests that import the real linpipe module, passed in by the top-level
# CMake (LINPIPE_CHECKER_CXX_FLAGS / LINPIPE_CHECKER_CUDA_FLAGS). Tests that use them say
# `REQUIRES: linpipe-module` (or linpipe-cuda-module) and are unsupported otherwise.
for name, feature in (("linpipe_cxx_flags", "linpipe-module"),
                      ("linpipe_cuda_flags", "linpipe-cuda-module")):
    value = setting(name, name.upper())
    if value:
        config.substitutions.append(("%" + name, value))
        config.available_features.add(feature)
for name, value in sorted((getattr(config, "linpipe_extra_substitutions", None) or {}).items()):
    config.substitutions.append((name, value))
