// linpipe:ptx_mbarrier — one inline function per mbarrier instruction form linpipe emits.
// PTX ISA, "Parallel Synchronization and Communication Instructions: mbarrier":
// https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-mbarrier
//
// Each wrapper is preceded by the exact instruction, the PTX ISA version and the minimum SM.
// On a target below that SM the call resolves to an undefined function whose name says so,
// so the mistake fails at link time by name instead of producing wrong code.
module;
#include "linpipe_macros.h"
#include <cstdint>
export module linpipe:ptx_mbarrier;

#if defined(__CUDA__)

extern "C" {
LINPIPE_DEVICE void linpipe_ptx_mbarrier_is_not_supported_before_SM_80();
LINPIPE_DEVICE void linpipe_ptx_fence_mbarrier_init_is_not_supported_before_SM_90();
LINPIPE_DEVICE void linpipe_ptx_mbarrier_expect_tx_is_not_supported_before_SM_90();
LINPIPE_DEVICE void linpipe_ptx_mbarrier_complete_tx_is_not_supported_before_SM_90();
LINPIPE_DEVICE void linpipe_ptx_mbarrier_try_wait_is_not_supported_before_SM_90();
LINPIPE_DEVICE void linpipe_ptx_mbarrier_cluster_is_not_supported_before_SM_90();
LINPIPE_DEVICE void linpipe_ptx_mapa_is_not_supported_before_SM_90();
}

export namespace linpipe::ptx {

// The 32-bit `.shared::cta` window address of a generic pointer into shared memory.
LINPIPE_DEVICE inline std::uint32_t shared_address(const void* generic) {
  return static_cast<std::uint32_t>(
      reinterpret_cast<std::uintptr_t>((const __attribute__((address_space(3))) void*)generic));
}

// mbarrier.init.shared::cta.b64 [addr], count;
// PTX ISA 7.0, SM_80. Sets the phase to 0 and the pending and expected arrival counts to count.
LINPIPE_DEVICE inline void mbarrier_init(std::uint64_t* bar, std::uint32_t count) {
#if __CUDA_ARCH__ >= 800
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(bar)), "r"(count)
               : "memory");
#else
  linpipe_ptx_mbarrier_is_not_supported_before_SM_80();
#endif
}

// fence.mbarrier_init.release.cluster;
// PTX ISA 8.0, SM_90. Makes prior mbarrier.init visible to the cluster (and the async proxy).
LINPIPE_DEVICE inline void fence_mbarrier_init() {
#if __CUDA_ARCH__ >= 900
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#else
  linpipe_ptx_fence_mbarrier_init_is_not_supported_before_SM_90();
#endif
}

// mbarrier.arrive.shared::cta.b64 state, [addr];
// PTX ISA 7.0, SM_80 (release semantics at CTA scope). Returns the opaque phase state.
LINPIPE_DEVICE inline std::uint64_t mbarrier_arrive(std::uint64_t* bar) {
  std::uint64_t state = 0;
#if __CUDA_ARCH__ >= 800
  asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];"
               : "=l"(state)
               : "r"(shared_address(bar))
               : "memory");
#else
  linpipe_ptx_mbarrier_is_not_supported_before_SM_80();
#endif
  return state;
}

// mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 state, [addr], tx_count;
// PTX ISA 8.0, SM_90. Raises the expected transaction bytes by tx_count, then arrives.
LINPIPE_DEVICE inline std::uint64_t mbarrier_arrive_expect_tx(std::uint64_t* bar,
                                                              std::uint32_t tx_count) {
  std::uint64_t state = 0;
#if __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %0, [%1], %2;"
               : "=l"(state)
               : "r"(shared_address(bar)), "r"(tx_count)
               : "memory");
#else
  linpipe_ptx_mbarrier_expect_tx_is_not_supported_before_SM_90();
#endif
  return state;
}

// mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [addr], tx_count;
// PTX ISA 8.0, SM_90. Raises the expected transaction bytes without arriving.
LINPIPE_DEVICE inline void mbarrier_expect_tx(std::uint64_t* bar, std::uint32_t tx_count) {
#if __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(
                   shared_address(bar)),
               "r"(tx_count)
               : "memory");
#else
  linpipe_ptx_mbarrier_expect_tx_is_not_supported_before_SM_90();
#endif
}

// mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [addr], tx_count;
// PTX ISA 8.0, SM_90. Marks tx_count bytes as arrived, as an async copy's completion does.
LINPIPE_DEVICE inline void mbarrier_complete_tx(std::uint64_t* bar, std::uint32_t tx_count) {
#if __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(
                   shared_address(bar)),
               "r"(tx_count)
               : "memory");
#else
  linpipe_ptx_mbarrier_complete_tx_is_not_supported_before_SM_90();
#endif
}

// mbarrier.test_wait.parity.shared::cta.b64 ready, [addr], parity;
// PTX ISA 7.1, SM_80. Non-blocking: true once the phase with the given parity has completed.
LINPIPE_DEVICE inline bool mbarrier_test_wait_parity(std::uint64_t* bar, std::uint32_t parity) {
  std::uint32_t ready = 0;
#if __CUDA_ARCH__ >= 800
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "mbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
      "selp.u32 %0, 1, 0, p;\n\t}"
      : "=r"(ready)
      : "r"(shared_address(bar)), "r"(parity)
      : "memory");
#else
  linpipe_ptx_mbarrier_is_not_supported_before_SM_80();
#endif
  return ready != 0;
}

// mbarrier.try_wait.parity.shared::cta.b64 ready, [addr], parity;
// PTX ISA 7.8, SM_90. Potentially blocking: the thread may suspend for a system-dependent
// time; true once the phase with the given parity has completed.
LINPIPE_DEVICE inline bool mbarrier_try_wait_parity(std::uint64_t* bar, std::uint32_t parity) {
  std::uint32_t ready = 0;
#if __CUDA_ARCH__ >= 900
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
      "selp.u32 %0, 1, 0, p;\n\t}"
      : "=r"(ready)
      : "r"(shared_address(bar)), "r"(parity)
      : "memory");
#else
  linpipe_ptx_mbarrier_try_wait_is_not_supported_before_SM_90();
#endif
  return ready != 0;
}

// mbarrier.try_wait.parity.shared::cta.b64 ready, [addr], parity, suspend_time_hint;
// PTX ISA 7.8, SM_90. As above, suspending for at most about suspend_time_hint nanoseconds
// (suspending frees issue slots for the other warps, unlike a spin).
LINPIPE_DEVICE inline bool mbarrier_try_wait_parity(std::uint64_t* bar, std::uint32_t parity,
                                                    std::uint32_t suspend_time_hint_ns) {
  std::uint32_t ready = 0;
#if __CUDA_ARCH__ >= 900
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2, %3;\n\t"
      "selp.u32 %0, 1, 0, p;\n\t}"
      : "=r"(ready)
      : "r"(shared_address(bar)), "r"(parity), "r"(suspend_time_hint_ns)
      : "memory");
#else
  linpipe_ptx_mbarrier_try_wait_is_not_supported_before_SM_90();
#endif
  return ready != 0;
}

// mapa.shared::cluster.u32 remote, addr, cta_rank;
// mbarrier.arrive.release.cluster.shared::cluster.b64 _, [remote];
// PTX ISA 8.0, SM_90. Arrives on the mbarrier at the same shared-memory offset in CTA
// cta_rank of this cluster (the lane-guarded consumer release of a multicast pipeline).
LINPIPE_DEVICE inline void mbarrier_arrive_cluster(std::uint64_t* bar, std::uint32_t cta_rank) {
#if __CUDA_ARCH__ >= 900
  asm volatile(
      "{\n\t.reg .b32 remote;\n\t"
      "mapa.shared::cluster.u32 remote, %0, %1;\n\t"
      "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [remote];\n\t}" ::"r"(
          shared_address(bar)),
      "r"(cta_rank)
      : "memory");
#else
  linpipe_ptx_mbarrier_cluster_is_not_supported_before_SM_90();
#endif
}

// mapa.shared::cluster.u32 remote, addr, cta_rank;
// mbarrier.arrive.release.cta.shared::cluster.b64 _, [remote];
// PTX ISA 8.0, SM_90. As mbarrier_arrive_cluster, but the release is at CTA scope: no
// cluster-wide fence before the arrival (a memory barrier that, by ncu, stalled the 2-CTA
// GEMM's warps, each with a wgmma group in flight, for 69% of their cycles). For a slot whose
// reads have all completed before the release, as wgmma operands retired by wgmma.wait_group
// have: CUTLASS's consumer_release arrives the same way (mbarrier.arrive.shared::cluster,
// whose default is .release.cta).
LINPIPE_DEVICE inline void mbarrier_arrive_cluster_release_cta(std::uint64_t* bar,
                                                               std::uint32_t cta_rank) {
#if __CUDA_ARCH__ >= 900
  asm volatile(
      "{\n\t.reg .b32 remote;\n\t"
      "mapa.shared::cluster.u32 remote, %0, %1;\n\t"
      "mbarrier.arrive.release.cta.shared::cluster.b64 _, [remote];\n\t}" ::"r"(
          shared_address(bar)),
      "r"(cta_rank)
      : "memory");
#else
  linpipe_ptx_mbarrier_cluster_is_not_supported_before_SM_90();
#endif
}

// mapa.shared::cluster.u32 remote, addr, cta_rank;
// PTX ISA 7.8, SM_90. The `.shared::cluster` address of the same shared-memory offset in CTA
// cta_rank of this cluster (its own rank gives this CTA's own object): what the remote forms
// below and a multicast copy's peers address.
LINPIPE_DEVICE inline std::uint32_t mapa_shared_cluster(const void* generic_shared,
                                                        std::uint32_t cta_rank) {
  std::uint32_t remote = 0;
#if __CUDA_ARCH__ >= 900
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
               : "=r"(remote)
               : "r"(shared_address(generic_shared)), "r"(cta_rank)
               : "memory");
#else
  linpipe_ptx_mapa_is_not_supported_before_SM_90();
#endif
  return remote;
}

// mbarrier.arrive.expect_tx.release.cluster.shared::cluster.b64 _, [remote], tx_count;
// PTX ISA 8.0, SM_90. On the mbarrier at bar's offset in CTA cta_rank: raises the expected
// transaction bytes by tx_count, then arrives once (a producer announcing a peer's bytes).
LINPIPE_DEVICE inline void mbarrier_arrive_expect_tx_cluster(std::uint64_t* bar,
                                                             std::uint32_t cta_rank,
                                                             std::uint32_t tx_count) {
#if __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.arrive.expect_tx.release.cluster.shared::cluster.b64 _, [%0], %1;" ::"r"(
                   mapa_shared_cluster(bar, cta_rank)),
               "r"(tx_count)
               : "memory");
#else
  linpipe_ptx_mbarrier_cluster_is_not_supported_before_SM_90();
#endif
}

// mbarrier.expect_tx.relaxed.cluster.shared::cluster.b64 [remote], tx_count;
// PTX ISA 8.0, SM_90. Raises the expected transaction bytes of the mbarrier at bar's offset in
// CTA cta_rank by tx_count, without arriving.
LINPIPE_DEVICE inline void mbarrier_expect_tx_cluster(std::uint64_t* bar, std::uint32_t cta_rank,
                                                      std::uint32_t tx_count) {
#if __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.expect_tx.relaxed.cluster.shared::cluster.b64 [%0], %1;" ::"r"(
                   mapa_shared_cluster(bar, cta_rank)),
               "r"(tx_count)
               : "memory");
#else
  linpipe_ptx_mbarrier_cluster_is_not_supported_before_SM_90();
#endif
}

// mbarrier.complete_tx.relaxed.cluster.shared::cluster.b64 [remote], tx_count;
// PTX ISA 8.0, SM_90. Marks tx_count bytes as delivered on the mbarrier at bar's offset in
// CTA cta_rank (what a copy into that CTA completes with; relaxed: order the data yourself).
LINPIPE_DEVICE inline void mbarrier_complete_tx_cluster(std::uint64_t* bar, std::uint32_t cta_rank,
                                                        std::uint32_t tx_count) {
#if __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.complete_tx.relaxed.cluster.shared::cluster.b64 [%0], %1;" ::"r"(
                   mapa_shared_cluster(bar, cta_rank)),
               "r"(tx_count)
               : "memory");
#else
  linpipe_ptx_mbarrier_cluster_is_not_supported_before_SM_90();
#endif
}

}  // namespace linpipe::ptx

#endif  // __CUDA__
