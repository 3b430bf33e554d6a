// The online softmax on a warpgroup's accumulator fragments: masking, the running row
// statistics, rescaling the output rows, and P packed as wgmma's A operand.
// Part of attention_kernels.cu (see there); included in order, after `import linpipe;`.
#pragma once

namespace linpipe::kernels {
namespace {

// The running softmax statistics of the thread's two rows, base 2, scaled by the softmax
// scale: max over the keys seen so far and this thread's share of the sum of exp2(x - max)
// (the four threads of a row hold a quarter each until the end).
struct RowStats {
  float max[2] = {-__builtin_inff(), -__builtin_inff()};
  float sum[2] = {0.0f, 0.0f};
};

__device__ inline float quad_max(float x) {
  x = __builtin_fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 1));
  return __builtin_fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 2));
}
__device__ inline float quad_sum(float x) {
  x += __shfl_xor_sync(0xffffffffu, x, 1);
  return x + __shfl_xor_sync(0xffffffffu, x, 2);
}

// Lazy rescaling (FlashAttention 4): a row's running maximum moves only when a tile's scaled
// scores pass it by more than this (base 2), so most tiles of a long row rescale nothing.
// Below it every exp2(x - max) is at most 2^8, which P (bf16) and the fp32 sums hold at full
// relative precision, and the final division by the sum cancels whichever maximum was used.
constexpr float lazy_max_slack_log2 = 8.0f;

// What the output rows must be multiplied by before the next P V (how much each row's maximum
// moved) and, lazily, whether any row of the warp moved (warp-uniform), so a warp whose rows
// all kept their maximum skips the multiplies. The eager form has no flag: even a constant
// one changed the overlapped kernels' SASS.
template <bool Lazy>
struct Rescale {
  float factor[2];
};
template <>
struct Rescale<true> {
  float factor[2];
  bool any;
};

// S (64 x 128 of this warpgroup) -> P, in place and in fp32: masks keys past the sequence
// and, when causal, after the query (only in a tile that has such keys for one of the
// warpgroup's rows: the others need no test); folds the tile into `stats`, whose maximum is
// kept scaled (base 2): moved to every new maximum, or with Lazy only past the slack above.
// Returns in `rescale` what the output rows must be multiplied by, which rescale_rows applies
// once no wgmma writes them; pack_p makes wgmma's A operand of P.
template <bool Lazy>
__device__ __forceinline__ void softmax_tile(float (&s)[64], Rescale<Lazy>& rescale, RowStats& stats,
                                             const AccumulatorPlace& f, const ConsumerTask& task,
                                             int key0) {
  const int seq = task.seq;
  const float scale_log2 = task.scale_log2;
  float tile_max[2] = {-__builtin_inff(), -__builtin_inff()};
  const int last_key = key0 + block_kv - 1;
  // task.query0, every head's first query, is the warpgroup's smallest: warpgroup-uniform.
  const bool masked = last_key >= seq || (task.causal && last_key > task.query0);
  if (masked) {
    // Element i's key is first_key + 8 (i / 4) + i % 2. Row half h keeps the keys before
    // first_key + visible[h]: those in the sequence and, when causal, up to its row's query.
    // One compare with an immediate an element.
    const int first_key = key0 + f.col0;
    int visible[2];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int to_diagonal = row_query(f, task, h) + 1;
      visible[h] = (task.causal && to_diagonal < seq ? to_diagonal : seq) - first_key;
    }
#pragma unroll
    for (int i = 0; i < 64; ++i) {
      const int offset = 8 * (i / 4) + i % 2;
      s[i] = offset < visible[(i / 2) % 2] ? s[i] : -__builtin_inff();
    }
  }
#pragma unroll
  for (int i = 0; i < 64; ++i) tile_max[(i / 2) % 2] = __builtin_fmaxf(tile_max[(i / 2) % 2], s[i]);
  bool moved = false;  // lazy: whether a row of this thread moved its maximum
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    // The scale is positive: the maximum of the scaled scores is the scaled maximum.
    const float grown = __builtin_fmaxf(stats.max[h], quad_max(tile_max[h]) * scale_log2);
    // Lazy: decided per row (its four threads agree), with selects, so the exponentials below
    // never wait for the warp's vote. A row's first key always moves its -inf maximum.
    const bool moves = !Lazy || grown > stats.max[h] + lazy_max_slack_log2;
    const float kept = moves ? grown : stats.max[h];
    // A row with no key yet (all masked so far) keeps max -inf: subtract 0 instead of inf.
    const float base = kept == -__builtin_inff() ? 0.0f : kept;
    rescale.factor[h] = moves ? ptx::ex2_approx_ftz(stats.max[h] - base) : 1.0f;
    stats.max[h] = kept;
    stats.sum[h] *= rescale.factor[h];
    tile_max[h] = base;
    moved |= moves;
  }
  if constexpr (Lazy) rescale.any = __any_sync(0xffffffffu, moved);
#pragma unroll
  for (int i = 0; i < 64; ++i) {
    const int h = (i / 2) % 2;
    // One FFMA and one MUFU.EX2 (exp2f would add a subnormal range check and two multiplies).
    s[i] = ptx::ex2_approx_ftz(__builtin_fmaf(s[i], scale_log2, -tile_max[h]));
    stats.sum[h] += s[i];
  }
}

// P (fp32, an m64n128 accumulator's layout) -> bf16 pairs as wgmma's register A operand: the
// k16 chunk c of P (columns 16c..) is accumulator groups 2c and 2c + 1.
__device__ __forceinline__ void pack_p(const float (&s)[64], std::uint32_t (&p)[32]) {
#pragma unroll
  for (int c = 0; c < 8; ++c) {
#pragma unroll
    for (int r = 0; r < 4; ++r) p[4 * c + r] = ptx::pack_bf16x2(s[8 * c + 2 * r], s[8 * c + 2 * r + 1]);
  }
}

template <int OutRegs, bool Lazy>
__device__ __forceinline__ void rescale_rows(float (&o)[OutRegs], const Rescale<Lazy>& rescale) {
  if constexpr (Lazy) {
    if (!rescale.any) return;
  }
#pragma unroll
  for (int i = 0; i < OutRegs; ++i) o[i] *= rescale.factor[(i / 2) % 2];
}

}  // namespace
}  // namespace linpipe::kernels
