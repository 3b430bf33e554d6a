// linpipe:ptx_bulk_copy — the bulk copy engine (non-tensor cp.async.bulk) and its fences.
// PTX ISA, "Data Movement and Conversion Instructions: cp.async.bulk":
// https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cp-async-bulk
//
// Sizes and addresses must be multiples of 16 bytes; the wrappers take byte counts as uint32_t.
module;
#include "linpipe_macros.h"
#include <cstdint>
export module linpipe:ptx_bulk_copy;
#if defined(__CUDA__)
import :ptx_mbarrier;

extern "C" {
LINPIPE_DEVICE void linpipe_ptx_cp_async_bulk_is_not_supported_before_SM_90();
LINPIPE_DEVICE void linpipe_ptx_cp_async_bulk_multicast_needs_SM_90a();
LINPIPE_DEVICE void linpipe_ptx_createpolicy_is_not_supported_before_SM_80();
LINPIPE_DEVICE void linpipe_ptx_fence_proxy_async_is_not_supported_before_SM_90();
}

export namespace linpipe::ptx {

// cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [src], size, [bar];
// PTX ISA 8.0, SM_90. Copies size bytes global -> shared; completion adds size transaction
// bytes to bar (so bar must expect them: arrive_expect_tx / expect_tx).
[[clang::annotate("linpipe::async_proxy_write")]]
LINPIPE_DEVICE inline void cp_async_bulk_global_to_shared(void* dst_shared, const void* src_global,
                                                          std::uint32_t size, std::uint64_t* bar) {
#if __CUDA_ARCH__ >= 900
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::
          "r"(shared_address(dst_shared)),
      "l"(src_global), "r"(size), "r"(shared_address(bar))
      : "memory");
#else
  linpipe_ptx_cp_async_bulk_is_not_supported_before_SM_90();
#endif
}

// cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster
//     [dst], [src], size, [bar], cta_mask;
// PTX ISA 8.0, SM_90a. As cp_async_bulk_global_to_shared, but the bytes land at dst's offset
// in every CTA of the cluster whose bit is set in cta_mask (bit r = rank r), each completing
// on the mbarrier at bar's offset in that CTA: read once from global memory, delivered to all.
[[clang::annotate("linpipe::async_proxy_write")]]
LINPIPE_DEVICE inline void cp_async_bulk_global_to_shared_multicast(void* dst_shared,
                                                                    const void* src_global,
                                                                    std::uint32_t size,
                                                                    std::uint64_t* bar,
                                                                    std::uint16_t cta_mask) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1], %2, [%3], %4;" ::"r"(shared_address(dst_shared)),
      "l"(src_global), "r"(size), "r"(shared_address(bar)), "h"(cta_mask)
      : "memory");
#else
  linpipe_ptx_cp_async_bulk_multicast_needs_SM_90a();
#endif
}

// createpolicy.fractional.L2::evict_first.b64 policy, 1.0;
// PTX ISA 7.4, SM_80. An L2 policy marking every line it covers evict-first: for streams read
// or written once, so they do not push reused data out of L2.
LINPIPE_DEVICE inline std::uint64_t createpolicy_evict_first() {
  std::uint64_t policy = 0;
#if __CUDA_ARCH__ >= 800
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
#else
  linpipe_ptx_createpolicy_is_not_supported_before_SM_80();
#endif
  return policy;
}

// cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint
//     [dst], [src], size, [bar], policy;
// PTX ISA 8.0, SM_90. As cp_async_bulk_global_to_shared, with an L2 policy for the reads.
[[clang::annotate("linpipe::async_proxy_write")]]
LINPIPE_DEVICE inline void cp_async_bulk_global_to_shared(void* dst_shared, const void* src_global,
                                                          std::uint32_t size, std::uint64_t* bar,
                                                          std::uint64_t cache_policy) {
#if __CUDA_ARCH__ >= 900
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint"
      " [%0], [%1], %2, [%3], %4;" ::"r"(shared_address(dst_shared)),
      "l"(src_global), "r"(size), "r"(shared_address(bar)), "l"(cache_policy)
      : "memory");
#else
  linpipe_ptx_cp_async_bulk_is_not_supported_before_SM_90();
#endif
}

// cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint [dst], [src], size, policy;
// PTX ISA 8.0, SM_90. As cp_async_bulk_shared_to_global, with an L2 policy for the writes.
[[clang::annotate("linpipe::async_proxy_read")]]
LINPIPE_DEVICE inline void cp_async_bulk_shared_to_global(void* dst_global, const void* src_shared,
                                                          std::uint32_t size,
                                                          std::uint64_t cache_policy) {
#if __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint [%0], [%1], %2, %3;" ::
                   "l"(dst_global),
               "r"(shared_address(src_shared)), "r"(size), "l"(cache_policy)
               : "memory");
#else
  linpipe_ptx_cp_async_bulk_is_not_supported_before_SM_90();
#endif
}

// cp.async.bulk.global.shared::cta.bulk_group [dst], [src], size;
// PTX ISA 8.0, SM_90. Copies size bytes shared -> global, tracked by the thread's bulk group.
[[clang::annotate("linpipe::async_proxy_read")]]
LINPIPE_DEVICE inline void cp_async_bulk_shared_to_global(void* dst_global, const void* src_shared,
                                                          std::uint32_t size) {
#if __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst_global),
               "r"(shared_address(src_shared)), "r"(size)
               : "memory");
#else
  linpipe_ptx_cp_async_bulk_is_not_supported_before_SM_90();
#endif
}

// cp.async.bulk.commit_group;
// PTX ISA 8.0, SM_90. Closes the thread's current bulk group.
LINPIPE_DEVICE inline void cp_async_bulk_commit_group() {
#if __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
#else
  linpipe_ptx_cp_async_bulk_is_not_supported_before_SM_90();
#endif
}

// cp.async.bulk.wait_group.read N;
// PTX ISA 8.0, SM_90. Waits until at most N of the thread's bulk groups still READ their
// source (shared memory may then be reused; the global writes may still be in flight).
template <int MaxPending>
LINPIPE_DEVICE inline void cp_async_bulk_wait_group_read() {
  static_assert(MaxPending >= 0 && MaxPending <= 63,
                "cp.async.bulk.wait_group.read takes an immediate in [0, 63]");
#if __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(MaxPending) : "memory");
#else
  linpipe_ptx_cp_async_bulk_is_not_supported_before_SM_90();
#endif
}

// cp.async.bulk.wait_group N;
// PTX ISA 8.0, SM_90. Waits until at most N of the thread's bulk groups are incomplete
// (their writes are done and visible).
template <int MaxPending>
LINPIPE_DEVICE inline void cp_async_bulk_wait_group() {
  static_assert(MaxPending >= 0 && MaxPending <= 63,
                "cp.async.bulk.wait_group takes an immediate in [0, 63]");
#if __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.wait_group %0;" ::"n"(MaxPending) : "memory");
#else
  linpipe_ptx_cp_async_bulk_is_not_supported_before_SM_90();
#endif
}

// fence.proxy.async.shared::cta;
// PTX ISA 8.0, SM_90. Orders this thread's generic-proxy shared-memory accesses with later
// async-proxy ones (the copy engine, TMA, wgmma reading shared memory).
[[clang::annotate("linpipe::proxy_fence")]]
LINPIPE_DEVICE inline void fence_proxy_async_shared_cta() {
#if __CUDA_ARCH__ >= 900
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#else
  linpipe_ptx_fence_proxy_async_is_not_supported_before_SM_90();
#endif
}

}  // namespace linpipe::ptx
#endif  // __CUDA__
