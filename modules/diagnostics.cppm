// linpipe:diagnostics — the runtime backstops' reports. Each names the pipeline, stage, lap and
// role first, then what went wrong and the fix, and stops the program: a trap on the GPU (the
// kernel fails with cudaErrorLaunchFailure instead of hanging), abort() on the host.
module;
#include "linpipe_macros.h"
#if defined(__CUDA__)
#include <__clang_cuda_runtime_wrapper.h>
#endif
#include <cstdint>
#include <cstdio>
#include <cstdlib>
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

[[noreturn]] LINPIPE_HOST_DEVICE inline void report_slot_still_held(const StageLocation& at) {
  print_report(
      "acquired a slot this role still holds (a certain deadlock: its barrier cannot complete "
      "this lap until that stage is released)",
      at,
      "release the oldest live stage before acquiring the next; a role holds at most NumStages "
      "stages (with a StageLag<Stage, Depth>, NumStages must exceed Depth)");
  stop_after_report();
}

// Debug builds: which slots one role holds through live stages, one bit a slot.
template <int NumStages>
class HeldSlots {
  static_assert(NumStages <= 64,
                "linpipe::ProducerConsumerPipeline<NumStages>: at most 64 stages (a deeper ring "
                "does not fit in shared memory anyway)");

 public:
  LINPIPE_HOST_DEVICE void expect_free(const StageLocation& at) const {
    if (bits_ & bit(at.stage)) report_slot_still_held(at);
  }
  LINPIPE_HOST_DEVICE void claim(const StageLocation& at) {
    expect_free(at);
    bits_ |= bit(at.stage);
  }
  LINPIPE_HOST_DEVICE void release(std::uint32_t stage) { bits_ &= ~bit(stage); }

 private:
  LINPIPE_HOST_DEVICE static std::uint64_t bit(std::uint32_t stage) {
    return std::uint64_t{1} << stage;
  }
  std::uint64_t bits_ = 0;
};

}  // namespace linpipe::detail
