// linpipe:pipeline — the protocol: which slot, which lap, and who waits on whom.
//
// One thread calls init_mbars() once; then each role builds its own pipeline object over the
// same barrier storage, and each object keeps that role's slot index and lap. The producer
// waits for a slot to be empty, fills it and signals full; consumers wait for full, read, and
// signal empty. Laps follow the PipelineBackend rule (see linpipe:backend).
module;
#include "linpipe_macros.h"
#if defined(__CUDA__)
#include <__clang_cuda_runtime_wrapper.h>
#endif
#include <cstddef>
#include <cstdint>
export module linpipe:pipeline;
import :config;
import :backend;
import :diagnostics;
import :stage;
import :scope;

export namespace linpipe {

// A try-wait's answer; converts to bool and feeds wait_*_if_needed().
struct [[nodiscard]] WaitStatus {
  bool ready;
  LINPIPE_HOST_DEVICE constexpr WaitStatus(bool is_ready) : ready(is_ready) {}
  LINPIPE_HOST_DEVICE constexpr explicit operator bool() const { return ready; }
};

template <int NumStages, class Backend>
class ProducerConsumerPipeline {
  static_assert(NumStages >= 1,
                "linpipe::ProducerConsumerPipeline<NumStages>: NumStages must be >= 1 (use 2-8 "
                "stages to overlap copies with compute)");
  static_assert(PipelineBackend<Backend>,
                "linpipe::ProducerConsumerPipeline<NumStages, Backend>: Backend must model "
                "linpipe::PipelineBackend (BarrierStorage, Handle, storage_elems(), "
                "init_barriers, wait/try/arrive_full/empty, full/empty_handle); use "
                "NvidiaMbarBackend<NumStages> or HostBackend<NumStages>");
  static_assert(Backend::storage_elems() == 2 * static_cast<std::size_t>(NumStages),
                "linpipe::ProducerConsumerPipeline<NumStages, Backend>: Backend was built for a "
                "different stage count; use Backend<NumStages> with the same NumStages");

 public:
  using BackendType = Backend;
  using BarrierStorage = typename Backend::BarrierStorage;
  using Handle = typename Backend::Handle;
  using ProducerStageType = ProducerStage<NumStages, Backend>;
  using ConsumerStageType = ConsumerStage<NumStages, Backend>;
  using ProduceScope = StageScope<ProducerConsumerPipeline, ScopeRelease::producer_step>;
  using ConsumeScope = StageScope<ProducerConsumerPipeline, ScopeRelease::consumer_arrive_and_step>;
  using ConsumeExplicitScope = StageScope<ProducerConsumerPipeline, ScopeRelease::consumer_step>;
  static constexpr int num_stages = NumStages;

  // storage: Backend::storage_elems() signals shared by every role (shared memory on the GPU).
  // name: shown by the debug backstops, to tell a kernel's pipelines apart.
  LINPIPE_HOST_DEVICE explicit ProducerConsumerPipeline(BarrierStorage* storage,
                                                        const char* name = "linpipe")
      : backend_(storage), storage_(storage), name_(name) {}

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

  // Producer: block until the current slot is empty (the consumers released it last lap).
  LINPIPE_HOST_DEVICE void wait_producer() { wait(Role::producer, producer_stage_, producer_lap_); }
  // Consumer: block until the current slot is full (the producer filled it this lap).
  LINPIPE_HOST_DEVICE void wait_consumer() { wait(Role::consumer, consumer_stage_, consumer_lap_); }
  // Non-blocking forms: whether the wait would pass now.
  LINPIPE_HOST_DEVICE WaitStatus try_wait_producer() {
    return backend_.try_empty(producer_stage_, producer_lap_);
  }
  LINPIPE_HOST_DEVICE WaitStatus try_wait_consumer() {
    return backend_.try_full(consumer_stage_, consumer_lap_);
  }
  // Wait only if an earlier try said not ready (lets a role overlap work with the poll).
  LINPIPE_HOST_DEVICE void wait_producer_if_needed(WaitStatus status) {
    if (!status.ready) wait_producer();
  }
  LINPIPE_HOST_DEVICE void wait_consumer_if_needed(WaitStatus status) {
    if (!status.ready) wait_consumer();
  }

  // The full barrier of `stage` (the producer signals it) and the empty one (consumers do).
  LINPIPE_HOST_DEVICE Handle producer_mbar(std::uint32_t stage) {
    return backend_.full_handle(stage);
  }
  LINPIPE_HOST_DEVICE Handle consumer_mbar(std::uint32_t stage) {
    return backend_.empty_handle(stage);
  }

  LINPIPE_HOST_DEVICE std::uint32_t producer_stage() const { return producer_stage_; }
  LINPIPE_HOST_DEVICE std::uint32_t consumer_stage() const { return consumer_stage_; }
  LINPIPE_HOST_DEVICE std::uint32_t producer_lap() const { return producer_lap_; }
  LINPIPE_HOST_DEVICE std::uint32_t consumer_lap() const { return consumer_lap_; }

  // Advance this role to the next slot, starting a new lap after the last one.
  LINPIPE_HOST_DEVICE void producer_step() { step(producer_stage_, producer_lap_); }
  LINPIPE_HOST_DEVICE void consumer_step() { step(consumer_stage_, consumer_lap_); }
  // arrive on the current slot's full barrier, then producer_step().
  LINPIPE_HOST_DEVICE void producer_signal_and_step() {
    backend_.arrive_full(producer_stage_);
    producer_step();
  }
  // arrive on the current slot's empty barrier, then consumer_step().
  LINPIPE_HOST_DEVICE void consumer_signal_and_step() {
    backend_.arrive_empty(consumer_stage_);
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

  // wait_producer(), then a linear claim on the slot; release() it on every path.
  LINPIPE_HOST_DEVICE ProducerStageType acquire_producer() {
    wait_producer();
    return ProducerStageType(this, producer_stage_, producer_lap_);
  }
  // wait_consumer(), then a linear claim on the slot; release() or release_without_signal().
  LINPIPE_HOST_DEVICE ConsumerStageType acquire_consumer() {
    wait_consumer();
    return ConsumerStageType(this, consumer_stage_, consumer_lap_);
  }

  // Scoped forms: wait, then a scope whose destructor releases (produce: step; consume:
  // arrive + step; consume_explicit: step, after the scope's own arrive()).
  LINPIPE_HOST_DEVICE ProduceScope produce() {
    wait_producer();
    return ProduceScope(*this, producer_stage_);
  }
  LINPIPE_HOST_DEVICE ConsumeScope consume() {
    wait_consumer();
    return ConsumeScope(*this, consumer_stage_);
  }
  LINPIPE_HOST_DEVICE ConsumeExplicitScope consume_explicit() {
    wait_consumer();
    return ConsumeExplicitScope(*this, consumer_stage_);
  }

  LINPIPE_HOST_DEVICE Backend& backend() { return backend_; }

  // Names a slot of this pipeline for reports.
  LINPIPE_HOST_DEVICE StageLocation location(std::uint32_t stage, std::uint32_t lap,
                                             Role role) const {
    return StageLocation{name_, storage_, stage, lap, role};
  }

 private:
  LINPIPE_HOST_DEVICE static void step(std::uint32_t& stage, std::uint32_t& lap) {
    if (++stage == static_cast<std::uint32_t>(NumStages)) {
      stage = 0;
      ++lap;
    }
  }

  // Release builds wait on the backend directly. Debug builds poll against a budget and
  // report the hung slot instead of hanging.
  LINPIPE_HOST_DEVICE void wait(Role role, std::uint32_t stage, std::uint32_t lap) {
    if constexpr (debug_checks) {
      detail::WaitBudget budget;
      while (!poll(role, stage, lap)) {
        if (budget.exhausted()) report_hung_wait(location(stage, lap, role));
        detail::WaitBudget::relax();
      }
    } else if (role == Role::producer) {
      backend_.wait_empty(stage, lap);
    } else {
      backend_.wait_full(stage, lap);
    }
  }
  LINPIPE_HOST_DEVICE bool poll(Role role, std::uint32_t stage, std::uint32_t lap) {
    return role == Role::producer ? backend_.try_empty(stage, lap) : backend_.try_full(stage, lap);
  }
  LINPIPE_HOST_DEVICE void report_bad_init() const {
    detail::print_report("init_mbars with an arrive count of 0", location(0, 0, Role::producer),
                         "pass the number of threads that arrive per phase (at least 1)");
    detail::stop_after_report();
  }

  Backend backend_;
  BarrierStorage* storage_;
  const char* name_;
  // The producer starts on lap 1: its first wait on a fresh empty barrier (parity 1) passes.
  std::uint32_t producer_stage_ = 0;
  std::uint32_t producer_lap_ = 1;
  std::uint32_t consumer_stage_ = 0;
  std::uint32_t consumer_lap_ = 0;
};

}  // namespace linpipe
