// The end of a warpgroup's rows: O / sum and the log-sum-exp, stored to global memory.
// Part of attention.cu's kernel (see there); included in order, after `import linpipe;`.
#pragma once

namespace linpipe::kernels {
namespace {

// The end of a warpgroup's rows: O / sum and the log-sum-exp (natural log) of each of the
// thread's rows inside the sequence.
template <int HeadDim>
__device__ __forceinline__ void store_rows(const float (&o)[HeadDim / 2], const RowStats& stats,
                                           const Fragment& f, std::uint16_t* out, float* lse,
                                           int head_row0, int query0, int seq) {
  constexpr float ln2 = 0.6931471805599453f;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int query = query0 + f.row0 + 8 * h;
    const float sum = quad_sum(stats.sum[h]);
    if (query >= seq) continue;
    const float inverse = 1.0f / sum;
    std::uint16_t* row = out + static_cast<std::size_t>(head_row0 + query) * HeadDim;
#pragma unroll
    for (int g = 0; g < HeadDim / 8; ++g) {
      const std::uint32_t pair = ptx::pack_bf16x2(o[4 * g + 2 * h] * inverse, o[4 * g + 2 * h + 1] * inverse);
      *reinterpret_cast<std::uint32_t*>(row + 8 * g + f.col0) = pair;
    }
    if (lse != nullptr && threadIdx.x % 4 == 0) lse[head_row0 + query] = (stats.max[h] + __log2f(sum)) * ln2;
  }
}

}  // namespace
}  // namespace linpipe::kernels
