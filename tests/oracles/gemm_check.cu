// Random fill, poisoning and comparison of bf16 matrices on the device. See gemm_check.h.
#include "gemm_check.h"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace linpipe::kernels {
namespace {

__device__ float bf16_to_float(std::uint16_t bits) {
  return __uint_as_float(static_cast<std::uint32_t>(bits) << 16);
}

__device__ std::uint64_t mix(std::uint64_t x) {  // splitmix64 finaliser
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

__global__ void fill_kernel(std::uint16_t* out, std::size_t count, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x) {
    // 8 random bits of mantissa and a sign over [0.5, 1) x 2^-e: uniform-ish in [-1, 1).
    const std::uint64_t r = mix(seed * 0x100000001B3ull + i);
    const float u = static_cast<float>(r >> 40) * (1.0f / 16777216.0f);  // [0, 1)
    const float v = 2.0f * u - 1.0f;
    out[i] = static_cast<std::uint16_t>(__float_as_uint(v) >> 16);  // truncation: exact bf16
  }
}

__global__ void poison_kernel(std::uint16_t* out, std::size_t count) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x)
    out[i] = 0xFFFFu;
}

struct Sums {
  double diff2;
  double ref2;
  unsigned long long non_finite;
};

__global__ void compare_kernel(const std::uint16_t* out, const std::uint16_t* ref,
                               std::size_t count, Sums* sums) {
  double diff2 = 0, ref2 = 0;
  unsigned long long bad = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const float o = bf16_to_float(out[i]);
    const float r = bf16_to_float(ref[i]);
    if (!isfinite(o)) {
      ++bad;
      continue;
    }
    const double d = static_cast<double>(o) - r;
    diff2 += d * d;
    ref2 += static_cast<double>(r) * r;
  }
  atomicAdd(&sums->diff2, diff2);
  atomicAdd(&sums->ref2, ref2);
  atomicAdd(&sums->non_finite, bad);
}

constexpr int threads = 256;
constexpr int blocks = 1024;

}  // namespace

cudaError_t fill_random_bf16(void* ptr, std::size_t count, std::uint64_t seed,
                             cudaStream_t stream) {
  fill_kernel<<<blocks, threads, 0, stream>>>(static_cast<std::uint16_t*>(ptr), count, seed);
  return cudaGetLastError();
}

cudaError_t poison_bf16(void* ptr, std::size_t count, cudaStream_t stream) {
  poison_kernel<<<blocks, threads, 0, stream>>>(static_cast<std::uint16_t*>(ptr), count);
  return cudaGetLastError();
}

cudaError_t compare_bf16(const void* out, const void* ref, std::size_t count,
                         Bf16Comparison* result) {
  Sums* sums = nullptr;
  cudaError_t status = cudaMalloc(&sums, sizeof(Sums));
  if (status != cudaSuccess) return status;
  Sums host{};
  if ((status = cudaMemset(sums, 0, sizeof(Sums))) == cudaSuccess) {
    compare_kernel<<<blocks, threads>>>(static_cast<const std::uint16_t*>(out),
                                        static_cast<const std::uint16_t*>(ref), count, sums);
    if ((status = cudaGetLastError()) == cudaSuccess)
      status = cudaMemcpy(&host, sums, sizeof(Sums), cudaMemcpyDeviceToHost);
  }
  const cudaError_t freed = cudaFree(sums);
  if (status != cudaSuccess) return status;
  if (freed != cudaSuccess) return freed;
  result->relative_error = host.ref2 > 0 ? __builtin_sqrt(host.diff2 / host.ref2) : 0.0;
  result->non_finite = host.non_finite;
  result->ref_norm = __builtin_sqrt(host.ref2);
  return cudaSuccess;
}

}  // namespace linpipe::kernels
