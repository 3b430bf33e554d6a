// attention_bf16: flash attention forward in bf16 with fp32 softmax statistics, a
// warp-specialised Hopper kernel on linpipe: per query block of 128 (or 192) rows, a producer
// thread loads Q once and streams K and V tiles with TMA through two stage rings (three linpipe
// pipelines), two (or three) consumer warpgroups each compute 64 query rows: S = Q K^T and
// O += P V with wgmma, the softmax online in registers between them. Plain host API: no module
// import.
//
// Layouts (dense, row-major, bf16 bit patterns; BHSD):
//   Q, O:  batch x heads x seq x head_dim     element (b, h, s, d) at ((b * heads + h) * seq + s) * head_dim + d
//   K, V:  batch x kv_heads x seq x head_dim  the same with kv_heads
//   LSE:   batch x heads x seq (fp32)         log(sum_j exp(scale * q_s . k_j)) over the keys
//                                             row s attends to (natural log)
// O[s] = sum_j softmax_j(scale * q_s . k_j) v_j over keys j < seq, and j <= s when causal (the
// mask's diagonal at the top left, as torch's scaled_dot_product_attention(is_causal=True)
// with equal query and key lengths). Grouped-query attention: query head h reads K/V head
// h / (heads / kv_heads), as scaled_dot_product_attention(..., enable_gqa=True); kv_heads = 1
// is multi-query attention.
#pragma once

#include <cuda_runtime.h>

namespace linpipe::kernels {

// Keys per K/V tile. A CTA computes 64 query rows per consumer warpgroup
// (AttentionConfig::query_warpgroups) at once.
inline constexpr int attention_block_kv = 128;

struct AttentionShape {
  int batch = 1;
  int heads = 1;       // query heads
  int seq = 0;         // query and key length, any value >= 1 (tails are masked)
  int head_dim = 128;  // 64 or 128
  bool causal = false;
  int kv_heads = 0;    // K/V heads, dividing heads; 0: as many as query heads
};

// How many query heads of one K/V head a CTA computes together (AttentionConfig::packed_heads
// = 0): the largest power of two dividing heads / kv_heads, at most 16. A CTA's 128 query rows
// (two query warpgroups) are then 128 / packed rows of each of `packed` query heads, so every
// K/V tile it loads serves all of them; without grouping (kv_heads = heads) it is 1.
int attention_packed_heads(const AttentionShape& shape);

// How a consumer warpgroup orders its work.
struct AttentionConfig {
  // false: S = Q K^T, the softmax, O += P V, each waiting for the last (the reference
  // schedule). true: the next tile's S and this tile's P V are issued together, and the next
  // softmax runs while P V does (a second S and P in registers).
  bool overlap_softmax = false;
  // true: the consumer warpgroups take turns issuing their products (one warpgroup's on the
  // tensor cores while the others compute their softmax); false: each issues when ready.
  bool pingpong = false;
  // true: a persistent grid, each CTA computing query blocks one after another, so the next
  // block's loads run under this block's last products and its output stores; false: a CTA
  // per query block, launched by the hardware as SMs free up.
  bool persistent = false;
  // With persistent: the CTAs claim their query blocks from a counter as they finish the last
  // (so a CTA that drew short causal blocks takes more), in longest-first order in bands of
  // heads whose K and V fit in half of L2, so those stay in L2 while the band's shortest blocks
  // even out its end. Launches on one stream share a counter the library keeps for it,
  // allocated at the stream's first dynamic launch (which may be inside a graph capture). A
  // captured launch keeps its counter in the graph: replay that graph on one stream at a time.
  bool dynamic = false;
  // The persistent grid's CTAs: 0 for one per SM (all one CTA can use), fewer to leave SMs to
  // other work. Never more than there are query blocks.
  int persistent_ctas = 0;
  // Query heads sharing a K/V head that a CTA computes together: 0 for
  // attention_packed_heads(shape); else a power of two dividing heads / kv_heads, at most 16.
  // With three query warpgroups, 0 or 1: a CTA computes one query head.
  int packed_heads = 0;
  // Consumer warpgroups a CTA runs, each computing 64 query rows: 2 (query blocks of 128 rows),
  // or 3 at head dim 64 (192 rows, FlashAttention 3's head-dim-64 tile: a third more warps to
  // hide the softmax's latency under the tensor cores, and a K/V tile read for 192 queries).
  int query_warpgroups = 2;
  // Head dim 128 only: FlashAttention 4's lazy rescaling. A row's running maximum (and with it
  // the output rows' scale) moves only when a tile's scores pass it by a factor of 256, so most
  // tiles of a long row skip rescaling O. The same result within bf16's rounding; on an H100
  // its fastest schedule beat the fastest eager one by 1-4% at full 8k-16k, and at causal 4k
  // and 16k by 5-8% in two runs (the default takes it there); it lost up to 12% at seq 1024
  // and below and at causal 2k (docs/benchmarks.md).
  bool lazy_rescale = false;
  // Programmatic dependent launch (linpipe::LaunchOptions::early_start): the launch and the
  // kernel's prologue run under the last CTAs of the kernel before it on the stream; every
  // thread waits for that kernel's memory before its first global access. Off by default: a
  // kernel after this one that reads O must itself wait (griddepcontrol.wait) if it is
  // early-started too.
  bool early_start = false;
};

// The configuration attention_bf16 uses when none is given: per shape, the fastest of the
// configurations measured (docs/benchmarks.md has the tables), put as a rule. A persistent
// grid (a CTA per SM: the next block's loads run under this block's stores) except where said.
// - Head dim 64, every query head its own K/V head, full mask: in order below seq 2048; from
//   2048 overlapped with three consumer warpgroups (the extra warps hide the softmax; below
//   2048 a 192-row block has too few K/V tiles to repay its longer prologue and epilogue).
//   Causal: overlapped and dynamic, with three warpgroups at every seq (each warpgroup computes
//   only the K/V tiles its own rows see, so a 192-row block wastes nothing on its first rows).
// - Head dim 64 with grouped heads: overlapped, three warpgroups and dynamic (a 192-row block
//   grid leaves each head a short last block), except causal below seq 2048: two warpgroups
//   with a group's heads packed into a CTA, not dynamic.
// - Head dim 128, full mask: overlapped at every seq; not dynamic (every block has the same
//   length, and at seq 512 the dynamic grid measured 15% slower).
// - Head dim 128, causal: persistent and dynamic up to seq 8192 (in order up to 1024, then
//   overlapped, with lazy rescaling above 2048 up to 4096); above 8192 overlapped with lazy
//   rescaling, on a CTA per query block (not persistent).
// - Head dim 128 with grouped heads (fewer K/V heads than query heads), either mask:
//   overlapped, persistent up to seq 4096, above that ping-pong on a CTA per query block.
// Head dim 128 with a K/V head per query head was refitted on two H100 runs of the build with
// warp-uniform roles (docs/benchmarks.md, twenty-fifth session; causal above 2048 on two runs of
// the twenty-seventh's), its grouped cases on three
// H100 runs at 8 query heads per K/V head (twenty-second session); head dim 64 on three H100
// runs (grouped) and two (one K/V head a query head) of the twenty-third session's build.
AttentionConfig attention_config_for(const AttentionShape& shape);

// Computes O (and LSE, unless lse is null) on `stream`. scale: the softmax scale, usually
// 1 / sqrt(head_dim). Device pointers, 16-byte aligned. Returns cudaErrorInvalidValue for a
// shape or pointer it cannot run, with `why` (if given) set to a sentence saying what to
// change; checks happen before any CUDA call.
cudaError_t attention_bf16(const void* q, const void* k, const void* v, void* o, float* lse,
                           const AttentionShape& shape, float scale, const AttentionConfig& config,
                           cudaStream_t stream = nullptr, const char** why = nullptr);
// The same with attention_config_for(shape).
cudaError_t attention_bf16(const void* q, const void* k, const void* v, void* o, float* lse,
                           const AttentionShape& shape, float scale, cudaStream_t stream = nullptr,
                           const char** why = nullptr);
// Frees the counter dynamic launches keep for `stream` (after the work queued on it): call it
// before destroying a stream that ran them. Not during the stream's capture. The counters of
// captures whose graphs are all destroyed: attention_trim_counters().
cudaError_t attention_release_stream(cudaStream_t stream);
cudaError_t attention_trim_counters();

}  // namespace linpipe::kernels

// The same for foreign callers (attention_bench.py loads it with ctypes from
// liblinpipe_attention.so): returns the cudaError_t as an int; a rejected shape prints why
// to stderr. The first with as many K/V heads as query heads; the second with kv_heads,
// dynamic and packed_heads (0: the rule above); the third with query_warpgroups too.
extern "C" int linpipe_attention_bf16(const void* q, const void* k, const void* v, void* o, float* lse,
                                      int batch, int heads, int seq, int head_dim, int causal,
                                      float scale, int overlap_softmax, int pingpong, int persistent,
                                      void* stream);
// attention_config_for(shape) as bits: 1 overlap_softmax, 2 pingpong, 4 persistent, 8 dynamic,
// 16 three query warpgroups, 32 lazy_rescale.
extern "C" int linpipe_attention_config_bits(int heads, int kv_heads, int seq, int head_dim, int causal);
extern "C" int linpipe_attention_gqa_bf16(const void* q, const void* k, const void* v, void* o, float* lse,
                                          int batch, int heads, int kv_heads, int seq, int head_dim,
                                          int causal, float scale, int overlap_softmax, int pingpong,
                                          int persistent, int dynamic, int packed_heads, void* stream);
extern "C" int linpipe_attention_config_bf16(const void* q, const void* k, const void* v, void* o, float* lse,
                                             int batch, int heads, int kv_heads, int seq, int head_dim,
                                             int causal, float scale, int overlap_softmax, int pingpong,
                                             int persistent, int dynamic, int packed_heads,
                                             int query_warpgroups, void* stream);
// linpipe_attention_config_bf16 with lazy_rescale (AttentionConfig) as its last option.
extern "C" int linpipe_attention_options_bf16(const void* q, const void* k, const void* v, void* o, float* lse,
                                              int batch, int heads, int kv_heads, int seq, int head_dim,
                                              int causal, float scale, int overlap_softmax, int pingpong,
                                              int persistent, int dynamic, int packed_heads,
                                              int query_warpgroups, int lazy_rescale, void* stream);
// linpipe_attention_options_bf16 with early_start (AttentionConfig) after lazy_rescale.
extern "C" int linpipe_attention_launch_bf16(const void* q, const void* k, const void* v, void* o, float* lse,
                                             int batch, int heads, int kv_heads, int seq, int head_dim,
                                             int causal, float scale, int overlap_softmax, int pingpong,
                                             int persistent, int dynamic, int packed_heads,
                                             int query_warpgroups, int lazy_rescale, int early_start,
                                             void* stream);
