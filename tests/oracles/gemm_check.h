// Device-side helpers for the GEMM's benchmark and tests: random bf16 fill and the relative
// error of one bf16 matrix against another, without copying large matrices to the host.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace linpipe::kernels {

// Fills `count` bf16 values at ptr with uniform pseudo-random values in [-1, 1) from seed.
cudaError_t fill_random_bf16(void* ptr, std::size_t count, std::uint64_t seed,
                             cudaStream_t stream = nullptr);

// Sets `count` bf16 values at ptr to a NaN pattern (0xFFFF), so unwritten outputs show.
cudaError_t poison_bf16(void* ptr, std::size_t count, cudaStream_t stream = nullptr);

struct Bf16Comparison {
  double relative_error;               // ||out - ref|| / ||ref|| (Frobenius), over finite pairs
  unsigned long long non_finite;       // elements of out that are NaN or infinite
  double ref_norm;                     // ||ref||: zero means the inputs were degenerate
};

// Compares out against ref (both `count` bf16 values); synchronises.
cudaError_t compare_bf16(const void* out, const void* ref, std::size_t count,
                         Bf16Comparison* result);

}  // namespace linpipe::kernels
