// The anchor for rmsnorm_bf16 (see rmsnorm.h): a plain kernel with no pipeline, the usual way
// to write RMSNorm. One CTA per row; each thread loads vectors_per_thread 16-byte vectors of
// the row into registers, the mean square is reduced across the CTA in fp32, and each thread
// writes its vectors scaled. No linpipe inside, so it measures the plain approach alone.
#include "rmsnorm.h"

#include <cuda_runtime.h>

#include <cstdint>

namespace linpipe::kernels {
namespace {

__device__ float plain_warp_sum(float value) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) value += __shfl_xor_sync(0xffffffffu, value, offset);
  return value;
}
__device__ void unpack(std::uint32_t pair, float& lo, float& hi) {
  lo = __uint_as_float(pair << 16);
  hi = __uint_as_float(pair & 0xffff0000u);
}
__device__ std::uint32_t pack(float lo, float hi) {
  std::uint32_t packed;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(packed) : "f"(hi), "f"(lo));
  return packed;
}

template <int N, int VectorsPerThread>
__global__ void __launch_bounds__(N / 8 / VectorsPerThread)
    rmsnorm_plain_kernel(const uint4* x, const uint4* w, uint4* y, std::uint64_t rows, float eps) {
  constexpr int threads = N / 8 / VectorsPerThread;
  constexpr int warps = threads / 32;
  static_assert(threads % 32 == 0, "whole warps");
  __shared__ float partial[warps];
  for (std::uint64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const uint4* in = x + row * (N / 8);
    uint4 held[VectorsPerThread];
    float squares = 0.0f;
#pragma unroll
    for (int k = 0; k < VectorsPerThread; ++k) {
      held[k] = in[threadIdx.x + k * threads];
      for (const std::uint32_t pair : {held[k].x, held[k].y, held[k].z, held[k].w}) {
        float lo, hi;
        unpack(pair, lo, hi);
        squares = fmaf(lo, lo, fmaf(hi, hi, squares));
      }
    }
    squares = plain_warp_sum(squares);
    if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = squares;
    __syncthreads();
    float total = 0.0f;
#pragma unroll
    for (int i = 0; i < warps; ++i) total += partial[i];
    __syncthreads();  // partial[] is rewritten by the next row
    const float scale = rsqrtf(total * (1.0f / N) + eps);
    uint4* out = y + row * (N / 8);
#pragma unroll
    for (int k = 0; k < VectorsPerThread; ++k) {
      const uint4 wv = w[threadIdx.x + k * threads];
      const std::uint32_t xs[4] = {held[k].x, held[k].y, held[k].z, held[k].w};
      const std::uint32_t ws[4] = {wv.x, wv.y, wv.z, wv.w};
      std::uint32_t o[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        float x_lo, x_hi, w_lo, w_hi;
        unpack(xs[i], x_lo, x_hi);
        unpack(ws[i], w_lo, w_hi);
        o[i] = pack(x_lo * scale * w_lo, x_hi * scale * w_hi);
      }
      out[threadIdx.x + k * threads] = make_uint4(o[0], o[1], o[2], o[3]);
    }
  }
}

template <int N, int VectorsPerThread>
cudaError_t launch_plain(const void* x, const void* w, void* y, std::uint64_t rows, float eps,
                         cudaStream_t stream) {
  const std::uint64_t grid = rows < 0x7fffffffull ? rows : 0x7fffffffull;
  rmsnorm_plain_kernel<N, VectorsPerThread><<<static_cast<unsigned>(grid), N / 8 / VectorsPerThread, 0,
                                              stream>>>(static_cast<const uint4*>(x),
                                                        static_cast<const uint4*>(w),
                                                        static_cast<uint4*>(y), rows, eps);
  return cudaGetLastError();
}

template <int N>
cudaError_t plain_width(const void* x, const void* w, void* y, std::uint64_t rows, float eps,
                        int vectors_per_thread, cudaStream_t stream) {
  switch (vectors_per_thread) {
    case 1: return launch_plain<N, 1>(x, w, y, rows, eps, stream);
    case 2: return launch_plain<N, 2>(x, w, y, rows, eps, stream);
    case 4: return launch_plain<N, 4>(x, w, y, rows, eps, stream);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace

cudaError_t rmsnorm_bf16_plain(const void* x, const void* w, void* y, std::uint64_t rows, int n,
                               float eps, int vectors_per_thread, cudaStream_t stream) {
  if (rows == 0) return cudaSuccess;
  switch (n) {
    case 1024: return plain_width<1024>(x, w, y, rows, eps, vectors_per_thread, stream);
    case 2048: return plain_width<2048>(x, w, y, rows, eps, vectors_per_thread, stream);
    case 4096: return plain_width<4096>(x, w, y, rows, eps, vectors_per_thread, stream);
    case 8192: return plain_width<8192>(x, w, y, rows, eps, vectors_per_thread, stream);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace linpipe::kernels

extern "C" int linpipe_rmsnorm_bf16_plain(const void* x, const void* w, void* y,
                                          unsigned long long rows, int n, float eps,
                                          int vectors_per_thread, void* stream) {
  return static_cast<int>(linpipe::kernels::rmsnorm_bf16_plain(
      x, w, y, rows, n, eps, vectors_per_thread, static_cast<cudaStream_t>(stream)));
}
