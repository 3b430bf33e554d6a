// gemm_bf16_traced: the GEMM with every role's pipeline traced (linpipe:trace); see gemm.h.
// Its own translation unit, so the traced kernels never share a module with the untraced ones.
#include "gemm.h"

#include <cuda.h>  // CUtensorMap and its enums: types only, nothing links libcuda
#include <cuda_runtime.h>

#include <array>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <utility>

import linpipe;

#include "gemm_kernel.cuh"

namespace linpipe::kernels {

cudaError_t gemm_bf16_traced(const void* a, const void* b, void* c, int m, int n, int k,
                             const GemmConfig& config, void* trace, unsigned slices,
                             unsigned per_slice, cudaStream_t stream, const char** why) {
  if (trace == nullptr || reinterpret_cast<std::uintptr_t>(trace) % 16 != 0 || slices == 0 ||
      per_slice == 0) {
    if (why != nullptr) *why = "trace must be 16-byte aligned device memory of TraceLayout{slices, per_slice}.bytes(), slices and per_slice > 0";
    return cudaErrorInvalidValue;
  }
  return checked_launch<SliceTrace>(a, b, c, m, n, k, config, stream, why,
                                    TraceTarget{static_cast<TraceRecord*>(trace), TraceLayout{slices, per_slice}});
}

}  // namespace linpipe::kernels
