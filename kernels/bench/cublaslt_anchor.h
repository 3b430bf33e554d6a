// The anchor a user with cuBLASLt would pick for the benchmark's GEMM (C = A x B^T, bf16 in and
// out, fp32 accumulation): the algorithms cuBLASLt's heuristic offers first for the shape, each
// timed, the fastest kept.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime.h>

namespace linpipe::bench {

class CublasLtAnchor {
 public:
  // A (m x k) and B (n x k) row-major, C (m x n) row-major; `workspace` of workspace_bytes device
  // bytes for the algorithms that want one. Tries up to `candidates` algorithms, each timed in
  // `batch` back-to-back calls, best of `rounds`. ok() says whether any ran.
  CublasLtAnchor(cublasLtHandle_t handle, const void* a, const void* b, void* c, int m, int n, int k,
                 void* workspace, std::size_t workspace_bytes, int candidates, int batch, int rounds);
  ~CublasLtAnchor();
  CublasLtAnchor(const CublasLtAnchor&) = delete;
  CublasLtAnchor& operator=(const CublasLtAnchor&) = delete;

  bool ok() const { return found_; }
  int tried() const { return tried_; }
  // One call with the kept algorithm.
  cudaError_t run() const;

 private:
  cudaError_t run(const cublasLtMatmulAlgo_t& algo) const;

  cublasLtHandle_t handle_;
  const void* a_;
  const void* b_;
  void* c_;
  void* workspace_;
  std::size_t workspace_bytes_;
  cublasLtMatmulDesc_t op_ = nullptr;
  cublasLtMatrixLayout_t b_layout_ = nullptr, a_layout_ = nullptr, c_layout_ = nullptr;
  cublasLtMatmulAlgo_t best_{};
  bool found_ = false;
  int tried_ = 0;
};

}  // namespace linpipe::bench
