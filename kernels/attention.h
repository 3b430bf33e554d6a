// attention_bf16: flash attention forward in bf16 with fp32 softmax statistics, a
// warp-specialised Hopper kernel on linpipe: per query block of 128 rows, a producer thread
// loads Q once and streams K and V tiles with TMA through two stage rings (three linpipe
// pipelines), two consumer warpgroups each compute 64 query rows: S = Q K^T and O += P V with
// wgmma, the softmax online in registers between them. Plain host API: no module import.
//
// Layouts (dense, row-major, bf16 bit patterns; BHSD):
//   Q, K, V, O: batch x heads x seq x head_dim    element (b, h, s, d) at ((b * heads + h) * seq + s) * head_dim + d
//   LSE:        batch x heads x seq (fp32)        log(sum_j exp(scale * q_s . k_j)) over the
//                                                 keys row s attends to (natural log)
// O[s] = sum_j softmax_j(scale * q_s . k_j) v_j over keys j < seq, and j <= s when causal (the
// mask's diagonal at the top left, as torch's scaled_dot_product_attention(is_causal=True)
// with equal query and key lengths).
#pragma once

#include <cuda_runtime.h>

namespace linpipe::kernels {

// Query rows one CTA computes (64 per consumer warpgroup) and keys per K/V tile.
inline constexpr int attention_block_q = 128;
inline constexpr int attention_block_kv = 128;

struct AttentionShape {
  int batch = 1;
  int heads = 1;
  int seq = 0;        // query and key length, any value >= 1 (tails are masked)
  int head_dim = 128;  // 64 or 128
  bool causal = false;
};

// How a consumer warpgroup orders its work.
struct AttentionConfig {
  // false: S = Q K^T, the softmax, O += P V, each waiting for the last (the reference
  // schedule). true: the next tile's S and this tile's P V are issued together, and the next
  // softmax runs while P V does (a second S and P in registers).
  bool overlap_softmax = false;
  // true: the two consumer warpgroups take turns issuing their products (one warpgroup's on
  // the tensor cores while the other computes its softmax); false: each issues when ready.
  bool pingpong = false;
  // true: a persistent grid, each CTA computing query blocks one after another, so the next
  // block's loads run under this block's last products and its output stores; false: a CTA
  // per query block, launched by the hardware as SMs free up.
  bool persistent = false;
  // The persistent grid's CTAs: 0 for one per SM (all one CTA can use), fewer to leave SMs to
  // other work. Never more than there are query blocks.
  int persistent_ctas = 0;
};

// Computes O (and LSE, unless lse is null) on `stream`. scale: the softmax scale, usually
// 1 / sqrt(head_dim). Device pointers, 16-byte aligned. Returns cudaErrorInvalidValue for a
// shape or pointer it cannot run, with `why` (if given) set to a sentence saying what to
// change; checks happen before any CUDA call.
cudaError_t attention_bf16(const void* q, const void* k, const void* v, void* o, float* lse,
                           const AttentionShape& shape, float scale, const AttentionConfig& config,
                           cudaStream_t stream = nullptr, const char** why = nullptr);
// The same with the default AttentionConfig.
cudaError_t attention_bf16(const void* q, const void* k, const void* v, void* o, float* lse,
                           const AttentionShape& shape, float scale, cudaStream_t stream = nullptr,
                           const char** why = nullptr);

}  // namespace linpipe::kernels

// The same for foreign callers (attention_bench.py loads it with ctypes from
// liblinpipe_attention.so): returns the cudaError_t as an int; a rejected shape prints why
// to stderr.
extern "C" int linpipe_attention_bf16(const void* q, const void* k, const void* v, void* o, float* lse,
                                      int batch, int heads, int seq, int head_dim, int causal,
                                      float scale, int overlap_softmax, int pingpong, int persistent,
                                      void* stream);
