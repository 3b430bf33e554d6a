// linpipe:partial_flags — hands a shared tile's partial sums from the CTAs that computed them to
// the CTA that finishes the tile (StreamKSchedule), through one flag per slot in global memory.
//
// A publisher's threads write their partial into its slot (memory of the kernel's choosing),
// pass a barrier together, and then one of them publishes the slot: a release store of 1 at GPU
// scope. The finisher's one thread waits for the flag with acquire loads, clears it, and passes
// a barrier with the threads that then read the slot: what the publisher's threads wrote before
// their barrier is visible to them (the barrier orders it before the release, the acquire
// before the finisher's barrier). Each slot is published and waited for once a launch, and the
// wait leaves it at zero, so the flags need no reset between launches (nor a CUDA graph's
// replays): zero them once when they are allocated.
//
// Debug builds bound the wait (linpipe:config's budget) and trap with a report naming the flags
// and the slot: a CTA that never published (a grid other than the schedule's, a kernel path
// that skipped the publish) or flags left set by a launch that failed.
//
//   if (item.publishes()) {
//     write(partials + slot(blockIdx.x));  me.sync_consumer();
//     if (me.thread_in_consumer() == 0) flags.publish(slot(blockIdx.x));
//   } else if (item.finishes()) {
//     for (peer : peers) { if (first thread) flags.wait(slot(peer)); me.sync_consumer(); add(...); }
//   }
module;
#include "linpipe_macros.h"
#include <atomic>
#include <cstddef>
#include <cstdint>
export module linpipe:partial_flags;
import :clock;
import :config;
import :diagnostics;
#if defined(__CUDA__)
import :ptx_sync;
#endif

export namespace linpipe {

class PartialFlags {
 public:
  // `flags`: `slots` words that every CTA reaches (device memory), zero at rest. `name` is for
  // the debug report (a string literal: the report copies it when it fires).
  LINPIPE_HOST_DEVICE constexpr PartialFlags(std::uint32_t* flags, const char* name = "partials")
      : flags_(flags), name_(name) {}

  LINPIPE_HOST_DEVICE static constexpr std::size_t bytes(std::uint32_t slots) {
    return slots * sizeof(std::uint32_t);
  }

  // One thread, after the threads that wrote `slot`'s partial passed a barrier with it.
  LINPIPE_HOST_DEVICE inline void publish(std::uint32_t slot) const {
#if defined(__CUDA_ARCH__)
    ptx::st_release_gpu(flags_ + slot, 1);
#else
    std::atomic_ref<std::uint32_t>(flags_[slot]).store(1, std::memory_order_release);
#endif
  }

  // One thread: returns once `slot` is published (then passes a barrier with the readers) and
  // sets it back to zero for the next launch. Debug builds trap with a report past the budget.
  LINPIPE_HOST_DEVICE inline void wait(std::uint32_t slot) const {
    detail::Deadline<debug_checks> deadline(detail::debug_wait_budget());
    while (load_acquire(slot) == 0) {
      if (deadline.passed()) {
        detail::report(ReportKind::partial_never_published,
                       StageLocation{name_, flags_, slot, 0, Role::consumer});
      }
    }
    store_relaxed(slot, 0);
  }

  // Whether `slot` is published now, without waiting (for tests and reports).
  LINPIPE_HOST_DEVICE inline bool published(std::uint32_t slot) const { return load_acquire(slot) != 0; }

 private:
  LINPIPE_HOST_DEVICE inline std::uint32_t load_acquire(std::uint32_t slot) const {
#if defined(__CUDA_ARCH__)
    return ptx::ld_acquire_gpu(flags_ + slot);
#else
    return std::atomic_ref<std::uint32_t>(flags_[slot]).load(std::memory_order_acquire);
#endif
  }
  LINPIPE_HOST_DEVICE inline void store_relaxed(std::uint32_t slot, std::uint32_t value) const {
#if defined(__CUDA_ARCH__)
    ptx::st_relaxed_gpu(flags_ + slot, value);
#else
    std::atomic_ref<std::uint32_t>(flags_[slot]).store(value, std::memory_order_relaxed);
#endif
  }

  std::uint32_t* flags_;
  const char* name_;
};

}  // namespace linpipe
