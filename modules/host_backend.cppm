// linpipe:host_backend — the pipeline protocol on CPU threads, so pipeline logic, examples
// and stress tests run (under ThreadSanitizer too) with no GPU.
//
// Each signal counts arrivals modulo twice its expected count: value / expected is the parity
// of completed phases, which is all an mbarrier parity wait observes. Storage layout and lap
// rule are the NVIDIA backend's: full[0..N) then empty[0..N), waits on parity lap & 1.
module;
#include "linpipe_macros.h"
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <thread>
export module linpipe:host_backend;
import :clock;

export namespace linpipe {

// One host signal: an arrival counter that completes a phase every `expected` arrivals.
struct HostSignal {
  std::atomic<std::uint32_t> arrivals{0};  // arrivals modulo 2 * expected
  // Arrivals per phase, set by init_mbars; 0 until then. An uninitialised signal never
  // completes a phase, as an uninitialised mbarrier would not: host tests must not pass where
  // the GPU would hang (debug builds report the missing init_mbars at the first wait).
  std::uint32_t expected = 0;
  // Arrivals counted by the pipeline's debug checks (see HostBackend::count_empty_arrival).
  std::atomic<std::uint64_t> counted{0};
  std::atomic<std::uint32_t> claimed_lap{0};  // a full signal: the producer's last claim, lap + 1
};

class HostSignalHandle {
 public:
  inline explicit HostSignalHandle(HostSignal* signal) : signal_(signal) {}

  // Arrives once; the arrival that completes a phase wakes the waiters.
  inline void arrive() const {
    if (signal_->expected == 0) {  // not initialised: counted, never completes a phase
      signal_->arrivals.fetch_add(1, std::memory_order_acq_rel);
      return;
    }
    const std::uint32_t wrap = 2 * signal_->expected;
    std::uint32_t seen = signal_->arrivals.load(std::memory_order_relaxed);
    std::uint32_t next = 0;
    do {
      next = seen + 1 == wrap ? 0 : seen + 1;
    } while (!signal_->arrivals.compare_exchange_weak(seen, next, std::memory_order_acq_rel,
                                                      std::memory_order_relaxed));
    if (next % signal_->expected == 0) signal_->arrivals.notify_all();
  }
  // True once the phase of parity (lap & 1) has completed (the mbarrier parity rule).
  inline bool passed(std::uint32_t lap) const {
    return passed(signal_->arrivals.load(std::memory_order_acquire), lap);
  }
  // Blocks (futex, no spinning) until passed(lap).
  inline void wait(std::uint32_t lap) const { (void)wait<false>(lap, 0); }
  // Waits at most budget_ns nanoseconds (polling with yields); false if the budget ran out.
  inline bool wait_for(std::uint32_t lap, std::uint64_t budget_ns) const {
    return wait<true>(lap, budget_ns);
  }
  inline HostSignal* address() const { return signal_; }

 private:
  // The one wait loop: an unbounded wait sleeps on the futex, a bounded one polls its deadline.
  template <bool Bounded>
  inline bool wait(std::uint32_t lap, std::uint64_t budget_ns) const {
    const detail::Deadline<Bounded> deadline(budget_ns);
    for (;;) {
      const std::uint32_t seen = signal_->arrivals.load(std::memory_order_acquire);
      if (passed(seen, lap)) return true;
      if constexpr (Bounded) {
        if (deadline.passed()) return false;
        std::this_thread::yield();
      } else {
        signal_->arrivals.wait(seen, std::memory_order_acquire);
      }
    }
  }
  inline bool passed(std::uint32_t arrivals, std::uint32_t lap) const {
    if (signal_->expected == 0) return false;  // not initialised: no phase ever completes
    const std::uint32_t completed_parity = arrivals / signal_->expected;
    return completed_parity != (lap & 1u);
  }

  HostSignal* signal_;
};

template <int NumStages>
class HostBackend {
  static_assert(NumStages >= 1, "linpipe::HostBackend<NumStages>: NumStages must be >= 1");

 public:
  using BarrierStorage = HostSignal;
  using Handle = HostSignalHandle;
  static constexpr int num_stages = NumStages;

  explicit HostBackend(BarrierStorage* storage) : signals_(storage) {}

  static constexpr std::size_t storage_elems() { return 2 * static_cast<std::size_t>(NumStages); }

  // One thread, before any other thread touches the storage.
  void init_barriers(std::uint32_t producer_arrive_count, std::uint32_t consumer_arrive_count) {
    for (int s = 0; s < NumStages; ++s) {
      init(signals_[s], producer_arrive_count);
      init(signals_[NumStages + s], consumer_arrive_count);
    }
  }

  // The suspend-time hint is accepted for the pipeline's sake and ignored (futex waits).
  void wait_full(std::uint32_t stage, std::uint32_t lap, std::uint32_t = 0) {
    full_handle(stage).wait(lap);
  }
  void wait_empty(std::uint32_t stage, std::uint32_t lap, std::uint32_t = 0) {
    empty_handle(stage).wait(lap);
  }
  bool wait_full_for(std::uint32_t stage, std::uint32_t lap, std::uint64_t budget_ns,
                     std::uint32_t = 0) {
    return full_handle(stage).wait_for(lap, budget_ns);
  }
  bool wait_empty_for(std::uint32_t stage, std::uint32_t lap, std::uint64_t budget_ns,
                      std::uint32_t = 0) {
    return empty_handle(stage).wait_for(lap, budget_ns);
  }
  bool try_full(std::uint32_t stage, std::uint32_t lap) { return full_handle(stage).passed(lap); }
  bool try_empty(std::uint32_t stage, std::uint32_t lap) {
    return empty_handle(stage).passed(lap);
  }
  // Debug aids the pipeline uses where a backend offers them: whether init_mbars ran on this
  // slot's signals, and the arrivals per phase each expects.
  bool initialised(std::uint32_t stage) const {
    return signals_[stage].expected != 0 && signals_[NumStages + stage].expected != 0;
  }
  std::uint32_t full_expected_arrivals(std::uint32_t stage) const { return signals_[stage].expected; }
  std::uint32_t empty_expected_arrivals(std::uint32_t stage) const {
    return signals_[NumStages + stage].expected;
  }

  // As NvidiaMbarBackend's: the producer's last claim of each slot (its lap + 1), and whether a
  // consumer's passed wait on consumer lap `lap` saw that lap's phase rather than one two laps
  // older (the producer's lap for that fill is lap + 1).
  void note_producer_claim(std::uint32_t stage, std::uint32_t lap) {
    signals_[stage].claimed_lap.store(lap + 1, std::memory_order_release);
  }
  bool producer_reached(std::uint32_t stage, std::uint32_t lap) const {
    const std::uint32_t claimed = signals_[stage].claimed_lap.load(std::memory_order_acquire);
    return claimed == 0 || claimed >= lap + 1;
  }

  // As NvidiaMbarBackend::count_empty_arrival: false for an arrival past what the phases up
  // to consumer lap `lap` expect.
  bool count_empty_arrival(std::uint32_t stage, std::uint32_t lap) {
    HostSignal& empty = signals_[NumStages + stage];
    const std::uint64_t total = empty.counted.fetch_add(1, std::memory_order_acq_rel) + 1;
    return total <= (std::uint64_t{lap} + 1) * empty.expected;
  }

  void arrive_full(std::uint32_t stage) { full_handle(stage).arrive(); }
  void arrive_empty(std::uint32_t stage) { empty_handle(stage).arrive(); }
  Handle full_handle(std::uint32_t stage) { return Handle(&signals_[stage]); }
  Handle empty_handle(std::uint32_t stage) { return Handle(&signals_[NumStages + stage]); }

 private:
  static void init(HostSignal& signal, std::uint32_t expected) {
    signal.expected = expected == 0 ? 1 : expected;
    signal.counted.store(0, std::memory_order_relaxed);
    signal.claimed_lap.store(0, std::memory_order_relaxed);
    signal.arrivals.store(0, std::memory_order_release);
  }

  BarrierStorage* signals_;
};

}  // namespace linpipe
