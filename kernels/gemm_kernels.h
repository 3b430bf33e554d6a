// What gemm_launch.cu (the host side, compiled once) needs of the GEMM's kernels, which live in
// two other translation units (gemm_kernels.cu, gemm_traced_kernels.cu): their types, their
// block and shared-memory sizes, and C's tensor-map boxes. Included after `import linpipe;`.
#pragma once

#include <cuda.h>  // CUtensorMap: a type only, nothing links libcuda

#include <cstddef>
#include <cstdint>

#include "gemm.h"

namespace linpipe::kernels {

// Where a traced launch records (a kernel parameter of the traced kernels only).
struct GemmTraceTarget {
  TraceRecord* records;
  TraceLayout layout;
  GemmTraceRoles roles;
};

// Where a stream-K launch's CTAs leave partial sums for the CTAs that finish their tiles: a
// slot of 2 x 64 x 256 fp32 a CTA of the grid (`sums`), and one flag per consumer warpgroup of
// each (`flags`, zeroed once; each launch leaves them at zero), and the whole waves shared with
// the last partial one. See gemm_stream_k_kernels.cu.
struct GemmPartials {
  float* sums;
  std::uint32_t* flags;
  std::uint32_t shared_waves;  // GemmConfig::stream_k_shared_waves
  bool in_phase;               // GemmConfig::stream_k_in_phase
};
inline constexpr std::size_t gemm_partial_bytes_per_cta = 2u * 64u * 256u * sizeof(float);
inline constexpr std::size_t gemm_flag_bytes_per_cta = 2u * sizeof(std::uint32_t);

// The kernels' parameters: the A, B and C tensor maps (__grid_constant__), M, N, K, the tile
// rows walked together per cluster, and whether one warp per consumer warpgroup releases.
using GemmKernel = void (*)(CUtensorMap, CUtensorMap, CUtensorMap, int, int, int, int, bool);
using TracedGemmKernel = void (*)(CUtensorMap, CUtensorMap, CUtensorMap, int, int, int, int, bool,
                                  GemmTraceTarget);

using StreamKGemmKernel = void (*)(CUtensorMap, CUtensorMap, CUtensorMap, int, int, int, int, bool,
                                   GemmPartials);

// The cooperative kernel for a cluster of `cluster_m` CTAs (1 or 2).
GemmKernel gemm_kernel_for_cluster(int cluster_m);
TracedGemmKernel traced_gemm_kernel_for_cluster(int cluster_m);
// The cooperative kernel with its last waves shared by k-steps (GemmSplit::stream_k; one CTA a
// tile).
StreamKGemmKernel stream_k_gemm_kernel();
// The ping-pong kernel (GemmSchedule::pingpong; gemm_pingpong_kernels.cu) for a cluster of
// `cluster_m` CTAs (1 or 2).
GemmKernel pingpong_gemm_kernel(int cluster_m);

// Every GEMM kernel's block, and each schedule's dynamic shared memory (its SharedPlan's
// launch_bytes()).
inline constexpr unsigned gemm_threads = 32 * gemm_warps_per_cta;
std::size_t gemm_shared_bytes();
std::size_t pingpong_gemm_shared_bytes();

// C is stored in boxes of this many rows and columns: the epilogue's staging boxes, one
// consumer warpgroup's rows by one 128-byte swizzle span of bf16.
inline constexpr int gemm_c_box_rows = 64;
inline constexpr int gemm_c_box_cols = 64;

}  // namespace linpipe::kernels
