// Which (head, query block) tiles each CTA takes, in which order, and how many K/V tiles each
// reads.
// Part of attention_kernels.cu (see there); included in order, after `import linpipe;`.
#pragma once

namespace linpipe::kernels {
namespace {

// The tiles and their order: see AttentionSchedule (attention_kernels.h), which the launch
// builds.
using Schedule = AttentionSchedule;

// Which keys the CTA of query block `qb` reads: all tiles, or up to its diagonal when causal.
__device__ __host__ inline int kv_tiles(int seq, int qb, bool causal) {
  const int all = (seq + block_kv - 1) / block_kv;
  const int to_diagonal = (qb * block_q + block_q - 1) / block_kv + 1;
  return causal && to_diagonal < all ? to_diagonal : all;
}

}  // namespace
}  // namespace linpipe::kernels
