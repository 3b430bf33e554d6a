// linpipe:clock — the unit of every wait budget: SM clock cycles on the GPU, nanoseconds on
// the host. Backends measure bounded waits with it, the debug builds' budgets are in it, and
// traces timestamp their events with it (anchored to a clock all SMs share, wall_ns_now()).
module;
#include "linpipe_macros.h"
#include <atomic>
#include <chrono>
#include <cstdint>
export module linpipe:clock;
import :config;
#if defined(__CUDA__)
import :ptx_cluster;
#endif

export namespace linpipe {

// Now, in wait-budget ticks. Only differences between two readings on one thread mean anything.
LINPIPE_HOST_DEVICE inline std::uint64_t wait_ticks_now() {
#if defined(__CUDA_ARCH__)
  return static_cast<std::uint64_t>(__nvvm_read_ptx_sreg_clock64());
#else
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
#endif
}

// Now, in nanoseconds on a clock every SM shares (%globaltimer on the GPU; steady_clock on the
// host): what ties one SM's tick readings to another's.
LINPIPE_HOST_DEVICE inline std::uint64_t wall_ns_now() {
#if defined(__CUDA_ARCH__)
  return ptx::globaltimer();
#else
  return wait_ticks_now();
#endif
}

}  // namespace linpipe

namespace linpipe::detail {

// The budget a debug-build wait gets before it reports instead of hanging (see linpipe:config).
LINPIPE_HOST_DEVICE inline std::uint64_t debug_wait_budget() {
#if defined(__CUDA_ARCH__)
  return device_wait_budget_cycles;
#else
  return host_wait_budget_ns.load(std::memory_order_relaxed);
#endif
}

// A wait's deadline; Bounded = false compiles to nothing, so the unbounded wait and the
// bounded one are the same loop.
template <bool Bounded>
class Deadline {
 public:
  LINPIPE_HOST_DEVICE explicit Deadline(std::uint64_t budget_ticks)
      : budget_(budget_ticks), start_(Bounded ? wait_ticks_now() : 0) {}
  LINPIPE_HOST_DEVICE bool passed() const {
    if constexpr (Bounded) {
      return wait_ticks_now() - start_ > budget_;
    } else {
      return false;
    }
  }

 private:
  std::uint64_t budget_;
  std::uint64_t start_;
};

}  // namespace linpipe::detail
