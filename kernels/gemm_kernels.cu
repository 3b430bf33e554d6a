// gemm_bf16's kernels (device code: gemm_kernel.cuh; the host launch: gemm_launch.cu).
//
// A producer warpgroup (one lane issuing TMA loads of A and B tiles into a linpipe stage ring,
// expect-tx on each stage's full barrier) and two consumer warpgroups (each multiplying its
// 64-row half of the A tile by the whole B tile with wgmma m64n256k16 from 128B-swizzled
// shared memory, releasing a stage once the wgmma group reading it has retired). A persistent
// grid walks the output tiles in groups of rows for L2 reuse. The epilogue stages each
// warpgroup's result in swizzled shared-memory boxes and stores them with the tensor copy
// engine, so the next tile's MMAs start while C is written. With a 2-CTA cluster
// (config.cluster_m = 2) the two CTAs take vertically adjacent tiles that share one B tile:
// each loads its own A and half of B, multicast into both, and each consumer warp signals the
// empty barriers of both CTAs (lane-guarded), so neither refills a slot the other still reads;
// the producer drains before exit so no peer arrives into a finished CTA. See gemm.h.
//
// This unit holds the untraced kernels alone (gemm_traced_kernels.cu the traced ones).
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

GemmKernel gemm_kernel_for_cluster(int cluster_m) {
  return cluster_m == 2 ? gemm_kernel<2> : gemm_kernel<1>;
}

std::size_t gemm_shared_bytes() { return Plan::launch_bytes(); }

}  // namespace linpipe::kernels
