// linpipe:diagnostics — the runtime backstops' reports. Each names the pipeline, stage, lap and
// role first, then what went wrong and the fix, and stops the program: a trap on the GPU (the
// kernel fails with cudaErrorLaunchFailure instead of hanging), abort() on the host.
module;
#include "linpipe_macros.h"
#if defined(__CUDA__)
#include <__clang_cuda_runtime_wrapper.h>
#endif
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
export module linpipe:diagnostics;
import :config;

export namespace linpipe {

enum class Role : std::uint8_t { producer, consumer };

// Who is waiting or leaking: enough to find the faulty role in a kernel with many pipelines.
struct StageLocation {
  const char* pipeline;        // the name given to the pipeline (default "linpipe")
  const void* barriers;        // the barrier storage: tells two same-named pipelines apart
  std::uint32_t stage;
  std::uint32_t lap;
  Role role;
};

}  // namespace linpipe

namespace linpipe::detail {

LINPIPE_HOST_DEVICE inline const char* role_name(Role role) {
  return role == Role::producer ? "producer" : "consumer";
}

[[noreturn]] LINPIPE_HOST_DEVICE inline void stop_after_report() {
#if defined(__CUDA_ARCH__)
  __builtin_trap();
#else
  std::abort();
#endif
}

// Prints "linpipe: <what>: pipeline 'p' (barriers 0x..) stage S lap L role R [block/warp]".
LINPIPE_HOST_DEVICE inline void print_report(const char* what, const StageLocation& at,
                                             const char* fix) {
#if defined(__CUDA_ARCH__)
  printf(
      "linpipe: %s: pipeline '%s' (barriers %p) stage %u lap %u role %s, block (%u,%u,%u) "
      "warp %u lane %u: %s\n",
      what, at.pipeline, at.barriers, at.stage, at.lap, role_name(at.role),
      __nvvm_read_ptx_sreg_ctaid_x(), __nvvm_read_ptx_sreg_ctaid_y(),
      __nvvm_read_ptx_sreg_ctaid_z(),
      (__nvvm_read_ptx_sreg_tid_x() +
       __nvvm_read_ptx_sreg_ntid_x() *
           (__nvvm_read_ptx_sreg_tid_y() +
            __nvvm_read_ptx_sreg_ntid_y() * __nvvm_read_ptx_sreg_tid_z())) / 32u,
      __nvvm_read_ptx_sreg_laneid(), fix);
#else
  std::fprintf(stderr, "linpipe: %s: pipeline '%s' (barriers %p) stage %u lap %u role %s: %s\n",
               what, at.pipeline, at.barriers, at.stage, at.lap, role_name(at.role), fix);
  std::fflush(stderr);
#endif
}

}  // namespace linpipe::detail

export namespace linpipe {

// The debug backstop for a stage destroyed without release() / release_without_signal().
[[noreturn]] LINPIPE_HOST_DEVICE inline void report_unreleased_stage(const StageLocation& at) {
  detail::print_report("stage destroyed without being released", at,
                       "call release() or release_without_signal() on every path");
  detail::stop_after_report();
}

// The debug backstop for a wait that exceeded its budget (a barrier that never completes).
[[noreturn]] LINPIPE_HOST_DEVICE inline void report_hung_wait(const StageLocation& at) {
  detail::print_report(
      "wait exceeded its budget (the barrier never completed)", at,
      at.role == Role::producer
          ? "the consumers never released this stage: check every consumer path releases, and "
            "the consumer arrive count given to init_mbars"
          : "the producer never filled this stage: check expect-tx bytes match the copies, every "
            "producer path signals, and the producer arrive count given to init_mbars");
  detail::stop_after_report();
}

}  // namespace linpipe

namespace linpipe::detail {

// Measures one debug-build wait against its budget: SM cycles on the GPU, time on the host.
class WaitBudget {
 public:
  LINPIPE_HOST_DEVICE inline WaitBudget() : start_(now()) {}
  LINPIPE_HOST_DEVICE inline bool exhausted() const {
#if defined(__CUDA_ARCH__)
    return now() - start_ > device_wait_budget_cycles;
#else
    return now() - start_ > host_wait_budget_ns.load(std::memory_order_relaxed);
#endif
  }
  // Between polls: nothing on the GPU (the poll is cheap), a yield on the host.
  LINPIPE_HOST_DEVICE static inline void relax() {
#if !defined(__CUDA_ARCH__)
    std::this_thread::yield();
#endif
  }

 private:
  LINPIPE_HOST_DEVICE static inline std::uint64_t now() {
#if defined(__CUDA_ARCH__)
    return static_cast<std::uint64_t>(__nvvm_read_ptx_sreg_clock64());
#else
    return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                          std::chrono::steady_clock::now().time_since_epoch())
                                          .count());
#endif
  }

  std::uint64_t start_;
};

}  // namespace linpipe::detail
