// gemm_bf16_traced's kernels: the GEMM with every role's pipeline traced (linpipe:trace); see
// gemm.h and gemm_kernels.cu. Their own translation unit, so the traced kernels never share a
// module with the untraced ones.
#include "gemm.h"

#include <cuda.h>  // CUtensorMap and its enums: types only, nothing links libcuda
#include <cuda_runtime.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>

import linpipe;

#include "gemm_kernels.h"
#include "gemm_kernel.cuh"

namespace linpipe::kernels {

TracedGemmKernel traced_gemm_kernel_for_cluster(int cluster_m) {
  return cluster_m == 2 ? traced_gemm_kernel<2> : traced_gemm_kernel<1>;
}

}  // namespace linpipe::kernels
