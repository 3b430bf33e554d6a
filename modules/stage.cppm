// linpipe:stage — the linear stage handles: ProducerStage and ConsumerStage.
//
// A stage is an obligation: acquired by acquire_producer()/acquire_consumer() (which wait for
// it and advance the role's cursor), it must be consumed exactly once, by release() or
// release_without_signal(), on every path. A stage owns its slot: it carries its own index and
// lap, and releasing it acts on that slot, so a role may hold several stages at once (up to the
// ring's depth) and release them in any order. Three layers hold users to that, as Mojo's linear types do:
//  1. the type: move-only, [[nodiscard]], and clang's typestate attributes, so -Wconsumed
//     (an error in linpipe builds) flags leaks, double releases and uses after release/move.
//     A stage passed by non-const reference (a helper, std::swap) is in -Wconsumed's
//     'unknown' state afterwards; every member accepts 'unknown' too, so correct code that
//     does that builds, and the linpipe check (which follows such calls) judges it;
//  2. the linpipe-linear-stage clang-tidy check, keyed on the linpipe::* annotations below;
//  3. in debug builds, destroying an unreleased stage reports it and traps (device) or aborts.
module;
#include "linpipe_macros.h"
#include <cstdint>
#include <type_traits>
export module linpipe:stage;
import :config;
import :backend;
import :barrier_roles;
import :diagnostics;
import :trace;

namespace linpipe::detail {

// Release builds keep no pipeline pointer in a stage: see StageClaim.
struct NoPipeline {
  LINPIPE_HOST_DEVICE constexpr NoPipeline(const void*) {}
};

// What both stage kinds hold: a copy of the backend (a handle: one pointer to the barriers),
// the slot and lap, and whether the claim is live. Not a pointer to the pipeline: a stage kept
// in a StageLag's array would then pin the pipeline object in local memory, and every release
// would load the barrier base from there (GEMM: a 56-byte stack frame, ld.local per release).
// Debug builds also keep the pipeline, for its held-slot bookkeeping and the reports. A traced
// stage records its own release through its Mark (where to write the time), for the same reason.
template <class Pipeline, class Backend, Role StageRole, class Mark>
class StageClaim {
 protected:
  using Owner = std::conditional_t<debug_checks, Pipeline*, NoPipeline>;

  LINPIPE_HOST_DEVICE StageClaim(Pipeline* pipeline, const Backend& backend, std::uint32_t index,
                                 std::uint32_t lap, Mark mark)
      : backend_(backend), index_(index), lap_(lap), live_(true), owner_(pipeline), mark_(mark) {}
  // An empty claim (a StageLag's free slot): nothing to release.
  LINPIPE_HOST_DEVICE StageClaim()
      : backend_(static_cast<typename Backend::BarrierStorage*>(nullptr)),
        index_(0),
        lap_(0),
        live_(false),
        owner_(nullptr),
        mark_() {}
  LINPIPE_HOST_DEVICE bool live() const { return live_; }
  LINPIPE_HOST_DEVICE StageClaim(StageClaim&& other) noexcept
      : backend_(other.backend_),
        index_(other.index_),
        lap_(other.lap_),
        live_(other.live_),
        owner_(other.owner_),
        mark_(other.mark_) {
    other.live_ = false;
  }
  LINPIPE_HOST_DEVICE void take(StageClaim& other) {
    check_released();
    backend_ = other.backend_;
    index_ = other.index_;
    lap_ = other.lap_;
    live_ = other.live_;
    owner_ = other.owner_;
    mark_ = other.mark_;
    other.live_ = false;
  }
  // Debug builds: an arrival or release through a claim that has ended (released, moved from,
  // or a StageLag's empty slot) is reported instead of arriving on a slot it no longer holds.
  LINPIPE_HOST_DEVICE void expect_live() const {
    if constexpr (debug_checks) {
      if (!live_) {
        report(ReportKind::stage_not_live,
               owner_ != nullptr ? owner_->location(index_, lap_, StageRole)
                                 : StageLocation{"(empty stage)", nullptr, index_, lap_, StageRole});
      }
    }
  }
  // The debug backstop: a live claim being destroyed or overwritten.
  LINPIPE_HOST_DEVICE void check_released() const {
    if constexpr (debug_checks) {
      if (live_) detail::report_unreleased_stage(owner_->location(index_, lap_, StageRole));
    }
  }

  // mutable: a backend is a handle, and its members (handles, arrivals) do not change it.
  mutable Backend backend_;
  std::uint32_t index_;
  std::uint32_t lap_;
  bool live_;
  [[no_unique_address]] Owner owner_;
  [[no_unique_address]] Mark mark_;
};

}  // namespace linpipe::detail

export namespace linpipe {

// Defined, with its default backend, in linpipe:pipeline.
template <int NumStages, class Backend, class Tracer>
class ProducerConsumerPipeline;
template <class Stage, int Depth, class Release>
class StageLag;

// The documented escape hatch: hand a stage to storage the checker cannot follow (a member,
// an array, a container) on purpose. linpipe-linear-stage stops tracking a value passed here;
// the receiver then owns the obligation, and the debug backstop still checks it at runtime.
template <class T>
[[clang::annotate("linpipe::hand_off")]] LINPIPE_HOST_DEVICE constexpr T&& hand_off(
    T&& stage) noexcept {
  return static_cast<T&&>(stage);
}

// A consumer's claim on one full stage (its slot and lap). release() = arrive() on this slot's
// empty barrier; release_without_signal() = end the claim only (after lane-guarded or remote
// arrives through arrive()/mbar()). Neither moves the cursor: acquiring did.
template <int NumStages, class Backend, class Tracer = NoTrace>
class [[nodiscard, clang::consumable(unconsumed), clang::annotate("linpipe::linear")]]
ConsumerStage : detail::StageClaim<ProducerConsumerPipeline<NumStages, Backend, Tracer>, Backend,
                                 Role::consumer, typename Tracer::ReleaseMarkType> {
  static_assert(PipelineBackend<Backend>,
                "linpipe::ConsumerStage<NumStages, Backend>: Backend must model "
                "linpipe::PipelineBackend");
  static_assert(detail::built_for_stages<Backend, NumStages>(),
                "linpipe::ConsumerStage<NumStages, Backend>: Backend was built for a different stage "
                "count; use the pipeline's own type, Pipeline::ConsumerStageType");
  using Pipeline = ProducerConsumerPipeline<NumStages, Backend, Tracer>;
  using Claim = detail::StageClaim<Pipeline, Backend, Role::consumer, typename Tracer::ReleaseMarkType>;
  using Claim::backend_;
  using Claim::index_;
  using Claim::lap_;

 public:
  using Handle = typename Backend::Handle;
  using PipelineType = Pipeline;
  static constexpr int num_stages = NumStages;
  static constexpr Role role = Role::consumer;

  ConsumerStage(const ConsumerStage&) = delete;
  ConsumerStage& operator=(const ConsumerStage&) = delete;
  LINPIPE_HOST_DEVICE ConsumerStage(ConsumerStage&& other) noexcept : Claim(static_cast<Claim&&>(other)) {}
  // Only onto a released or moved-from stage: overwriting a live one would leak it.
  [[clang::callable_when("consumed", "unknown")]] LINPIPE_HOST_DEVICE ConsumerStage& operator=(
      ConsumerStage&& other) noexcept {
    this->take(other);
    return *this;
  }
  [[clang::callable_when("consumed", "unknown")]] LINPIPE_HOST_DEVICE ~ConsumerStage() { this->check_released(); }

  // The ring slot this stage holds, in [0, NumStages).
  [[clang::callable_when("unconsumed", "unknown")]] LINPIPE_HOST_DEVICE std::uint32_t index() const {
    return index_;
  }
  // The lap this stage was acquired on (the consumer's first lap is 0).
  [[clang::callable_when("unconsumed", "unknown")]] LINPIPE_HOST_DEVICE std::uint32_t lap() const {
    return lap_;
  }
  // The empty barrier, for special signalling (e.g. remote arrives in a cluster): arrivals
  // only; expect-tx and complete-tx there fail to compile (they belong on the full barrier).
  [[clang::callable_when("unconsumed", "unknown"), clang::annotate("linpipe::signals")]] LINPIPE_HOST_DEVICE
  EmptyBarrier<Handle> mbar() const {
    return EmptyBarrier<Handle>(backend_.empty_handle(index_));
  }
  // Arrives on the empty barrier without consuming; follow with release_without_signal().
  [[clang::callable_when("unconsumed", "unknown"), clang::annotate("linpipe::signals"),
    clang::annotate("linpipe::arrives")]] LINPIPE_HOST_DEVICE LINPIPE_ALWAYS_INLINE void arrive() const {
    signal_empty();
  }
  // Arrives on this slot's empty barrier (the producer may refill it) and ends the claim.
  [[clang::callable_when("unconsumed", "unknown"), clang::set_typestate(consumed), clang::annotate("linpipe::consume"),
    clang::annotate("linpipe::arrives")]] LINPIPE_HOST_DEVICE LINPIPE_ALWAYS_INLINE void release() {
    signal_empty();
    finish();
  }
  // Ends the claim without arriving: the signal was sent through arrive() or mbar().
  [[clang::callable_when("unconsumed", "unknown"), clang::set_typestate(consumed), clang::annotate("linpipe::consume"),
    clang::annotate("linpipe::needs_signal")]] LINPIPE_HOST_DEVICE LINPIPE_ALWAYS_INLINE void release_without_signal() {
    this->expect_live();
    finish();
  }

 private:
  friend Pipeline;
  [[clang::return_typestate(unconsumed)]] LINPIPE_HOST_DEVICE ConsumerStage(
      Pipeline* pipeline, std::uint32_t index, std::uint32_t lap,
      typename Tracer::ReleaseMarkType mark)
      : Claim(pipeline, pipeline->backend(), index, lap, mark) {}
  // StageLag's free slots start empty (and so consumed).
  template <class, int, class>
  friend class StageLag;
  [[clang::return_typestate(consumed)]] LINPIPE_HOST_DEVICE ConsumerStage() {}
  using Claim::live;

  // One arrival on this slot's empty barrier; debug builds first check the claim is live and
  // count the arrival against what the phase expects (the pipeline is a friend of this class).
  LINPIPE_HOST_DEVICE LINPIPE_ALWAYS_INLINE void signal_empty() const {
    this->expect_live();
    if constexpr (debug_checks) this->owner_->count_empty_arrival(index_, lap_);
    backend_.arrive_empty(index_);
  }

  // Ends the claim: debug builds tell the pipeline (a friend of this class, not of the
  // claim) that the slot is free again.
  LINPIPE_HOST_DEVICE LINPIPE_ALWAYS_INLINE void finish() {
    this->mark_.mark();  // traced builds: the release time, into this claim's slot
    if constexpr (debug_checks) this->owner_->end_claim(Role::consumer, index_);
    this->live_ = false;
  }
};

// A producer's claim on one empty stage (its slot and lap). release() ends the claim and
// signals nothing: the full barrier is signalled by expect-tx plus the copy engine's
// completion, or by mbar().arrive().
template <int NumStages, class Backend, class Tracer = NoTrace>
class [[nodiscard, clang::consumable(unconsumed), clang::annotate("linpipe::linear")]]
ProducerStage : detail::StageClaim<ProducerConsumerPipeline<NumStages, Backend, Tracer>, Backend,
                                 Role::producer, typename Tracer::ReleaseMarkType> {
  static_assert(PipelineBackend<Backend>,
                "linpipe::ProducerStage<NumStages, Backend>: Backend must model "
                "linpipe::PipelineBackend");
  static_assert(detail::built_for_stages<Backend, NumStages>(),
                "linpipe::ProducerStage<NumStages, Backend>: Backend was built for a different stage "
                "count; use the pipeline's own type, Pipeline::ProducerStageType");
  using Pipeline = ProducerConsumerPipeline<NumStages, Backend, Tracer>;
  using Claim = detail::StageClaim<Pipeline, Backend, Role::producer, typename Tracer::ReleaseMarkType>;
  using Claim::backend_;
  using Claim::index_;
  using Claim::lap_;

 public:
  using Handle = typename Backend::Handle;
  using PipelineType = Pipeline;
  static constexpr int num_stages = NumStages;
  static constexpr Role role = Role::producer;

  ProducerStage(const ProducerStage&) = delete;
  ProducerStage& operator=(const ProducerStage&) = delete;
  LINPIPE_HOST_DEVICE ProducerStage(ProducerStage&& other) noexcept : Claim(static_cast<Claim&&>(other)) {}
  [[clang::callable_when("consumed", "unknown")]] LINPIPE_HOST_DEVICE ProducerStage& operator=(
      ProducerStage&& other) noexcept {
    this->take(other);
    return *this;
  }
  [[clang::callable_when("consumed", "unknown")]] LINPIPE_HOST_DEVICE ~ProducerStage() { this->check_released(); }

  [[clang::callable_when("unconsumed", "unknown")]] LINPIPE_HOST_DEVICE std::uint32_t index() const {
    return index_;
  }
  // The lap this stage was acquired on (the producer's first lap is 1).
  [[clang::callable_when("unconsumed", "unknown")]] LINPIPE_HOST_DEVICE std::uint32_t lap() const {
    return lap_;
  }
  // The full barrier's handle: expect-tx bytes, the copy engine's completion, or arrive().
  [[clang::callable_when("unconsumed", "unknown"), clang::annotate("linpipe::signals")]] LINPIPE_HOST_DEVICE
  FullBarrier<Handle> mbar() const {
    return FullBarrier<Handle>(backend_.full_handle(index_));
  }
  // Ends the claim; signals nothing (see mbar()).
  [[clang::callable_when("unconsumed", "unknown"), clang::set_typestate(consumed), clang::annotate("linpipe::consume")]] LINPIPE_HOST_DEVICE LINPIPE_ALWAYS_INLINE void
  release() {
    this->expect_live();
    finish();
  }

 private:
  friend Pipeline;
  [[clang::return_typestate(unconsumed)]] LINPIPE_HOST_DEVICE ProducerStage(
      Pipeline* pipeline, std::uint32_t index, std::uint32_t lap,
      typename Tracer::ReleaseMarkType mark)
      : Claim(pipeline, pipeline->backend(), index, lap, mark) {}
  // StageLag's free slots start empty (and so consumed).
  template <class, int, class>
  friend class StageLag;
  [[clang::return_typestate(consumed)]] LINPIPE_HOST_DEVICE ProducerStage() {}
  using Claim::live;

  // Ends the claim: debug builds tell the pipeline (a friend of this class, not of the
  // claim) that the slot is free again.
  LINPIPE_HOST_DEVICE LINPIPE_ALWAYS_INLINE void finish() {
    this->mark_.mark();  // traced builds: the release time, into this claim's slot
    if constexpr (debug_checks) this->owner_->end_claim(Role::producer, index_);
    this->live_ = false;
  }
};

}  // namespace linpipe
