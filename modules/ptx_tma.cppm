// linpipe:ptx_tma — the tensor copy engine (TMA): tiled global -> shared loads through a
// CUtensorMap, completing on an mbarrier with complete_tx, tiled shared -> global stores in a
// bulk async-group, and the tensor-map prefetch.
// PTX ISA, "Data Movement and Conversion Instructions: cp.async.bulk.tensor":
// https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cp-async-bulk-tensor
//
// `tensor_map` is the generic address of a CUtensorMap that lives in parameter (a
// `__grid_constant__ const CUtensorMap` kernel parameter), constant or global memory.
// Coordinates are element indices, innermost dimension first.
module;
#include "linpipe_macros.h"
#include <cstdint>
export module linpipe:ptx_tma;
#if defined(__CUDA__)
import :ptx_mbarrier;

extern "C" {
LINPIPE_DEVICE void linpipe_ptx_cp_async_bulk_tensor_is_not_supported_before_SM_90();
LINPIPE_DEVICE void linpipe_ptx_prefetch_tensormap_is_not_supported_before_SM_90();
}

export namespace linpipe::ptx {

// cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
//     [dst], [tensor_map, {c0, c1}], [bar];
// PTX ISA 8.0, SM_90. Loads the box at (c0, c1) into dst (aligned as the map's swizzle needs);
// the bytes complete_tx on bar.
[[clang::annotate("linpipe::async_proxy_write")]]
LINPIPE_DEVICE inline void tma_load_2d(void* dst_shared, const void* tensor_map, std::int32_t c0,
                                       std::int32_t c1, std::uint64_t* bar) {
#if __CUDA_ARCH__ >= 900
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3}], [%4];" ::"r"(shared_address(dst_shared)),
      "l"(reinterpret_cast<std::uint64_t>(tensor_map)), "r"(c0), "r"(c1), "r"(shared_address(bar))
      : "memory");
#else
  linpipe_ptx_cp_async_bulk_tensor_is_not_supported_before_SM_90();
#endif
}

// cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
//     [dst], [tensor_map, {c0, c1, c2}], [bar];
// PTX ISA 8.0, SM_90. As tma_load_2d through a 3-D map (encode_tensor_map_3d): the box at
// column c0, row c1 of plane c2.
[[clang::annotate("linpipe::async_proxy_write")]]
LINPIPE_DEVICE inline void tma_load_3d(void* dst_shared, const void* tensor_map, std::int32_t c0,
                                       std::int32_t c1, std::int32_t c2, std::uint64_t* bar) {
#if __CUDA_ARCH__ >= 900
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3, %4}], [%5];" ::"r"(shared_address(dst_shared)),
      "l"(reinterpret_cast<std::uint64_t>(tensor_map)), "r"(c0), "r"(c1), "r"(c2),
      "r"(shared_address(bar))
      : "memory");
#else
  linpipe_ptx_cp_async_bulk_tensor_is_not_supported_before_SM_90();
#endif
}

// cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint
//     [dst], [tensor_map, {c0, c1, c2}], [bar], policy;
// PTX ISA 8.0, SM_90. As tma_load_3d, with an L2 policy for the reads (createpolicy_*: e.g.
// evict-first for a tile read once, so it does not push reused tiles out of L2).
[[clang::annotate("linpipe::async_proxy_write")]]
LINPIPE_DEVICE inline void tma_load_3d(void* dst_shared, const void* tensor_map, std::int32_t c0,
                                       std::int32_t c1, std::int32_t c2, std::uint64_t* bar,
                                       std::uint64_t cache_policy) {
#if __CUDA_ARCH__ >= 900
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      ".L2::cache_hint [%0], [%1, {%2, %3, %4}], [%5], %6;" ::"r"(shared_address(dst_shared)),
      "l"(reinterpret_cast<std::uint64_t>(tensor_map)), "r"(c0), "r"(c1), "r"(c2),
      "r"(shared_address(bar)), "l"(cache_policy)
      : "memory");
#else
  linpipe_ptx_cp_async_bulk_tensor_is_not_supported_before_SM_90();
#endif
}

// cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster
//     [dst], [tensor_map, {c0, c1}], [bar], cta_mask;
// PTX ISA 8.0, SM_90. As tma_load_2d, but the box lands at the same shared offset (dst, bar) in
// every CTA of the cluster whose bit is set in cta_mask, completing on each one's bar.
[[clang::annotate("linpipe::async_proxy_write")]]
LINPIPE_DEVICE inline void tma_load_2d_multicast(void* dst_shared, const void* tensor_map,
                                                 std::int32_t c0, std::int32_t c1,
                                                 std::uint64_t* bar, std::uint16_t cta_mask) {
#if __CUDA_ARCH__ >= 900
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      ".multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(shared_address(dst_shared)),
      "l"(reinterpret_cast<std::uint64_t>(tensor_map)), "r"(c0), "r"(c1), "r"(shared_address(bar)),
      "h"(cta_mask)
      : "memory");
#else
  linpipe_ptx_cp_async_bulk_tensor_is_not_supported_before_SM_90();
#endif
}

// cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [tensor_map, {c0, c1}], [src];
// PTX ISA 8.0, SM_90. Stores the box at src (laid out as the map's swizzle says) to (c0, c1);
// part of this thread's bulk async-group: cp_async_bulk_commit_group() closes the group, and
// cp_async_bulk_wait_group_read<N>() says when src may be written again. Writes to src by
// other threads must be made visible to the async proxy first (fence_proxy_async_shared_cta()
// by each writer, then a barrier).
[[clang::annotate("linpipe::async_proxy_read")]]
LINPIPE_DEVICE inline void tma_store_2d(const void* tensor_map, std::int32_t c0, std::int32_t c1,
                                        const void* src_shared) {
#if __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];"
               ::"l"(reinterpret_cast<std::uint64_t>(tensor_map)), "r"(c0), "r"(c1),
               "r"(shared_address(src_shared))
               : "memory");
#else
  linpipe_ptx_cp_async_bulk_tensor_is_not_supported_before_SM_90();
#endif
}

// cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group [tensor_map, {c0, c1, c2}], [src];
// PTX ISA 8.0, SM_90. As tma_store_2d through a 3-D map: the box to column c0, row c1 of plane
// c2. Rows of the box past the plane's last row are not written (a tile's tail never lands in
// the next plane), so a ragged tile needs no masking.
[[clang::annotate("linpipe::async_proxy_read")]]
LINPIPE_DEVICE inline void tma_store_3d(const void* tensor_map, std::int32_t c0, std::int32_t c1,
                                        std::int32_t c2, const void* src_shared) {
#if __CUDA_ARCH__ >= 900
  asm volatile(
      "cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group [%0, {%1, %2, %3}], [%4];"
      ::"l"(reinterpret_cast<std::uint64_t>(tensor_map)), "r"(c0), "r"(c1), "r"(c2),
      "r"(shared_address(src_shared))
      : "memory");
#else
  linpipe_ptx_cp_async_bulk_tensor_is_not_supported_before_SM_90();
#endif
}

// cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group.L2::cache_hint
//     [tensor_map, {c0, c1, c2}], [src], policy;
// PTX ISA 8.0, SM_90. As tma_store_3d, with an L2 policy for the writes (e.g. evict-first for
// output no later kernel reads soon).
[[clang::annotate("linpipe::async_proxy_read")]]
LINPIPE_DEVICE inline void tma_store_3d(const void* tensor_map, std::int32_t c0, std::int32_t c1,
                                        std::int32_t c2, const void* src_shared,
                                        std::uint64_t cache_policy) {
#if __CUDA_ARCH__ >= 900
  asm volatile(
      "cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group.L2::cache_hint"
      " [%0, {%1, %2, %3}], [%4], %5;" ::"l"(reinterpret_cast<std::uint64_t>(tensor_map)),
      "r"(c0), "r"(c1), "r"(c2), "r"(shared_address(src_shared)), "l"(cache_policy)
      : "memory");
#else
  linpipe_ptx_cp_async_bulk_tensor_is_not_supported_before_SM_90();
#endif
}

// prefetch.tensormap [tensor_map];
// PTX ISA 8.0, SM_90. Brings the tensor map into the descriptor cache ahead of its first use.
LINPIPE_DEVICE inline void prefetch_tensormap(const void* tensor_map) {
#if __CUDA_ARCH__ >= 900
  asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<std::uint64_t>(tensor_map))
               : "memory");
#else
  linpipe_ptx_prefetch_tensormap_is_not_supported_before_SM_90();
#endif
}

}  // namespace linpipe::ptx
#endif  // __CUDA__
