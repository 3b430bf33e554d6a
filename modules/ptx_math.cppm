// linpipe:ptx_math — arithmetic instructions a kernel's inner loop needs in a form clang's
// math functions do not give without fast-math flags: exp2 with subnormals flushed.
// PTX ISA, "Floating Point Instructions: ex2":
// https://docs.nvidia.com/cuda/parallel-thread-execution/#floating-point-instructions-ex2
module;
#include "linpipe_macros.h"
export module linpipe:ptx_math;
#if defined(__CUDA__)

export namespace linpipe::ptx {

// ex2.approx.ftz.f32 d, a;
// Every SM (the PTX ISA supports it on all targets, so no gate). 2^a from the special-function
// unit, as exp2f's ex2.approx.f32 but with subnormal inputs and results flushed to zero: one
// MUFU.EX2. exp2f (no -ffast-math) keeps subnormal results, so ptxas brackets its EX2 with a
// range check and two multiplies: four instructions. A softmax has no use for them: its
// terms below 2^-126 are nothing next to its row sum of at least 1. ex2(-inf) = +0,
// ex2(+inf) = +inf, and NaN stays NaN.
LINPIPE_DEVICE inline float ex2_approx_ftz(float a) {
  float d;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(d) : "f"(a));
  return d;
}

}  // namespace linpipe::ptx
#endif  // __CUDA__
