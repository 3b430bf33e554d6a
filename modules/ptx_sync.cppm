// linpipe:ptx_sync — warp and CTA synchronisation a warp-specialised kernel needs besides its
// pipelines: electing one lane of a warp, and named CTA barriers that sync a subset of warps
// (e.g. one role's warpgroups) without stopping the others.
// PTX ISA, "Parallel Synchronization and Communication Instructions: elect.sync, bar, barrier":
// https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-elect-sync
// https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-bar
module;
#include "linpipe_macros.h"
#include <cstdint>
export module linpipe:ptx_sync;
#if defined(__CUDA__)

extern "C" {
LINPIPE_DEVICE void linpipe_ptx_elect_sync_is_not_supported_before_SM_90();
}

export namespace linpipe::ptx {

// elect.sync leader_lane|is_leader, membermask;
// PTX ISA 8.0, SM_90. Every lane named in member_mask executes it together (it synchronises
// them, like __syncwarp(member_mask)); exactly one of them, the same lane for the same mask,
// gets true. The one-lane-issues pattern (TMA, bulk copies) without hard-coding lane 0.
LINPIPE_DEVICE inline bool elect_one_sync(std::uint32_t member_mask = 0xffffffffu) {
  std::uint32_t leader = 0;
#if __CUDA_ARCH__ >= 900
  asm volatile(
      "{\n\t.reg .pred p;\n\t.reg .b32 lane;\n\t"
      "elect.sync lane|p, %1;\n\t"
      "selp.u32 %0, 1, 0, p;\n\t}"
      : "=r"(leader)
      : "r"(member_mask)
      : "memory");
#else
  linpipe_ptx_elect_sync_is_not_supported_before_SM_90();
#endif
  return leader != 0;
}

// shfl.sync.idx.b32 d, value, 0, 0x1f, 0xffffffff;
// PTX ISA 6.0, SM_30. Lane 0's `value` in every lane; all 32 lanes execute it together. For a
// value that is already the same in every lane, such as the warp's index: ptxas cannot tell
// that threadIdx.x / 32 is, but takes the broadcast's result as warp-uniform, so what is
// computed from it (a branch on the warpgroup, the pipeline state a warpgroup keeps under it,
// the wgmma descriptors built from that) may live in uniform registers instead of being moved
// there (R2UR) before each use.
LINPIPE_DEVICE inline std::uint32_t warp_uniform(std::uint32_t value) {
  return static_cast<std::uint32_t>(__nvvm_shfl_sync_idx_i32(0xffffffffu, static_cast<int>(value), 0, 0x1f));
}

// No instruction: `value` unchanged, but the compiler can no longer hoist what is computed from
// it out of the enclosing loop. For per-thread addresses that cost an instruction or two to
// compute where they are used and registers across the whole loop if hoisted: an epilogue's
// swizzled staging addresses, hoisted out of a persistent kernel's tile loop, held 16
// registers through the mainloop and made ptxas spill.
LINPIPE_DEVICE inline std::uint32_t recompute_here(std::uint32_t value) {
  asm volatile("" : "+r"(value));
  return value;
}

// Named barriers 1..15 a kernel may use; 0 is __syncthreads()'s.
inline constexpr std::uint32_t max_named_barrier = 15;

// barrier.sync.aligned id, thread_count;
// PTX ISA 6.0, SM_30. Waits until thread_count threads (a multiple of 32: whole warps) have
// arrived at named barrier `id`, counting this one; orders their memory accesses like
// __syncthreads() does for the CTA. Every thread of a warp executes it together.
LINPIPE_DEVICE inline void barrier_sync(std::uint32_t id, std::uint32_t thread_count) {
  asm volatile("barrier.sync.aligned %0, %1;" ::"r"(id), "r"(thread_count) : "memory");
}

// barrier.arrive.aligned id, thread_count;
// PTX ISA 6.0, SM_30. Arrives at named barrier `id` without waiting (a producer warp signals
// consumer warps that barrier_sync() on the same id and count); writes before it are visible
// to the waiters once they pass.
LINPIPE_DEVICE inline void barrier_arrive(std::uint32_t id, std::uint32_t thread_count) {
  asm volatile("barrier.arrive.aligned %0, %1;" ::"r"(id), "r"(thread_count) : "memory");
}

// ld.acquire.cta.shared::cta.u32 / st.release.cta.shared::cta.u32
// PTX ISA 6.0, SM_70. A flag or count handed from one warp of the CTA to another without a
// barrier: what the writer stored before its release store is visible to a reader whose
// acquire load saw it. At CTA scope, on shared memory: neither waits for global memory.
LINPIPE_DEVICE inline std::uint32_t ld_acquire_cta(std::uint32_t shared_address) {
  std::uint32_t value;
  asm volatile("ld.acquire.cta.shared::cta.u32 %0, [%1];" : "=r"(value) : "r"(shared_address) : "memory");
  return value;
}
LINPIPE_DEVICE inline void st_release_cta(std::uint32_t shared_address, std::uint32_t value) {
  asm volatile("st.release.cta.shared::cta.u32 [%0], %1;" ::"r"(shared_address), "r"(value) : "memory");
}

// ld.relaxed.cta.shared::cta.u64 / st.relaxed.cta.shared::cta.u64
// PTX ISA 6.0, SM_70. A 64-bit word another warp of the CTA reads or writes at the same time,
// with no order of its own (the loads and stores above order it): it is read whole, never
// torn, and never kept in a register in its place.
LINPIPE_DEVICE inline std::uint64_t ld_relaxed_cta(std::uint32_t shared_address) {
  std::uint64_t value;
  asm volatile("ld.relaxed.cta.shared::cta.u64 %0, [%1];" : "=l"(value) : "r"(shared_address) : "memory");
  return value;
}
LINPIPE_DEVICE inline void st_relaxed_cta(std::uint32_t shared_address, std::uint64_t value) {
  asm volatile("st.relaxed.cta.shared::cta.u64 [%0], %1;" ::"r"(shared_address), "l"(value) : "memory");
}

// ld.acquire.gpu.global.u32 / st.release.gpu.global.u32 / st.relaxed.gpu.global.u32
// PTX ISA 6.0, SM_70. A flag in global memory handed between CTAs of a launch: what the writer
// ordered before its release store (its own accesses, and through a barrier its CTA's) is
// visible to a thread whose acquire load saw the store. The relaxed store has no order of its
// own: it sets a flag back to rest, which no one in the launch reads again.
LINPIPE_DEVICE inline std::uint32_t ld_acquire_gpu(const std::uint32_t* address) {
  std::uint32_t value;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(value) : "l"(address) : "memory");
  return value;
}
LINPIPE_DEVICE inline void st_release_gpu(std::uint32_t* address, std::uint32_t value) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(address), "r"(value) : "memory");
}
LINPIPE_DEVICE inline void st_relaxed_gpu(std::uint32_t* address, std::uint32_t value) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(address), "r"(value) : "memory");
}

// nanosleep.u32 ns;
// PTX ISA 6.3, SM_70. Suspends the thread for up to about `ns` nanoseconds: a poller's pause
// that leaves its issue slots to the warps doing the work.
LINPIPE_DEVICE inline void nanosleep(std::uint32_t ns) {
  asm volatile("nanosleep.u32 %0;" ::"r"(ns));
}

}  // namespace linpipe::ptx
#endif  // __CUDA__
