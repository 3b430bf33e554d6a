// The end of a warpgroup's rows: O / sum stored through the warpgroup's staging boxes and the
// tensor copy engine, and the log-sum-exp stored from registers.
// Part of attention_kernels.cu (see there); included in order, after `import linpipe;`.
#pragma once

namespace linpipe::kernels {
namespace {

// The TMA stores of a warpgroup's output boxes, one a box, to (column, task.query0) of plane
// task.head; cache_policy: none, or one L2 policy for their writes. On the storing thread.
template <class B, class... CachePolicy>
__device__ __forceinline__ void store_output_boxes(const CUtensorMap* map_o, const ConsumerTask& task,
                                                   typename B::QTile& q, CachePolicy... cache_policy) {
  static_assert(sizeof...(CachePolicy) <= 1, "store_output_boxes takes at most one L2 cache policy");
#pragma unroll
  for (int c = 0; c < B::head_dim / box_cols; ++c) {
    ptx::tma_store_3d(map_o, c * box_cols, task.query0, task.head, output_box(q, task.warpgroup, c).elems,
                      cache_policy...);
  }
}

// O / sum (bf16) for the warpgroup's 64 rows, written into its staging boxes (64 columns each,
// over its rows of the block's Q tile `q`: output_box; every S of the warpgroup has retired),
// then stored by one TMA store a box at (column, task.query0) of plane task.head (the map's
// box: the warpgroup's rows of each of its heads, head by head); the map drops rows past the
// sequence (evict-first in L2 where B::q_o_evict_first). One begin() and one store() a query
// block: two warpgroup barriers. Then the log-sum-exp (natural log) of each of the thread's rows
// inside the sequence. Inlined: a call would pass O through local memory.
template <class B>
__device__ __forceinline__ void store_rows(const float (&o)[B::head_dim / 2], const RowStats& stats,
                                           const AccumulatorPlace& f, const ConsumerTask& task,
                                           typename B::QTile& q, const CUtensorMap* map_o, float* lse) {
  constexpr float ln2 = 0.6931471805599453f;
  float inverse[2], sum[2];
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    sum[h] = quad_sum(stats.sum[h]);
    inverse[h] = 1.0f / sum[h];
  }
  const typename B::OutputStore staged(B::Roles::this_thread());
  const BoxWriter writer(f);
  staged.begin();
#pragma unroll
  for (int c = 0; c < B::head_dim / box_cols; ++c) {
    writer.write(output_box(q, task.warpgroup, c), o, c * (box_cols / 8), inverse);
  }
  staged.store([&] {
    if constexpr (B::q_o_evict_first) {
      store_output_boxes<B>(map_o, task, q, ptx::createpolicy_evict_first());
    } else {
      store_output_boxes<B>(map_o, task, q);
    }
  });
  if (lse == nullptr || threadIdx.x % 4 != 0) return;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int query = row_query(f, task, h);
    if (query < task.seq)
      lse[row_plane(f, task, h) * task.seq + query] = (stats.max[h] + __log2f(sum[h])) * ln2;
  }
}

}  // namespace
}  // namespace linpipe::kernels
