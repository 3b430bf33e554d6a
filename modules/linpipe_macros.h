// Internal to linpipe's module units: never installed as a public header, never exported.
// Included in each unit's global module fragment so every unit spells the execution spaces
// the same way in the three flavours (plain C++, CUDA host side, CUDA device side).
#pragma once

#include "linpipe_cuda_attributes.h"  // clang CUDA: __host__, __device__, threadIdx, ...

#if defined(__CUDA__)
#define LINPIPE_HOST_DEVICE __host__ __device__
#define LINPIPE_DEVICE __device__
#else
#define LINPIPE_HOST_DEVICE
#define LINPIPE_DEVICE
#endif

// The stage members a kernel's steady-state loop calls: inlined even where debug checks make
// them large, so a stage stays in registers instead of being spilled to local memory.
#define LINPIPE_ALWAYS_INLINE __attribute__((always_inline))

// Debug checks (the unreleased-stage trap and the hung-wait trap) follow NDEBUG unless the
// build says otherwise with -DLINPIPE_DEBUG_CHECKS=0 or =1.
#if !defined(LINPIPE_DEBUG_CHECKS)
#if defined(NDEBUG)
#define LINPIPE_DEBUG_CHECKS 0
#else
#define LINPIPE_DEBUG_CHECKS 1
#endif
#endif
