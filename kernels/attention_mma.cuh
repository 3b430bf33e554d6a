// The tensor-core steps: the wgmma descriptors of Q, K and V tiles, S = Q K^T and O += P V.
// Part of attention_kernels.cu (see there); included in order, after `import linpipe;`.
#pragma once

namespace linpipe::kernels {
namespace {

// The descriptors of a stage's tiles, computed before the wgmma.fence that starts a batch of
// wgmma and pinned there (an empty asm the compiler does not move them past), so that only
// wgmma and descriptor steps sit between a batch's instructions.
__device__ __forceinline__ void pin(std::uint64_t& value) { asm volatile("" : "+l"(value)); }

// Q (this warpgroup's 64 rows, K-major) and a K tile (K-major) at their first box.
template <class QTile>
__device__ __forceinline__ std::uint64_t q_descriptor(const QTile& q, int warpgroup) {
  std::uint64_t d = ptx::wgmma_desc_k_major_sw128(ptx::shared_address(q.box[0] + warpgroup * 64 * box_cols));
  pin(d);
  return d;
}
template <class KvTile>
__device__ __forceinline__ std::uint64_t k_descriptor(const KvTile& k) {
  std::uint64_t d = ptx::wgmma_desc_k_major_sw128(ptx::shared_address(k.box[0]));
  pin(d);
  return d;
}
// A V tile, N-major: keys are K, head-dim columns N, one box per 64 columns.
template <class KvTile>
__device__ __forceinline__ std::uint64_t v_descriptor(const KvTile& v) {
  std::uint64_t d = ptx::wgmma_desc_mn_major_sw128(ptx::shared_address(v.box[0]), KvTile::box_bytes);
  pin(d);
  return d;
}

// O (64 x HeadDim) += P (64 x Keys) V (Keys x HeadDim), one wgmma group's worth: the tile's
// first Keys keys (all 128, or the first half where the warpgroup's rows see none past it).
template <int HeadDim, int Keys = block_kv>
__device__ __forceinline__ void accumulate_pv(float (&o)[HeadDim / 2], const std::uint32_t (&p)[32],
                                              std::uint64_t v) {
  static_assert(Keys == block_kv || Keys == block_kv / 2, "a whole K/V tile or its first half");
#pragma unroll
  for (int c = 0; c < Keys / 16; ++c) {
    const std::uint32_t a[4] = {p[4 * c], p[4 * c + 1], p[4 * c + 2], p[4 * c + 3]};
    // k16 chunk c: keys 16c.., 16 rows of 128 bytes (2048 bytes, 128 in descriptor units) on.
    const std::uint64_t b = v + static_cast<std::uint64_t>(c * (16 * 128 >> 4));
    if constexpr (HeadDim == 128) {
      ptx::wgmma_m64n128k16_bf16_rs_nmajor(o, a, b, 1);
    } else {
      ptx::wgmma_m64n64k16_bf16_rs_nmajor(o, a, b, 1);
    }
  }
}

// S (64 x 128) = Q (this warpgroup's 64 rows x HeadDim) K^T, one wgmma group's worth.
template <class B>
__device__ __forceinline__ void score_tile(float (&s)[64], std::uint64_t q, std::uint64_t k) {
#pragma unroll
  for (int kk = 0; kk < B::head_dim / 16; ++kk) {
    // Box kk / 4 (one box of the tile on: its bytes in 16-byte descriptor units), then +2
    // per k16 step inside it: 32 bytes along the swizzled 128-byte row, in 16-byte units.
    const auto step = [kk](std::uint32_t box_bytes) {
      return static_cast<std::uint64_t>((kk / (box_cols / 16)) * (box_bytes >> 4) + 2 * (kk % (box_cols / 16)));
    };
    const std::uint64_t q_at = q + step(B::QTile::box_bytes), k_at = k + step(B::KvTile::box_bytes);
    if (kk == 0) {
      ptx::wgmma_m64n128k16_bf16_first(s, q_at, k_at);
    } else {
      ptx::wgmma_m64n128k16_bf16(s, q_at, k_at, 1);
    }
  }
}

}  // namespace
}  // namespace linpipe::kernels
