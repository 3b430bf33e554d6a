// The producer: one lane loading Q, K and V tiles with TMA into their pipelines.
// Part of attention_kernels.cu (see there); included in order, after `import linpipe;`.
#pragma once

namespace linpipe::kernels {
namespace {

// Loads one tile box by box onto the stage's full barrier, which expects the whole tile: rows
// `row` .. row + 127 of plane `head` for K and V, or rows_per_head(block_q) rows from `row` of each
// of the packed heads from plane `head` for Q (the map's box says which). Rows past the
// sequence come as zeros. cache_policy: none, or one L2 policy for every box's reads.
template <class TileT, class Stage, class... CachePolicy>
__device__ void load_tile(TileT& tile, const CUtensorMap* map, int row, int head, const Stage& stage,
                          CachePolicy... cache_policy) {
  static_assert(sizeof...(CachePolicy) <= 1, "load_tile takes at most one L2 cache policy");
  const auto full = stage.mbar();
  full.arrive_expect_tx(sizeof(TileT));
#pragma unroll
  for (int b = 0; b < TileT::boxes; ++b)
    ptx::tma_load_3d(tile.box[b], map, b * box_cols, row, head, full.address(), cache_policy...);
}

// One lane, for each of the CTA's query blocks (`items`: its walk of the schedule): Q once,
// then K and V tile by tile (one K/V head's, for all the block's query heads). Every stage is
// released as soon as its loads are issued (the full barrier's expect-tx is the signal), so
// the next block's loads start as soon as stages free up; drain() before exit.
template <class B, class Items>
__device__ void produce(typename B::QPipeline& q_pipe, KvPipeline& k_pipe, KvPipeline& v_pipe,
                        SharedMemory<B>& shared, const CUtensorMap* map_q,
                        const CUtensorMap* map_k, const CUtensorMap* map_v, Items&& items,
                        const HeadPacking& packing, int seq, bool causal) {
  for (const WorkItem item : items) {
    const QueryBlock block(item, packing, B::block_q, seq, causal);
    auto q = q_pipe.acquire_producer();
    if constexpr (B::q_o_evict_first) {
      load_tile(shared.q[q], map_q, block.query0, block.q_plane, q, ptx::createpolicy_evict_first());
    } else {
      load_tile(shared.q[q], map_q, block.query0, block.q_plane, q);
    }
    q.release();
    for (int j = 0; j < block.tiles; ++j) {
      auto k = k_pipe.acquire_producer();
      load_tile(shared.k[k], map_k, j * block_kv, block.kv_plane, k);
      k.release();
      auto v = v_pipe.acquire_producer();
      load_tile(shared.v[v], map_v, j * block_kv, block.kv_plane, v);
      v.release();
    }
  }
  q_pipe.drain();
  k_pipe.drain();
  v_pipe.drain();
}

}  // namespace
}  // namespace linpipe::kernels
