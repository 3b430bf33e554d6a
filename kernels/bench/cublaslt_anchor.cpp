#include "cublaslt_anchor.h"

#include <vector>

namespace linpipe::bench {

// In cuBLASLt's column-major terms C^T (n x m) = op_T(B stored k x n) x A (stored k x m): the
// "TN" GEMM, as the benchmark's cublasGemmEx call.
CublasLtAnchor::CublasLtAnchor(cublasLtHandle_t handle, const void* a, const void* b, void* c, int m, int n,
                               int k, void* workspace, std::size_t workspace_bytes, int candidates, int batch,
                               int rounds)
    : handle_(handle), a_(a), b_(b), c_(c), workspace_(workspace), workspace_bytes_(workspace_bytes) {
  const cublasOperation_t transpose = CUBLAS_OP_T, keep = CUBLAS_OP_N;
  if (cublasLtMatmulDescCreate(&op_, CUBLAS_COMPUTE_32F, CUDA_R_32F) != CUBLAS_STATUS_SUCCESS ||
      cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSA, &transpose, sizeof transpose) !=
          CUBLAS_STATUS_SUCCESS ||
      cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSB, &keep, sizeof keep) != CUBLAS_STATUS_SUCCESS ||
      cublasLtMatrixLayoutCreate(&b_layout_, CUDA_R_16BF, k, n, k) != CUBLAS_STATUS_SUCCESS ||
      cublasLtMatrixLayoutCreate(&a_layout_, CUDA_R_16BF, k, m, k) != CUBLAS_STATUS_SUCCESS ||
      cublasLtMatrixLayoutCreate(&c_layout_, CUDA_R_16BF, n, m, n) != CUBLAS_STATUS_SUCCESS)
    return;
  cublasLtMatmulPreference_t preference = nullptr;
  if (cublasLtMatmulPreferenceCreate(&preference) != CUBLAS_STATUS_SUCCESS) return;
  cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_bytes_,
                                       sizeof workspace_bytes_);
  std::vector<cublasLtMatmulHeuristicResult_t> offered(static_cast<std::size_t>(candidates));
  int returned = 0;
  const cublasStatus_t asked = cublasLtMatmulAlgoGetHeuristic(handle_, op_, b_layout_, a_layout_, c_layout_,
                                                              c_layout_, preference, candidates, offered.data(),
                                                              &returned);
  cublasLtMatmulPreferenceDestroy(preference);
  if (asked != CUBLAS_STATUS_SUCCESS) return;
  cudaEvent_t start, stop;
  if (cudaEventCreate(&start) != cudaSuccess || cudaEventCreate(&stop) != cudaSuccess) return;
  float best_ms = 0.0f;
  for (int i = 0; i < returned; ++i) {
    const cublasLtMatmulAlgo_t& algo = offered[static_cast<std::size_t>(i)].algo;
    if (offered[static_cast<std::size_t>(i)].state != CUBLAS_STATUS_SUCCESS || run(algo) != cudaSuccess) continue;
    ++tried_;
    float fastest = 0.0f;
    for (int round = 0; round < rounds; ++round) {
      cudaEventRecord(start);
      for (int call = 0; call < batch; ++call) run(algo);
      cudaEventRecord(stop);
      cudaEventSynchronize(stop);
      float ms = 0.0f;
      cudaEventElapsedTime(&ms, start, stop);
      if (round == 0 || ms < fastest) fastest = ms;
    }
    if (!found_ || fastest < best_ms) best_ms = fastest, best_ = algo, found_ = true;
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
}

CublasLtAnchor::~CublasLtAnchor() {
  if (c_layout_ != nullptr) cublasLtMatrixLayoutDestroy(c_layout_);
  if (a_layout_ != nullptr) cublasLtMatrixLayoutDestroy(a_layout_);
  if (b_layout_ != nullptr) cublasLtMatrixLayoutDestroy(b_layout_);
  if (op_ != nullptr) cublasLtMatmulDescDestroy(op_);
}

cudaError_t CublasLtAnchor::run() const { return found_ ? run(best_) : cudaErrorNotReady; }

cudaError_t CublasLtAnchor::run(const cublasLtMatmulAlgo_t& algo) const {
  const float alpha = 1.0f, beta = 0.0f;
  const cublasStatus_t status = cublasLtMatmul(handle_, op_, &alpha, b_, b_layout_, a_, a_layout_, &beta, c_,
                                               c_layout_, c_, c_layout_, &algo, workspace_, workspace_bytes_,
                                               nullptr);
  return status == CUBLAS_STATUS_SUCCESS ? cudaSuccess : cudaErrorUnknown;
}

}  // namespace linpipe::bench
