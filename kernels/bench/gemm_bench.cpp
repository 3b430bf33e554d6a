// linpipe's bf16 GEMM (C = A x B^T, fp32 accumulation) against cuBLAS in the same process, on
// the same random inputs: correctness against cuBLAS first (relative Frobenius error, every
// output element written), then the median time of many runs after warm-up, in TFLOP/s, for
// both variants (one CTA a tile; 2-CTA clusters sharing B through TMA multicast).
// Usage: gemm_bench [--quick]   (--quick: fewer timed runs)
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <vector>

#include "bench_timing.h"
#include "gemm.h"
#include "gemm_check.h"

using namespace linpipe::kernels;

namespace {

#define CUBLAS_CHECK(call)                                                          \
  do {                                                                              \
    const cublasStatus_t status_ = (call);                                          \
    if (status_ != CUBLAS_STATUS_SUCCESS) {                                         \
      std::fprintf(stderr, "%s:%d: %s: cuBLAS status %d\n", __FILE__, __LINE__, #call, \
                   static_cast<int>(status_));                                      \
      std::exit(1);                                                                 \
    }                                                                               \
  } while (0)

struct Shape {
  int m, n, k;
};

// C (M x N, row-major) = A (M x K, row-major) x B^T (B: N x K, row-major). In cuBLAS's
// column-major terms that is C^T (N x M) = B^T-as-stored (op T on the K x N column-major B)
// x A (the K x M column-major A): the "TN" GEMM.
cublasStatus_t cublas_gemm(cublasHandle_t handle, const void* a, const void* b, void* c, const Shape& s) {
  const float alpha = 1.0f, beta = 0.0f;
  return cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, s.n, s.m, s.k, &alpha, b, CUDA_R_16BF, s.k,
                      a, CUDA_R_16BF, s.k, &beta, c, CUDA_R_16BF, s.n, CUBLAS_COMPUTE_32F,
                      CUBLAS_GEMM_DEFAULT);
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  const int runs = quick ? 10 : 50;
  const std::vector<Shape> shapes = {{256, 256, 64},    {2048, 2048, 2048}, {4096, 4096, 4096},
                                     {8192, 8192, 8192}, {8192, 4096, 2048}, {2048, 8192, 8192}};
  cudaDeviceProp prop{};
  BENCH_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, %d SMs\n", prop.name, prop.multiProcessorCount);

  std::size_t max_a = 0, max_b = 0, max_c = 0;
  for (const Shape& s : shapes) {
    max_a = std::max(max_a, std::size_t(s.m) * s.k);
    max_b = std::max(max_b, std::size_t(s.n) * s.k);
    max_c = std::max(max_c, std::size_t(s.m) * s.n);
  }
  void *a, *b, *c, *ref;
  BENCH_CHECK(cudaMalloc(&a, max_a * 2));
  BENCH_CHECK(cudaMalloc(&b, max_b * 2));
  BENCH_CHECK(cudaMalloc(&c, max_c * 2));
  BENCH_CHECK(cudaMalloc(&ref, max_c * 2));
  cublasHandle_t handle;
  CUBLAS_CHECK(cublasCreate(&handle));

  struct Row {
    Shape s;
    double cublas_tflops, linpipe_tflops, cluster_tflops, error;
  };
  const GemmConfig variants[2] = {{1}, {2}};
  std::vector<Row> rows;
  bool ok = true;
  std::uint64_t seed = 2026;
  for (const Shape& s : shapes) {
    BENCH_CHECK(fill_random_bf16(a, std::size_t(s.m) * s.k, seed++));
    BENCH_CHECK(fill_random_bf16(b, std::size_t(s.n) * s.k, seed++));
    BENCH_CHECK(poison_bf16(c, std::size_t(s.m) * s.n));
    BENCH_CHECK(poison_bf16(ref, std::size_t(s.m) * s.n));
    CUBLAS_CHECK(cublas_gemm(handle, a, b, ref, s));
    double error = 0;
    bool shape_ok = true;
    for (const GemmConfig& config : variants) {
      BENCH_CHECK(poison_bf16(c, std::size_t(s.m) * s.n));
      const char* why = nullptr;
      const cudaError_t launched = gemm_bf16(a, b, c, s.m, s.n, s.k, config, nullptr, &why);
      if (launched != cudaSuccess) {
        std::fprintf(stderr, "gemm_bf16 %dx%dx%d cluster %d: %s (%s)\n", s.m, s.n, s.k,
                     config.cluster_m, cudaGetErrorString(launched), why ? why : "-");
        return 1;
      }
      BENCH_CHECK(cudaDeviceSynchronize());
      Bf16Comparison cmp{};
      BENCH_CHECK(compare_bf16(c, ref, std::size_t(s.m) * s.n, &cmp));
      const bool good = cmp.non_finite == 0 && cmp.ref_norm > 0 && cmp.relative_error < 1e-2;
      shape_ok = shape_ok && good;
      error = std::max(error, cmp.relative_error);
      std::printf("check %5dx%5dx%5d cluster %d: rel err %.3e (||ref|| %.3e), non-finite %llu -> %s\n",
                  s.m, s.n, s.k, config.cluster_m, cmp.relative_error, cmp.ref_norm,
                  cmp.non_finite, good ? "ok" : "WRONG");
      std::fflush(stdout);
    }
    ok = ok && shape_ok;
    if (!shape_ok || s.m * std::size_t(s.n) < 1000000) continue;  // the tiny shape: check only

    const double flops = 2.0 * s.m * s.n * double(s.k);
    const int shape_runs = flops > 5e11 ? runs : runs * 4;
    const double t_cublas = median_ms(
        [&] {
          return cublas_gemm(handle, a, b, ref, s) == CUBLAS_STATUS_SUCCESS ? cudaSuccess
                                                                              : cudaErrorUnknown;
        },
        5, shape_runs);
    const double t_linpipe =
        median_ms([&] { return gemm_bf16(a, b, c, s.m, s.n, s.k, variants[0]); }, 5, shape_runs);
    const double t_cluster =
        median_ms([&] { return gemm_bf16(a, b, c, s.m, s.n, s.k, variants[1]); }, 5, shape_runs);
    rows.push_back({s, flops / t_cublas / 1e9, flops / t_linpipe / 1e9, flops / t_cluster / 1e9,
                    error});
    std::printf("time  %5dx%5dx%5d: cuBLAS %.3f ms, linpipe %.3f ms, linpipe 2-CTA %.3f ms\n", s.m,
                s.n, s.k, t_cublas, t_linpipe, t_cluster);
    std::fflush(stdout);
  }
  CUBLAS_CHECK(cublasDestroy(handle));
  BENCH_CHECK(cudaFree(a));
  BENCH_CHECK(cudaFree(b));
  BENCH_CHECK(cudaFree(c));
  BENCH_CHECK(cudaFree(ref));

  std::printf("\nTFLOP/s (median of %d+ runs)\n%-16s %8s %8s %6s %8s %6s %9s\n", runs, "M x N x K",
              "cuBLAS", "linpipe", "ratio", "2-CTA", "ratio", "rel err");
  for (const Row& r : rows) {
    char shape[32];
    std::snprintf(shape, sizeof shape, "%dx%dx%d", r.s.m, r.s.n, r.s.k);
    std::printf("%-16s %8.1f %8.1f %6.3f %8.1f %6.3f %9.2e\n", shape, r.cublas_tflops,
                r.linpipe_tflops, r.linpipe_tflops / r.cublas_tflops, r.cluster_tflops,
                r.cluster_tflops / r.cublas_tflops, r.error);
  }
  std::printf("%s\n", ok ? "all checks passed" : "SOME CHECKS FAILED");
  return ok ? 0 : 1;
}
