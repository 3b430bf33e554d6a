// linpipe:nvidia_mbar_backend — the default backend: mbarriers in shared memory (SM_90+).
//
// Shared-memory layout: NumStages full barriers, then NumStages empty barriers, 8 bytes each.
//   full[s]:  the producer arrives (or expect-tx + the copy engine completes); consumers wait.
//   empty[s]: consumers arrive; the producer waits before refilling stage s.
// Then two words that debug builds fill: a token init_mbars writes (see init_token()) and the
// arrive counts it was given, so waits can tell barriers it never set up, and hang reports can
// state the counts (an mbarrier's own count cannot be read back). Release builds keep the two
// words too, so one storage size serves both builds and a hand-sized `uint64_t[2 * N]` is
// always refused. Debug builds then add one word per stage: the arrivals made on that stage's
// empty barrier so far, so an arrival past what the phases expect is reported at once.
module;
#include "linpipe_macros.h"
#include <cstddef>
#include <cstdint>
export module linpipe:nvidia_mbar_backend;
#if defined(__CUDA__)
import :config;
import :clock;
import :ptx_cluster;
import :ptx_mbarrier;

namespace linpipe::detail {

// What an init leaves in a debug word beside its barriers: a mix of the grid's launch id, the
// CTA and the barriers' shared address, so neither an earlier kernel's leftovers in shared
// memory nor another CTA's pass for an init this CTA never ran.
LINPIPE_DEVICE inline std::uint64_t barrier_init_token(std::uint32_t shared_address) {
  // The special registers directly: blockIdx/gridDim are internal-linkage objects each
  // partition's includes declare anew.
  const std::uint64_t cta =
      __nvvm_read_ptx_sreg_ctaid_x() +
      std::uint64_t(__nvvm_read_ptx_sreg_nctaid_x()) *
          (__nvvm_read_ptx_sreg_ctaid_y() +
           std::uint64_t(__nvvm_read_ptx_sreg_nctaid_y()) * __nvvm_read_ptx_sreg_ctaid_z());
  const std::uint64_t launch = ptx::grid_launch_id() * 0x9E3779B97F4A7C15ull;
  return launch ^ cta * 0xC2B2AE3D27D4EB4Full ^ shared_address;
}

// The one mbarrier wait loop: until the phase of parity `lap & 1` completes. try_wait suspends
// in hardware between polls; a bounded wait also checks its deadline (budget ticks) and returns
// false when it passes, an unbounded one compiles without it.
template <bool Bounded>
LINPIPE_DEVICE bool wait_parity(std::uint64_t* bar, std::uint32_t lap, std::uint64_t budget,
                                std::uint32_t hint_ns = 0) {
  const Deadline<Bounded> deadline(budget);
  for (;;) {
    const bool done = hint_ns == 0 ? ptx::mbarrier_try_wait_parity(bar, lap & 1u)
                                   : ptx::mbarrier_try_wait_parity(bar, lap & 1u, hint_ns);
    if (done) return true;
    if (deadline.passed()) return false;
  }
}

}  // namespace linpipe::detail

export namespace linpipe {

// One mbarrier in shared memory. Opaque: what it can do is what its members say.
class MbarHandle {
 public:
  // An empty handle (address() == nullptr), e.g. a slot for a signal sent later.
  MbarHandle() = default;
  LINPIPE_HOST_DEVICE inline explicit MbarHandle(std::uint64_t* bar) : bar_(bar) {}

  // Arrives once (release, CTA scope).
  LINPIPE_DEVICE inline void arrive() const { (void)ptx::mbarrier_arrive(bar_); }
  // Expects tx_count more bytes from async copies in this phase, then arrives once.
  LINPIPE_DEVICE inline void arrive_expect_tx(std::uint32_t tx_count) const {
    (void)ptx::mbarrier_arrive_expect_tx(bar_, tx_count);
  }
  // Expects tx_count more bytes in this phase without arriving.
  LINPIPE_DEVICE inline void expect_tx(std::uint32_t tx_count) const {
    ptx::mbarrier_expect_tx(bar_, tx_count);
  }
  // Marks tx_count bytes as delivered (what an async copy's completion does).
  LINPIPE_DEVICE inline void complete_tx(std::uint32_t tx_count) const {
    ptx::mbarrier_complete_tx(bar_, tx_count);
  }
  // Arrives once on the barrier at this offset in CTA cta_rank of the cluster.
  LINPIPE_DEVICE inline void arrive_cluster(std::uint32_t cta_rank) const {
    ptx::mbarrier_arrive_cluster(bar_, cta_rank);
  }
  // The same, released at CTA scope (see ptx::mbarrier_arrive_cluster_release_cta).
  LINPIPE_DEVICE inline void arrive_cluster_release_cta(std::uint32_t cta_rank) const {
    ptx::mbarrier_arrive_cluster_release_cta(bar_, cta_rank);
  }
  // The remote forms of the above, on the barrier at this offset in CTA cta_rank of the
  // cluster: announce (and arrive for) bytes a copy will deliver there, or mark them delivered.
  LINPIPE_DEVICE inline void arrive_expect_tx_cluster(std::uint32_t cta_rank,
                                                      std::uint32_t tx_count) const {
    ptx::mbarrier_arrive_expect_tx_cluster(bar_, cta_rank, tx_count);
  }
  LINPIPE_DEVICE inline void expect_tx_cluster(std::uint32_t cta_rank, std::uint32_t tx_count) const {
    ptx::mbarrier_expect_tx_cluster(bar_, cta_rank, tx_count);
  }
  LINPIPE_DEVICE inline void complete_tx_cluster(std::uint32_t cta_rank,
                                                 std::uint32_t tx_count) const {
    ptx::mbarrier_complete_tx_cluster(bar_, cta_rank, tx_count);
  }
  // The generic address, and the .shared::cta address that TMA and bulk copies take.
  LINPIPE_HOST_DEVICE inline std::uint64_t* address() const { return bar_; }
  LINPIPE_DEVICE inline std::uint32_t shared_address() const { return ptx::shared_address(bar_); }

 private:
  std::uint64_t* bar_ = nullptr;
};

template <int NumStages>
class NvidiaMbarBackend {
  static_assert(NumStages >= 1, "linpipe::NvidiaMbarBackend<NumStages>: NumStages must be >= 1");

 public:
  using BarrierStorage = std::uint64_t;
  using Handle = MbarHandle;
  static constexpr int num_stages = NumStages;
  // Shared memory one block may opt into on SM_90 (227 KiB, cudaDevAttrMaxSharedMemoryPerBlockOptin
  // on H100/H200): PipelineStorage refuses to compile past it instead of failing in ptxas.
  static constexpr std::size_t max_storage_bytes = 227 * 1024;

  // Mojo's SM100_PIPELINE_WAIT_TICKS idea: a waiting warp suspends (freeing issue slots for
  // the math warps) rather than spinning; 0 lets the hardware pick its own time limit.
  static constexpr std::uint32_t default_suspend_time_hint_ns = 0;

  // Keeps the barriers as a shared-window pointer, so slot arithmetic stays 32-bit and each
  // barrier's `.shared::cta` address folds to a register, as hand-written PTX would have it.
  // Host-device so that the PipelineBackend check holds in host contexts too (a namespace-scope
  // `constexpr auto bytes = Storage::launch_bytes();` instantiates the pipeline there).
  LINPIPE_HOST_DEVICE explicit NvidiaMbarBackend(BarrierStorage* storage)
      : bars_((SharedBarrier*)storage) {}

  // The barriers, the two init words and, in debug builds, a word per slot counting its empty
  // barrier's arrivals and one keeping the last lap the producer claimed it for: declare
  // storage as Pipeline::Barriers (or PipelineStorage), never as 2 * NumStages words.
  // The total is kept even (whole 16-byte units), so a slot declared right after the barriers
  // keeps the 16-byte alignment bulk copies need.
  static constexpr std::size_t debug_elems = 2 + (debug_checks ? 2 * static_cast<std::size_t>(NumStages) : 0);
  static constexpr std::size_t storage_elems() {
    return 2 * static_cast<std::size_t>(NumStages) + debug_elems;
  }

  // One thread: full barriers expect producer_arrive_count arrivals per phase, empty ones
  // consumer_arrive_count; then fences the inits for the cluster and the async proxy.
  LINPIPE_DEVICE void init_barriers(std::uint32_t producer_arrive_count,
                                    std::uint32_t consumer_arrive_count) {
    for (int s = 0; s < NumStages; ++s) {
      ptx::mbarrier_init(full(s), producer_arrive_count);
      ptx::mbarrier_init(empty(s), consumer_arrive_count);
    }
    if constexpr (debug_checks) {
      for (int s = 0; s < 2 * NumStages; ++s) bars_[2 * NumStages + 2 + s] = 0;
      bars_[2 * NumStages + 1] = std::uint64_t{producer_arrive_count} << 32 | consumer_arrive_count;
      bars_[2 * NumStages] = init_token();
    }
    ptx::fence_mbarrier_init();
  }

  // Debug aids the pipeline uses where a backend offers them: whether init_mbars set up these
  // barriers in this launch and this CTA, and the arrivals per phase each barrier expects.
  LINPIPE_DEVICE bool initialised(std::uint32_t) const
    requires(debug_checks)
  {
    return bars_[2 * NumStages] == init_token();
  }
  LINPIPE_DEVICE std::uint32_t full_expected_arrivals(std::uint32_t) const
    requires(debug_checks)
  {
    return static_cast<std::uint32_t>(bars_[2 * NumStages + 1] >> 32);
  }
  LINPIPE_DEVICE std::uint32_t empty_expected_arrivals(std::uint32_t) const
    requires(debug_checks)
  {
    return static_cast<std::uint32_t>(bars_[2 * NumStages + 1]);
  }

  // Counts one arrival on `stage`'s empty barrier for a consumer claim of lap `lap`; false if
  // it is more than the phases up to that lap expect (lap L's phase needs (L + 1) x count
  // arrivals in all, and none of lap L + 1 can come before it completes). Only this CTA's own
  // arrivals are counted: one sent to a peer CTA (arrive_cluster) lands in the peer's barrier
  // uncounted, so an extra remote arrival is not reported.
  LINPIPE_DEVICE bool count_empty_arrival(std::uint32_t stage, std::uint32_t lap)
    requires(debug_checks)
  {
    const auto before = static_cast<std::uint64_t>(__nvvm_atom_add_gen_ll(empty_arrivals_counted(stage), 1));
    const std::uint64_t total = before + 1;
    return total <= (std::uint64_t{lap} + 1) * empty_expected_arrivals(stage);
  }

  // The producer claimed `stage` for `lap` (kept as lap + 1; 0: never claimed). Its arrival
  // on the full barrier (release) comes after, so a consumer whose wait saw that phase
  // complete (acquire) reads it. The word is shared by design: every consumer lane reads it,
  // but only some lanes arrive on the empty barrier, so the producer's next claim may write it
  // while a lane that did not arrive still reads (a newer lap, which passes the check). Both
  // sides are atomics, saying the race is meant (racecheck flagged the plain accesses).
  LINPIPE_DEVICE void note_producer_claim(std::uint32_t stage, std::uint32_t lap)
    requires(debug_checks)
  {
    (void)__nvvm_atom_xchg_gen_ll(claimed_lap(stage), static_cast<long long>(lap) + 1);
  }
  // Whether a consumer's passed wait on `stage` for consumer lap `lap` saw that lap's phase.
  // The producer's lap runs one ahead of the consumers' for the same fill (it starts at lap 1),
  // so the fill a consumer waits for on lap L is the producer's lap L + 1; a last claim at
  // lap L - 1 or earlier means the wait passed on an older phase of the same parity. A slot
  // the producer never claimed through the pipeline is not judged.
  LINPIPE_DEVICE bool producer_reached(std::uint32_t stage, std::uint32_t lap) const
    requires(debug_checks)
  {
    const auto claimed = static_cast<std::uint64_t>(__nvvm_atom_add_gen_ll(claimed_lap(stage), 0));
    return claimed == 0 || claimed >= std::uint64_t{lap} + 1;
  }

  // Block until the producer has filled `stage` on `lap` (waits on parity lap & 1).
  LINPIPE_DEVICE void wait_full(std::uint32_t stage, std::uint32_t lap,
                                std::uint32_t suspend_time_hint_ns = default_suspend_time_hint_ns) {
    (void)detail::wait_parity<false>(full(stage), lap, 0, suspend_time_hint_ns);
  }
  // Block until the consumers have released `stage` on `lap` (waits on parity lap & 1).
  LINPIPE_DEVICE void wait_empty(std::uint32_t stage, std::uint32_t lap,
                                 std::uint32_t suspend_time_hint_ns = default_suspend_time_hint_ns) {
    (void)detail::wait_parity<false>(empty(stage), lap, 0, suspend_time_hint_ns);
  }
  // The same waits bounded by budget_cycles SM clock cycles: false if it ran out first.
  LINPIPE_DEVICE bool wait_full_for(std::uint32_t stage, std::uint32_t lap, std::uint64_t budget_cycles,
                                    std::uint32_t suspend_time_hint_ns = default_suspend_time_hint_ns) {
    return detail::wait_parity<true>(full(stage), lap, budget_cycles, suspend_time_hint_ns);
  }
  LINPIPE_DEVICE bool wait_empty_for(std::uint32_t stage, std::uint32_t lap, std::uint64_t budget_cycles,
                                     std::uint32_t suspend_time_hint_ns = default_suspend_time_hint_ns) {
    return detail::wait_parity<true>(empty(stage), lap, budget_cycles, suspend_time_hint_ns);
  }
  LINPIPE_DEVICE bool try_full(std::uint32_t stage, std::uint32_t lap) {
    return ptx::mbarrier_test_wait_parity(full(stage), lap & 1u);
  }
  LINPIPE_DEVICE bool try_empty(std::uint32_t stage, std::uint32_t lap) {
    return ptx::mbarrier_test_wait_parity(empty(stage), lap & 1u);
  }
  LINPIPE_DEVICE void arrive_full(std::uint32_t stage) { (void)ptx::mbarrier_arrive(full(stage)); }
  LINPIPE_DEVICE void arrive_empty(std::uint32_t stage) { (void)ptx::mbarrier_arrive(empty(stage)); }
  LINPIPE_DEVICE Handle full_handle(std::uint32_t stage) { return Handle(full(stage)); }
  LINPIPE_DEVICE Handle empty_handle(std::uint32_t stage) { return Handle(empty(stage)); }

 private:
  using SharedBarrier = __attribute__((address_space(3))) std::uint64_t;

  LINPIPE_DEVICE std::uint64_t* full(std::uint32_t stage) const {
    return (std::uint64_t*)(bars_ + stage);
  }
  LINPIPE_DEVICE std::uint64_t* empty(std::uint32_t stage) const {
    return (std::uint64_t*)(bars_ + NumStages + stage);
  }
  // The debug words after the two init words: a counter per slot, then a claimed lap per slot.
  LINPIPE_DEVICE long long* empty_arrivals_counted(std::uint32_t stage) const {
    return (long long*)(bars_ + 2 * NumStages + 2 + stage);
  }
  LINPIPE_DEVICE long long* claimed_lap(std::uint32_t stage) const {
    return empty_arrivals_counted(NumStages + stage);
  }
  LINPIPE_DEVICE std::uint64_t init_token() const {
    return detail::barrier_init_token(ptx::shared_address(full(0)));
  }

  SharedBarrier* bars_;
};

}  // namespace linpipe
#endif  // __CUDA__
