// linpipe:warp_roles — which role this thread plays in a warp-specialised block.
//
// A block is ProducerWarps producer warps followed by Consumers consumers of WarpsPerConsumer
// warps each (1: consumer warps; 4: consumer warpgroups). WarpRoles says, for the calling
// thread, its role, consumer index, warp and lane, and applies a per-role register budget
// (setmaxnreg) where every warpgroup belongs to one role. The shape is a type, so the launch
// (Roles::threads) and the arrival counts (Roles::consumer_warps) come from the same place
// as the dispatch.
//
//   using Roles = linpipe::WarpRoles<1, 4>;         // 1 producer warp, 4 consumer warps
//   const auto me = Roles::this_thread();
//   if (me.is_producer()) { if (me.leader()) produce(...); }
//   else consume(me.consumer(), me.lane());
module;
#include "linpipe_macros.h"
#include <cstdint>
export module linpipe:warp_roles;
#if defined(__CUDA__)
import :ptx_cluster;
import :ptx_sync;
#endif

export namespace linpipe {

template <int ProducerWarps, int Consumers, int WarpsPerConsumer = 1>
class WarpRoles {
  static_assert(ProducerWarps >= 1,
                "linpipe::WarpRoles<ProducerWarps, Consumers, WarpsPerConsumer>: a block needs at "
                "least one producer warp");
  static_assert(Consumers >= 1,
                "linpipe::WarpRoles<ProducerWarps, Consumers, WarpsPerConsumer>: a block needs at "
                "least one consumer");
  static_assert(WarpsPerConsumer == 1 || WarpsPerConsumer == 2 || WarpsPerConsumer == 4,
                "linpipe::WarpRoles<ProducerWarps, Consumers, WarpsPerConsumer>: a consumer is 1, 2 "
                "or 4 warps (4: a warpgroup, as wgmma needs)");
  static_assert(32 * (ProducerWarps + Consumers * WarpsPerConsumer) <= 1024,
                "linpipe::WarpRoles<ProducerWarps, Consumers, WarpsPerConsumer>: more than 1024 "
                "threads in one block: use fewer or smaller consumers");

 public:
  static constexpr int producer_warps = ProducerWarps;
  static constexpr int consumers = Consumers;
  static constexpr int warps_per_consumer = WarpsPerConsumer;
  static constexpr int consumer_warps = Consumers * WarpsPerConsumer;
  static constexpr int warps = ProducerWarps + consumer_warps;
  static constexpr int threads = 32 * warps;
  static constexpr int producer_threads = 32 * ProducerWarps;
  static constexpr int consumer_threads = 32 * consumer_warps;
  static constexpr int threads_per_consumer = 32 * WarpsPerConsumer;
  // Whether each warpgroup (4 warps) lies within one role, as setmaxnreg needs.
  static constexpr bool warpgroup_aligned = ProducerWarps % 4 == 0 && consumer_warps % 4 == 0;

  // The roles of thread `thread` of the block (threadIdx.x on the GPU; any index in tests).
  LINPIPE_HOST_DEVICE static constexpr WarpRoles of_thread(std::uint32_t thread) {
    return WarpRoles(thread);
  }
#if defined(__CUDA__)
  // The calling thread's roles. A 1-D block of exactly `threads` threads is assumed, and all 32
  // lanes of the warp call it together: the warp index is lane 0's (ptx::warp_uniform), so
  // ptxas knows that every value the roles give, lane() aside, is the same across the warp.
  LINPIPE_DEVICE static WarpRoles this_thread() {
    const std::uint32_t thread = __nvvm_read_ptx_sreg_tid_x();
    return WarpRoles(thread, ptx::warp_uniform(thread / 32));
  }
#endif

  LINPIPE_HOST_DEVICE constexpr bool is_producer() const { return warp_ < ProducerWarps; }
  LINPIPE_HOST_DEVICE constexpr bool is_consumer() const { return !is_producer(); }
  // The warp in the block, and the lane in the warp.
  LINPIPE_HOST_DEVICE constexpr std::uint32_t warp() const { return warp_; }
  LINPIPE_HOST_DEVICE constexpr std::uint32_t lane() const { return thread_ % 32; }
  // Lane 0 of each warp: the lane that issues a warp's single-thread work (copies, arrives).
  LINPIPE_HOST_DEVICE constexpr bool leader() const { return lane() == 0; }
  // The warp within its role: producer warps 0..ProducerWarps-1, consumer warps
  // 0..consumer_warps-1.
  LINPIPE_HOST_DEVICE constexpr std::uint32_t warp_in_role() const {
    return is_producer() ? warp_ : warp_ - ProducerWarps;
  }
  // The consumer this thread belongs to, 0..Consumers-1 (meaningless for a producer).
  LINPIPE_HOST_DEVICE constexpr std::uint32_t consumer() const {
    return warp_in_role() / WarpsPerConsumer;
  }
  // The warp within its consumer (0..WarpsPerConsumer-1) and the thread within it.
  LINPIPE_HOST_DEVICE constexpr std::uint32_t warp_in_consumer() const {
    return warp_in_role() % WarpsPerConsumer;
  }
  LINPIPE_HOST_DEVICE constexpr std::uint32_t thread_in_consumer() const {
    return warp_in_consumer() * 32 + lane();
  }
  // The thread within its role (0..producer_threads-1 or 0..consumer_threads-1).
  LINPIPE_HOST_DEVICE constexpr std::uint32_t thread_in_role() const {
    return warp_in_role() * 32 + lane();
  }

#if defined(__CUDA__)
  // Waits for every thread of this thread's consumer, ordering their shared-memory accesses as
  // __syncthreads() does for the block: the step between a consumer's warps writing partial
  // results (a row's partial sums) and reading each other's, or between their last reads of a
  // slot and one thread releasing it for all (ReleaseByConsumer). A one-warp consumer syncs
  // its warp; a larger one uses named barrier FirstBarrier + consumer(), counting
  // threads_per_consumer (keep those barriers apart from OrderedTurns').
  template <std::uint32_t FirstBarrier = 1>
  LINPIPE_DEVICE void sync_consumer() const {
    static_assert(WarpsPerConsumer == 1 ||
                      (FirstBarrier >= 1 && FirstBarrier + Consumers - 1 <= ptx::max_named_barrier),
                  "linpipe::WarpRoles::sync_consumer<FirstBarrier>: named barriers FirstBarrier.."
                  "FirstBarrier + Consumers - 1 must lie in 1..15 (0 is __syncthreads'): lower "
                  "FirstBarrier or use fewer consumers");
    if constexpr (WarpsPerConsumer == 1) {
      __nvvm_bar_warp_sync(0xffffffffu);
    } else {
      ptx::barrier_sync(FirstBarrier + consumer(), threads_per_consumer);
    }
  }

  // Waits for every consumer thread of the block (named barrier `Barrier`, counting
  // consumer_threads), ordering their shared-memory accesses as __syncthreads() would, but
  // without the producers: the step after the consumers fill a per-block buffer together (a
  // weight vector) while the producer is already issuing its first copies.
  template <std::uint32_t Barrier = 1>
  LINPIPE_DEVICE void sync_consumers() const {
    static_assert(consumer_warps == 1 || (Barrier >= 1 && Barrier <= ptx::max_named_barrier),
                  "linpipe::WarpRoles::sync_consumers<Barrier>: the named barrier must lie in "
                  "1..15 (0 is __syncthreads')");
    if constexpr (consumer_warps == 1) {
      __nvvm_bar_warp_sync(0xffffffffu);
    } else {
      ptx::barrier_sync(Barrier, consumer_threads);
    }
  }

  // Runs this thread's role under its register budget (setmaxnreg): producers drop to
  // ProducerRegisters per thread and run `producer()`, consumers rise to ConsumerRegisters and
  // run `consumer()`. The budget and the dispatch are one call because ptxas honours a
  // setmaxnreg only where the code after it fits the new budget: a budget set before the
  // branch is followed by both roles' code, and ptxas ignores the producer's drop (C7507).
  // Every thread of the block calls it once. Needs warpgroup-aligned roles, and the kernel's
  // register cap at entry (__launch_bounds__(Roles::threads, 1)). Both roles are inlined into
  // the kernel: a role left as a call would make ptxas serialise its wgmma (C7510) and pass
  // its accumulators through local memory.
  template <std::uint32_t ProducerRegisters, std::uint32_t ConsumerRegisters, class Producer,
            class Consumer>
  LINPIPE_DEVICE LINPIPE_ALWAYS_INLINE void run_with_register_budget(Producer&& producer,
                                                                     Consumer&& consumer) const {
    static_assert(warpgroup_aligned,
                  "linpipe::WarpRoles::run_with_register_budget: setmaxnreg acts on whole "
                  "warpgroups, so each role must be a multiple of 4 warps: use WarpRoles<4, "
                  "Consumers, 4> (a producer warpgroup and consumer warpgroups), or do not set a "
                  "budget");
    static_assert(ProducerRegisters * producer_threads + ConsumerRegisters * consumer_threads <=
                      65536,
                  "linpipe::WarpRoles::run_with_register_budget: the budgets exceed the SM's 64K "
                  "registers for this block: lower ConsumerRegisters or ProducerRegisters");
    if (is_producer()) {
      ptx::setmaxnreg_dec<ProducerRegisters>();
      [[clang::always_inline]] producer();
    } else {
      ptx::setmaxnreg_inc<ConsumerRegisters>();
      [[clang::always_inline]] consumer();
    }
  }
#endif

 private:
  LINPIPE_HOST_DEVICE constexpr explicit WarpRoles(std::uint32_t thread) : WarpRoles(thread, thread / 32) {}
  LINPIPE_HOST_DEVICE constexpr WarpRoles(std::uint32_t thread, std::uint32_t warp)
      : thread_(thread), warp_(warp) {}

  std::uint32_t thread_;
  std::uint32_t warp_;
};

}  // namespace linpipe
