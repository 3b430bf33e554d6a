// linpipe:pipeline — the protocol: which slot, which lap, and who waits on whom.
//
// One thread calls init_mbars() once; then each role builds its own pipeline object over the
// same barrier storage, and each object keeps that role's slot index and lap. The producer
// waits for a slot to be empty, fills it and signals full; consumers wait for full, read, and
// signal empty. Laps follow the PipelineBackend rule (see linpipe:backend).
module;
#include "linpipe_macros.h"
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <type_traits>
export module linpipe:pipeline;
import :config;
import :clock;
import :backend;
import :barrier_roles;
import :diagnostics;
import :stage;
import :scope;
import :trace;
import :host_backend;
#if defined(__CUDA__)
import :nvidia_mbar_backend;
#endif

namespace linpipe::detail {

// A slot claimed from a role's cursor: where the stage or scope that owns it points.
struct Claimed {
  std::uint32_t stage;
  std::uint32_t lap;
};

// How many claims a tracer can keep open at once (a DrainedTrace's ring slots); no limit if it
// does not say.
template <class Tracer>
constexpr std::uint32_t held_claims_limit() {
  if constexpr (requires { Tracer::max_held_claims; }) {
    return Tracer::max_held_claims;
  } else {
    return ~0u;
  }
}

}  // namespace linpipe::detail

export namespace linpipe {

// A try-wait's answer; converts to bool and feeds wait_*_if_needed().
struct [[nodiscard]] WaitStatus {
  bool ready;
  LINPIPE_HOST_DEVICE constexpr WaitStatus(bool is_ready) : ready(is_ready) {}
  LINPIPE_HOST_DEVICE constexpr explicit operator bool() const { return ready; }
};

#if defined(__CUDA__)
template <int NumStages>
using DefaultBackend = NvidiaMbarBackend<NumStages>;
#else
// Plain C++ has no GPU: the default backend there is the CPU one.
template <int NumStages>
using DefaultBackend = HostBackend<NumStages>;
#endif

// Tracer: NoTrace (the default: nothing recorded, no code emitted) or SliceTrace (every wait,
// claim, release and arrival of this role, timestamped; see linpipe:trace).
template <int NumStages, class Backend = DefaultBackend<NumStages>, class Tracer = NoTrace>
class ProducerConsumerPipeline {
  static_assert(NumStages >= 1,
                "linpipe::ProducerConsumerPipeline<NumStages>: NumStages must be >= 1 (use 2-8 "
                "stages to overlap copies with compute)");
  static_assert(PipelineBackend<Backend>,
                "linpipe::ProducerConsumerPipeline<NumStages, Backend>: Backend must model "
                "linpipe::PipelineBackend (copyable; BarrierStorage, Handle, storage_elems(), "
                "init_barriers, wait/try/arrive_full/empty, full/empty_handle); use "
                "NvidiaMbarBackend<NumStages> or HostBackend<NumStages>");
  static_assert(detail::built_for_stages<Backend, NumStages>(),
                "linpipe::ProducerConsumerPipeline<NumStages, Backend>: Backend was built for a "
                "different stage count; use Backend<NumStages> with the same NumStages");
  static_assert(requires(Tracer& t) {
    { Tracer::enabled } -> std::convertible_to<bool>;
    typename Tracer::ReleaseMarkType;
    t.record(TraceEvent::acquire, Role::producer, 0u, 0u);
    t.last_release_mark().mark();
  }, "linpipe::ProducerConsumerPipeline<NumStages, Backend, Tracer>: Tracer must be "
     "linpipe::NoTrace, linpipe::SliceTrace or linpipe::DrainedTrace (or have `static constexpr "
     "bool enabled`, ReleaseMarkType, record(TraceEvent, Role, stage, lap) and "
     "last_release_mark())");
  // A ring tracer keeps the release times of its role's live claims: a role may hold up to
  // NumStages of them.
  static_assert(detail::held_claims_limit<Tracer>() >= NumStages,
                "linpipe::ProducerConsumerPipeline<NumStages, Backend, DrainedTrace<Ring>>: a role "
                "may hold NumStages claims, more than the ring keeps release times for: give the "
                "TraceRing at least NumStages release slots (TraceRing<Records, Releases>)");

 public:
  using BackendType = Backend;
  using BarrierStorage = typename Backend::BarrierStorage;
  using Handle = typename Backend::Handle;
  using FullBarrierType = FullBarrier<Handle>;
  using EmptyBarrierType = EmptyBarrier<Handle>;
  using ProducerStageType = ProducerStage<NumStages, Backend, Tracer>;
  using ConsumerStageType = ConsumerStage<NumStages, Backend, Tracer>;
  using TracerType = Tracer;
  using ProduceScope = StageScope<ProducerConsumerPipeline, ScopeRelease::produce>;
  using ConsumeScope = StageScope<ProducerConsumerPipeline, ScopeRelease::consume>;
  using ConsumeExplicitScope = StageScope<ProducerConsumerPipeline, ScopeRelease::consume_explicit>;
  static constexpr int num_stages = NumStages;
  // The barrier storage every role's pipeline object shares, sized by the backend (debug words
  // included): declare `__shared__ Pipeline::Barriers barriers;`, or use a PipelineStorage.
  using Barriers = BarrierStorage[Backend::storage_elems()];

  // A pipeline object is one role's cursor: copying it would let two owners step the same
  // cursor, and moving it would strand the stages that point at it. Build one per role.
  ProducerConsumerPipeline(const ProducerConsumerPipeline&) = delete;
  ProducerConsumerPipeline& operator=(const ProducerConsumerPipeline&) = delete;

  // storage: the Barriers every role shares (shared memory on the GPU): an array of exactly
  //   Backend::storage_elems() signals, whose type carries its size, so storage sized by hand
  //   (`uint64_t barriers[2 * Stages]`) fails to compile instead of overflowing into the ring.
  // name: shown by the debug backstops, to tell a kernel's pipelines apart.
  // tracer: this role's tracer, for a traced pipeline (e.g. SliceTrace::for_this_warp(...)),
  //   moved in. Not a by-value parameter: on the GPU that is a bitwise copy whose original is
  //   destroyed as well (the NVPTX ABI passes class arguments byval), which would end a
  //   DrainedTrace's role as soon as its pipeline is built.
  template <std::size_t Elems>
  LINPIPE_HOST_DEVICE explicit ProducerConsumerPipeline(BarrierStorage (&storage)[Elems],
                                                        const char* name = "linpipe",
                                                        Tracer&& tracer = Tracer())
      : backend_(storage), storage_(storage), name_(name), tracer_(static_cast<Tracer&&>(tracer)) {
    static_assert(Elems == Backend::storage_elems(),
                  "linpipe::ProducerConsumerPipeline: the barrier array has the wrong size; "
                  "declare it as `Pipeline::Barriers barriers;` (Backend::storage_elems() "
                  "signals: 2 x NumStages barriers plus the backend's own words), or keep the "
                  "pipeline in a PipelineStorage");
  }
  // A copyable tracer (SliceTrace) may also be given as an lvalue: the pipeline keeps a copy.
  template <std::size_t Elems>
    requires std::copy_constructible<Tracer>
  LINPIPE_HOST_DEVICE explicit ProducerConsumerPipeline(BarrierStorage (&storage)[Elems], const char* name,
                                                        const Tracer& tracer)
      : ProducerConsumerPipeline(storage, name, Tracer(tracer)) {}
  // A bare pointer carries no size, so the pipeline could not tell storage that is too small.
  template <class Pointer>
    requires std::is_pointer_v<Pointer>
  LINPIPE_HOST_DEVICE explicit ProducerConsumerPipeline(Pointer, const char* = "linpipe",
                                                        Tracer = Tracer())
      : backend_(static_cast<BarrierStorage*>(nullptr)), storage_(nullptr), name_("") {
    static_assert(detail::never<Pointer>,
                  "linpipe::ProducerConsumerPipeline: build a pipeline from storage whose type "
                  "carries its size, not a pointer: `__shared__ Pipeline::Barriers barriers;`, "
                  "a PipelineStorage's `barriers`, or a member of a SharedPlan's layout");
  }

  // Bytes of barrier storage the pipeline needs.
  static constexpr std::size_t smem_bytes() {
    return Backend::storage_elems() * sizeof(BarrierStorage);
  }

  // One thread, once, before any role waits: full barriers complete after
  // producer_arrive_count arrivals, empty ones after consumer_arrive_count. Follow it with a
  // block (or cluster) barrier so every role sees initialised barriers.
  LINPIPE_HOST_DEVICE void init_mbars(std::uint32_t producer_arrive_count,
                                      std::uint32_t consumer_arrive_count) {
    if constexpr (debug_checks) {
      if (producer_arrive_count == 0 || consumer_arrive_count == 0) {
        report_bad_init();
      }
    }
    backend_.init_barriers(producer_arrive_count, consumer_arrive_count);
  }
  // The same, with both counts derived from who arrives (linpipe::Arrivals<Roles, Release>),
  // so they cannot drift from the roles and the release policy the kernel uses.
  template <class Counts>
    requires requires {
      { Counts::full } -> std::convertible_to<std::uint32_t>;
      { Counts::empty } -> std::convertible_to<std::uint32_t>;
    }
  LINPIPE_HOST_DEVICE void init_mbars(Counts) {
    init_mbars(Counts::full, Counts::empty);
  }

  // Producer: block until the current slot is empty (the consumers released it last lap).
  LINPIPE_HOST_DEVICE void wait_producer() { wait(Role::producer, producer_stage_, producer_lap_); }
  // Consumer: block until the current slot is full (the producer filled it this lap).
  LINPIPE_HOST_DEVICE void wait_consumer() { wait(Role::consumer, consumer_stage_, consumer_lap_); }
  // Non-blocking forms: whether the wait would pass now.
  LINPIPE_HOST_DEVICE WaitStatus try_wait_producer() {
    expect_initialised(Role::producer, producer_stage_, producer_lap_);
    return backend_.try_empty(producer_stage_, producer_lap_);
  }
  LINPIPE_HOST_DEVICE WaitStatus try_wait_consumer() {
    expect_initialised(Role::consumer, consumer_stage_, consumer_lap_);
    return backend_.try_full(consumer_stage_, consumer_lap_);
  }
  // Bounded forms, in every build: wait at most budget_ticks (SM clock cycles on the GPU,
  // nanoseconds on the host); not ready means the budget ran out and nothing changed.
  LINPIPE_HOST_DEVICE WaitStatus wait_producer_for(std::uint64_t budget_ticks) {
    expect_initialised(Role::producer, producer_stage_, producer_lap_);
    return backend_.wait_empty_for(producer_stage_, producer_lap_, budget_ticks);
  }
  LINPIPE_HOST_DEVICE WaitStatus wait_consumer_for(std::uint64_t budget_ticks) {
    expect_initialised(Role::consumer, consumer_stage_, consumer_lap_);
    return backend_.wait_full_for(consumer_stage_, consumer_lap_, budget_ticks);
  }
  // Wait only if an earlier try said not ready (lets a role overlap work with the poll).
  LINPIPE_HOST_DEVICE void wait_producer_if_needed(WaitStatus status) {
    if (!status.ready) wait_producer();
  }
  LINPIPE_HOST_DEVICE void wait_consumer_if_needed(WaitStatus status) {
    if (!status.ready) wait_consumer();
  }

  // The full barrier of `stage` (the producer signals it) and the empty one (consumers do).
  LINPIPE_HOST_DEVICE FullBarrierType producer_mbar(std::uint32_t stage) {
    return FullBarrierType(backend_.full_handle(stage));
  }
  LINPIPE_HOST_DEVICE EmptyBarrierType consumer_mbar(std::uint32_t stage) {
    return EmptyBarrierType(backend_.empty_handle(stage));
  }

  // Where each role's cursor is: the slot and lap its next wait or acquire uses.
  LINPIPE_HOST_DEVICE std::uint32_t producer_stage() const { return producer_stage_; }
  LINPIPE_HOST_DEVICE std::uint32_t consumer_stage() const { return consumer_stage_; }
  LINPIPE_HOST_DEVICE std::uint32_t producer_lap() const { return producer_lap_; }
  LINPIPE_HOST_DEVICE std::uint32_t consumer_lap() const { return consumer_lap_; }

  // Advance this role's cursor by one slot (or n), starting a new lap after the last slot.
  LINPIPE_HOST_DEVICE void producer_step() { step(producer_stage_, producer_lap_, 1); }
  LINPIPE_HOST_DEVICE void consumer_step() { step(consumer_stage_, consumer_lap_, 1); }
  LINPIPE_HOST_DEVICE void producer_step(std::uint32_t n) { step(producer_stage_, producer_lap_, n); }
  LINPIPE_HOST_DEVICE void consumer_step(std::uint32_t n) { step(consumer_stage_, consumer_lap_, n); }
  // Place a role's cursor (e.g. ping-pong consumers that take every other stage start one
  // apart and step by 2). Fresh pipelines start the producer at (0, 1), consumers at (0, 0).
  LINPIPE_HOST_DEVICE void start_producer_at(std::uint32_t stage, std::uint32_t lap) {
    place(producer_stage_, producer_lap_, stage, lap);
  }
  LINPIPE_HOST_DEVICE void start_consumer_at(std::uint32_t stage, std::uint32_t lap) {
    place(consumer_stage_, consumer_lap_, stage, lap);
  }
  // arrive on the current slot's full barrier, then producer_step().
  LINPIPE_HOST_DEVICE void producer_signal_and_step() {
    check_claimed_lap(Role::producer, producer_stage_, producer_lap_);
    backend_.arrive_full(producer_stage_);
    trace(TraceEvent::arrive, Role::producer, producer_stage_, producer_lap_);
    producer_step();
  }
  // arrive on the current slot's empty barrier, then consumer_step().
  LINPIPE_HOST_DEVICE void consumer_signal_and_step() {
    count_empty_arrival(consumer_stage_, consumer_lap_);
    backend_.arrive_empty(consumer_stage_);
    trace(TraceEvent::arrive, Role::consumer, consumer_stage_, consumer_lap_);
    consumer_step();
  }

  // Producer tail: wait until the consumers have released every slot, so a CTA never exits
  // while peers (other CTAs of a cluster) still arrive on its barriers.
  LINPIPE_HOST_DEVICE void drain() {
    for (int i = 0; i < NumStages; ++i) {
      wait_producer();
      producer_step();
    }
  }
  // drain() with each wait bounded by budget_ticks; false if one ran out (the cursor then
  // stays on the slot that never drained, so the pipeline is not drained).
  LINPIPE_HOST_DEVICE bool drain_for(std::uint64_t budget_ticks) {
    for (int i = 0; i < NumStages; ++i) {
      if (!wait_producer_for(budget_ticks)) return false;
      producer_step();
    }
    return true;
  }

  // Waits for the slot at the producer's cursor to be empty, claims it and advances the
  // cursor: the stage owns that slot and lap until release(), on every path. A role may
  // hold up to NumStages stages at once and release them in any order.
  LINPIPE_HOST_DEVICE ProducerStageType acquire_producer() {
    wait_producer();
    return claim_producer();
  }
  // As above after an earlier try_wait_producer() (CUTLASS's wait token): waits only if
  // `ready` says not ready, so a successful poll is not tested twice.
  LINPIPE_HOST_DEVICE ProducerStageType acquire_producer(WaitStatus ready) {
    wait_producer_if_needed(ready);
    return claim_producer();
  }
  // Waits for the slot at the consumer's cursor to be full, claims it and advances the
  // cursor; release() or release_without_signal() it on every path.
  LINPIPE_HOST_DEVICE ConsumerStageType acquire_consumer() {
    wait_consumer();
    return claim_consumer();
  }
  LINPIPE_HOST_DEVICE ConsumerStageType acquire_consumer(WaitStatus ready) {
    wait_consumer_if_needed(ready);
    return claim_consumer();
  }

  // Scoped forms: wait, claim the slot and advance the cursor, as acquire does; the scope's
  // destructor ends the claim (consume: after arriving on the slot's empty barrier).
  LINPIPE_HOST_DEVICE ProduceScope produce() {
    wait_producer();
    const detail::Claimed slot = claim(Role::producer);
    return ProduceScope(*this, slot.stage, slot.lap);
  }
  LINPIPE_HOST_DEVICE ConsumeScope consume() {
    wait_consumer();
    const detail::Claimed slot = claim(Role::consumer);
    return ConsumeScope(*this, slot.stage, slot.lap);
  }
  // Checked by linpipe-stage-protocol: some path must arrive through the scope before it ends.
  [[clang::annotate("linpipe::signal_scope")]] LINPIPE_HOST_DEVICE ConsumeExplicitScope
  consume_explicit() {
    wait_consumer();
    const detail::Claimed slot = claim(Role::consumer);
    return ConsumeExplicitScope(*this, slot.stage, slot.lap);
  }

  // Traced pipelines: marks work issued for a stage this role holds (e.g. the producer's copy
  // into it), shown on the timeline. Nothing without a tracer.
  template <class Stage>
  LINPIPE_HOST_DEVICE void mark_issue([[clang::param_typestate(unconsumed)]] const Stage& stage) {
    if constexpr (Tracer::enabled) trace(TraceEvent::issue, Stage::role, stage.index(), stage.lap());
  }
  LINPIPE_HOST_DEVICE Tracer& tracer() { return tracer_; }

  // The suspend-time hint the pipeline's blocking waits pass to the backend (nanoseconds;
  // 0 lets the hardware choose). Backends without one ignore it.
  LINPIPE_HOST_DEVICE void set_suspend_time_hint(std::uint32_t ns) { suspend_time_hint_ns_ = ns; }

  LINPIPE_HOST_DEVICE Backend& backend() { return backend_; }

  // Names a slot of this pipeline for reports.
  LINPIPE_HOST_DEVICE StageLocation location(std::uint32_t stage, std::uint32_t lap,
                                             Role role) const {
    return StageLocation{name_, storage_, stage, lap, role};
  }

 private:
  friend ProducerStageType;
  friend ConsumerStageType;
  template <class, ScopeRelease>
  friend class StageScope;

  LINPIPE_HOST_DEVICE static void step(std::uint32_t& stage, std::uint32_t& lap, std::uint32_t n) {
    const std::uint32_t to = stage + n;
    lap += to / static_cast<std::uint32_t>(NumStages);
    stage = to % static_cast<std::uint32_t>(NumStages);
  }
  LINPIPE_HOST_DEVICE static void place(std::uint32_t& stage, std::uint32_t& lap,
                                        std::uint32_t to_stage, std::uint32_t to_lap) {
    stage = to_stage % static_cast<std::uint32_t>(NumStages);
    lap = to_lap + to_stage / static_cast<std::uint32_t>(NumStages);
  }

  // Claims the slot at `role`'s cursor (already waited for) and advances the cursor. Debug
  // builds remember the slots each role holds: claiming one still held is a certain deadlock
  // (its barrier cannot complete this lap before the holder releases it), so it is reported.
  LINPIPE_HOST_DEVICE detail::Claimed claim(Role role) {
    std::uint32_t& stage = role == Role::producer ? producer_stage_ : consumer_stage_;
    std::uint32_t& lap = role == Role::producer ? producer_lap_ : consumer_lap_;
    const detail::Claimed slot{stage, lap};
    if constexpr (debug_checks) held_[role == Role::producer ? 0 : 1].claim(location(stage, lap, role));
    check_claimed_lap(role, stage, lap);
    trace(TraceEvent::acquire, role, stage, lap);
    step(stage, lap, 1);
    return slot;
  }
  // A stage or scope of this role ended its claim on `stage` (debug builds' bookkeeping; a
  // traced stage records its release itself, a scope through trace()).
  LINPIPE_HOST_DEVICE void end_claim(Role role, std::uint32_t stage) {
    if constexpr (debug_checks) held_[role == Role::producer ? 0 : 1].release(stage);
  }
  // Debug builds, where the backend keeps each slot's last producer claim (both of linpipe's
  // do): the producer's claims (and signal_and_step's fills) are noted, and a consumer's claim
  // whose wait passed on a phase two laps old is reported. A barrier wait tells phases apart by
  // parity alone, so a consumer cursor stepped two laps ahead of the producer's (consumer_step
  // over other consumers' stages) passes at once on stale data, and only hangs or over-arrives
  // much later.
  LINPIPE_HOST_DEVICE void check_claimed_lap(Role role, std::uint32_t stage, std::uint32_t lap) {
    if constexpr (debug_checks && requires(Backend& b) { b.note_producer_claim(stage, lap); }) {
      if (role == Role::producer) {
        backend_.note_producer_claim(stage, lap);
      } else if (!backend_.producer_reached(stage, lap)) {
        detail::report(ReportKind::consumer_laps_ahead, location(stage, lap, Role::consumer));
      }
    }
  }
  // Debug builds, where the backend counts arrivals (both of linpipe's do): an arrival on a
  // stage's empty barrier past what its phase expects (all 32 lanes releasing where one per
  // warp was counted) is reported before it can complete the phase early.
  LINPIPE_HOST_DEVICE void count_empty_arrival(std::uint32_t stage, std::uint32_t lap) {
    if constexpr (debug_checks && requires(Backend& b) { b.count_empty_arrival(stage, lap); }) {
      if (!backend_.count_empty_arrival(stage, lap)) {
        StageLocation at = location(stage, lap, Role::consumer);
        at.expected_arrivals = backend_.empty_expected_arrivals(stage);
        at.expected_side = BarrierSide::empty;
        detail::report(ReportKind::extra_arrival, at);
      }
    }
  }
  LINPIPE_HOST_DEVICE void trace(TraceEvent event, Role role, std::uint32_t stage, std::uint32_t lap) {
    if constexpr (Tracer::enabled) tracer_.record(event, role, stage, lap);
  }
  LINPIPE_HOST_DEVICE ProducerStageType claim_producer() {
    const detail::Claimed slot = claim(Role::producer);
    return ProducerStageType(this, slot.stage, slot.lap, tracer_.last_release_mark());
  }
  LINPIPE_HOST_DEVICE ConsumerStageType claim_consumer() {
    const detail::Claimed slot = claim(Role::consumer);
    return ConsumerStageType(this, slot.stage, slot.lap, tracer_.last_release_mark());
  }

  // The backend's own wait loop in every build; debug builds bound it and report the hung
  // slot instead of hanging, and first report a wait on a slot this role itself still holds
  // or on barriers init_mbars never set up (where the backend can tell).
  // Traced: a wait that would pass at once records nothing (the acquire that follows marks the
  // time), so a role that never stalls pays one record per stage, not three.
  LINPIPE_HOST_DEVICE void wait(Role role, std::uint32_t stage, std::uint32_t lap) {
    if constexpr (Tracer::enabled) {
      expect_initialised(role, stage, lap);
      const bool ready = role == Role::producer ? static_cast<bool>(backend_.try_empty(stage, lap))
                                                : static_cast<bool>(backend_.try_full(stage, lap));
      if (ready) return;
      trace(TraceEvent::wait_begin, role, stage, lap);
      wait_untraced(role, stage, lap);
      trace(TraceEvent::wait_end, role, stage, lap);
    } else {
      wait_untraced(role, stage, lap);
    }
  }
  LINPIPE_HOST_DEVICE void wait_untraced(Role role, std::uint32_t stage, std::uint32_t lap) {
    if constexpr (debug_checks) {
      held_[role == Role::producer ? 0 : 1].expect_free(location(stage, lap, role));
      expect_initialised(role, stage, lap);
      const std::uint64_t budget = detail::debug_wait_budget();
      const bool done = role == Role::producer
                            ? backend_.wait_empty_for(stage, lap, budget, suspend_time_hint_ns_)
                            : backend_.wait_full_for(stage, lap, budget, suspend_time_hint_ns_);
      if (!done) report_hung(role, stage, lap);
    } else if (role == Role::producer) {
      backend_.wait_empty(stage, lap, suspend_time_hint_ns_);
    } else {
      backend_.wait_full(stage, lap, suspend_time_hint_ns_);
    }
  }
  // Debug builds, where the backend can tell (both of linpipe's can): a wait or poll on
  // barriers init_mbars never set up would hang, or on the GPU pass on whatever shared memory
  // held, so it is reported instead.
  LINPIPE_HOST_DEVICE void expect_initialised(Role role, std::uint32_t stage, std::uint32_t lap) {
    if constexpr (debug_checks && requires(const Backend& b) { b.initialised(stage); }) {
      if (!backend_.initialised(stage)) {
        detail::report(ReportKind::uninitialised_barriers, location(stage, lap, role));
      }
    }
  }
  // A hung wait, blaming the right side: if the other role is itself stuck on this slot's
  // previous signal from this side, that missing signal is the fault, not the other role.
  // Producer on lap L needs the consumers' release of the fill of lap L - 2 (same parity as L);
  // a consumer on lap L needs the producer's fill, which waits for the release of lap L - 1.
  LINPIPE_HOST_DEVICE void report_hung(Role role, std::uint32_t stage, std::uint32_t lap) {
    const bool peer_blocked = role == Role::producer ? !backend_.try_full(stage, lap)
                                                     : !backend_.try_empty(stage, lap + 1);
    StageLocation at = location(stage, lap, role);
    if constexpr (requires(const Backend& b) { b.full_expected_arrivals(stage); }) {
      // The barrier whose signal is missing: the awaited one, or the other side's when the
      // peer is itself stuck on it.
      const bool missing_fill = (role == Role::consumer) != peer_blocked;
      at.expected_side = missing_fill ? BarrierSide::full : BarrierSide::empty;
      at.expected_arrivals = missing_fill ? backend_.full_expected_arrivals(stage)
                                          : backend_.empty_expected_arrivals(stage);
    }
    detail::report(peer_blocked ? ReportKind::hung_wait_peer_blocked : ReportKind::hung_wait, at);
  }
  LINPIPE_HOST_DEVICE void report_bad_init() const {
    detail::report(ReportKind::bad_init, location(0, 0, Role::producer));
  }

  Backend backend_;
  BarrierStorage* storage_;
  const char* name_;
  // The producer starts on lap 1: its first wait on a fresh empty barrier (parity 1) passes.
  std::uint32_t producer_stage_ = 0;
  std::uint32_t producer_lap_ = 1;
  std::uint32_t consumer_stage_ = 0;
  std::uint32_t consumer_lap_ = 0;
  std::uint32_t suspend_time_hint_ns_ = 0;
  // Debug builds only: the slots each role (producer, consumer) holds through live stages.
  detail::HeldSlots<NumStages> held_[debug_checks ? 2 : 1];
  [[no_unique_address]] Tracer tracer_;
};

}  // namespace linpipe
