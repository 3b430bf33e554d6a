#include "check_buffers.h"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace linpipe::kernels {
namespace {

__device__ std::uint64_t mix(std::uint64_t x) {  // splitmix64
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

__global__ void fill_kernel(std::uint8_t* ptr, std::size_t bytes, std::uint64_t seed) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t word = blockIdx.x * blockDim.x + threadIdx.x; word * 8 < bytes; word += stride) {
    const std::uint64_t value = mix(seed ^ mix(word));
    for (int b = 0; b < 8 && word * 8 + b < bytes; ++b) ptr[word * 8 + b] = value >> (8 * b);
  }
}

__global__ void compare_kernel(const std::uint8_t* a, const std::uint8_t* b, std::size_t bytes,
                               unsigned long long* mismatches) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned long long local = 0;
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < bytes; i += stride) {
    local += a[i] != b[i];
  }
  if (local != 0) atomicAdd(mismatches, local);
}

// The copy a user would write instead of a pipeline: one 16-byte vector per thread, one-shot
// grid (no loop); the last bytes % 16 by the first threads, byte by byte. Streaming: loads
// marked evict-first (__ldcs: ld.global.cs), as each line is read once.
template <bool Streaming>
__global__ void plain_copy_kernel(uint4* dst, const uint4* src, std::size_t vectors,
                                  std::uint8_t* dst_tail, const std::uint8_t* src_tail,
                                  std::size_t tail) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < vectors) {
    if constexpr (Streaming) {
      dst[i] = __ldcs(src + i);
    } else {
      dst[i] = src[i];
    }
  }
  if (i < tail) dst_tail[i] = src_tail[i];
}

}  // namespace

cudaError_t plain_copy(void* dst, const void* src, std::size_t bytes, PlainCopyConfig config,
                       cudaStream_t stream) {
  if (config.threads == 0 || config.threads > 1024 || config.threads % 32 != 0) return cudaErrorInvalidValue;
  const std::size_t vectors = bytes / 16, tail = bytes % 16;
  const std::size_t blocks = (vectors > tail ? vectors : tail) / config.threads + 1;
  const auto kernel = config.streaming ? plain_copy_kernel<true> : plain_copy_kernel<false>;
  kernel<<<static_cast<unsigned>(blocks), config.threads, 0, stream>>>(
      static_cast<uint4*>(dst), static_cast<const uint4*>(src), vectors,
      static_cast<std::uint8_t*>(dst) + vectors * 16, static_cast<const std::uint8_t*>(src) + vectors * 16,
      tail);
  return cudaGetLastError();
}

cudaError_t fill_random(void* ptr, std::size_t bytes, std::uint64_t seed, cudaStream_t stream) {
  fill_kernel<<<1024, 256, 0, stream>>>(static_cast<std::uint8_t*>(ptr), bytes, seed);
  return cudaGetLastError();
}

cudaError_t count_mismatches(const void* a, const void* b, std::size_t bytes,
                             unsigned long long* mismatches) {
  unsigned long long* device_count = nullptr;
  cudaError_t status = cudaMalloc(&device_count, sizeof(*device_count));
  if (status != cudaSuccess) return status;
  status = cudaMemset(device_count, 0, sizeof(*device_count));
  if (status == cudaSuccess) {
    compare_kernel<<<1024, 256>>>(static_cast<const std::uint8_t*>(a),
                                  static_cast<const std::uint8_t*>(b), bytes, device_count);
    status = cudaGetLastError();
  }
  if (status == cudaSuccess) {
    status = cudaMemcpy(mismatches, device_count, sizeof(*mismatches), cudaMemcpyDeviceToHost);
  }
  cudaFree(device_count);
  return status;
}

}  // namespace linpipe::kernels
