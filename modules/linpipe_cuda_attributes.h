// Internal to linpipe's module units (included through linpipe_macros.h), never exported.
// What a unit's global module fragment needs of clang CUDA: the execution-space attributes and
// the thread-index builtins, not the CUDA runtime wrapper. The wrapper (which the driver
// force-includes into every .cu file) brings in the CUDA headers, <cmath> and more: in each
// unit's BMI it made the BMI about 9.5 MB and took about a second to parse, 62 times a build.
// Units that call the runtime API include <cuda_runtime_api.h> after their standard headers
// (so libstdc++'s <new> meets clang's cuda_wrappers/new with these macros, as here).
#pragma once

#if defined(__CUDA__)
#include <cstdlib>  // clang's cuda_wrappers/new uses ::malloc and ::free

#ifndef __host__
#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __forceinline__ __inline__ __attribute__((always_inline))
#endif

#include <__clang_cuda_builtin_vars.h>  // threadIdx, blockIdx, blockDim, gridDim
#endif
