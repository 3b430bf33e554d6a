// Fused RMSNorm forward in bf16: y[r] = x[r] / sqrt(mean(x[r]^2) + eps) * w, row by row, with
// fp32 statistics. Two kernels: linpipe's (kernels/rmsnorm.cu, warp-specialised, built from
// the library's kernel parts) and the anchor it is measured against (kernels/rmsnorm_plain.cu,
// one block per row with 16-byte vectors).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace linpipe::kernels {

// Row lengths the kernels are built for.
inline constexpr int rmsnorm_widths[] = {1024, 2048, 4096, 8192};

// linpipe's kernel, in one of its shapes (see rmsnorm.cu): rows of 32 KiB tiles (64 KiB at
// n = 8192) for 4 consumer warps in a 3-stage ring (`wide`) or a 2-stage one (`shallow`, so
// three CTAs share an SM), or half-size tiles for 2 consumer warps (`narrow`); the result
// stored from the slot by the bulk engine (`bulk`, through a StoreEpilogue) or from registers
// with 16-byte stores (`threads`); a persistent grid or one CTA per tile; x's lines marked
// evict-first in L2 or not; each tile loaded by one bulk copy or by 32 lanes' slices of it.
// The held shapes (`held`: 2 stages, `held_deep`: 3) read each row from its slot once into the
// registers of 1-4 warps that share it, free the slot, then scale and store from registers
// (store = threads only). `single` has one stage, for one-shot grids, where a CTA loads one
// tile and a second stage would only keep another CTA off the SM; `single_row` the same with
// one row a consumer warp, and `pair` with two consumer warps of one row each (smaller
// tiles: more CTAs an SM), `row` with one consumer warp and one row (a CTA per row, as the
// plain kernel). `held_single` and `held_single_half` are the held shapes with one stage, for
// one-shot grids, on 32 KiB and 16 KiB tiles.
enum class RmsNormShape : int {
  wide = 0,
  narrow = 1,
  shallow = 2,
  held = 3,
  held_deep = 4,
  single = 5,
  single_row = 6,
  pair = 7,
  held_single = 8,
  held_single_half = 9,
  row = 10,
};
enum class RmsNormStore : int { bulk = 0, threads = 1 };
struct RmsNormConfig {
  RmsNormShape shape = RmsNormShape::wide;
  RmsNormStore store = RmsNormStore::threads;
  bool persistent = true;
  bool evict_first = false;
  int copy_lanes = 1;  // producer lanes that share each tile's copy: 1 or 32
};

// The configuration rmsnorm_bf16 uses when none is given, from the H100 and H200 runs in
// docs/benchmarks.md (2026-12-06): short-lived CTAs (a one-shot grid) storing from registers.
// At n = 1024 `pair`'s two-row tile (2% faster than `shallow` on the H200, 0.2-0.8% on the
// H100), at n = 2048 and 4096 the 2-stage shape, at n = 8192 the held
// one-stage shape (rows read from the slot once; 0.5% faster than `single` on both GPUs,
// where `shallow`'s 64 KiB tiles leave one CTA an SM).
inline RmsNormConfig rmsnorm_config_for(int n) {
  if (n <= 1024) return {RmsNormShape::pair, RmsNormStore::threads, false, false, 1};
  if (n <= 4096) return {RmsNormShape::shallow, RmsNormStore::threads, false, false, 1};
  return {RmsNormShape::held_single, RmsNormStore::threads, false, false, 1};
}

// x, y: rows x n bf16 (row-major, contiguous, 16-byte aligned); w: n bf16. n must be one of
// rmsnorm_widths; any row count (0 does nothing). Returns cudaErrorInvalidValue (with the
// reason in *why when given) for a shape it cannot run.
cudaError_t rmsnorm_bf16(const void* x, const void* w, void* y, std::uint64_t rows, int n,
                         float eps, RmsNormConfig config, cudaStream_t stream = nullptr,
                         const char** why = nullptr);
// The same with rmsnorm_config_for(n).
inline cudaError_t rmsnorm_bf16(const void* x, const void* w, void* y, std::uint64_t rows, int n,
                                float eps, cudaStream_t stream = nullptr) {
  return rmsnorm_bf16(x, w, y, rows, n, eps, rmsnorm_config_for(n), stream);
}

// The anchor: one CTA per row, each thread holding vectors_per_thread 16-byte vectors of it
// (1, 2 or 4; n / (8 x vectors_per_thread) threads per CTA).
cudaError_t rmsnorm_bf16_plain(const void* x, const void* w, void* y, std::uint64_t rows, int n,
                               float eps, int vectors_per_thread, cudaStream_t stream = nullptr);

}  // namespace linpipe::kernels

// C entry points for kernels/bench/rmsnorm_bench.py (ctypes, liblinpipe_rmsnorm.so): return
// the cudaError_t as an int. `shape` is an RmsNormShape, `store` an RmsNormStore,
// `persistent` and `evict_first` 0 or 1, `copy_lanes` 1 or 32; shape -1: rmsnorm_config_for(n)
// (the other configuration arguments are then ignored).
extern "C" int linpipe_rmsnorm_bf16(const void* x, const void* w, void* y, unsigned long long rows,
                                    int n, float eps, int shape, int store, int persistent,
                                    int evict_first, int copy_lanes, void* stream);
extern "C" int linpipe_rmsnorm_bf16_plain(const void* x, const void* w, void* y,
                                          unsigned long long rows, int n, float eps,
                                          int vectors_per_thread, void* stream);
