// gemm_bf16's stream-K kernel (GemmSplit::stream_k): the cooperative kernel (gemm_kernel.cuh)
// walking a linpipe::StreamKSchedule. The whole waves run as in the cooperative kernel; the last
// partial wave and one whole wave before it are shared out by k-steps, so every SM has the same
// work to the k-step (a grid of P CTAs on T tiles otherwise idles P - T mod P SMs through its
// last wave). A CTA whose share of a tile stops short of its last k-step writes its accumulators
// to its slot of the partials and publishes it (linpipe::PartialFlags); the CTA holding the
// tile's last k-steps adds each peer's partial, in peer order, and stores the tile.
//
// Its own translation unit, as the traced kernels: ptxas allocates a module's kernels together,
// and the untraced kernels' code must not change with this one.
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
namespace {

__global__ void __launch_bounds__(threads, 1)
    gemm_stream_k_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                         const __grid_constant__ CUtensorMap map_c, int m, int n, int k, int group_rows,
                         bool warpgroup_release, GemmPartials partials) {
  gemm_body<1, NoTrace>(map_a, map_b, map_c, m, n, k, group_rows, warpgroup_release, partials);
}

static_assert(gemm_partial_bytes_per_cta ==
                  sizeof(float) * accumulators * Roles::threads_per_consumer * consumer_warpgroups,
              "gemm_kernels.h: a CTA's partial slots hold its consumer warpgroups' accumulators");
static_assert(gemm_flag_bytes_per_cta == PartialFlags::bytes(consumer_warpgroups),
              "gemm_kernels.h: one flag per consumer warpgroup");

}  // namespace

StreamKGemmKernel stream_k_gemm_kernel() { return gemm_stream_k_kernel; }

}  // namespace linpipe::kernels
