// linpipe:diagnostics — the runtime backstops' reports. Each names the pipeline, stage, lap and
// role first, then what went wrong and the fix, and stops the program: abort() on the host; on
// the GPU a trap (the kernel fails with cudaErrorLaunchFailure instead of hanging) after the
// report is written to the zero-copy record a linpipe::DeviceReports installed (host side reads
// and prints it). The GPU path never calls printf: a vprintf anywhere in a kernel's call graph
// makes ptxas serialise its wgmma (C7510), and the debug build must time like the release one.
module;
#include "linpipe_macros.h"
#include <cstdint>
#include <cstdio>
#include <cstdlib>
export module linpipe:diagnostics;
import :config;
import :barrier_roles;

export namespace linpipe {

// Who is waiting or leaking: enough to find the faulty role in a kernel with many pipelines.
struct StageLocation {
  const char* pipeline;        // the name given to the pipeline (default "linpipe")
  const void* barriers;        // the barrier storage: tells two same-named pipelines apart
  std::uint32_t stage;
  std::uint32_t lap;
  Role role;
  // Arrivals per phase that barrier `expected_side` expects (init_mbars' count), where the
  // backend can tell (debug builds of both backends); 0 where it cannot. A report names the
  // barrier whose signal is missing or overflowing, which is not always the one waited on.
  std::uint32_t expected_arrivals = 0;
  BarrierSide expected_side = BarrierSide::full;
};

// What a backstop caught.
// hung_wait: the other role never signalled this slot; hung_wait_peer_blocked: the other role
// is itself stuck on this slot's previous signal from this role's side, which is the real fault.
enum class ReportKind : std::uint32_t {
  unreleased_stage = 1,
  hung_wait,
  slot_still_held,
  bad_init,
  hung_wait_peer_blocked,
  uninitialised_barriers,
  extra_arrival,
  stage_not_live,
  // MbarOrderedTurns' backstops: `stage` is the party, `lap` the turn.
  turn_hung,
  turn_extra_pass,
  turn_not_held,
  turns_uninitialised,
  // A DrainedTrace's ring: `stage` is the side (0 records, 1 release times), `lap` its count.
  trace_ring_full,
  consumer_laps_ahead,
  // PartialFlags' backstop: `barriers` is the flags, `stage` the slot.
  partial_never_published,
};

// One GPU report as the device writes it into zero-copy host memory (see DeviceReports).
struct DeviceReportRecord {
  static constexpr std::uint32_t name_capacity = 48;
  std::uint32_t claimed;       // the first reporting thread sets it; later ones only trap
  std::uint32_t complete;      // set (after a system fence) once every field below is written
  std::uint32_t kind;          // a ReportKind
  std::uint32_t role;          // a Role
  std::uint32_t stage, lap;
  std::uint32_t block[3];
  std::uint32_t warp, lane;
  std::uint64_t barriers;      // the device address of the barrier storage
  std::uint32_t expected_arrivals;  // StageLocation::expected_arrivals (0: not known)
  std::uint32_t expected_side;      // StageLocation::expected_side
  char pipeline[name_capacity];  // the pipeline's name, cut to fit and NUL-terminated
};

}  // namespace linpipe

#if defined(__CUDA__)
// Where the device writes its report: each CUDA translation unit without -fgpu-rdc is its own
// device module with its own copy; DeviceReports::watch(kernel) points the kernel's copy at its
// record. C language linkage gives the symbol a fixed name to look up in the loaded module.
extern "C" {
inline __device__ linpipe::DeviceReportRecord* linpipe_device_report_sink = nullptr;
}
#endif

namespace linpipe::detail {

struct ReportText {
  const char* what;
  const char* fix;
};

// The words of each report, shared by the host's printout of host and device reports alike.
LINPIPE_HOST_DEVICE constexpr ReportText report_text(ReportKind kind, Role role) {
  switch (kind) {
    case ReportKind::unreleased_stage:
      return {"stage destroyed without being released",
              "call release() or release_without_signal() on every path"};
    case ReportKind::hung_wait:
      return {"wait exceeded its budget (the barrier never completed)",
              role == Role::producer
                  ? "the consumers never released this stage: check every consumer path "
                    "releases, the consumer arrive count given to init_mbars (arrivals per "
                    "phase: 32 when every lane of a warp releases), and that init_mbars ran"
                  : "the producer never filled this stage: check expect-tx bytes match the "
                    "copies, every producer path signals, the producer arrive count given "
                    "to init_mbars, and that init_mbars ran"};
    case ReportKind::hung_wait_peer_blocked:
      return {"wait exceeded its budget (the barrier never completed)",
              role == Role::producer
                  ? "the consumers are still waiting for this stage's previous fill: the "
                    "producer never signalled it (check expect-tx bytes match the copies, every "
                    "producer path arrives, and the producer arrive count given to init_mbars)"
                  : "the producer is still waiting for this stage's release from the previous "
                    "lap: a consumer never released it (check every consumer path releases, "
                    "and the consumer arrive count given to init_mbars)"};
    case ReportKind::uninitialised_barriers:
      return {"barriers used before init_mbars",
              "call pipeline.init_mbars(producer_count, consumer_count) from one thread, then "
              "a block (or cluster) barrier, before any role waits or arrives"};
    case ReportKind::slot_still_held:
      return {"acquired a slot this role still holds (a certain deadlock: its barrier cannot "
              "complete this lap until that stage is released)",
              "release the oldest live stage before acquiring the next; a role holds at most "
              "NumStages stages (with a StageLag<Stage, Depth>, NumStages must exceed Depth)"};
    case ReportKind::bad_init:
      return {"init_mbars with an arrive count of 0",
              "pass the number of threads that arrive per phase (at least 1)"};
    case ReportKind::extra_arrival:
      return {"more arrivals on this stage's empty barrier than one phase expects (the phase "
              "completed early, so the producer may refill a slot still being read)",
              "arrive once per releasing thread that init_mbars counted: where the barrier "
              "expects one arrival per warp, release lane-guarded (ReleaseToCluster<1>, or "
              "`if (lane == 0) stage.arrive(); stage.release_without_signal();`); or derive the "
              "count from the release policy with init_mbars(linpipe::Arrivals<Roles, Release>{})"};
    case ReportKind::consumer_laps_ahead:
      return {"a consumer's wait on this stage passed on a phase two laps old: the producer has "
              "claimed the slot only for an earlier lap (a barrier wait tells phases apart by "
              "parity alone, so a cursor two laps ahead of the producer's sees an old phase as "
              "this one); the stage holds stale data",
              "wait on a slot only once the producer has filled its previous lap: a consumer that "
              "steps over other consumers' stages (consumer_step, start_consumer_at) must not run "
              "ahead of them; e.g. take turns with OrderedTurns, each waiting on its stages only "
              "after the one before has claimed its own"};
    case ReportKind::stage_not_live:
      return {"arrive() or release() on a stage whose claim has already ended (released or "
              "moved from)",
              "release each stage exactly once, through the object that holds it now"};
    case ReportKind::turn_hung:
      return {"wait for this party's turn exceeded its budget (the party before it never passed)",
              "every party must take the same number of turns, each one wait() then pass() "
              "from every thread of the party, and ThreadsPerParty must be the threads that pass"};
    case ReportKind::turn_extra_pass:
      return {"more passes into the next party's barrier than one turn expects (its turn "
              "started early)",
              "pass() once per turn from each of the party's ThreadsPerParty threads: more "
              "threads than that pass (declare ThreadsPerParty as the party's size), or a "
              "thread passed twice in one turn"};
    case ReportKind::turn_not_held:
      return {"pass() without a wait() for this turn",
              "call wait() before each pass(): a party passes only a turn it holds"};
    case ReportKind::turns_uninitialised:
      return {"turn barriers used before init()",
              "call MbarOrderedTurns<...>::init(barriers) from one thread, then a block "
              "barrier, before any party waits or passes"};
    case ReportKind::trace_ring_full:
      return {"a traced role's trace ring stayed full past the wait budget (nothing copies it out)",
              "run a TraceDrainer's drain(ring) for every TraceRing a DrainedTrace records into "
              "(e.g. on an idle warp's lanes), and reset() each ring before the barrier that "
              "starts the roles"};
    case ReportKind::partial_never_published:
      return {"wait for a shared tile's partial sum exceeded its budget (the CTA of this slot "
              "never published it)",
              "run the grid the StreamKSchedule was made for, "
              "publish each item that publishes() from its CTA's own slot after a barrier with "
              "the threads that wrote it, and zero the flags once when they are allocated (each "
              "launch leaves them at zero; a launch that failed part way may not)"};
  }
  return {"unknown report", "this is a linpipe bug; please report it"};
}

LINPIPE_HOST_DEVICE constexpr bool is_turn_report(ReportKind kind) {
  return kind == ReportKind::turn_hung || kind == ReportKind::turn_extra_pass ||
         kind == ReportKind::turn_not_held || kind == ReportKind::turns_uninitialised;
}

// Where a report points, in the words of what it is about: "pipeline 'p' (barriers 0x..) stage
// S lap L role R", or for ordered turns "ordered turns 't' (barriers 0x..) party P turn T".
struct LocationText {
  char text[160] = {};
  inline LocationText(ReportKind kind, const char* name, unsigned long long barriers,
                      std::uint32_t stage, std::uint32_t lap, Role role) {
    if (is_turn_report(kind)) {
      std::snprintf(text, sizeof(text), "ordered turns '%s' (barriers 0x%llx) party %u turn %u",
                    name, barriers, stage, lap);
    } else if (kind == ReportKind::partial_never_published) {
      std::snprintf(text, sizeof(text), "partial flags '%s' (0x%llx) slot %u", name, barriers, stage);
    } else if (kind == ReportKind::trace_ring_full) {
      std::snprintf(text, sizeof(text), "trace ring 0x%llx role %s, %s %u", barriers, role_name(role),
                    stage == 0 ? "record" : "claim", lap);
    } else {
      std::snprintf(text, sizeof(text), "pipeline '%s' (barriers 0x%llx) stage %u lap %u role %s",
                    name, barriers, stage, lap, role_name(role));
    }
  }
};

// A report's last words where the expected count is known (0: it is not, and they are empty).
struct ExpectedArrivalsText {
  char text[96] = {};
  inline ExpectedArrivalsText(ReportKind kind, std::uint32_t expected_arrivals, BarrierSide side) {
    if (expected_arrivals == 0) return;
    if (is_turn_report(kind)) {
      std::snprintf(text, sizeof(text),
                    " (each turn's barrier expects %u arrival%s: one per thread of the party "
                    "before)",
                    expected_arrivals, expected_arrivals == 1 ? "" : "s");
      return;
    }
    std::snprintf(text, sizeof(text), " (this stage's %s barrier expects %u arrival%s per phase)",
                  side == BarrierSide::full ? "full" : "empty", expected_arrivals,
                  expected_arrivals == 1 ? "" : "s");
  }
};

#if defined(__CUDA__)
// The GPU backstop, out of line and cold: fills the sink's record once (first thread wins),
// makes it visible to the host with a system fence, then traps. No sink: it only traps.
// Threads that lose the race wait (boundedly) for the winner's record before trapping: many
// threads often hit the same fault at once (every warp finding init_mbars missing), and a
// loser's trap would end the grid while the winner is still writing.
[[noreturn]] __device__ __noinline__ inline void record_and_trap(ReportKind kind,
                                                                  const char* pipeline,
                                                                  const void* barriers,
                                                                  std::uint32_t stage,
                                                                  std::uint32_t lap, Role role,
                                                                  std::uint32_t expected_arrivals,
                                                                  BarrierSide expected_side) {
  DeviceReportRecord* sink = linpipe_device_report_sink;
  if (sink != nullptr &&
      __nvvm_atom_sys_cas_gen_i(reinterpret_cast<int*>(&sink->claimed), 0, 1) != 0) {
    constexpr long long patience_cycles = 1ll << 30;  // about 0.5 s; a record takes microseconds
    const long long start = __nvvm_read_ptx_sreg_clock64();
    while (static_cast<volatile DeviceReportRecord*>(sink)->complete == 0 &&
           __nvvm_read_ptx_sreg_clock64() - start < patience_cycles) {
    }
  } else if (sink != nullptr) {
    volatile DeviceReportRecord* out = sink;
    out->kind = static_cast<std::uint32_t>(kind);
    out->role = static_cast<std::uint32_t>(role);
    out->stage = stage;
    out->lap = lap;
    out->block[0] = blockIdx.x;
    out->block[1] = blockIdx.y;
    out->block[2] = blockIdx.z;
    out->warp = (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) / 32u;
    out->lane = __nvvm_read_ptx_sreg_laneid();
    out->barriers = reinterpret_cast<std::uintptr_t>(barriers);
    out->expected_arrivals = expected_arrivals;
    out->expected_side = static_cast<std::uint32_t>(expected_side);
    std::uint32_t i = 0;
    for (; pipeline != nullptr && pipeline[i] != '\0' && i + 1 < DeviceReportRecord::name_capacity; ++i)
      out->pipeline[i] = pipeline[i];
    out->pipeline[i] = '\0';
    __nvvm_membar_sys();  // fence.sc.sys: the record before `complete`
    out->complete = 1;
    __nvvm_membar_sys();  // and `complete` out before the trap
  }
  __builtin_trap();
}
#endif

// Host: prints "linpipe: <what>: <LocationText>: <fix>" and aborts. GPU: records the same for
// DeviceReports and traps.
[[noreturn]] LINPIPE_HOST_DEVICE inline void report(ReportKind kind, const StageLocation& at) {
#if defined(__CUDA_ARCH__)
  record_and_trap(kind, at.pipeline, at.barriers, at.stage, at.lap, at.role, at.expected_arrivals,
                  at.expected_side);
#else
  const ReportText text = report_text(kind, at.role);
  const auto barriers =
      static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(at.barriers));
  const LocationText where(kind, at.pipeline, barriers, at.stage, at.lap, at.role);
  std::fprintf(stderr, "linpipe: %s: %s: %s%s\n", text.what, where.text, text.fix,
               ExpectedArrivalsText(kind, at.expected_arrivals, at.expected_side).text);
  std::fflush(stderr);
  std::abort();
#endif
}

}  // namespace linpipe::detail

namespace linpipe::detail {

// The debug backstop for a stage destroyed without release() / release_without_signal().
[[noreturn]] LINPIPE_HOST_DEVICE inline void report_unreleased_stage(const StageLocation& at) {
  report(ReportKind::unreleased_stage, at);
}

}  // namespace linpipe::detail

namespace linpipe::detail {

// Debug builds: which slots one role holds through live stages, one bit a slot.
template <int NumStages>
class HeldSlots {
  static_assert(NumStages <= 64,
                "linpipe::ProducerConsumerPipeline<NumStages>: at most 64 stages (a deeper ring "
                "does not fit in shared memory anyway)");

 public:
  LINPIPE_HOST_DEVICE void expect_free(const StageLocation& at) const {
    if (bits_ & bit(at.stage)) report(ReportKind::slot_still_held, at);
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
