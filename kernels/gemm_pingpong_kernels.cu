// gemm_bf16's ping-pong kernel (GemmSchedule::pingpong; device code: gemm_pingpong_kernel.cuh,
// built on gemm_kernel.cuh's parts). Its own translation unit, as the traced kernels have: the
// cooperative kernels' module, and so their register allocation, stays as it was.
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
#include "gemm_pingpong_kernel.cuh"

namespace linpipe::kernels {

GemmKernel pingpong_gemm_kernel(int cluster_m) {
  return cluster_m == 2 ? gemm_pingpong_kernel<2> : gemm_pingpong_kernel<1>;
}

std::size_t pingpong_gemm_shared_bytes() { return pingpong::Plan::launch_bytes(); }

}  // namespace linpipe::kernels
