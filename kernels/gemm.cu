// gemm_bf16's kernel: a producer warpgroup (one lane issuing TMA loads of A and B tiles into a
// linpipe stage ring, expect-tx on each stage's full barrier) and two consumer warpgroups (each
// multiplying its 64-row half of the A tile by the whole B tile with wgmma m64n256k16 from
// 128B-swizzled shared memory, releasing a stage once the wgmma group reading it has retired).
// A persistent grid walks the output tiles in groups of rows for L2 reuse. The epilogue stages
// each warpgroup's result in swizzled shared-memory boxes and stores them with the tensor copy
// engine, so the next tile's MMAs start while C is written. With a 2-CTA cluster
// (config.cluster_m = 2) the two CTAs take vertically adjacent tiles that share one B tile:
// each loads its own A and half of B, multicast into both, and each consumer warp signals
// the empty barriers of both CTAs (lane-guarded), so neither refills a slot the other still
// reads; the producer drains before exit so no peer arrives into a finished CTA. See gemm.h.
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

cudaError_t gemm_bf16(const void* a, const void* b, void* c, int m, int n, int k,
                      const GemmConfig& config, cudaStream_t stream, const char** why) {
  return checked_launch<NoTrace>(a, b, c, m, n, k, config, stream, why);
}

cudaError_t gemm_bf16_grid_ctas(const GemmConfig& config, int* ctas) {
  int clusters = 0;
  const cudaError_t status = config.cluster_m == 2 ? resident_clusters<2, NoTrace>(&clusters)
                                                   : resident_clusters<1, NoTrace>(&clusters);
  if (status == cudaSuccess) *ctas = clusters * (config.cluster_m == 2 ? 2 : 1);
  return status;
}

cudaError_t gemm_bf16(const void* a, const void* b, void* c, int m, int n, int k,
                      cudaStream_t stream, const char** why) {
  return gemm_bf16(a, b, c, m, n, k, GemmConfig{}, stream, why);
}

}  // namespace linpipe::kernels
