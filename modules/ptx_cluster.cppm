// linpipe:ptx_cluster — thread-block clusters (rank, position, shape, cluster barrier), the
// grid's launch id, its dependency on the grid before it (griddepcontrol), and warpgroup
// register reallocation (setmaxnreg): the pieces a warp-specialised cluster kernel needs
// around its pipelines.
// PTX ISA, "Special Registers: %cluster_ctarank, %gridid", "barrier.cluster", "griddepcontrol",
// "setmaxnreg":
// https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-barrier-cluster
// https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-griddepcontrol
// https://docs.nvidia.com/cuda/parallel-thread-execution/#miscellaneous-instructions-setmaxnreg
module;
#include "linpipe_macros.h"
#include <cstdint>
export module linpipe:ptx_cluster;
#if defined(__CUDA__)

extern "C" {
LINPIPE_DEVICE void linpipe_ptx_cluster_is_not_supported_before_SM_90();
LINPIPE_DEVICE void linpipe_ptx_setmaxnreg_needs_SM_90a();
LINPIPE_DEVICE void linpipe_ptx_griddepcontrol_is_not_supported_before_SM_90();
}

export namespace linpipe::ptx {

// mov.u32 rank, %cluster_ctarank;
// PTX ISA 7.8, SM_90. This CTA's rank in its cluster (0 without a cluster launch).
LINPIPE_DEVICE inline std::uint32_t cluster_ctarank() {
  std::uint32_t rank = 0;
#if __CUDA_ARCH__ >= 900
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank) : : "memory");
#else
  linpipe_ptx_cluster_is_not_supported_before_SM_90();
#endif
  return rank;
}

// mov.u32 count, %cluster_nctarank;
// PTX ISA 7.8, SM_90. How many CTAs this CTA's cluster holds (1 without a cluster launch).
LINPIPE_DEVICE inline std::uint32_t cluster_nctarank() {
  std::uint32_t count = 1;
#if __CUDA_ARCH__ >= 900
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(count) : : "memory");
#else
  linpipe_ptx_cluster_is_not_supported_before_SM_90();
#endif
  return count;
}

// A CTA's place in its cluster along x, y and z, or the cluster's extent along them.
struct ClusterDim3 {
  std::uint32_t x, y, z;
};

// mov.u32 x, %cluster_ctaid.x;  (and .y, .z)
// PTX ISA 7.8, SM_90. This CTA's coordinates inside its cluster (0..cluster_nctaid() - 1).
LINPIPE_DEVICE inline ClusterDim3 cluster_ctaid() {
  ClusterDim3 id{0, 0, 0};
#if __CUDA_ARCH__ >= 900
  asm volatile("mov.u32 %0, %%cluster_ctaid.x;" : "=r"(id.x) : : "memory");
  asm volatile("mov.u32 %0, %%cluster_ctaid.y;" : "=r"(id.y) : : "memory");
  asm volatile("mov.u32 %0, %%cluster_ctaid.z;" : "=r"(id.z) : : "memory");
#else
  linpipe_ptx_cluster_is_not_supported_before_SM_90();
#endif
  return id;
}

// mov.u32 x, %cluster_nctaid.x;  (and .y, .z)
// PTX ISA 7.8, SM_90. The cluster's shape in CTAs (1, 1, 1 without a cluster launch).
LINPIPE_DEVICE inline ClusterDim3 cluster_nctaid() {
  ClusterDim3 shape{1, 1, 1};
#if __CUDA_ARCH__ >= 900
  asm volatile("mov.u32 %0, %%cluster_nctaid.x;" : "=r"(shape.x) : : "memory");
  asm volatile("mov.u32 %0, %%cluster_nctaid.y;" : "=r"(shape.y) : : "memory");
  asm volatile("mov.u32 %0, %%cluster_nctaid.z;" : "=r"(shape.z) : : "memory");
#else
  linpipe_ptx_cluster_is_not_supported_before_SM_90();
#endif
  return shape;
}

// mov.u64 id, %gridid;
// PTX ISA 3.0, SM_30. The grid's temporal launch number in this context: differs between
// launches, so a value derived from it tells this launch's writes to shared memory from what an
// earlier kernel left there (shared memory is not cleared between launches).
LINPIPE_DEVICE inline std::uint64_t grid_launch_id() {
  std::uint64_t id = 0;
  asm("mov.u64 %0, %%gridid;" : "=l"(id));
  return id;
}

// mov.u64 ns, %globaltimer;
// PTX ISA 3.1, SM_30. Nanoseconds on a timer every SM shares (updated every microsecond or so,
// and dearer to read than %clock64): for putting different SMs' events on one time line.
LINPIPE_DEVICE inline std::uint64_t globaltimer() {
  std::uint64_t ns = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
  return ns;
}

// barrier.cluster.arrive.release.aligned;
// PTX ISA 8.0, SM_90. Every thread of every CTA in the cluster arrives (release semantics).
LINPIPE_DEVICE inline void barrier_cluster_arrive() {
#if __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
#else
  linpipe_ptx_cluster_is_not_supported_before_SM_90();
#endif
}

// barrier.cluster.wait.acquire.aligned;
// PTX ISA 8.0, SM_90. Waits until every thread of the cluster has arrived (acquire semantics).
LINPIPE_DEVICE inline void barrier_cluster_wait() {
#if __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
#else
  linpipe_ptx_cluster_is_not_supported_before_SM_90();
#endif
}

// griddepcontrol.wait;
// PTX ISA 7.8, SM_90. Waits until every grid this one depends on (the kernel before it on the
// stream, where this one was launched as its programmatic dependent: LaunchOptions::early_start)
// has completed and its memory operations are visible. Returns at once in a grid launched
// without that dependency. A kernel that may start early calls it in every thread before its
// first access to global memory another kernel may touch.
LINPIPE_DEVICE inline void griddepcontrol_wait() {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#else
  linpipe_ptx_griddepcontrol_is_not_supported_before_SM_90();
#endif
}

// griddepcontrol.launch_dependents;
// PTX ISA 7.8, SM_90. Lets the grid launched after this one as its programmatic dependent be
// scheduled once every CTA of this grid has executed it (or exited) rather than once this
// grid ends; the dependent still waits for this grid's memory in griddepcontrol.wait. No
// effect without such a dependent.
LINPIPE_DEVICE inline void griddepcontrol_launch_dependents() {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#else
  linpipe_ptx_griddepcontrol_is_not_supported_before_SM_90();
#endif
}

// setmaxnreg.inc.sync.aligned.u32 Count;
// PTX ISA 8.0, SM_90a. Raises this warpgroup's per-thread register limit to Count (24..256, a
// multiple of 8). Every warp of the warpgroup executes it; the kernel needs a register cap at
// entry (__launch_bounds__(threads, 1)).
template <std::uint32_t Count>
LINPIPE_DEVICE inline void setmaxnreg_inc() {
  static_assert(Count >= 24 && Count <= 256 && Count % 8 == 0, "setmaxnreg: 24..256, step 8");
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(Count) : "memory");
#else
  linpipe_ptx_setmaxnreg_needs_SM_90a();
#endif
}

// setmaxnreg.dec.sync.aligned.u32 Count;
// PTX ISA 8.0, SM_90a. Lowers this warpgroup's per-thread register limit to Count, returning
// the rest to the pool for setmaxnreg.inc elsewhere.
template <std::uint32_t Count>
LINPIPE_DEVICE inline void setmaxnreg_dec() {
  static_assert(Count >= 24 && Count <= 256 && Count % 8 == 0, "setmaxnreg: 24..256, step 8");
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(Count) : "memory");
#else
  linpipe_ptx_setmaxnreg_needs_SM_90a();
#endif
}

}  // namespace linpipe::ptx
#endif  // __CUDA__
