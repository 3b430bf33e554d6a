// Which (head, query block) tiles each CTA takes, in which order, how many K/V tiles each
// reads, and which heads and queries a consumer warpgroup's rows are.
// Part of attention_kernels.cu (see there); included in order, after `import linpipe;`.
#pragma once

namespace linpipe::kernels {
namespace {

// Which keys a CTA whose heads' queries are query0 .. query0 + rows - 1 reads: all tiles, or
// up to the last query's diagonal when causal.
__device__ __host__ inline int kv_tiles(int seq, int query0, int rows, bool causal) {
  const int all = (seq + block_kv - 1) / block_kv;
  const int to_diagonal = (query0 + rows - 1) / block_kv + 1;
  return causal && to_diagonal < all ? to_diagonal : all;
}

// The K/V tiles a consumer warpgroup computes on, for rows `query0 .. query0 + rows - 1` of
// each of its heads: those its rows see, which may be fewer than its block loads (a 192-row
// block on 128-key tiles: the first warpgroup's rows end a tile before the block's diagonal),
// and one where every row lies past the sequence (a short last block's; the store drops them).
__device__ __host__ inline int warpgroup_kv_tiles(int seq, int query0, int rows, bool causal) {
  return query0 < seq ? kv_tiles(seq, query0, rows, causal) : 1;
}

// A CTA's query block (block_q rows, the kernel's): its first query head's plane (of batch x
// heads), the K/V plane all its heads read, its first query, and the K/V tiles it reads.
struct QueryBlock {
  int q_plane;
  int kv_plane;
  int query0;
  int tiles;
  __device__ QueryBlock(const WorkItem& item, const HeadPacking& packing, int block_q, int seq, bool causal)
      : q_plane(static_cast<int>(item.tile_y) * packing.packed),
        kv_plane(q_plane / packing.group),
        query0(static_cast<int>(item.tile_x) * packing.rows_per_head(block_q)),
        tiles(kv_tiles(seq, query0, packing.rows_per_head(block_q), causal)) {}
};

// What a consumer warpgroup works on: its 64 rows of the CTA's query block (rows_per_head
// rows of each head from `head` on: 64 of one head, or fewer of several with packed heads),
// the K/V tiles it computes on and those the block loads, which it releases unread.
struct ConsumerTask {
  int head;           // the plane (of batch x heads) of the warpgroup's first row
  int query0;         // the first query of each of the warpgroup's heads
  int rows_per_head;  // a power of two, at most 64
  int tiles;          // K/V tiles it computes on: the first `tiles` of the block's
  int loaded_tiles;   // K/V tiles the block loads (QueryBlock::tiles), at least `tiles`
  int seq;
  bool causal;
  float scale_log2;
  int warpgroup;

  // Consumer warpgroup `warpgroup`'s share of `block` (block_q rows): the block's packed rows
  // from 64 x warpgroup on.
  __device__ ConsumerTask(const QueryBlock& block, const HeadPacking& packing, int block_q, int warpgroup,
                          int seq, bool causal, float scale_log2)
      : head(block.q_plane + 64 * warpgroup / packing.rows_per_head(block_q)),
        query0(block.query0 + 64 * warpgroup % packing.rows_per_head(block_q)),
        rows_per_head(packing.warpgroup_rows_per_head(block_q)),
        tiles(warpgroup_kv_tiles(seq, query0, rows_per_head, causal)),
        loaded_tiles(block.tiles),
        seq(seq),
        causal(causal),
        scale_log2(scale_log2),
        warpgroup(warpgroup) {}

  // Whether the warpgroup's rows see no key in the second half of their last K/V tile (past
  // the sequence's end, or after every row's query when causal), so that tile's O += P V can
  // stop at its first 64 keys (P is 0 past them): on the diagonal, the first 64 rows of a
  // query block aligned to the tiles, so a causal block's diagonal tile costs an eighth less.
  __device__ bool last_tile_half() const {
    const int last_query = query0 + rows_per_head - 1;
    const int keys_seen = causal && last_query + 1 < seq ? last_query + 1 : seq;
    return keys_seen <= (tiles - 1) * block_kv + block_kv / 2;
  }
};

// The query of the thread's row half h (row row0 + 8h of the warpgroup's 64), and the plane
// of its head. Computed where used, not held: registers across the mainloop are scarce.
__device__ __forceinline__ int row_query(const AccumulatorPlace& f, const ConsumerTask& task, int h) {
  return task.query0 + ((f.row0 + 8 * h) & (task.rows_per_head - 1));
}
__device__ __forceinline__ int row_plane(const AccumulatorPlace& f, const ConsumerTask& task, int h) {
  return task.head + (f.row0 + 8 * h) / task.rows_per_head;
}

}  // namespace
}  // namespace linpipe::kernels
